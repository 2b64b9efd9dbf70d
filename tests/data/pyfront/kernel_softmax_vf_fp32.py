"""FP32 row softmax: VF body with one lane-0 accumulator per pass."""
import pypto_pro.language as pl
from pypto_pro.language import Vf as vf

LANES = 64
MAX_N = 1024
TILE_ROWS = 8
NEG_INF = -1e30
SLOT_BYTES = TILE_ROWS * MAX_N * 4
ADDRS_IN = [0, SLOT_BYTES]
ADDRS_OUT = [2 * SLOT_BYTES, 3 * SLOT_BYTES]


@pl.vector_function
def rows_softmax(src, dst, n_rows: pl.DT_INT64, n_cols: pl.DT_INT64):
    full_mask = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    n_regs = (n_cols + LANES - 1) // LANES
    for row in pl.range(n_rows):
        off = row * MAX_N
        acc_max = vf.full(NEG_INF, full_mask, dtype=pl.DT_FP32)
        for r in pl.range(n_regs):
            tail = vf.update_mask(pl.min(LANES, n_cols - r * LANES), dtype=pl.DT_FP32)
            v = vf.load_align(src, off + r * LANES)
            acc_max = vf.max(acc_max, vf.reduce_max(v, tail), full_mask)
        bmax = vf.full(acc_max, full_mask)
        acc_sum = vf.full(0.0, full_mask, dtype=pl.DT_FP32)
        for r in pl.range(n_regs):
            tail = vf.update_mask(pl.min(LANES, n_cols - r * LANES), dtype=pl.DT_FP32)
            v = vf.load_align(src, off + r * LANES)
            e = vf.exp_sub(v, bmax, tail)
            acc_sum = vf.add(acc_sum, vf.reduce_sum(e, tail), full_mask)
        bsum = vf.full(acc_sum, full_mask)
        for r in pl.range(n_regs):
            tail = vf.update_mask(pl.min(LANES, n_cols - r * LANES), dtype=pl.DT_FP32)
            v = vf.load_align(src, off + r * LANES)
            q = vf.div(vf.exp_sub(v, bmax, tail), bsum, tail)
            vf.store_align(dst + (off + r * LANES), q, tail)


tile_t = pl.TileType(shape=[TILE_ROWS, MAX_N], dtype=pl.DT_FP32,
                     target_memory=pl.MemorySpace.Vec, valid_shape=[-1, -1])


@pl.jit(auto_mutex=True)
def softmax_fp32(x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
                 y: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32]):
    src_ring = pl.make_tile_group(type=tile_t, addrs=ADDRS_IN, mutex_ids=[0, 1])
    dst_ring = pl.make_tile_group(type=tile_t, addrs=ADDRS_OUT, mutex_ids=[2, 3])
    with pl.section_vector():
        total_rows = x.shape[0]
        width = x.shape[1]
        workers = pl.get_block_num()
        me = pl.get_block_idx()
        blocks = (total_rows + TILE_ROWS - 1) // TILE_ROWS
        for b in pl.range(me, blocks, workers):
            first = b * TILE_ROWS
            count = pl.min(TILE_ROWS, total_rows - first)
            s = src_ring.next()
            pl.set_validshape(s, [count, width])
            pl.load(s, x, [first, 0])
            d = dst_ring.next()
            pl.set_validshape(d, [count, width])
            rows_softmax(s, d, count, width)
            pl.store(y, d, [first, 0])
