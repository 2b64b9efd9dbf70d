"""fp16 row softmax with VF registers, fp32 accumulation (simulator test and bench kernel).

The structure of the published softmax DESIGN §1: rows of up to MAX_N fp16 values in UB,
128-lane fp16 registers, exp_sub widening to fp32 in even (ZERO) and odd (ONE) halves,
fp32 sums, astype back to fp16 halves recombined with an add.
"""
import pypto_pro.language as pl
from pypto_pro.language import Vf as vf
from pypto_pro.runtime.platform import get_platform_info
import torch

LANES = 128
MAX_N = 8192
TILE_ROWS = 3
NEG_INF = -1e30
SLOT_BYTES = TILE_ROWS * MAX_N * 2
VA_IN0 = 0
VA_IN1 = VA_IN0 + SLOT_BYTES
VA_OUT0 = VA_IN1 + SLOT_BYTES
VA_OUT1 = VA_OUT0 + SLOT_BYTES


@pl.vector_function
def softmax_rows_vf(in_tile, out_tile, n_rows: pl.DT_INT64, n_cols: pl.DT_INT64):
    all16 = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP16)
    all32 = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    n_regs = (n_cols + LANES - 1) // LANES
    for m in pl.range(0, n_rows):
        base = m * MAX_N
        row_max = vf.full(NEG_INF, all16, dtype=pl.DT_FP16)
        for r in pl.range(0, n_regs):
            k = pl.min(LANES, n_cols - r * LANES)
            m16 = vf.update_mask(k, dtype=pl.DT_FP16)
            reg = vf.load_align(in_tile, base + r * LANES)
            row_max = vf.max(row_max, vf.reduce_max(reg, m16), all16)
        max_b = vf.full(row_max, all16)
        row_sum = vf.full(0.0, all32, dtype=pl.DT_FP32)
        for r in pl.range(0, n_regs):
            k = pl.min(LANES, n_cols - r * LANES)
            m16 = vf.update_mask(k, dtype=pl.DT_FP16)
            mz = vf.update_mask((k + 1) // 2, dtype=pl.DT_FP32)
            mo = vf.update_mask(k // 2, dtype=pl.DT_FP32)
            reg = vf.load_align(in_tile, base + r * LANES)
            ez = vf.exp_sub(reg, max_b, m16, dtype=pl.DT_FP32, layout=pl.CastLayout.ZERO)
            eo = vf.exp_sub(reg, max_b, m16, dtype=pl.DT_FP32, layout=pl.CastLayout.ONE)
            row_sum = vf.add(row_sum, vf.reduce_sum(ez, mz), all32)
            row_sum = vf.add(row_sum, vf.reduce_sum(eo, mo), all32)
        sum_b = vf.full(row_sum, all32)
        for r in pl.range(0, n_regs):
            k = pl.min(LANES, n_cols - r * LANES)
            m16 = vf.update_mask(k, dtype=pl.DT_FP16)
            mz = vf.update_mask((k + 1) // 2, dtype=pl.DT_FP32)
            mo = vf.update_mask(k // 2, dtype=pl.DT_FP32)
            reg = vf.load_align(in_tile, base + r * LANES)
            ez = vf.exp_sub(reg, max_b, m16, dtype=pl.DT_FP32, layout=pl.CastLayout.ZERO)
            eo = vf.exp_sub(reg, max_b, m16, dtype=pl.DT_FP32, layout=pl.CastLayout.ONE)
            dz = vf.div(ez, sum_b, mz)
            do = vf.div(eo, sum_b, mo)
            hz = vf.astype(dz, mz, dtype=pl.DT_FP16, layout=pl.CastLayout.ZERO)
            ho = vf.astype(do, mo, dtype=pl.DT_FP16, layout=pl.CastLayout.ONE)
            vf.store_align(out_tile + (base + r * LANES), vf.add(hz, ho, m16), m16)


@pl.jit(auto_mutex=True)
def softmax_kernel(
    x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16],
    y: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16],
):
    tt = pl.TileType(shape=[TILE_ROWS, MAX_N], dtype=pl.DT_FP16,
                     target_memory=pl.MemorySpace.Vec, valid_shape=[-1, -1])
    in_group = pl.make_tile_group(type=tt, addrs=[VA_IN0, VA_IN1], mutex_ids=[0, 1])
    out_group = pl.make_tile_group(type=tt, addrs=[VA_OUT0, VA_OUT1], mutex_ids=[2, 3])
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


def softmax_wrapper(x):
    if x.dim() != 2:
        raise ValueError("x must be 2-D")
    y = torch.empty_like(x)
    num_tiles = (x.shape[0] + TILE_ROWS - 1) // TILE_ROWS
    block_dim = min(get_platform_info().vector_core_num, num_tiles)
    softmax_kernel[None, block_dim](x, y)
    return y
