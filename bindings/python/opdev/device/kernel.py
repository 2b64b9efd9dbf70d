"""Kernels of the CPU device: ``@pl.jit`` launches run on opdev's simulator.

A launch (``kernel[stream, block_dim](*args)``, ``kernel[block_dim](*args)`` or a plain call
with block_dim 1) checks its arguments as the PyPTO-Pro frontend does (same exception types
and messages), then hands the simulator, through the C ABI (``opdev_launch``):

* the kernel's source file and name (the simulator parses and lowers the file once per
  content hash and interprets the kernel from it);
* the values CPython resolved for the module globals the kernel and the functions it calls
  read (constants, tuples, dtypes and enum members, dataclass instances), which replace the
  simulator's own evaluation of those names;
* the tensors, in place: a contiguous tensor's memory is read and written by the launch
  directly (the library copies it in and writes the result back); a non-contiguous one goes
  through a contiguous copy that is copied back; the same tensor passed twice is one buffer;
* scalars and dataclass arguments.

What the simulator finds comes back as Python expects: compile-time API misuse raises
:class:`KernelCompileError` (a ``ParserError``) with the catalog's message, an error hazard
raises :class:`KernelHazardError` (a ``RuntimeError``) naming ``file:line`` and the code,
warnings become :class:`SimulatorWarning` warnings at the kernel's line.
"""

import dataclasses
import enum
import functools
import inspect
import math
import os
import threading
import types
import warnings

import torch

from . import dsl
from .errors import (COMPILE_TIME_SIM_CODES, SYNTAX_ERROR_CODES, KernelCompileError, KernelCompileSyntaxError,
                     KernelHazardError, SimulatorWarning, UnsupportedKernelError)

_ctx = None
_ctx_lock = threading.Lock()


def _context():
    global _ctx
    with _ctx_lock:
        if _ctx is None:
            import opdev

            _ctx = opdev.Context(target=config()["target"])
        return _ctx


_config = {"target": None}


def config():
    if _config["target"] is None:
        t = os.environ.get("OPDEV_DEVICE_TARGET", "a5").strip().lower() or "a5"
        if t not in ("a5", "a3"):
            raise RuntimeError("OPDEV_DEVICE_TARGET must be a5 or a3, got %r" % t)
        _config["target"] = t
    return _config


def platform_counts():
    """(core_num, cube_core_num, vector_core_num) of the simulated chip."""
    def env_int(name, default):
        try:
            return max(1, int(os.environ.get(name, default)))
        except ValueError:
            return default
    cube = env_int("OPDEV_CUBE_CORES", 24)
    vec = env_int("OPDEV_VECTOR_CORES", 48)
    return cube, cube, vec


def pipe_sync():
    """The intra-core pipe model: on unless ``OPDEV_PIPE_SYNC=0`` (docs/simulator.md)."""
    return os.environ.get("OPDEV_PIPE_SYNC", "1").strip() not in ("0", "false", "no", "off")


def schedule_seed():
    """The launches' interleaving seed (``OPDEV_SCHEDULE_SEED``, 0: the fixed core order)."""
    text = os.environ.get("OPDEV_SCHEDULE_SEED", "0").strip() or "0"
    try:
        seed = int(text)
    except ValueError:
        raise RuntimeError("OPDEV_SCHEDULE_SEED must be a non-negative integer, got %r" % text) from None
    if seed < 0:
        raise RuntimeError("OPDEV_SCHEDULE_SEED must be a non-negative integer, got %r" % text)
    return seed


# ---- values for the simulator ---------------------------------------------------------

class _Unserializable(Exception):
    pass


def _encode(value, tensors, index_of, depth=0):
    """A Python value as a launch-request value (see opdev.h, opdev_launch)."""
    if depth > 16:
        raise _Unserializable("nested too deeply")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        if not -(2 ** 63) <= value < 2 ** 63:
            raise _Unserializable("integer %d does not fit in 64 bits" % value)
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return {"float": "nan"}
        if math.isinf(value):
            return {"float": "inf" if value > 0 else "-inf"}
        return value
    if isinstance(value, torch.Tensor):
        if tensors is None:
            raise _Unserializable("a tensor")
        return {"tensor": index_of(value)}
    if isinstance(value, dsl.DataType):
        return {"const": value.qualified}
    if isinstance(value, (dsl.DslName, dsl._Sentinel)):
        return {"const": value.qualified}
    if isinstance(value, tuple):
        return {"tuple": [_encode(v, tensors, index_of, depth + 1) for v in value]}
    if isinstance(value, list):
        return {"list": [_encode(v, tensors, index_of, depth + 1) for v in value]}
    if isinstance(value, enum.Enum) and isinstance(value.value, (int, str)):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: _encode(getattr(value, f.name), tensors, index_of, depth + 1)
                  for f in dataclasses.fields(value)}
        return {"object": type(value).__name__, "fields": fields}
    if isinstance(value, _FunctionRef):
        return {"function": value.func.__qualname__, "line": value.func.__code__.co_firstlineno}
    raise _Unserializable(type(value).__name__)


class _FunctionRef:
    """A function of the launched file held by a closure variable: the simulator finds its def by
    qualname and first line (`co_firstlineno`: the first decorator line of a decorated def)."""

    def __init__(self, func):
        self.func = func


def _code_names(code, out):
    out.update(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _code_names(c, out)


def _function_of(value):
    if isinstance(value, JitKernel):
        return value._func
    f = getattr(value, "_opdev_function", None)
    if f is not None:
        return f
    if isinstance(value, types.FunctionType):
        return value
    return None


def _reachable_globals(func):
    """{name: value} of the module globals read by `func` and the functions it calls, and of
    the closure variables of the nested ones among them (keyed ``<qualname>:<name>``, the
    simulator's name for a variable of an enclosing function). A closure variable holding a
    function of the same module (a helper or vector function handed to a kernel factory) is
    passed as a reference to its def."""
    module_globals = func.__globals__
    seen_funcs = set()
    result = {}
    work = [func]
    while work:
        f = work.pop()
        if id(f) in seen_funcs:
            continue
        seen_funcs.add(id(f))
        names = set()
        _code_names(f.__code__, names)
        for n in sorted(names):
            if n not in module_globals:
                continue
            v = module_globals[n]
            inner = _function_of(v)
            if inner is not None:
                if getattr(inner, "__globals__", None) is module_globals:
                    work.append(inner)
                continue
            result[n] = v
        for n, cell in zip(f.__code__.co_freevars, f.__closure__ or ()):
            try:
                v = cell.cell_contents
            except ValueError:  # not bound yet
                continue
            inner = _function_of(v)
            if inner is not None:
                if getattr(inner, "__globals__", None) is module_globals:
                    work.append(inner)
                    result["%s:%s" % (f.__qualname__, n)] = _FunctionRef(inner)
                continue
            result["%s:%s" % (f.__qualname__, n)] = v
    return result


# ---- argument checks (the frontend's messages) --------------------------------------------

def _annotations(func, strict=True):
    """The parameter annotations with string annotations evaluated in the function's module.
    `strict`: an annotation that does not evaluate raises (as the frontend); otherwise it stays
    a string."""
    ann = dict(getattr(func, "__annotations__", {}))
    for k, v in list(ann.items()):
        if isinstance(v, str):
            try:
                ann[k] = eval(v, dict(func.__globals__))  # noqa: S307 (the frontend does the same)
            except Exception as exc:
                if strict:
                    raise TypeError("Failed to evaluate annotations for kernel '%s': %s"
                                    % (func.__name__, exc)) from exc
    return ann


def _torch_dtype(pl_dtype):
    name = dsl.TORCH_NAME.get(pl_dtype)
    return getattr(torch, name, None) if name else None


def _check_tensor(name, value, ann):
    if value is None:
        return
    shape = getattr(value, "shape", None)
    if shape is None:
        raise TypeError("Tensor parameter '%s' must provide a shape, got %s" % (name, type(value).__name__))
    dims = ann.shape
    fixed = [d for d in dims if d is not Ellipsis]
    if Ellipsis not in dims and len(shape) != len(dims):
        raise ValueError("Tensor parameter '%s' rank mismatch: expected %d, got %d" % (name, len(dims), len(shape)))
    if Ellipsis in dims and len(shape) < len(fixed):
        raise ValueError("Tensor parameter '%s' rank mismatch: expected at least %d, got %d"
                         % (name, len(fixed), len(shape)))
    for axis, d in enumerate(dims):
        if d is Ellipsis:
            break
        if isinstance(d, int) and not isinstance(d, bool) and d > 0 and shape[axis] != d:
            raise ValueError("Tensor parameter '%s' axis %d mismatch: expected %d, got %d" % (name, axis, d, shape[axis]))
    if not isinstance(value, torch.Tensor):
        raise TypeError("Tensor parameter '%s' expected torch.Tensor, got %s" % (name, type(value).__name__))
    expected = _torch_dtype(ann.dtype)
    if expected is not None and value.dtype != expected:
        raise TypeError("Tensor parameter '%s' dtype mismatch: expected %s, got %s" % (name, expected, value.dtype))


def _check_scalar(i, name, value, dtype):
    if not isinstance(dtype, dsl.DataType):
        return
    if not isinstance(value, (int, float, bool)):
        raise TypeError("arg[%d] '%s': expected Python scalar (int/float/bool), got %s" % (i, name, type(value).__name__))
    if isinstance(value, bool):
        if not (dtype == dsl.DataType.BOOL or dtype.is_signed_int() or dtype.is_unsigned_int()):
            raise TypeError("arg[%d] '%s': bool value passed for non-boolean/non-integer dtype %s" % (i, name, dtype))
    elif isinstance(value, float) and not dtype.is_float():
        raise TypeError("arg[%d] '%s': float value passed for non-float dtype %s" % (i, name, dtype))
    elif isinstance(value, int) and not dtype.is_signed_int() and not dtype.is_unsigned_int():
        raise TypeError("arg[%d] '%s': int value passed for non-integer dtype %s" % (i, name, dtype))


def _validate_block_dim(block_dim):
    if not isinstance(block_dim, int) or isinstance(block_dim, bool):
        raise ValueError("block_dim must be a positive integer, got %s: %s" % (type(block_dim).__name__, block_dim))
    if block_dim <= 0:
        raise ValueError("block_dim must be a positive integer, got %s" % block_dim)


# ---- results ---------------------------------------------------------------------------

_COMPILE_CLASSES = {
    "API-KERNEL-SYNTAX": "ParserSyntaxError",
    "API-UNKNOWN": "UndefinedVariableError",
}


def _where(d):
    return "%s:%s" % (d.get("file", "?"), d.get("line", 0))


def _raise_findings(kernel_name, doc):
    hazards = doc.get("hazards", [])
    errors = [d for d in hazards if d.get("severity") == "error"]
    for d in hazards:
        if d.get("severity") == "warning":
            warnings.warn_explicit("%s: %s" % (d.get("code"), d.get("message")), SimulatorWarning,
                                   d.get("file") or "<kernel>", int(d.get("line") or 0))
    if doc.get("rejected"):
        first = errors[0] if errors else {}
        lines = ["  %s: error[%s]: %s" % (_where(d), d.get("code"), d.get("message")) for d in errors]
        cls = KernelCompileSyntaxError if first.get("code") in SYNTAX_ERROR_CODES else KernelCompileError
        raise cls("kernel '%s' does not compile:\n%s" % (kernel_name, "\n".join(lines)),
                                 code=first.get("code"), filename=first.get("file"), line=first.get("line"),
                                 diagnostics=errors)
    if errors and errors[0].get("code") in COMPILE_TIME_SIM_CODES:
        first = errors[0]
        raise KernelCompileSyntaxError(
            "kernel '%s' does not compile:\n  %s: error[%s]: %s" % (kernel_name, _where(first), first.get("code"),
                                                                  first.get("message")),
            code=first.get("code"), filename=first.get("file"), line=first.get("line"), diagnostics=errors)
    if errors or not doc.get("completed"):
        first = errors[0] if errors else {}
        lines = ["  %s: error[%s]: %s" % (_where(d), d.get("code"), d.get("message")) for d in errors]
        if not lines:
            lines = ["  the kernel did not run to its end"]
        cls = UnsupportedKernelError if first.get("code") == "SIM-UNSUPPORTED" else KernelHazardError
        raise cls("kernel '%s' failed on the CPU device (opdev simulator):\n%s" % (kernel_name, "\n".join(lines)),
                  code=first.get("code"), filename=first.get("file"), line=first.get("line"),
                  diagnostics=errors)


# ---- the kernel object -----------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class _Specialization:
    """One entry of a kernel's specialisation caches: the variant the frontend would compile."""

    kernel: str
    static_signature: tuple
    tiling_key: tuple = None
    datatype: tuple = None


class JitKernel:
    """``@pl.jit``: a kernel that launches on the CPU device.

    kernel[stream, block_dim](x, y, z)  -- explicit stream and block_dim
    kernel[block_dim](x, y, z)          -- default stream, explicit block_dim
    kernel(x, y, z)                     -- default stream, block_dim=1
    """

    def __init__(self, func, options):
        self._func = func
        self._options = dict(options)
        self._signature = inspect.signature(func)
        self._specs = None
        self.__name__ = func.__name__
        self.__qualname__ = func.__qualname__
        self.__doc__ = func.__doc__
        self.__wrapped__ = func
        self.last_launch = None  # the simulator's document of the last launch
        # The frontend's specialisation caches, under its names (tests inspect and clear them):
        # one entry per static shape signature, datatype and tiling key (see _Specialization).
        self._kernel_def_by_static_signature = {}
        self._compiled_by_signature = {}

    def __repr__(self):
        return "<pl.jit kernel %s (opdev CPU device)>" % self.__qualname__

    @property
    def arch(self):
        return self._options.get("arch")

    @property
    def tilingkey_schema(self):
        return self._options.get("tiling_key")

    @property
    def datatype_schema(self):
        return self._options.get("datatype")

    def _launch_key_error(self):
        tk, dt = self.tilingkey_schema is not None, self.datatype_schema is not None
        if tk and dt:
            return "Expected kernel[stream, block_dim, tilingkey, datatype]"
        if tk:
            return "Expected kernel[stream, block_dim, tilingkey]"
        if dt:
            return "Expected kernel[stream, block_dim, datatype]"
        return "Expected kernel[stream, block_dim] or kernel[block_dim]"

    def _parse_key(self, key):
        tk = dt = None
        if isinstance(key, tuple):
            if len(key) == 4:
                stream, block_dim, tk, dt = key
            elif len(key) == 3:
                stream, block_dim, third = key
                if self.datatype_schema is not None and self.tilingkey_schema is None:
                    dt = third
                else:
                    tk = third
            elif len(key) == 2:
                stream, block_dim = key
            else:
                raise ValueError(self._launch_key_error())
        else:
            stream, block_dim = None, key
        if (self.tilingkey_schema is not None) != (tk is not None):
            raise ValueError(self._launch_key_error())
        if tk is not None:
            self.tilingkey_schema.validate_concrete(tk)
        if (self.datatype_schema is not None) != (dt is not None):
            raise ValueError(self._launch_key_error())
        return stream, block_dim, tk, dt

    def __getitem__(self, key):
        stream, block_dim, tk, dt = self._parse_key(key)

        def launcher(*args, **kwargs):
            args = self._normalize(args, kwargs)
            _validate_block_dim(block_dim)
            return self._launch(block_dim, args, tk, dt)

        return launcher

    def __call__(self, *args, **kwargs):
        if self.tilingkey_schema is not None or self.datatype_schema is not None:
            raise ValueError("Kernel '%s' has compile-time specialization and cannot be called directly; "
                             "use bracket-launch syntax" % self.__name__)
        args = self._normalize(args, kwargs)
        return self._launch(1, args, None, None)

    def _normalize(self, args, kwargs):
        bound = self._signature.bind(*args, **dict(kwargs))
        bound.apply_defaults()
        return tuple(bound.arguments[n] for n in self._signature.parameters)

    def _param_specs(self):
        if self._specs is None:
            ann = _annotations(self._func)
            self._specs = [(n, ann.get(n, p.annotation)) for n, p in self._signature.parameters.items()]
        return self._specs

    def _record_specialization(self, specs, args, tiling_key, datatype):
        """Enter this launch's specialisation in the two caches, keyed as the frontend keys
        them: a pl.STATIC axis and every axis of a final ``...`` take part with its value
        (one variant per distinct value); literal and pl.DYNAMIC axes do not. The CPU device
        itself caches the parsed kernel per source, so the entries only record the variants
        the frontend would compile."""
        static = []
        for index, ((_name, ann), value) in enumerate(zip(specs, args)):
            if not isinstance(ann, dsl.TensorType) or value is None:
                continue
            shape = tuple(int(d) for d in value.shape)
            for axis, d in enumerate(ann.shape):
                if d is Ellipsis:
                    static.extend((index, a, shape[a]) for a in range(axis, len(shape)))
                    break
                if d is dsl.STATIC:
                    static.append((index, axis, shape[axis]))
        static = tuple(static)
        tk = None if tiling_key is None else tuple(sorted(tiling_key.items()))
        dt = None if datatype is None else tuple(sorted((k, str(v)) for k, v in datatype.items()))
        spec = _Specialization(self.__qualname__, static, tk, dt)
        self._kernel_def_by_static_signature.setdefault((static, tk, dt), spec)
        self._compiled_by_signature.setdefault((static, dt, tk), spec)

    def _launch(self, block_dim, args, tiling_key, datatype):
        specs = self._param_specs()
        for i, ((name, ann), value) in enumerate(zip(specs, args)):
            if isinstance(ann, dsl.TensorType):
                _check_tensor(name, value, ann)
            elif isinstance(ann, dsl.PtrType):
                if value is not None and not isinstance(value, torch.Tensor):
                    raise TypeError("arg[%d] '%s': expected torch.Tensor, got %s" % (i, name, type(value).__name__))
            elif not (dataclasses.is_dataclass(value) and not isinstance(value, type)):
                _check_scalar(i, name, value, ann)
        self._record_specialization(specs, args, tiling_key, datatype)
        tensors, staged, buffers = [], [], {}

        def index_of(t):
            key = (t.data_ptr(), tuple(t.shape), tuple(t.stride()), t.dtype) if t.numel() else id(t)
            if key in buffers:
                return buffers[key]
            if t.device.type != "cpu":
                raise RuntimeError("tensor on device %s: the CPU device runs kernels on CPU tensors" % t.device)
            src = t
            if not t.is_contiguous():
                src = t.contiguous()
                staged.append((t, src))
            dtype = str(src.dtype).replace("torch.", "")
            ann = specs[len(tensors)][1] if len(tensors) < len(specs) else None
            if dtype == "uint8" and isinstance(ann, dsl.TensorType) and ann.dtype == dsl.DataType.HF8:
                dtype = "hifloat8"  # HF8 has no torch dtype: a uint8 tensor of codes (jit.py)
            tensors.append((src.data_ptr() if src.numel() else None, dtype, list(src.shape),
                            specs[len(tensors)][0] if len(tensors) < len(specs) else None))
            buffers[key] = len(tensors) - 1
            _keep.append(src)
            return len(tensors) - 1

        _keep = []
        enc_args = []
        for (name, _ann), value in zip(specs, args):
            try:
                enc_args.append(_encode(value, tensors, index_of))
            except _Unserializable as exc:
                raise TypeError("argument '%s' of kernel '%s': a %s cannot be passed to a kernel"
                                % (name, self.__name__, exc)) from None
        globals_ = {}
        for n, v in _reachable_globals(self._func).items():
            try:
                globals_[n] = _encode(v, None, None)
            except _Unserializable:
                pass
        # Datatype specializations become named constants (the dtype variable names of the
        # schema); the tiling-key dict goes to the launch as its own field (bound there).
        named = {}
        if isinstance(datatype, dict) and isinstance(self.datatype_schema, dict):
            for param, var in self.datatype_schema.items():
                if param in datatype:
                    named[var] = datatype[param]
        for k, v in named.items():
            try:
                globals_[str(k)] = _encode(v, None, None)
            except _Unserializable:
                pass
        cube, _cube, vec = platform_counts()
        request = {"file": os.path.abspath(self._func.__code__.co_filename), "kernel": self._func.__qualname__,
                   "line": self._func.__code__.co_firstlineno, "block_dim": block_dim, "args": enc_args, "globals": globals_,
                   "vector_cores": vec, "cube_cores": cube, "schedule_seed": schedule_seed(),
                   "pipe_sync": pipe_sync()}
        if tiling_key is not None:
            request["tiling_key"] = {str(k): _encode(v, None, None) for k, v in tiling_key.items()}
            schema = self.tilingkey_schema
            request["tiling_key_schema"] = {"class": schema.cls_name,
                                            "fields": {f.name: [int(v) for v in f.values] for f in schema._fields}}
        import opdev

        try:
            ctx = _context()
        except opdev.OpdevError as exc:
            raise RuntimeError("opdev CPU device: %s (run the program with `opdev exec -- ...`)" % exc) from None
        try:
            doc = ctx.launch(request, tensors)
        except opdev.OpdevError as exc:
            raise UnsupportedKernelError("kernel '%s' cannot run on the CPU device: %s" % (self.__name__, exc),
                                         code="SIM-UNSUPPORTED") from None
        self.last_launch = dict(doc)
        for t, src in staged:
            if tensors and buffers.get((t.data_ptr(), tuple(t.shape), tuple(t.stride()), t.dtype)) in doc.get("written", []):
                with torch.no_grad():
                    t.copy_(src)
        _raise_findings(self.__name__, doc)
        return None


def _is_tile_kernel(func):
    """The frontend's test for a Tile kernel: some parameter is annotated pl.Tensor[...],
    pl.Ptr[...] or a pl.DT_* scalar type (string annotations evaluated, or matched by name)."""
    for name, val in _annotations(func, strict=False).items():
        if name == "return":
            continue
        if isinstance(val, str):  # not evaluable here: matched by name
            if val.split(".")[-1].startswith("DT_"):
                return True
            continue
        if isinstance(val, (dsl.TensorType, dsl.PtrType, dsl.DataType)) or val in (dsl.Tensor, dsl.Ptr):
            return True
    return False


def jit(target=None, *, arch=None, auto_mutex=True, name=None, pipeline=None, tiling_key=None,
        datatype=None, compile_timeout=None, **kwargs):
    """``@pl.jit`` / ``@pl.jit(...)`` of the CPU device (same options as the frontend's)."""
    schema = None
    if tiling_key is not None:
        from pypto_pro.runtime.tilingkey import TilingKeySchema

        schema = TilingKeySchema(tiling_key)  # a malformed schema fails at decoration, as upstream
    options = dict(arch=arch, auto_mutex=auto_mutex, name=name, pipeline=pipeline, tiling_key=schema,
                   datatype=datatype, compile_timeout=compile_timeout)

    def decorator(f):
        if kwargs:
            raise TypeError("jit() got unexpected keyword argument(s): %s." % ", ".join(kwargs.keys()))
        if not _is_tile_kernel(f):
            # As the frontend: a function with no pl.Tensor / pl.Ptr / pl.DT_* parameter
            # annotation is not a kernel; @pl.jit wraps it as a plain pass-through.
            @functools.wraps(f)
            def wrapper(*args, **kwargs_):
                return f(*args, **kwargs_)
            return wrapper
        return JitKernel(f, options)

    if callable(target):
        return decorator(target)
    return decorator


class _DslFunction:
    """``@pl.vector_function`` / ``@pl.inline`` / ``@pl.function``: a function the simulator
    interprets as part of a kernel. Calling it from host code is an error, as on the device."""

    kind = "function"

    def __init__(self, func):
        self._opdev_function = func
        self.__name__ = func.__name__
        self.__qualname__ = func.__qualname__
        self.__doc__ = func.__doc__
        self.__wrapped__ = func

    def __call__(self, *args, **kwargs):
        raise RuntimeError("%s '%s' can only be called from a @pl.jit kernel" % (self.kind, self.__name__))


class VectorFunction(_DslFunction):
    kind = "@pl.vector_function"


class InlineFunction(_DslFunction):
    kind = "@pl.inline"


def _decorator(cls):
    def deco(target=None, **_options):
        if callable(target):
            return cls(target)
        return cls
    return deco


vector_function = _decorator(VectorFunction)


class SimtFunction(_DslFunction):
    kind = "@pl.simt.function"


def simt_function(fn=None, *, max_threads=None):
    """``@pl.simt.function`` / ``@pl.simt.function(max_threads=N)``: a SIMT function the simulator
    runs once per thread of a ``pl.simt.launch``; without max_threads it is a SIMT helper."""
    if fn is None and max_threads is None:
        raise TypeError("@pl.simt.function requires max_threads or a directly decorated function")

    def wrap(func):
        f = SimtFunction(func)
        f._pypto_simt_max_threads = max_threads
        return f

    return wrap(fn) if fn is not None else wrap
inline = _decorator(InlineFunction)
function = _decorator(_DslFunction)
