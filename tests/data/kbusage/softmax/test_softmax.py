# Stand-in for the generated custom/softmax/test_softmax.py used by the KB usage tests: it
# defines the symbols that DESIGN_BINDINGS' planned_locations name (kernel, vector function,
# wrapper, tests). It is parsed for def/class names only, never run.
import pypto_pro.language as pl
from pypto_pro.language import Vf as vf
import torch
from pypto_pro.runtime.platform import get_platform_info

TILE_ROWS = 3
MAX_N = 8192


@pl.vector_function
def softmax_rows_vf(in_tile, out_tile, valid_rows, cols):
    for r in pl.range(valid_rows):
        row_max = vf.full(-65504.0)


@pl.jit(auto_mutex=True)
def softmax_tile_group_kernel(x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16],
                              y: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16]):
    in_group = pl.make_tile_group(mutex_ids=[0, 1])
    out_group = pl.make_tile_group(mutex_ids=[2, 3])


def softmax_wrapper(x):
    assert x.dtype == torch.float16 and x.ndim == 2
    y = torch.empty_like(x)
    tasks = (x.shape[0] + TILE_ROWS - 1) // TILE_ROWS
    block_dim = min(get_platform_info().vector_core_num, tasks)
    softmax_tile_group_kernel[None, block_dim](x, y)
    return y


def _assert_precision(out, x, label):
    from precision_compare import compare
    from softmax_golden_cpu import softmax_golden_cpu
    compare(out, softmax_golden_cpu(x), label)


def test_softmax_aligned():
    from softmax_golden import _get_device
    x = torch.randn(3, 128, dtype=torch.float16, device=_get_device())
    _assert_precision(softmax_wrapper(x), x, label="aligned")


if __name__ == "__main__":
    test_softmax_aligned()
