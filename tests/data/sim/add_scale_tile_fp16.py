"""z = (x + y) * 0.5 on fp16 tiles with pl.* tile ops (simulator test kernel).

2-D tiling over [rows, cols]; tail tiles narrowed with set_validshape before the loads.
Double-buffered tile groups with mutex_ids: auto_mutex locks each slot's id around every
operation on it, which orders the load (MTE2), the compute (V) and the store (MTE3) of a slot
(Tile_vector_computation.md, "TileGroup —— 自动同步的双缓冲/N缓冲").
"""
import pypto_pro.language as pl
import torch

TR = 32
TC = 128
TILE_BYTES = TR * TC * 2
XA = 0
YA = XA + 2 * TILE_BYTES
ZA = YA + 2 * TILE_BYTES


@pl.jit(auto_mutex=True)
def add_scale_kernel(
    x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16],
    y: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16],
    z: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16],
):
    tt = pl.TileType(shape=[TR, TC], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Vec,
                     valid_shape=[-1, -1])
    xg = pl.make_tile_group(type=tt, addrs=XA, mutex_ids=[0, 1])
    yg = pl.make_tile_group(type=tt, addrs=YA, mutex_ids=[2, 3])
    zg = pl.make_tile_group(type=tt, addrs=ZA, mutex_ids=[4, 5])
    with pl.section_vector():
        rows = x.shape[0]
        cols = x.shape[1]
        tr = (rows + TR - 1) // TR
        tc = (cols + TC - 1) // TC
        for t in pl.range(pl.get_block_idx(), tr * tc, pl.get_block_num()):
            r0 = (t // tc) * TR
            c0 = (t % tc) * TC
            vr = pl.min(TR, rows - r0)
            vc = pl.min(TC, cols - c0)
            xt = xg.next()
            yt = yg.next()
            zt = zg.next()
            pl.set_validshape(xt, [vr, vc])
            pl.set_validshape(yt, [vr, vc])
            pl.set_validshape(zt, [vr, vc])
            pl.load(xt, x, [r0, c0])
            pl.load(yt, y, [r0, c0])
            pl.add(zt, xt, yt)
            pl.mul(zt, zt, 0.5)
            pl.store(z, zt, [r0, c0])


def add_scale_wrapper(x, y):
    if x.shape != y.shape:
        raise ValueError("shape mismatch")
    z = torch.empty_like(x)
    tiles = ((x.shape[0] + TR - 1) // TR) * ((x.shape[1] + TC - 1) // TC)
    add_scale_kernel[None, min(8, tiles)](x, y, z)
    return z
