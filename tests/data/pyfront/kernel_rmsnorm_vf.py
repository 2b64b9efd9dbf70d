"""RMSNorm in a VF body: mean of squares, reciprocal square root, weight multiply."""
import pypto_pro.language as pl
from pypto_pro.language import Vf as vf

LANES = 64
MAX_N = 2048
ROWS = 4
EPS = 1e-6
SLOT = ROWS * MAX_N * 4


@pl.vector_function
def rmsnorm_vf(src, dst, w, rows: pl.DT_INT64, cols: pl.DT_INT64):
    all_lanes = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    regs = (cols + LANES - 1) // LANES
    inv_n = vf.full(1.0 / MAX_N, all_lanes, dtype=pl.DT_FP32)
    for i in pl.range(rows):
        row = i * MAX_N
        acc = vf.full(0.0, all_lanes, dtype=pl.DT_FP32)
        for r in pl.range(regs):
            tail = vf.update_mask(pl.min(LANES, cols - r * LANES), dtype=pl.DT_FP32)
            x = vf.load_align(src, row + r * LANES)
            acc = vf.add(acc, vf.reduce_sum(vf.mul(x, x, tail), tail), all_lanes)
        ms = vf.mul(vf.full(acc, all_lanes), inv_n, all_lanes)
        rstd = vf.div(vf.full(1.0, all_lanes, dtype=pl.DT_FP32),
                      vf.sqrt(vf.adds(ms, EPS, all_lanes), all_lanes), all_lanes)
        for r in pl.range(regs):
            tail = vf.update_mask(pl.min(LANES, cols - r * LANES), dtype=pl.DT_FP32)
            x = vf.mul(vf.load_align(src, row + r * LANES), rstd, tail)
            x = vf.mul(x, vf.load_align(w, r * LANES), tail)
            vf.store_align(dst + (row + r * LANES), x, tail)


row_t = pl.TileType(shape=[ROWS, MAX_N], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec,
                    valid_shape=[-1, -1])
w_t = pl.TileType(shape=[1, MAX_N], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec,
                  valid_shape=[-1, -1])


@pl.jit(auto_mutex=True)
def rmsnorm(x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
            weight: pl.Tensor[[1, pl.DYNAMIC], pl.DT_FP32],
            y: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32]):
    xin = pl.make_tile_group(type=row_t, addrs=0, mutex_ids=[0, 1])
    yout = pl.make_tile_group(type=row_t, addrs=2 * SLOT, mutex_ids=[2, 3])
    wt = pl.make_tile_group(type=w_t, addrs=4 * SLOT, mutex_ids=[4])
    with pl.section_vector():
        n, d = x.shape[0], x.shape[1]
        wv = wt.next()
        pl.set_validshape(wv, [1, d])
        pl.load(wv, weight, [0, 0])
        for blk in pl.range(pl.get_block_idx(), (n + ROWS - 1) // ROWS, pl.get_block_num()):
            start = blk * ROWS
            live = pl.min(ROWS, n - start)
            xi = xin.next()
            pl.set_validshape(xi, [live, d])
            pl.load(xi, x, [start, 0])
            yo = yout.next()
            pl.set_validshape(yo, [live, d])
            rmsnorm_vf(xi, yo, wv, live, d)
            pl.store(y, yo, [start, 0])
