"""Device golden for softmax (Stage 2 contract): the reference on the run's device, in the
operator's dtype chain fp16(in) -> fp32(max, exp, sum, div) -> fp16(out), per SPEC.md.

Exports `_get_device()`: the NPU named by TILE_FWK_DEVICE_ID (default 0) when torch_npu is
installed and a device is visible, otherwise the CPU. No pypto imports (delivery unit).
"""
import os

import torch


def _get_device():
    """Return the device tests must use: an NPU when available, else the CPU."""
    try:
        import torch_npu  # noqa: F401  (registers the "npu" device type)
    except Exception:
        return torch.device("cpu")
    try:
        if torch.npu.is_available() and torch.npu.device_count() > 0:
            index = int(os.environ.get("TILE_FWK_DEVICE_ID", "0"))
            if 0 <= index < torch.npu.device_count():
                return torch.device(f"npu:{index}")
    except Exception:
        pass
    return torch.device("cpu")


def softmax_golden(x):
    """Row softmax over the last axis of a 2-D float16 tensor, on x's device.

    y[b, i] = exp(x[b, i] - m[b]) / s[b], m[b] = max_j x[b, j], s[b] = sum_j exp(x[b, j] - m[b]);
    the max, exp, sum and division run in float32 and the result is returned in x's dtype.
    """
    if x.dim() != 2:
        raise ValueError(f"softmax_golden expects a 2-D [B, N] tensor, got shape {tuple(x.shape)}")
    if x.shape[0] < 1 or x.shape[1] < 1:
        raise ValueError(f"softmax_golden needs B >= 1 and N >= 1, got shape {tuple(x.shape)}")
    xf = x.to(torch.float32)
    m = xf.amax(dim=-1, keepdim=True)
    e = torch.exp(xf - m)
    s = e.sum(dim=-1, keepdim=True)
    return (e / s).to(x.dtype)
