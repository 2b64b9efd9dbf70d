"""Device golden for matmul_softmax (Stage 2 contract): y = softmax(q @ k^T, dim=-1) with
float32 scores, returned in float16, on the run's device.

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


def matmul_softmax_golden(q, k):
    """y = softmax(q @ k^T) over the last axis, scores in float32, returned in q's dtype."""
    if q.dim() != 2 or k.dim() != 2 or q.shape[1] != k.shape[1]:
        raise ValueError(f"matmul_softmax_golden expects [M, D] and [N, D], got {tuple(q.shape)} and {tuple(k.shape)}")
    s = torch.matmul(q.to(torch.float32), k.to(torch.float32).transpose(0, 1))
    return torch.softmax(s, dim=-1).to(q.dtype)
