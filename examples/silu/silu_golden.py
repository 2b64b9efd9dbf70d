"""Device golden for silu (Stage 2 contract): y = x / (1 + exp(-x)) in float32 on x's device.

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


def silu_golden(x):
    """Elementwise SiLU of a 2-D float32 tensor, on x's device."""
    if x.dim() != 2:
        raise ValueError(f"silu_golden expects a 2-D [B, N] tensor, got shape {tuple(x.shape)}")
    return x / (1.0 + torch.exp(-x))
