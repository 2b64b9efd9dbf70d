"""Single-buffer kernel with raw tiles and hand-written pipe synchronisation."""
import pypto_pro.language as pl

ROWS = 8
COLS = 1024

buf_t = pl.TileType(shape=[ROWS, COLS], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)


@pl.jit(auto_mutex=False)
def scale_shift(x: pl.Tensor[[pl.DYNAMIC, COLS], pl.DT_FP32],
                y: pl.Tensor[[pl.DYNAMIC, COLS], pl.DT_FP32],
                alpha: pl.DT_FP32, beta: pl.DT_FP32):
    with pl.section_vector():
        t = pl.make_tile(buf_t, addr=0x0)
        u = pl.make_tile(buf_t, addr=0x8000, size=ROWS * COLS * 4)
        rows = x.shape[0]
        for blk in pl.range(pl.get_block_idx(), rows // ROWS, pl.get_block_num()):
            if blk > pl.get_block_idx():
                pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=1)
            pl.load(t, x, [blk * ROWS, 0])
            pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
            pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
            pl.mul(u, t, alpha)
            pl.add(u, u, beta)
            pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=2)
            pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=2)
            pl.store(y, u, [blk * ROWS, 0])
            pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=1)
        pl.system.bar_all()
