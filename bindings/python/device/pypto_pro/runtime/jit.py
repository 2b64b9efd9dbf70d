"""pypto_pro.runtime.jit on opdev's CPU device."""

from opdev.device.kernel import JitKernel as _TileJitKernel  # noqa: F401
from opdev.device.kernel import jit  # noqa: F401
