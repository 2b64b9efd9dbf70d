"""Device golden of softmax (Stage 2 shape): the NPU reference and the device helper."""
import os

import torch

_DEVICE = None


def _get_device():
    global _DEVICE
    if _DEVICE is None:
        try:
            import torch_npu  # noqa: F401
            torch.npu.set_device(int(os.environ.get("TILE_FWK_DEVICE_ID", "0")))
            _DEVICE = torch.device("npu")
        except ImportError:
            _DEVICE = torch.device("cpu")
    return _DEVICE


def softmax_golden(x):
    return torch.softmax(x.float(), dim=-1).to(x.dtype)
