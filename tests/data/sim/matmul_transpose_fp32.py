"""C[M, N] = A @ B from transposed GM operands, FP32 in and out (simulator test kernel,
written after the transposed-load table of the Cube tutorial): a_t is A^T [K, M] and b_t
is B^T [N, K]; both are loaded with order=[1, 0] into ZN Mat tiles of the shapes the L0
buffers want ([M, K] and [K, N]), then moved to Left (NZ) and Right (ZN). One tile:
M, K, N <= 64 with M, N multiples of 16 and K a multiple of 8; tails are narrowed with
set_validshape.
"""
import pypto_pro.language as pl

TM = 64
TK = 64
TN = 64


@pl.jit(auto_mutex=False)
def matmul_transpose_kernel(
    a_t: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
    b_t: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
    out: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
):
    k = a_t.shape[0]
    m = a_t.shape[1]
    n = b_t.shape[0]
    with pl.section_cube():
        a_mat = pl.make_tile(pl.TileType(shape=[TM, TK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat,
                                         layout=pl.ZN, valid_shape=[-1, -1]), addr=0x00000, size=16384)
        b_mat = pl.make_tile(pl.TileType(shape=[TK, TN], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat,
                                         layout=pl.ZN, valid_shape=[-1, -1]), addr=0x40000, size=16384)
        a_left = pl.make_tile(pl.TileType(shape=[TM, TK], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left,
                                          valid_shape=[-1, -1]), addr=0x0, size=16384)
        b_right = pl.make_tile(pl.TileType(shape=[TK, TN], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right,
                                           valid_shape=[-1, -1]), addr=0x0, size=16384)
        c = pl.make_tile(pl.TileType(shape=[TM, TN], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc,
                                     valid_shape=[-1, -1]), addr=0x0, size=16384)
        pl.set_validshape(a_mat, [m, k])
        pl.set_validshape(b_mat, [k, n])
        pl.load(a_mat, a_t, [0, 0], order=[1, 0])
        pl.load(b_mat, b_t, [0, 0], order=[1, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0)
        pl.set_validshape(a_left, [m, k])
        pl.set_validshape(b_right, [k, n])
        pl.move(a_left, a_mat)
        pl.move(b_right, b_mat)
        pl.system.sync_src(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=0)
        pl.matmul(c, a_left, b_right)
        pl.system.sync_src(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=0)
        pl.set_validshape(c, [m, n])
        pl.store(out, c, [0, 0])
