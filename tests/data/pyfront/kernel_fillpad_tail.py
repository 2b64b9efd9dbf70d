"""Column tail handling with fillpad: pad the invalid columns with the dtype minimum, then
reduce each row with pl.maximum(dim=0) into a DN column tile."""
import pypto_pro.language as pl

ROWS = 16
COLS = 256
DATA = ROWS * COLS * 4

data_t = pl.TileType(shape=[ROWS, COLS], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec,
                     valid_shape=[-1, -1])
padded_t = pl.TileType(shape=[ROWS, COLS], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec,
                       pad=pl.TilePad.min)
col_t = pl.TileType(shape=[ROWS, 1], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec,
                    layout=pl.DN, valid_shape=[-1, -1])


@pl.jit(auto_mutex=True)
def row_max(x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
            out: pl.Tensor[[pl.DYNAMIC, 1], pl.DT_FP32]):
    raw = pl.make_tile_group(type=data_t, addrs=[0], mutex_ids=[0])
    padded = pl.make_tile_group(type=padded_t, addrs=[DATA], mutex_ids=[1])
    work = pl.make_tile_group(type=data_t, addrs=[2 * DATA], mutex_ids=[2])
    result = pl.make_tile_group(type=col_t, addrs=[3 * DATA], mutex_ids=[3])
    with pl.section_vector():
        n, cols = x.shape[0], x.shape[1]
        for blk in pl.range(pl.get_block_idx(), (n + ROWS - 1) // ROWS, pl.get_block_num()):
            live = pl.min(ROWS, n - blk * ROWS)
            r = raw.next()
            p = padded.next()
            w = work.next()
            o = result.next()
            pl.set_validshape(r, [live, cols])
            pl.load(r, x, [blk * ROWS, 0])
            pl.fillpad(p, r, mode=pl.FillPadMode.NORMAL)
            pl.set_validshape(o, [live, 1])
            pl.maximum(o, p, w, dim=0)
            pl.store(out, o, [blk * ROWS, 0])
