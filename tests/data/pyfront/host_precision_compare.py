"""Scheme-A precision comparison: per-element tolerance plus matched-ratio gate."""
import math

import torch

THRESHOLDS = {
    torch.float16: (2.0 ** -9, 2.0 ** -9, 0.1),
    torch.bfloat16: (2.0 ** -6, 2.0 ** -6, 1.0),
    torch.float32: (2.0 ** -10, 2.0 ** -16, 0.01),
}
ULP = {torch.float16: 2.0 ** -10, torch.bfloat16: 2.0 ** -7, torch.float32: 2.0 ** -23}


class PrecisionError(AssertionError):
    pass


def check_precision(actual: torch.Tensor, golden: torch.Tensor, *, label: str = "out") -> dict:
    if actual.shape != golden.shape:
        raise PrecisionError(f"[{label}] shape mismatch: {tuple(actual.shape)} vs {tuple(golden.shape)}")
    if not actual.dtype.is_floating_point:
        ok = bool(torch.equal(actual, golden))
        if not ok:
            raise PrecisionError(f"[{label}] integer outputs differ")
        return {"matched_ratio": 1.0, "max_abs_error": 0}
    rtol, atol, fixed = THRESHOLDS[golden.dtype]
    a = actual.double()
    g = golden.double()
    nan_a, nan_g = torch.isnan(a), torch.isnan(g)
    if not torch.equal(nan_a, nan_g):
        raise PrecisionError(f"[{label}] NaN positions differ")
    valid = ~nan_g
    err = (a - g).abs()[valid]
    matched = (err <= atol + rtol * g.abs()[valid]).double().mean().item() if err.numel() else 1.0
    max_err = err.max().item() if err.numel() else 0.0
    limit = max(fixed, 32 * ULP[golden.dtype] * max(1.0, g.abs().max().item()))
    stats = {"matched_ratio": matched, "max_abs_error": max_err}
    if matched < 0.99 or max_err > limit or math.isnan(max_err):
        raise PrecisionError(f"[{label}] precision not met: {stats!r} (limit={limit:.3e})")
    print(f"[{label}] PASS (matched_ratio={matched:.6f}, max_abs_error={max_err:.3e})")
    return stats
