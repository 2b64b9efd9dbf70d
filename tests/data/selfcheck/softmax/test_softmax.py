"""Row softmax over the last axis of an fp16 [B, N] tensor (self-check reference file).

A delivered single-kernel file that satisfies every static self-check item: one @pl.jit
kernel, VF math inside @pl.vector_function, rotating tiles in tile groups, a wrapper that
only validates, allocates with torch.empty and launches once, and one test per DESIGN §8
case comparing against the CPU FP32 golden through _assert_precision.
"""

import logging

import torch
import torch_npu  # noqa: F401

import pypto_pro.language as pl
from pypto_pro.language import Vf as vf
from pypto_pro.runtime.platform import get_platform_info

logging.basicConfig(level=logging.INFO, format="%(message)s")

LANES = 128
MAX_N = 8192
TILE_ROWS = 3
NEG_INF = -1e30
SLOT_BYTES = TILE_ROWS * MAX_N * 2
VA_IN0 = 0x00000
VA_IN1 = VA_IN0 + SLOT_BYTES
VA_OUT0 = VA_IN1 + SLOT_BYTES
VA_OUT1 = VA_OUT0 + SLOT_BYTES


def _assert_precision(actual, *inputs, label="", **kwargs):
    from precision_compare import check_precision
    from softmax_golden_cpu import softmax_golden_cpu
    golden = softmax_golden_cpu(*[t.cpu() for t in inputs], **kwargs)
    passed, summary = check_precision(actual.cpu(), golden)
    if not passed:
        raise AssertionError(f"精度不达标: {summary}")
    logging.info("[{}] PASS ({})".format(label, summary))


@pl.vector_function
def softmax_rows_vf(in_tile, out_tile, n_rows: pl.DT_INT64, n_cols: pl.DT_INT64):
    all16 = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP16)
    all32 = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    n_regs = (n_cols + LANES - 1) // LANES
    for m in pl.range(0, n_rows):
        base = m * MAX_N
        row_max = vf.full(NEG_INF, all16, dtype=pl.DT_FP16)
        for r in pl.range(0, n_regs):
            mask16 = vf.update_mask(n_cols - r * LANES, dtype=pl.DT_FP16)
            reg = vf.load_align(in_tile, base + r * LANES)
            row_max = vf.max(row_max, vf.reduce_max(reg, mask16), all16)
        row_max_b = vf.full(row_max, all16)
        row_sum = vf.full(0.0, all32, dtype=pl.DT_FP32)
        for r in pl.range(0, n_regs):
            valid = n_cols - r * LANES
            mask16 = vf.update_mask(valid, dtype=pl.DT_FP16)
            even = vf.update_mask((valid + 1) // 2, dtype=pl.DT_FP32)
            odd = vf.update_mask(valid // 2, dtype=pl.DT_FP32)
            reg = vf.load_align(in_tile, base + r * LANES)
            e0 = vf.exp_sub(reg, row_max_b, mask16, dtype=pl.DT_FP32, layout=pl.CastLayout.ZERO)
            e1 = vf.exp_sub(reg, row_max_b, mask16, dtype=pl.DT_FP32, layout=pl.CastLayout.ONE)
            row_sum = vf.add(row_sum, vf.reduce_sum(e0, even), all32)
            row_sum = vf.add(row_sum, vf.reduce_sum(e1, odd), all32)
        row_sum_b = vf.full(row_sum, all32)
        for r in pl.range(0, n_regs):
            valid = n_cols - r * LANES
            mask16 = vf.update_mask(valid, dtype=pl.DT_FP16)
            even = vf.update_mask((valid + 1) // 2, dtype=pl.DT_FP32)
            odd = vf.update_mask(valid // 2, dtype=pl.DT_FP32)
            reg = vf.load_align(in_tile, base + r * LANES)
            e0 = vf.exp_sub(reg, row_max_b, mask16, dtype=pl.DT_FP32, layout=pl.CastLayout.ZERO)
            e1 = vf.exp_sub(reg, row_max_b, mask16, dtype=pl.DT_FP32, layout=pl.CastLayout.ONE)
            h0 = vf.astype(vf.div(e0, row_sum_b, even), even, dtype=pl.DT_FP16, layout=pl.CastLayout.ZERO)
            h1 = vf.astype(vf.div(e1, row_sum_b, odd), odd, dtype=pl.DT_FP16, layout=pl.CastLayout.ONE)
            vf.store_align(out_tile + (base + r * LANES), vf.add(h0, h1, mask16), mask16)


@pl.jit(auto_mutex=True)
def softmax_kernel(
    x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16],
    y: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16],
):
    tile_type = pl.TileType(shape=[TILE_ROWS, MAX_N], dtype=pl.DT_FP16,
                            target_memory=pl.MemorySpace.Vec, valid_shape=[-1, -1])
    in_group = pl.make_tile_group(type=tile_type, addrs=[VA_IN0, VA_IN1], mutex_ids=[0, 1])
    out_group = pl.make_tile_group(type=tile_type, addrs=[VA_OUT0, VA_OUT1], mutex_ids=[2, 3])
    with pl.section_vector():
        rows = x.shape[0]
        cols = x.shape[1]
        num_cores = pl.get_block_num()
        core_id = pl.get_block_idx()
        num_tiles = (rows + TILE_ROWS - 1) // TILE_ROWS
        for tile_id in pl.range(core_id, num_tiles, num_cores):
            row_off = tile_id * TILE_ROWS
            valid_rows = pl.min(TILE_ROWS, rows - row_off)
            in_slot = in_group.next()
            pl.set_validshape(in_slot, [valid_rows, cols])
            pl.load(in_slot, x, [row_off, 0])
            out_slot = out_group.next()
            pl.set_validshape(out_slot, [valid_rows, cols])
            softmax_rows_vf(in_slot, out_slot, valid_rows, cols)
            pl.store(y, out_slot, [row_off, 0])


def _num_tiles(rows):
    return (rows + TILE_ROWS - 1) // TILE_ROWS


def softmax_wrapper(x):
    if x.dtype != torch.float16:
        raise TypeError(f"x must be float16, got {x.dtype}")
    if x.ndim != 2:
        raise ValueError(f"x must be 2-D [B, N], got ndim={x.ndim}")
    if x.size(1) > MAX_N:
        raise ValueError(f"N={x.size(1)} exceeds MAX_N={MAX_N}")
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    block_dim = min(get_platform_info().vector_core_num, _num_tiles(x.shape[0]))
    softmax_kernel[None, block_dim](x, y)
    return y


def _run_case(shape, label):
    from softmax_golden import _get_device
    device = _get_device()
    torch.manual_seed(42)
    x = torch.randn(shape, device=device, dtype=torch.float16)
    y = softmax_wrapper(x)
    _assert_precision(y, x, label=label)


def test_softmax_aligned():
    _run_case([3, 128], "aligned [3,128]")


def test_softmax_row_tail():
    _run_case([4, 128], "row_tail [4,128]")


def test_softmax_col_tail():
    _run_case([3, 200], "col_tail [3,200]")


def test_softmax_tail2d():
    _run_case([4, 200], "tail2d [4,200]")


def test_softmax_multitile():
    _run_case([7, 200], "multitile [7,200]")


def test_softmax_p0_batch1_n128():
    _run_case([1, 128], "p0_batch1_n128")


def test_softmax_p0_batch4_n2048():
    _run_case([4, 2048], "p0_batch4_n2048")


def test_softmax_p0_batch32_n4096():
    _run_case([32, 4096], "p0_batch32_n4096")


if __name__ == "__main__":
    test_softmax_aligned()
    test_softmax_row_tail()
    test_softmax_col_tail()
    test_softmax_tail2d()
    test_softmax_multitile()
    test_softmax_p0_batch1_n128()
    test_softmax_p0_batch4_n2048()
    test_softmax_p0_batch32_n4096()
