"""precision_compare for a test without its own copy: opdev's scheme-A engine.

The pipeline copies ``precision_compare.py`` next to every test; that copy (first on
``sys.path``, the test's directory) is the one a test imports. When there is none, this
module answers ``check_precision(actual, golden, dtype_str=None) -> (passed, summary)`` with
opdev's implementation of the same fixed standard (docs/precision.md: same verdict, same
metrics, same summary text) and says so once with a warning, so a missing copy is visible.
"""

import warnings

import numpy as np
import torch

import opdev

__all__ = ["check_precision"]

_warned = [False]
_ctx = []
_DTYPES = {"float16": "float16", "half": "float16", "bfloat16": "bfloat16", "float32": "float32",
           "float": "float32", "float64": "float64", "double": "float64"}


def _array(t):
    t = t.detach().cpu().contiguous() if isinstance(t, torch.Tensor) else torch.as_tensor(t)
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16), "bfloat16"
    return t.numpy(), None


def _normalize(x):
    if x is None or isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (tuple, list)):
        for i, item in enumerate(x):
            if item is not None and not isinstance(item, torch.Tensor):
                raise TypeError("unsupported output leaf at index %d: %s" % (i, type(item).__name__))
        return list(x)
    raise TypeError("unsupported output type: %s" % type(x).__name__)


def check_precision(actual, golden, dtype_str=None):
    if not _warned[0]:
        _warned[0] = True
        warnings.warn("precision_compare.py is not next to the test: opdev's scheme-A engine "
                      "(same standard) answers check_precision", UserWarning, stacklevel=2)
    try:
        actuals, goldens = _normalize(actual), _normalize(golden)
    except TypeError as error:
        return False, str(error)
    if len(actuals) != len(goldens):
        return False, "output count mismatch: actual=%d vs golden=%d" % (len(actuals), len(goldens))
    if dtype_str is not None and dtype_str not in _DTYPES:
        return False, "unsupported dtype: %s" % dtype_str
    if not _ctx:
        _ctx.append(opdev.Context())
    ctx = _ctx[0]
    passed, summaries, compared = True, [], 0
    for i, (a, g) in enumerate(zip(actuals, goldens)):
        if a is None and g is None:
            continue
        if a is None or g is None:
            passed = False
            summaries.append("output[%d]: one side is None" % i)
            continue
        compared += 1
        prefix = "" if len(actuals) == 1 else "output[%d]: " % i
        if tuple(a.shape) != tuple(g.shape):
            passed = False
            summaries.append("%sshape mismatch: actual=%s vs golden=%s" % (prefix, tuple(a.shape), tuple(g.shape)))
            continue
        a_arr, a_name = _array(a)
        g_arr, g_name = _array(g)
        r = ctx.compare(a_arr, g_arr, dtype=_DTYPES.get(dtype_str) if dtype_str else None,
                        actual_dtype=a_name, golden_dtype=g_name, summary_only=True)
        if not r.ok:
            passed = False
        summaries.append(prefix + r.get("summary", ""))
    if compared == 0:
        passed = False
        summaries.append("no tensor output was compared")
    return passed, "; ".join(summaries)
