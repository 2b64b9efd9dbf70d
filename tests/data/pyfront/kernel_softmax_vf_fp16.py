# Row softmax for fp16 input on A5: one vector section, double-buffered input/output
# tile groups, and a three-pass VF body (max, sum of exp, divide) per row.
import pypto_pro.language as pl
from pypto_pro.language import Vf as vf

LANES = 128
MAX_N = 8192
TILE_ROWS = 3
NEG_INF = -1e30
SLOT_BYTES = TILE_ROWS * MAX_N * 2

VA_IN0 = 0x00000
VA_IN1 = VA_IN0 + SLOT_BYTES
VA_OUT0 = VA_IN1 + SLOT_BYTES
VA_OUT1 = VA_OUT0 + SLOT_BYTES


@pl.vector_function
def softmax_rows_vf(in_tile, out_tile, n_rows: pl.DT_INT64, n_cols: pl.DT_INT64):
    preg_fp16 = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP16)
    preg_fp32 = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    n_regs = (n_cols + LANES - 1) // LANES
    for m in pl.range(0, n_rows):
        base = m * MAX_N
        # pass 1: running maximum kept in lane 0
        row_max = vf.full(NEG_INF, preg_fp16, dtype=pl.DT_FP16)
        for r in pl.range(0, n_regs):
            valid = pl.min(LANES, n_cols - r * LANES)
            mreg_fp16 = vf.update_mask(valid, dtype=pl.DT_FP16)
            reg = vf.load_align(in_tile, base + r * LANES)
            part = vf.reduce_max(reg, mreg_fp16)
            row_max = vf.max(row_max, part, preg_fp16)
        row_max_b = vf.full(row_max, preg_fp16)

        # pass 2: sum of exp(x - max) accumulated in fp32
        row_sum = vf.full(0.0, preg_fp32, dtype=pl.DT_FP32)
        for r in pl.range(0, n_regs):
            valid = pl.min(LANES, n_cols - r * LANES)
            mreg_fp16 = vf.update_mask(valid, dtype=pl.DT_FP16)
            reg = vf.load_align(in_tile, base + r * LANES)
            e_even = vf.exp_sub(reg, row_max_b, mreg_fp16, dtype=pl.DT_FP32, layout=pl.CastLayout.ZERO)
            e_odd = vf.exp_sub(reg, row_max_b, mreg_fp16, dtype=pl.DT_FP32, layout=pl.CastLayout.ONE)
            k = valid
            mreg_fp32_z = vf.update_mask((k + 1) // 2, dtype=pl.DT_FP32)
            mreg_fp32_o = vf.update_mask(k // 2, dtype=pl.DT_FP32)
            row_sum = vf.add(row_sum, vf.reduce_sum(e_even, mreg_fp32_z), preg_fp32)
            row_sum = vf.add(row_sum, vf.reduce_sum(e_odd, mreg_fp32_o), preg_fp32)
        row_sum_b = vf.full(row_sum, preg_fp32)

        # pass 3: divide, narrow to fp16 and write back
        for r in pl.range(0, n_regs):
            valid = pl.min(LANES, n_cols - r * LANES)
            mreg_fp16 = vf.update_mask(valid, dtype=pl.DT_FP16)
            k = valid
            mreg_fp32_z = vf.update_mask((k + 1) // 2, dtype=pl.DT_FP32)
            mreg_fp32_o = vf.update_mask(k // 2, dtype=pl.DT_FP32)
            reg = vf.load_align(in_tile, base + r * LANES)
            e_even = vf.exp_sub(reg, row_max_b, mreg_fp16, dtype=pl.DT_FP32, layout=pl.CastLayout.ZERO)
            e_odd = vf.exp_sub(reg, row_max_b, mreg_fp16, dtype=pl.DT_FP32, layout=pl.CastLayout.ONE)
            d_even = vf.div(e_even, row_sum_b, mreg_fp32_z)
            d_odd = vf.div(e_odd, row_sum_b, mreg_fp32_o)
            out16_even = vf.astype(d_even, mreg_fp16, dtype=pl.DT_FP16, layout=pl.CastLayout.ZERO)
            out16_odd = vf.astype(d_odd, mreg_fp16, dtype=pl.DT_FP16, layout=pl.CastLayout.ONE)
            out16 = vf.add(out16_even, out16_odd, mreg_fp16)
            vf.store_align(out_tile + (base + r * LANES), out16, mreg_fp16)


fp16_tt = pl.TileType(shape=[TILE_ROWS, MAX_N], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Vec,
                      valid_shape=[-1, -1])


@pl.jit(auto_mutex=True)
def softmax_kernel(x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16],
                   y: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16]):
    in_group = pl.make_tile_group(type=fp16_tt, addrs=[VA_IN0, VA_IN1], mutex_ids=[0, 1])
    out_group = pl.make_tile_group(type=fp16_tt, addrs=[VA_OUT0, VA_OUT1], mutex_ids=[2, 3])
    with pl.section_vector():
        rows, cols = x.shape[0], x.shape[1]
        num_cores, core_id = pl.get_block_num(), pl.get_block_idx()
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
