"""pypto_pro on opdev's CPU device (see opdev.device): kernels run on opdev's simulator.

Importing it installs the device: torch gains an "npu" device that is the CPU.
"""

import opdev.device as _device

_device.install()

from opdev.device.dsl import DataType  # noqa: E402
from . import language  # noqa: E402,F401

for _m in DataType:
    globals()["DT_" + _m.name] = _m
del _m

CPU_DEVICE = True  # this pypto_pro is opdev's CPU device, not the NPU frontend
