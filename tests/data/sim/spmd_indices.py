"""System variables per core (simulator test kernels): each AIV writes its
get_block_idx(), get_subblock_idx(), get_subblock_num() and get_block_num() into row
get_block_idx() of `out`. mixed_kernel has a section_cube too (1 AIC + 2 AIV per block);
vector_kernel has only a section_vector (one AIV per block); wrong_core_kernel loads into a
Mat tile outside any section_cube of a vector-only kernel.
The tiles are make_tile buffers (w over v's bytes), so each store waits for the V write it
stores (V -> MTE3) and the next V write waits for the store (MTE3 -> V): the framework inserts
no sync for make_tile tiles (Tile_vector_computation.md, "make_tile的手动同步").
"""
import pypto_pro.language as pl

ROW = 16


@pl.jit(auto_mutex=True)
def mixed_kernel(out: pl.Tensor[[pl.DYNAMIC, ROW], pl.DT_FP32]):
    v = pl.make_tile(pl.TileType(shape=[1, ROW], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                     addr=0, size=64)
    with pl.section_cube():
        pass
    with pl.section_vector():
        idx = pl.get_block_idx()
        pl.expands(v, 0.0)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, v, [idx, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.V, event_id=0)
        w = pl.make_tile(pl.TileType(shape=[1, 8], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                         addr=0, size=32)
        pl.expands(w, idx)
        pl.set_validshape(w, [1, 1])
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, w, [idx, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.V, event_id=0)
        pl.expands(w, pl.get_subblock_idx())
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, w, [idx, 1])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.V, event_id=0)
        pl.expands(w, pl.get_subblock_num())
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, w, [idx, 2])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.V, event_id=0)
        pl.expands(w, pl.get_block_num())
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, w, [idx, 3])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.V, event_id=0)


@pl.jit(auto_mutex=True)
def vector_kernel(out: pl.Tensor[[pl.DYNAMIC, ROW], pl.DT_FP32]):
    v = pl.make_tile(pl.TileType(shape=[1, ROW], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                     addr=0, size=64)
    with pl.section_vector():
        idx = pl.get_block_idx()
        pl.expands(v, 0.0)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, v, [idx, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.V, event_id=0)
        w = pl.make_tile(pl.TileType(shape=[1, 8], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                         addr=0, size=32)
        pl.set_validshape(w, [1, 1])
        pl.expands(w, idx)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, w, [idx, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.V, event_id=0)
        pl.expands(w, pl.get_subblock_idx())
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, w, [idx, 1])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.V, event_id=0)
        pl.expands(w, pl.get_subblock_num())
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, w, [idx, 2])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.V, event_id=0)


@pl.jit(auto_mutex=True)
def wrong_core_kernel(out: pl.Tensor[[pl.DYNAMIC, ROW], pl.DT_FP32]):
    m = pl.make_tile(pl.TileType(shape=[16, ROW], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat),
                     addr=0, size=1024)
    with pl.section_vector():
        pl.load(m, out, [0, 0])
