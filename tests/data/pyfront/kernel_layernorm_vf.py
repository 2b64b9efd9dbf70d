"""LayerNorm over the last axis with gamma/beta rows loaded once per core."""
import pypto_pro.language as pl
from pypto_pro.language import Vf as vf

LANES = 64
MAX_N = 512
TILE_ROWS = 16
EPS = 1e-5
ROW_BYTES = MAX_N * 4
SLOT = TILE_ROWS * ROW_BYTES
IN_ADDRS = [0x0, SLOT]
OUT_ADDRS = [2 * SLOT, 3 * SLOT]
GAMMA_ADDR = 4 * SLOT
BETA_ADDR = GAMMA_ADDR + ROW_BYTES


@pl.vector_function
def layernorm_rows(x_tile, y_tile, g_tile, b_tile, n_rows: pl.DT_INT64, n_cols: pl.DT_INT64):
    all_mask = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    n_regs = (n_cols + LANES - 1) // LANES
    count = vf.full(n_cols, all_mask, dtype=pl.DT_FP32)
    for i in pl.range(0, n_rows):
        base = i * MAX_N
        total = vf.full(0.0, all_mask, dtype=pl.DT_FP32)
        for r in pl.range(0, n_regs):
            m = vf.update_mask(pl.min(LANES, n_cols - r * LANES), dtype=pl.DT_FP32)
            total = vf.add(total, vf.reduce_sum(vf.load_align(x_tile, base + r * LANES), m), all_mask)
        mean = vf.div(vf.full(total, all_mask), count, all_mask)
        sq = vf.full(0.0, all_mask, dtype=pl.DT_FP32)
        for r in pl.range(0, n_regs):
            m = vf.update_mask(pl.min(LANES, n_cols - r * LANES), dtype=pl.DT_FP32)
            centered = vf.sub(vf.load_align(x_tile, base + r * LANES), mean, m)
            sq = vf.add(sq, vf.reduce_sum(vf.mul(centered, centered, m), m), all_mask)
        var = vf.div(vf.full(sq, all_mask), count, all_mask)
        denom = vf.sqrt(vf.adds(var, EPS, all_mask), all_mask)
        for r in pl.range(0, n_regs):
            m = vf.update_mask(pl.min(LANES, n_cols - r * LANES), dtype=pl.DT_FP32)
            v = vf.sub(vf.load_align(x_tile, base + r * LANES), mean, m)
            v = vf.div(v, denom, m)
            v = vf.mul(v, vf.load_align(g_tile, r * LANES), m)
            v = vf.add(v, vf.load_align(b_tile, r * LANES), m)
            vf.store_align(y_tile + (base + r * LANES), v, m)


rows_t = pl.TileType(shape=[TILE_ROWS, MAX_N], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec,
                     valid_shape=[-1, -1])
vec_t = pl.TileType(shape=[1, MAX_N], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec,
                    valid_shape=[-1, -1])


@pl.jit(auto_mutex=True)
def layernorm_kernel(x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
                     gamma: pl.Tensor[[1, pl.DYNAMIC], pl.DT_FP32],
                     beta: pl.Tensor[[1, pl.DYNAMIC], pl.DT_FP32],
                     y: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32]):
    xs = pl.make_tile_group(type=rows_t, addrs=IN_ADDRS, mutex_ids=[0, 1])
    ys = pl.make_tile_group(type=rows_t, addrs=OUT_ADDRS, mutex_ids=[2, 3])
    gs = pl.make_tile_group(type=vec_t, addrs=[GAMMA_ADDR], mutex_ids=[4])
    bs = pl.make_tile_group(type=vec_t, addrs=[BETA_ADDR], mutex_ids=[5])
    with pl.section_vector():
        n_rows = x.shape[0]
        n_cols = x.shape[1]
        g = gs.next()
        pl.set_validshape(g, [1, n_cols])
        pl.load(g, gamma, [0, 0])
        b = bs.next()
        pl.set_validshape(b, [1, n_cols])
        pl.load(b, beta, [0, 0])
        n_blocks = (n_rows + TILE_ROWS - 1) // TILE_ROWS
        for blk in pl.range(pl.get_block_idx(), n_blocks, pl.get_block_num()):
            r0 = blk * TILE_ROWS
            live = pl.min(TILE_ROWS, n_rows - r0)
            xt = xs.next()
            pl.set_validshape(xt, [live, n_cols])
            pl.load(xt, x, [r0, 0])
            yt = ys.next()
            pl.set_validshape(yt, [live, n_cols])
            layernorm_rows(xt, yt, g, b, live, n_cols)
            pl.store(y, yt, [r0, 0])
