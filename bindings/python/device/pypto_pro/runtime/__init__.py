"""pypto_pro.runtime on opdev's CPU device: ``jit`` and the platform query."""

import opdev.device as _device

_device.install()

from opdev.device.kernel import jit  # noqa: E402,F401
from . import pipeline, platform  # noqa: E402,F401

__all__ = ["jit"]
