"""Host side of a softmax operator: wrapper, golden and four shape tests."""
import logging
import os

import pytest
import torch

from softmax_golden import _get_device, softmax_golden

TILE_ROWS = 3
CASES = [(16, 128), (7, 300), (2049, 100), (777, 4096)]


def _assert_precision(actual, expected, label):
    from precision_compare import check_precision  # dev-only helper, imported lazily

    check_precision(actual, expected, label=label)


def softmax_wrapper(x: torch.Tensor) -> torch.Tensor:
    if x.dim() != 2:
        raise ValueError(f"expected a 2-D tensor, got {x.dim()}-D")
    if x.dtype is not torch.float16:
        raise TypeError(f"expected float16, got {x.dtype}")
    rows, cols = x.shape
    y = torch.empty_like(x)
    num_tiles = (rows + TILE_ROWS - 1) // TILE_ROWS
    from pypto_pro.runtime.platform import get_platform_info

    block_dim = min(get_platform_info().vector_core_num, num_tiles)
    softmax_kernel[None, block_dim](x, y)  # noqa: F821 - defined in the kernel module
    return y


def _run(shape, seed=0):
    torch.manual_seed(seed)
    device = _get_device()
    x = torch.randn(*shape, dtype=torch.float16, device=device) * 4
    y = softmax_wrapper(x)
    if device != "cpu":
        torch.npu.synchronize()
    _assert_precision(y.cpu(), softmax_golden(x).cpu(), label=f"softmax{tuple(shape)}")


@pytest.mark.parametrize("shape", CASES, ids=lambda s: "x".join(map(str, s)))
def test_softmax_cases(shape):
    _run(shape)


def test_softmax_aligned():
    _run((TILE_ROWS * 4, 128))


def test_softmax_tail():
    _run((TILE_ROWS * 4 + 1, 128))


def test_softmax_tail2d():
    _run((TILE_ROWS + 2, 129))


def test_softmax_multitile():
    _run((TILE_ROWS * 33 + 1, 8192))


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    os.environ.setdefault("TILE_FWK_DEVICE_ID", "0")
    for name, fn in sorted(globals().items()):
        if name.startswith("test_") and name != "test_softmax_cases":
            fn()
    for case in CASES:
        _run(case)
    logging.info("  PASS")
