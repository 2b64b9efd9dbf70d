"""Tile-op softmax: row reductions into a [rows, 1] DN tile and row broadcasts."""
import pypto_pro.language as pl

ROWS = 16
COLS = 512
DATA_BYTES = ROWS * COLS * 4
RED_BYTES = ROWS * 32

tile_t = pl.TileType(shape=[ROWS, COLS], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec,
                     valid_shape=[-1, -1])
red_t = pl.TileType(shape=[ROWS, 1], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec,
                    valid_shape=[-1, -1], layout=pl.DN)


@pl.jit(auto_mutex=True)
def softmax_tiles(x: pl.Tensor[[pl.DYNAMIC, COLS], pl.DT_FP32],
                  y: pl.Tensor[[pl.DYNAMIC, COLS], pl.DT_FP32]):
    ins = pl.make_tile_group(type=tile_t, addrs=[0, DATA_BYTES], mutex_ids=[0, 1])
    outs = pl.make_tile_group(type=tile_t, addrs=[2 * DATA_BYTES, 3 * DATA_BYTES], mutex_ids=[2, 3])
    tmps = pl.make_tile_group(type=tile_t, addrs=[4 * DATA_BYTES], mutex_ids=[4])
    reds = pl.make_tile_group(type=red_t, addrs=[5 * DATA_BYTES], mutex_ids=[5])
    with pl.section_vector():
        n = x.shape[0]
        tiles = (n + ROWS - 1) // ROWS
        for t in pl.range(pl.get_block_idx(), tiles, pl.get_block_num()):
            row0 = t * ROWS
            live = pl.min(ROWS, n - row0)
            a = ins.next()
            o = outs.next()
            w = tmps.next()
            r = reds.next()
            pl.set_validshape(a, [live, COLS])
            pl.set_validshape(o, [live, COLS])
            pl.set_validshape(w, [live, COLS])
            pl.set_validshape(r, [live, 1])
            pl.load(a, x, [row0, 0])
            pl.row_max(r, a, w)
            pl.row_expand_sub(o, a, r)
            pl.exp(o, o)
            pl.row_sum(r, o, w)
            pl.row_expand_div(o, o, r)
            pl.store(y, o, [row0, 0])
