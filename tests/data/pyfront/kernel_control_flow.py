"""Scalar control flow inside a kernel: while, if/elif/else, break and continue."""
import pypto_pro.language as pl

ROWS = 8
COLS = 512
TILE_BYTES = ROWS * COLS * 2

tile_t = pl.TileType(shape=[ROWS, COLS], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Vec,
                     valid_shape=[-1, -1])


@pl.jit(auto_mutex=True)
def scaled_copy(x: pl.Tensor[[pl.DYNAMIC, COLS], pl.DT_FP16],
                y: pl.Tensor[[pl.DYNAMIC, COLS], pl.DT_FP16],
                mode: pl.DT_INT64):
    ring = pl.make_tile_group(type=tile_t, addrs=0, mutex_ids=[0, 1])
    with pl.section_vector():
        n = x.shape[0]
        blk = pl.get_block_idx()
        step = pl.get_block_num()
        while blk * ROWS < n:
            live = pl.min(ROWS, n - blk * ROWS)
            if live <= 0:
                break
            t = ring.next()
            pl.set_validshape(t, [live, COLS])
            pl.load(t, x, [blk * ROWS, 0])
            if mode == 0:
                pl.abs(t, t)
            elif mode == 1:
                pl.neg(t, t)
            else:
                pl.mul(t, t, 2.0)
            pl.store(y, t, [blk * ROWS, 0])
            blk = blk + step
            if blk > 1 << 20:
                continue
