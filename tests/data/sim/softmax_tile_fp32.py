"""Row softmax with tile ops (row_max / row_expand_sub / exp / row_sum / row_expand_div).

Row reductions write a [TR, 1] DN tile; rows of a block are narrowed with set_validshape.
The tiles are make_tile buffers, so the kernel orders its pipes by hand
(Tile_vector_computation.md, "make_tile的手动同步"): MTE2 -> V after the load, V -> MTE3
before the store, and MTE3 -> MTE2 after it (sync_src_sync_dst.md: the store completes before
the next block's load over the tiles V read and MTE3 read).
"""
import pypto_pro.language as pl
import torch

TR = 8
TC = 256
XB = 0
YB = TR * TC * 4
MB = YB + TR * TC * 4
SB = MB + 64


@pl.jit(auto_mutex=True)
def softmax_tile_kernel(
    x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
    y: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
):
    big = pl.TileType(shape=[TR, TC], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec,
                      valid_shape=[-1, -1])
    col = pl.TileType(shape=[TR, 1], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec,
                      valid_shape=[-1, -1], layout=pl.DN)
    xt = pl.make_tile(big, addr=XB)
    yt = pl.make_tile(big, addr=YB)
    mx = pl.make_tile(col, addr=MB)
    sm = pl.make_tile(col, addr=SB)
    with pl.section_vector():
        rows = x.shape[0]
        cols = x.shape[1]
        for b in pl.range(pl.get_block_idx(), (rows + TR - 1) // TR, pl.get_block_num()):
            r0 = b * TR
            vr = pl.min(TR, rows - r0)
            pl.set_validshape(xt, [vr, cols])
            pl.set_validshape(yt, [vr, cols])
            pl.set_validshape(mx, [vr, 1])
            pl.set_validshape(sm, [vr, 1])
            pl.load(xt, x, [r0, 0])
            pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
            pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
            pl.row_max(mx, xt, yt)
            pl.row_expand_sub(yt, xt, mx)
            pl.exp(yt, yt)
            pl.row_sum(sm, yt, xt)
            pl.row_expand_div(yt, yt, sm)
            pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
            pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
            pl.store(y, yt, [r0, 0])
            pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=0)
            pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=0)


def softmax_tile_wrapper(x):
    y = torch.empty_like(x)
    softmax_tile_kernel[None, min(4, (x.shape[0] + TR - 1) // TR)](x, y)
    return y
