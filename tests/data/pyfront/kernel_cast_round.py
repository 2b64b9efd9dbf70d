# fp32 -> fp16 conversion with an explicit rounding mode, plus a relu on the way.
import pypto_pro.language as pl

ROWS, COLS = 64, 128
SRC_BYTES = ROWS * COLS * 4
DST_BYTES = ROWS * COLS * 2

src_t = pl.TileType(shape=[ROWS, COLS], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
dst_t = pl.TileType(shape=[ROWS, COLS], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Vec)


@pl.jit(auto_mutex=True)
def relu_cast(x: pl.Tensor[[pl.DYNAMIC, COLS], pl.DT_FP32], y: pl.Tensor[[pl.DYNAMIC, COLS], pl.DT_FP16]):
    srcs = pl.make_tile_group(type=src_t, addrs=0, mutex_ids=[0, 1])
    dsts = pl.make_tile_group(type=dst_t, addrs=2 * SRC_BYTES, mutex_ids=[2, 3])
    with pl.section_vector():
        n_tiles = x.shape[0] // ROWS
        for t in pl.range(pl.get_block_idx(), n_tiles, pl.get_block_num()):
            s = srcs.next()
            d = dsts.next()
            pl.load(s, x, [t * ROWS, 0])
            pl.relu(s, s)
            pl.cast(d, s, mode=pl.RoundMode.CAST_RINT)
            pl.store(y, d, [t * ROWS, 0])
