"""opdev: Stage 4 of PyPTO-Pro operator development, from Python.

A thin ctypes binding over the C ABI (``libopdev_c``, see ``opdev.h``). Every step returns
the JSON document the matching ``opdev <step> --json`` command prints, as a :class:`Result`
(a ``dict`` with ``status`` and ``ok`` attributes). A call that fails as a call (bad request,
unreadable input) raises :class:`OpdevError`; findings and precision failures are results
with ``status == 1``, or raise too when ``raise_on_findings=True`` is passed.

    import opdev
    ctx = opdev.Context(target="a5", kb_root="../shared/fixtures/kb")
    report = ctx.check("examples/softmax")
    if not report.ok:
        for d in report["diagnostics"]:
            print(d["file"], d["line"], d["code"], d["message"])

The library is found through ``$OPDEV_C_LIBRARY`` (a path), then next to this package in a
build tree (``build/*/lib``), then by the system loader (``libopdev_c.so.1``).
"""

import ctypes
import ctypes.util
import glob
import json
import os
import threading

__all__ = ["Context", "OpdevError", "Result", "LaunchTensor", "version", "abi_version", "load_library"]

# The binding's version: equal to the library's (version() asks the loaded library), checked
# together with `opdev --version` by the relocated-install test.
__version__ = "0.1.0"
ABI_VERSION = 1
_OK, _FINDINGS, _ERROR = 0, 1, 2


class OpdevError(Exception):
    """A step failed as a call, or (with raise_on_findings) reported findings.

    ``status`` is the step's status, ``document`` the JSON document (a dict),
    ``diagnostics`` the list of diagnostic records it carried (possibly empty)."""

    def __init__(self, message, status=_ERROR, document=None):
        super().__init__(message)
        self.status = status
        self.document = document or {}
        self.diagnostics = _collect_diagnostics(self.document)


class Result(dict):
    """A step's JSON document with the step's status. An object document is the dict itself;
    `document` is the document as parsed, also when it is a list (the hazard catalogue,
    `lint --show` of a legacy name)."""

    def __init__(self, document, status):
        super().__init__(document if isinstance(document, dict) else {})
        self.document = document
        self.status = status

    @property
    def ok(self):
        return self.status == _OK


def _collect_diagnostics(doc):
    found = []

    def walk(v):
        if isinstance(v, dict):
            for k, x in v.items():
                if k in ("diagnostics", "findings", "hazards") and isinstance(x, list):
                    found.extend(i for i in x if isinstance(i, dict) and "code" in i)
                else:
                    walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(doc)
    return found


_lib = None
_lib_lock = threading.Lock()
_LOG_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p)


def _candidates():
    env = os.environ.get("OPDEV_C_LIBRARY")
    if env:
        yield env
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.abspath(os.path.join(here, "..", "..", ".."))
    for path in sorted(glob.glob(os.path.join(root, "build", "*", "lib", "libopdev_c.so*"))):
        yield path
    found = ctypes.util.find_library("opdev_c")
    if found:
        yield found
    yield "libopdev_c.so.%d" % ABI_VERSION


def load_library(path=None):
    """Loads (once) and returns the C library; `path` overrides the search."""
    global _lib
    with _lib_lock:
        if _lib is not None and path is None:
            return _lib
        errors = []
        for candidate in ([path] if path else _candidates()):
            try:
                lib = ctypes.CDLL(candidate)
            except OSError as e:
                errors.append("%s: %s" % (candidate, e))
                continue
            _declare(lib)
            if lib.opdev_abi_version() != ABI_VERSION:
                errors.append("%s: ABI %d, expected %d" % (candidate, lib.opdev_abi_version(), ABI_VERSION))
                continue
            _lib = lib
            return lib
        raise OpdevError("cannot load libopdev_c: " + "; ".join(errors))


def _declare(lib):
    c = ctypes
    lib.opdev_version.restype = c.c_char_p
    lib.opdev_version.argtypes = []
    lib.opdev_abi_version.restype = c.c_int
    lib.opdev_abi_version.argtypes = []
    lib.opdev_context_new.restype = c.c_void_p
    lib.opdev_context_new.argtypes = [c.c_char_p]
    lib.opdev_context_free.restype = None
    lib.opdev_context_free.argtypes = [c.c_void_p]
    lib.opdev_set_log_callback.restype = None
    lib.opdev_set_log_callback.argtypes = [c.c_void_p, _LOG_FN, c.c_void_p]
    lib.opdev_last_error.restype = c.c_char_p
    lib.opdev_last_error.argtypes = [c.c_void_p]
    lib.opdev_string_free.restype = None
    lib.opdev_string_free.argtypes = [c.c_void_p]
    for name in ("check", "plan", "gen", "lint", "budget", "sim", "run", "compare",
                 "usage_generate", "usage_check", "selfcheck", "stage"):
        fn = getattr(lib, "opdev_" + name)
        fn.restype = c.c_int
        fn.argtypes = [c.c_void_p, c.c_char_p, c.POINTER(c.c_void_p)]
    lib.opdev_compare_buffers.restype = c.c_int
    lib.opdev_compare_buffers.argtypes = [
        c.c_void_p, c.c_void_p, c.c_char_p, c.c_void_p, c.c_char_p,
        c.POINTER(c.c_int64), c.c_size_t, c.c_char_p, c.POINTER(c.c_void_p)]
    lib.opdev_launch.restype = c.c_int
    lib.opdev_launch.argtypes = [c.c_void_p, c.c_char_p, c.POINTER(LaunchTensor), c.c_size_t,
                                 c.POINTER(c.c_void_p)]


class LaunchTensor(ctypes.Structure):
    """opdev_tensor: a tensor in the caller's memory for Context.launch."""

    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_char_p),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("ndim", ctypes.c_size_t),
                ("name", ctypes.c_char_p)]


def version():
    return load_library().opdev_version().decode()


def abi_version():
    return load_library().opdev_abi_version()


def _drop_none(d):
    return {k: v for k, v in d.items() if v is not None}


class Context:
    """One opdev context (target, KB root, Python interpreter). Use one per thread."""

    def __init__(self, target=None, kb_root=None, python=None, log=None, library=None):
        self._lib = load_library(library)
        options = _drop_none({"target": target, "kb_root": kb_root, "python": python})
        handle = self._lib.opdev_context_new(json.dumps(options).encode())
        if not handle:
            raise OpdevError(self._lib.opdev_last_error(None).decode())
        self._handle = ctypes.c_void_p(handle)
        self._log_cb = None
        if log is not None:
            self.set_log(log)

    def close(self):
        if getattr(self, "_handle", None):
            self._lib.opdev_context_free(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def set_log(self, fn):
        """fn(level: int, message: str) receives progress lines; None removes it."""
        if fn is None:
            self._log_cb = _LOG_FN()
        else:
            self._log_cb = _LOG_FN(lambda _u, level, msg: fn(level, msg.decode("utf-8", "replace")))
        self._lib.opdev_set_log_callback(self._handle, self._log_cb, None)

    @property
    def last_error(self):
        return self._lib.opdev_last_error(self._handle).decode()

    def _finish(self, status, out, raise_on_findings):
        text = ctypes.string_at(out.value).decode("utf-8") if out.value else "{}"
        self._lib.opdev_string_free(out)
        doc = json.loads(text)
        if status == _ERROR:
            raise OpdevError(doc.get("error") or self.last_error, status, doc)
        if status == _FINDINGS and raise_on_findings:
            raise OpdevError("step reported findings", status, doc)
        return Result(doc, status)

    def _call(self, name, request, raise_on_findings=False):
        if self._handle is None:
            raise OpdevError("context is closed")
        out = ctypes.c_void_p()
        fn = getattr(self._lib, "opdev_" + name)
        status = fn(self._handle, json.dumps(_drop_none(request)).encode(), ctypes.byref(out))
        return self._finish(status, out, raise_on_findings)

    # --- the steps -------------------------------------------------------------------------
    def check(self, op_dir, raise_on_findings=False, **kw):
        return self._call("check", dict(kw, op_dir=op_dir), raise_on_findings)

    def plan(self, op_dir, module_k=None, finalize=None, **kw):
        return self._call("plan", dict(kw, op_dir=op_dir, module_k=module_k, finalize=finalize))

    def gen(self, op_dir, module_k=None, finalize=None, out=None, **kw):
        return self._call("gen", dict(kw, op_dir=op_dir, module_k=module_k, finalize=finalize, out=out))

    def lint(self, files, show=None, **kw):
        """API-catalog check of kernel files (a path or a list of paths); or, with `show`,
        one catalog entry (then `files` may be None)."""
        if isinstance(files, (str, bytes, os.PathLike)):
            files = [files]
        return self._call("lint", dict(kw, file=[os.fspath(f) for f in files] if files else None,
                                       show=show))

    def sim(self, file, entry, inputs=(), out_dir=None, scalars=(), **kw):
        """Runs `entry` of a kernel file on the CPU simulator with .npy `inputs` (request key
        "in") and extra `scalars`; writes the outputs to out_dir/<name>.npy. Other request keys
        pass through as keywords, e.g. ``work_budget=10**6`` (work units before the run stops
        with SIM-WORK-BUDGET; default from the problem size)."""
        return self._call("sim", dict(kw, file=os.fspath(file), entry=entry,
                                      out_dir=os.fspath(out_dir) if out_dir else None,
                                      scalar=list(scalars) or None,
                                      **{"in": [os.fspath(p) for p in inputs] or None}))

    def hazards(self):
        """The simulator's hazard catalogue."""
        return self._call("sim", {"hazards": True})

    def budget(self, path, svg=None, **kw):
        return self._call("budget", dict(kw, path=path, svg=svg))

    def run(self, op_dir, backend="sim", case=None, **kw):
        return self._call("run", dict(kw, op_dir=op_dir, backend=backend, case=case))

    def usage_generate(self, op_dir, module_k=None, finalize=None, **kw):
        return self._call("usage_generate", dict(kw, op_dir=op_dir, module_k=module_k, finalize=finalize))

    def usage_check(self, op_dir, mode=None, **kw):
        return self._call("usage_check", dict(kw, op_dir=op_dir, mode=mode))

    def selfcheck(self, op_dir, module_k=None, finalize=None, **kw):
        return self._call("selfcheck", dict(kw, op_dir=op_dir, module_k=module_k, finalize=finalize))

    def stage(self, op_dir, backend="sim", module_k=None, finalize=None, no_gen=None, **kw):
        return self._call("stage", dict(kw, op_dir=op_dir, backend=backend, module_k=module_k,
                                        finalize=finalize, no_gen=no_gen))

    def compare(self, actual, golden, dtype=None, tile=None, actual_dtype=None,
                golden_dtype=None, **kw):
        """Scheme-A verdict. `actual`/`golden` are .npy paths (or lists of paths / None for
        multi-output operators), or NumPy arrays (read in place, without a copy, through the
        buffer protocol). For bfloat16 pass uint16 arrays with actual_dtype/golden_dtype
        "bfloat16"."""
        if _is_array(actual) or _is_array(golden):
            return self._compare_arrays(actual, golden, dtype, tile, actual_dtype, golden_dtype, kw)
        a = actual if isinstance(actual, (list, tuple)) else [actual]
        g = golden if isinstance(golden, (list, tuple)) else [golden]
        if len(a) != len(g):
            raise OpdevError("output count mismatch: actual=%d vs golden=%d" % (len(a), len(g)))
        pairs = [[str(x) if x is not None else "none", str(y) if y is not None else "none"]
                 for x, y in zip(a, g)]
        req = dict(kw, pairs=pairs, dtype=dtype, tile=list(tile) if tile else None,
                   actual_dtype=actual_dtype, golden_dtype=golden_dtype)
        return self._call("compare", req)

    def launch(self, request, tensors=()):
        """One kernel launch on the CPU simulator (opdev_launch). `request` is the launch
        request (a dict, see opdev.h); `tensors` are (address, dtype name, shape, name)
        tuples of C-contiguous memory the launch reads and writes in place. Returns the
        result document; status 1 (findings) is a result, status 2 raises OpdevError."""
        if self._handle is None:
            raise OpdevError("context is closed")
        arr = (LaunchTensor * max(1, len(tensors)))()
        keep = []
        for i, (address, dtype, shape, name) in enumerate(tensors):
            dims = (ctypes.c_int64 * max(1, len(shape)))(*shape)
            keep.append(dims)
            arr[i].data = address or None
            arr[i].dtype = dtype.encode()
            arr[i].shape = dims
            arr[i].ndim = len(shape)
            arr[i].name = (name or "tensor%d" % i).encode()
        out = ctypes.c_void_p()
        status = self._lib.opdev_launch(self._handle, json.dumps(request).encode(), arr,
                                        len(tensors), ctypes.byref(out))
        return self._finish(status, out, False)

    def _compare_arrays(self, actual, golden, dtype, tile, actual_dtype, golden_dtype, kw):
        if not (_is_array(actual) and _is_array(golden)):
            raise OpdevError("compare: pass two arrays or two paths, not one of each")
        a_view, a_name = _array_view(actual, actual_dtype)
        g_view, g_name = _array_view(golden, golden_dtype)
        if tuple(a_view.shape) != tuple(g_view.shape):
            # The standard reports shape mismatches itself; pass the actual's shape and let the
            # library see golden through a file-free path only when shapes agree.
            raise OpdevError("shape mismatch: actual=%s vs golden=%s" % (tuple(a_view.shape), tuple(g_view.shape)))
        shape = (ctypes.c_int64 * max(1, len(a_view.shape)))(*a_view.shape)
        options = json.dumps(_drop_none(dict(kw, dtype=dtype, tile=list(tile) if tile else None))).encode()
        out = ctypes.c_void_p()
        status = self._lib.opdev_compare_buffers(
            self._handle, _address(a_view), a_name.encode(), _address(g_view), g_name.encode(),
            shape, len(a_view.shape), options, ctypes.byref(out))
        return self._finish(status, out, False)


_BUFFER_FORMATS = {"e": "float16", "f": "float32", "d": "float64", "b": "int8", "h": "int16",
                   "i": "int32", "l": "int64", "q": "int64", "B": "uint8", "?": "bool",
                   "H": "uint16", "I": "uint32", "Q": "uint64"}


def _is_array(x):
    return hasattr(x, "__array_interface__") or (hasattr(x, "__buffer__") and not isinstance(x, (str, bytes)))


def _array_view(x, override):
    """A C-contiguous memoryview of x (no copy) and its element type name."""
    view = memoryview(x)
    if not view.c_contiguous:
        raise OpdevError("compare: arrays must be C-contiguous (use numpy.ascontiguousarray)")
    fmt = view.format.lstrip("@=<")
    name = override or _BUFFER_FORMATS.get(fmt)
    if name is None:
        raise OpdevError("compare: unsupported element format %r" % view.format)
    return view, name


def _address(view):
    if view.nbytes == 0:
        return None
    if not view.readonly:
        return ctypes.addressof(ctypes.c_char.from_buffer(view))
    obj = view.obj
    if hasattr(obj, "__array_interface__"):
        return obj.__array_interface__["data"][0]
    raise OpdevError("compare: read-only buffers must be NumPy arrays")
