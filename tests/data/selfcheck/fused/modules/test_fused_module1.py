"""Module 1 of fused (L1 staged file): h = x @ w on the cube section.

One @pl.jit kernel with the Module 1 cube section; the staged wrapper only validates,
allocates its output with torch.empty and launches once; tests compare with the staged
CPU golden through _assert_precision.
"""

import logging

import torch
import torch_npu  # noqa: F401

import pypto_pro.language as pl
from pypto_pro.runtime.platform import get_platform_info

logging.basicConfig(level=logging.INFO, format="%(message)s")

TILE_M = 16
TILE_N = 32
TILE_K = 16
L1_A = 0x00000
L1_B = 0x02000
L0C = 0x00000


def _assert_precision(actual, *inputs, label="", **kwargs):
    from precision_compare import check_precision
    from fused_golden_stage1 import fused_golden_stage1
    golden = fused_golden_stage1(*[t.cpu() for t in inputs], **kwargs)
    passed, summary = check_precision(actual.cpu(), golden)
    if not passed:
        raise AssertionError(f"精度不达标: {summary}")
    logging.info("[{}] PASS ({})".format(label, summary))


@pl.jit(auto_mutex=True)
def fused_kernel(
    x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16],
    w: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16],
    h: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
):
    a_type = pl.TileType(shape=[TILE_M, TILE_K], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Mat)
    b_type = pl.TileType(shape=[TILE_K, TILE_N], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Mat)
    c_type = pl.TileType(shape=[TILE_M, TILE_N], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc)
    a_group = pl.make_tile_group(type=a_type, addrs=[L1_A], mutex_ids=[0])
    b_group = pl.make_tile_group(type=b_type, addrs=[L1_B], mutex_ids=[1])
    c_group = pl.make_tile_group(type=c_type, addrs=[L0C], mutex_ids=[2])
    with pl.section_cube():
        m = x.shape[0]
        num_cores = pl.get_block_num()
        core_id = pl.get_block_idx()
        m_tiles = (m + TILE_M - 1) // TILE_M
        for t in pl.range(core_id, m_tiles, num_cores):
            a = a_group.next()
            pl.load(a, x, [t * TILE_M, 0])
            b = b_group.next()
            pl.load(b, w, [0, 0])
            c = c_group.next()
            pl.matmul(c, a, b)
            pl.store(h, c, [t * TILE_M, 0])


def fused_wrapper_module1(x, w):
    if x.ndim != 2 or w.ndim != 2:
        raise ValueError("x and w must be 2-D")
    if x.size(1) != w.size(0):
        raise ValueError("inner dimensions differ")
    h = torch.empty((x.shape[0], w.shape[1]), dtype=torch.float32, device=x.device)
    m_tiles = (x.shape[0] + TILE_M - 1) // TILE_M
    block_dim = min(get_platform_info().core_num, m_tiles)
    fused_kernel[None, block_dim](x, w, h)
    return h


def _run_case(m, label):
    from fused_golden import _get_device
    device = _get_device()
    torch.manual_seed(42)
    x = torch.randn([m, TILE_K], device=device, dtype=torch.float16)
    w = torch.randn([TILE_K, TILE_N], device=device, dtype=torch.float16)
    h = fused_wrapper_module1(x, w)
    _assert_precision(h, x, w, label=label)


def test_fused_module1_aligned():
    _run_case(16, "aligned [16,32]")


def test_fused_module1_tail():
    _run_case(20, "tail [20,32]")


if __name__ == "__main__":
    test_fused_module1_aligned()
    test_fused_module1_tail()
