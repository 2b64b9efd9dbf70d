"""Golden reference with a cached device choice."""
import os

import torch

_DEVICE = None


def _get_device():
    global _DEVICE
    if _DEVICE is not None:
        return _DEVICE
    try:
        import torch_npu  # noqa: F401
    except ImportError:
        _DEVICE = "cpu"
        return _DEVICE
    if not torch.npu.is_available():
        _DEVICE = "cpu"
    else:
        device_id = int(os.environ.get("TILE_FWK_DEVICE_ID", "0"))
        torch.npu.set_device(device_id)
        _DEVICE = f"npu:{device_id}"
    return _DEVICE


def softmax_golden(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x.float(), dim=-1).to(x.dtype)


def _make_inputs(device, shapes=((1, 4096), (64, 8192))):
    gen = torch.Generator().manual_seed(1234)
    return [torch.randn(*s, generator=gen, dtype=torch.float16).to(device) for s in shapes]


def _validate():
    for x in _make_inputs("cpu"):
        y = softmax_golden(x)
        assert torch.allclose(y.float().sum(-1), torch.ones(x.shape[0]), atol=1e-2), "rows must sum to 1"


if __name__ == "__main__":
    _validate()
