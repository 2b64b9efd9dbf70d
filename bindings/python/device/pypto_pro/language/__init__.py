"""pypto_pro.language (``pl``) on opdev's CPU device.

Decorators, annotations, dtypes and constants are real objects; every other name is a
``DslName`` (kernel bodies are interpreted by opdev's simulator from the source file, never
executed by Python). See opdev.device.dsl.
"""

import opdev.device as _device

_device.install()

from opdev.device.dsl import (DYNAMIC, STATIC, DataType, DslName, Ptr, Scalar, Tensor,  # noqa: E402,F401
                              Tile)
from opdev.device.kernel import function, inline, jit, vector_function  # noqa: E402,F401
from opdev.device.kernel import simt_function as _simt_function  # noqa: E402

for _m in DataType:
    globals()["DT_" + _m.name] = _m
del _m

Vf = DslName("vf")
vf = Vf
system = DslName("pl.system")
class _Simt:
    """pl.simt: ``@pl.simt.function`` is a real decorator; the other names (launch, thread_idx,
    ...) are interpreted by the simulator inside kernels."""

    function = staticmethod(_simt_function)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return DslName("pl.simt." + name)


simt = _Simt()


class _Pipeline:
    """pl.pipeline: ``@pl.pipeline.stage`` marks a function as a pipeline stage (the simulator
    runs stages in program order)."""

    @staticmethod
    def stage(target=None, **_options):
        if callable(target):
            return target
        return lambda f: f

    def __getattr__(self, name):
        return DslName("pl.pipeline." + name)


pipeline = _Pipeline()


class PipelineConfig:
    """pl.PipelineConfig(...): the preload pipeline options of @pl.jit(pipeline=...); a
    compiler transformation, recorded and not applied (kernels run in program order)."""

    def __init__(self, *args, **kwargs):
        self.args = args
        self.kwargs = kwargs


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return DslName("pl." + name)
