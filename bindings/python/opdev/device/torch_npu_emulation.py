"""The "npu" device of torch on the CPU: what torch_npu adds to torch, with CPU memory.

torch 1.13 has no "npu" device type and no way to register one from Python
(``torch.utils.rename_privateuse1_backend`` arrived in torch 2.1, and a PrivateUse1 backend
needs a C++ kernel for every operator). So the device is emulated at the Python surface:

* ``torch.device`` becomes a thin class whose ``isinstance`` checks are those of the real
  ``torch.device`` and whose constructor maps ``"npu"``, ``"npu:N"`` and ``("npu", N)`` to the
  CPU device;
* every torch factory function and tensor method that takes a device (``torch.empty``,
  ``torch.randn``, ..., ``Tensor.to``, ``Tensor.new_*``) maps an npu device argument to the CPU;
* ``Tensor.npu()`` / ``.to("npu")`` copy a CPU tensor (as a host-to-device copy does) and mark
  the result as living on the device; ``Tensor.cpu()`` of a device tensor copies it back;
  ``Tensor.is_npu`` reads the mark;
* ``torch.empty``/``empty_like``/``empty_strided``/``Tensor.new_empty`` on the device return
  memory filled with 0xFF bytes (NaN in every float width), as uninitialised device memory is
  not zero: a kernel that leaves an output unwritten is not saved by a lucky zero;
* ``torch.npu`` (and ``torch_npu.npu``): is_available, device_count, set_device,
  current_device, synchronize, get_device_name, streams and events, memory queries.

Device tensors report ``x.device == device(type='cpu')`` (there is no npu device type to report).
"""

import contextlib
import functools
import os
import threading
import time
import types

import torch

_REAL_DEVICE = torch._C.device if hasattr(torch._C, "device") else type(torch.device("cpu"))
_CPU = _REAL_DEVICE("cpu")
_MARK = "_opdev_on_npu"
_installed = False
_lock = threading.Lock()

_state = {"device": 0, "count": 8, "name": "Ascend950PR"}


class NpuDeviceError(RuntimeError):
    pass


def _npu_index(dev):
    """The npu index named by `dev`, or None when it does not name the npu device."""
    if isinstance(dev, str):
        s = dev.strip()
        if s == "npu":
            return _state["device"]
        if s.startswith("npu:"):
            try:
                return int(s[4:])
            except ValueError:
                raise RuntimeError("Invalid device string: '%s'" % dev) from None
        return None
    if isinstance(dev, int) and not isinstance(dev, bool):
        return dev  # a bare ordinal means the accelerator (torch_npu convention)
    return None


def _check_index(i):
    if i < 0 or i >= _state["count"]:
        raise NpuDeviceError("Invalid device ordinal %d: the CPU device has %d npu devices (0..%d); "
                             "set OPDEV_NPU_DEVICE_COUNT to change" % (i, _state["count"], _state["count"] - 1))


# One CPU device object per npu index: torch.device("npu:N") returns it, so a device object
# still says which npu it names (identity; every other CPU device object is a host device).
_NPU_DEVICES = {}


def _npu_device(i):
    _check_index(i)
    d = _NPU_DEVICES.get(i)
    if d is None:
        d = _NPU_DEVICES[i] = _REAL_DEVICE("cpu")
    return d


def _npu_index_of_device(dev):
    for i, d in _NPU_DEVICES.items():
        if d is dev:
            return i
    return None


def _map_device(dev):
    """`dev` with an npu device replaced by the CPU device; other values unchanged."""
    if dev is None or isinstance(dev, _REAL_DEVICE):
        return dev
    i = _npu_index(dev)
    if i is None:
        return dev
    _check_index(i)
    return _CPU


def _is_npu_arg(dev):
    if dev is None:
        return False
    if isinstance(dev, _REAL_DEVICE):
        return _npu_index_of_device(dev) is not None
    return _npu_index(dev) is not None


class _DeviceMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _REAL_DEVICE)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, _REAL_DEVICE)

    def __call__(cls, *args, **kwargs):
        if args and isinstance(args[0], str):
            t = args[0].strip()
            if t == "npu" and len(args) == 2:
                return _npu_device(int(args[1]))
            if t == "npu" or t.startswith("npu:"):
                return _npu_device(_npu_index(t))
        return _REAL_DEVICE(*args, **kwargs)


class device(metaclass=_DeviceMeta):  # noqa: N801  (torch's spelling)
    """torch.device that accepts "npu", "npu:N" and ("npu", N) (mapped to the CPU)."""


def _mark(t):
    if isinstance(t, torch.Tensor):
        try:
            setattr(t, _MARK, True)
        except (AttributeError, RuntimeError):
            pass
    return t


def _is_marked(t):
    return bool(getattr(t, _MARK, False))


def _poison(t):
    """Fills a fresh tensor's bytes with 0xFF (uninitialised device memory)."""
    if t.numel() > 0 and t.is_contiguous() and t.dtype != torch.bool:
        with torch.no_grad():
            t.view(torch.uint8).fill_(0xFF) if t.dim() > 0 else t.reshape(1).view(torch.uint8).fill_(0xFF)
    return t


_FACTORIES = ["empty", "zeros", "ones", "full", "rand", "randn", "randint", "randperm", "arange",
              "range", "linspace", "logspace", "eye", "tensor", "as_tensor", "empty_like",
              "zeros_like", "ones_like", "full_like", "rand_like", "randn_like", "randint_like",
              "empty_strided", "scalar_tensor", "normal", "tril_indices", "triu_indices",
              "bernoulli", "asarray", "sparse_coo_tensor", "hann_window", "hamming_window",
              "bartlett_window", "blackman_window", "kaiser_window"]
_EMPTY = {"empty", "empty_like", "empty_strided"}


def _wrap_factory(name, fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        on_npu = "device" in kwargs and _is_npu_arg(kwargs["device"])
        if "device" in kwargs:
            kwargs["device"] = _map_device(kwargs["device"])
        if name.endswith("_like") and "device" not in kwargs and args and _is_marked(args[0]):
            on_npu = True
        out = fn(*args, **kwargs)
        if on_npu and isinstance(out, torch.Tensor):
            if name in _EMPTY:
                _poison(out)
            _mark(out)
        return out
    wrapper._opdev_wrapped = fn
    return wrapper


def _device_like(x):
    return isinstance(x, (str, _REAL_DEVICE)) or (isinstance(x, int) and not isinstance(x, bool))


def _to(self, *args, **kwargs):
    args = list(args)
    if "device" in kwargs:
        dev = kwargs["device"]
        kwargs["device"] = _map_device(dev)
    elif args and _device_like(args[0]):
        dev = args[0]
        args[0] = _map_device(dev)
    else:
        dev = None
    out = _REAL_TO(self, *args, **kwargs)
    if dev is None:
        return out
    if _is_npu_arg(dev):
        if out is self and not _is_marked(self):
            out = self.clone()  # host-to-device copy
        return _mark(out)
    if _is_marked(self) and out is self:
        out = self.clone()  # device-to-host copy
        setattr(out, _MARK, False)
    return out


def _npu(self, device=None, non_blocking=False, memory_format=torch.preserve_format):
    if device is not None and not isinstance(device, _REAL_DEVICE):
        i = _npu_index(device)
        if i is not None:
            _check_index(i)
    if _is_marked(self):
        return self
    return _mark(self.clone(memory_format=memory_format))


def _cpu(self, memory_format=torch.preserve_format):
    if _is_marked(self):
        out = self.clone(memory_format=memory_format)
        setattr(out, _MARK, False)
        return out
    return _REAL_CPU(self, memory_format=memory_format)


def _wrap_new(name, fn):
    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        on_npu = _is_marked(self)
        if "device" in kwargs:
            on_npu = _is_npu_arg(kwargs["device"])
            kwargs["device"] = _map_device(kwargs["device"])
        out = fn(self, *args, **kwargs)
        if on_npu:
            if name == "new_empty":
                _poison(out)
            _mark(out)
        return out
    return wrapper


class Stream:
    """torch.npu.Stream on the CPU device: work runs synchronously, so a stream is only a handle."""

    _as_parameter_ = None

    def __init__(self, device=None, priority=0, **_kw):
        self.device = _CPU
        self.priority = priority

    def synchronize(self):
        pass

    def wait_stream(self, _stream):
        pass

    def wait_event(self, _event):
        pass

    def record_event(self, event=None):
        event = event or Event()
        event.record(self)
        return event

    def query(self):
        return True

    def __eq__(self, other):
        return isinstance(other, Stream)

    def __hash__(self):
        return 0


class Event:
    """torch.npu.Event: records host time (kernels run synchronously on the CPU device)."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self.enable_timing = enable_timing
        self._t = None

    def record(self, stream=None):
        self._t = time.perf_counter()

    def synchronize(self):
        pass

    def wait(self, stream=None):
        pass

    def query(self):
        return True

    def elapsed_time(self, end):
        if self._t is None or end._t is None:
            raise RuntimeError("Event.elapsed_time: both events must be recorded")
        return (end._t - self._t) * 1000.0


_default_stream = Stream()


def _make_npu_module():
    m = types.ModuleType("torch.npu")
    m.__doc__ = "torch.npu of opdev's CPU device (kernels run on opdev's simulator)."

    def is_available():
        return True

    def device_count():
        return _state["count"]

    def set_device(dev):
        if isinstance(dev, _REAL_DEVICE):
            i = _npu_index_of_device(dev)
            if i is None:
                raise NpuDeviceError("set_device: expected an npu device, got %r" % (dev,))
        else:
            i = _npu_index(dev)
            if i is None:
                raise NpuDeviceError("set_device: expected an npu device, got %r" % (dev,))
        _check_index(i)
        _state["device"] = i

    def current_device():
        return _state["device"]

    def synchronize(device=None):
        pass

    def get_device_name(device=None):
        return _state["name"]

    def get_device_properties(device=None):
        return types.SimpleNamespace(name=_state["name"], total_memory=64 * 1024 ** 3,
                                     major=0, minor=0, multi_processor_count=0)

    def current_stream(device=None):
        return _default_stream

    def default_stream(device=None):
        return _default_stream

    @contextlib.contextmanager
    def stream(s=None):
        yield s

    def manual_seed(seed):
        torch.manual_seed(seed)

    def manual_seed_all(seed):
        torch.manual_seed(seed)

    def is_current_stream_capturing():
        return False

    m.is_available = is_available
    m.device_count = device_count
    m.set_device = set_device
    m.current_device = current_device
    m.synchronize = synchronize
    m.get_device_name = get_device_name
    m.get_device_properties = get_device_properties
    m.current_stream = current_stream
    m.default_stream = default_stream
    m.stream = stream
    m.Stream = Stream
    m.Event = Event
    m.manual_seed = manual_seed
    m.manual_seed_all = manual_seed_all
    m.seed = lambda: torch.seed()
    m.initial_seed = lambda: torch.initial_seed()
    m.is_initialized = lambda: True
    m.init = lambda: None
    m.empty_cache = lambda: None
    m.memory_allocated = lambda device=None: 0
    m.max_memory_allocated = lambda device=None: 0
    m.memory_reserved = lambda device=None: 0
    m.max_memory_reserved = lambda device=None: 0
    m.reset_peak_memory_stats = lambda device=None: None
    m.is_current_stream_capturing = is_current_stream_capturing
    m.utils = types.SimpleNamespace(is_available=is_available)
    return m


class _GeneratorMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, cls._real)

    def __call__(cls, device="cpu"):
        return cls._real(device=_map_device(device))


npu = None
_REAL_TO = torch.Tensor.to
_REAL_CPU = torch.Tensor.cpu


def install(device_name="Ascend950PR"):
    """Installs the npu device into torch (idempotent) and returns the torch.npu module."""
    global _installed, npu
    with _lock:
        _state["name"] = device_name
        try:
            _state["count"] = max(1, int(os.environ.get("OPDEV_NPU_DEVICE_COUNT", "8")))
        except ValueError:
            _state["count"] = 8
        try:
            _state["device"] = int(os.environ.get("TILE_FWK_DEVICE_ID", "0"))
        except ValueError:
            _state["device"] = 0
        if _state["device"] >= _state["count"] or _state["device"] < 0:
            _state["device"] = 0
        if _installed:
            return npu
        torch.device = device
        for name in _FACTORIES:
            fn = getattr(torch, name, None)
            if fn is not None and not hasattr(fn, "_opdev_wrapped"):
                setattr(torch, name, _wrap_factory(name, fn))
        torch.Tensor.to = _to
        torch.Tensor.npu = _npu
        torch.Tensor.cpu = _cpu
        torch.Tensor.is_npu = property(_is_marked)
        for name in ("new_empty", "new_zeros", "new_ones", "new_full", "new_tensor"):
            setattr(torch.Tensor, name, _wrap_new(name, getattr(torch.Tensor, name)))
        torch.Generator = _GeneratorMeta("Generator", (), {"_real": torch.Generator})
        npu = _make_npu_module()
        torch.npu = npu
        import sys
        sys.modules.setdefault("torch.npu", npu)
        _installed = True
        return npu
