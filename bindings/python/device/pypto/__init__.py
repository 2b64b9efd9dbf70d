"""pypto on opdev's CPU device: the names PyPTO-Pro programs use.

``pypto.options(...)`` steers the compiler's passes; on the CPU device it is a documented
no-op that works as a decorator and as a context manager. ``pypto.DT_*`` are the dtypes.
Any other name raises AttributeError naming the CPU device.
"""

import contextlib
import functools

import opdev.device as _device

_device.install()

from opdev.device.dsl import DataType  # noqa: E402

for _m in DataType:
    globals()["DT_" + _m.name] = _m
del _m


class options(contextlib.ContextDecorator):  # noqa: N801  (pypto's spelling)
    """pypto.options(pass_options=..., ...): compiler options; no effect on the CPU device."""

    def __init__(self, *args, **kwargs):
        self.args = args
        self.kwargs = kwargs

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def set_options(*_args, **_kwargs):
    """No effect on the CPU device (compiler options)."""


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError("pypto.%s is not provided by opdev's CPU device (only the names PyPTO-Pro "
                         "programs use: options, DT_*)" % name)
