"""torch_npu.profiler: device-only (profiling an NPU); every use raises NotImplementedError."""


def _unavailable(*_args, **_kwargs):
    raise NotImplementedError("torch_npu.profiler is a device-only feature; opdev's CPU device does not provide it")


profile = schedule = tensorboard_trace_handler = _unavailable


class _Names:
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return name


ProfilerActivity = ProfilerLevel = ExportType = AiCMetrics = _Names()
