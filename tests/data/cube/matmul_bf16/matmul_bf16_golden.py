"""Device golden for matmul (Stage 2 contract): c = a @ b with float32 products and sums,
returned in bfloat16, on the run's device.

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


def matmul_bf16_golden(a, b):
    """c[m, n] = sum_k a[m, k] * b[k, n] in float32, returned in a's dtype on a's device."""
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"matmul_bf16_golden expects [M, K] x [K, N], got {tuple(a.shape)} x {tuple(b.shape)}")
    return torch.matmul(a.to(torch.float32), b.to(torch.float32)).to(a.dtype)
