"""torch_npu on opdev's CPU device: registers the "npu" device of torch, which is the CPU
(see opdev.device.torch_npu_emulation). Device-only features (the profiler, private
storage formats) raise NotImplementedError naming the feature."""

import opdev.device as _device

npu = _device.install()

from . import profiler  # noqa: E402,F401


def _device_only(name):
    def fn(*_args, **_kwargs):
        raise NotImplementedError("torch_npu.%s is a device-only feature; opdev's CPU device does not "
                                  "provide it" % name)
    fn.__name__ = name
    return fn


npu_format_cast = _device_only("npu_format_cast")
get_npu_format = _device_only("get_npu_format")
npu_trans_quant_param = _device_only("npu_trans_quant_param")
