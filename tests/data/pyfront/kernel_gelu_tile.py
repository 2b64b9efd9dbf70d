"""Tanh-approximated GELU from tile ops: 0.5 * x * (1 + tanh(c * (x + 0.044715 x^3)))."""
import pypto_pro.language as pl

R = 32
C = 256
BYTES = R * C * 4
SQRT_2_OVER_PI = 0.7978845608028654

t32 = pl.TileType(shape=[R, C], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)


@pl.jit(auto_mutex=True)
def gelu(x: pl.Tensor[[pl.DYNAMIC, C], pl.DT_FP32], y: pl.Tensor[[pl.DYNAMIC, C], pl.DT_FP32]):
    xs = pl.make_tile_group(type=t32, addrs=[0 * BYTES, 1 * BYTES], mutex_ids=[0, 1])
    ws = pl.make_tile_group(type=t32, addrs=[2 * BYTES], mutex_ids=[2])
    ys = pl.make_tile_group(type=t32, addrs=[3 * BYTES, 4 * BYTES], mutex_ids=[3, 4])
    with pl.section_vector():
        blocks = x.shape[0] // R
        for i in pl.range(pl.get_block_idx(), blocks, pl.get_block_num()):
            xt = xs.next()
            wt = ws.next()
            yt = ys.next()
            pl.load_tile(xt, x, [i, 0])
            pl.mul(wt, xt, xt)
            pl.mul(wt, wt, xt)
            pl.mul(wt, wt, 0.044715)
            pl.add(wt, wt, xt)
            pl.mul(wt, wt, -2.0 * SQRT_2_OVER_PI)
            pl.exp(wt, wt)
            pl.add(wt, wt, 1.0)
            pl.recip(wt, wt)
            pl.mul(yt, xt, wt)
            pl.store_tile(y, yt, [i, 0])
