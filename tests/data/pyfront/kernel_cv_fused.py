"""Cube computes blocks into a GM workspace; the vector section waits and scales them."""
import pypto_pro.language as pl
from pypto_pro.language import Vf as vf

BM = 64
BN = 64
BK = 128
LANES = 64

mat_a = pl.TileType(shape=[BM, BK], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Mat)
mat_b = pl.TileType(shape=[BK, BN], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Mat)
left_t = pl.TileType(shape=[BM, BK], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Left, compact=1)
right_t = pl.TileType(shape=[BK, BN], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Right, compact=1)
acc_t = pl.TileType(shape=[BM, BN], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc, compact=1)
vec_t = pl.TileType(shape=[BM // 2, BN], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)


@pl.vector_function
def scale_rows(t, factor: pl.DT_FP32, rows: pl.DT_INT64):
    mask = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    for i in pl.range(rows):
        v = vf.load_align(t, i * BN)
        v = vf.muls(v, factor, mask)
        vf.store_align(t + i * BN, v, mask)


@pl.jit(auto_mutex=False)
def mm_scale(a: pl.Tensor[[BM, BK], pl.DT_FP16], b: pl.Tensor[[BK, BN], pl.DT_FP16],
             work: pl.Tensor[[BM, BN], pl.DT_FP32], out: pl.Tensor[[BM, BN], pl.DT_FP32],
             factor: pl.DT_FP32):
    with pl.section_cube():
        ta = pl.make_tile(mat_a, addr=0)
        tb = pl.make_tile(mat_b, addr=BM * BK * 2)
        tl = pl.make_tile(left_t, addr=0)
        tr = pl.make_tile(right_t, addr=0)
        tc = pl.make_tile(acc_t, addr=0)
        pl.load(ta, a, [0, 0])
        pl.load(tb, b, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0)
        pl.move(tl, ta)
        pl.move(tr, tb)
        pl.system.sync_src(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=1)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=1)
        pl.matmul(tc, tl, tr)
        pl.system.sync_src(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=2)
        pl.system.sync_dst(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=2)
        pl.store(work, tc, [0, 0])
        pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=0)
    with pl.section_vector():
        pl.system.wait_cross_core(pipe=pl.PipeType.MTE2, event_id=0)
        half = pl.get_subblock_idx()
        tv = pl.make_tile(vec_t, addr=0)
        pl.load(tv, work, [half * (BM // 2), 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=3)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=3)
        scale_rows(tv, factor, BM // 2)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=4)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=4)
        pl.store(out, tv, [half * (BM // 2), 0])
