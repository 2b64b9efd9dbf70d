"""opdev's CPU device for PyPTO-Pro: unmodified PyPTO-Pro programs run on the CPU.

``opdev exec -- python test_op.py`` puts ``bindings/python/device`` (the import packages
``pypto_pro``, ``pypto`` and ``torch_npu``) and this binding on ``PYTHONPATH``. Importing any
of them installs the device once (:func:`install`): torch gains an ``npu`` device that is the
CPU (:mod:`opdev.device.torch_npu_emulation`) and ``@pl.jit`` kernels launch on opdev's
simulator through the C ABI (:mod:`opdev.device.kernel`).

Environment: ``OPDEV_DEVICE_TARGET`` (a5 default, a3), ``OPDEV_NPU_DEVICE_COUNT`` (8),
``OPDEV_VECTOR_CORES`` (48), ``OPDEV_CUBE_CORES`` (24), ``TILE_FWK_DEVICE_ID`` (the
current device at start, 0), ``OPDEV_C_LIBRARY`` (the C library to load),
``OPDEV_SCHEDULE_SEED`` (0: the fixed core order of a launch's concurrent cores; N > 0 a
reproducible permuted interleaving).
"""

from . import dsl, errors, kernel, torch_npu_emulation
from .errors import (KernelCompileError, KernelHazardError, ParserError, SimulatorWarning,
                     UnsupportedKernelError)

__all__ = ["install", "target", "device_name", "KernelCompileError", "KernelHazardError",
           "ParserError", "SimulatorWarning", "UnsupportedKernelError"]

_DEVICE_NAMES = {"a5": "Ascend950PR", "a3": "Ascend910_9392"}
_SOC_VERSIONS = {"a5": "DAV_3510", "a3": "DAV_2201"}


def target():
    """The simulated chip: "a5" or "a3" (``OPDEV_DEVICE_TARGET``)."""
    return kernel.config()["target"]


def device_name():
    return _DEVICE_NAMES[target()]


def soc_version():
    return _SOC_VERSIONS[target()]


def install():
    """Installs the device (idempotent); returns the ``torch.npu`` module."""
    return torch_npu_emulation.install(device_name())
