"""out = (a @ b + x) @ c in one block (simulator test kernel, written after the structure of
the official fused matmul-add-matmul-add sample and the documented insert example).

The AIC moves a @ b from L0C into the UB of both AIVs (Acc -> Vec, DualModeSplitM: 32 rows
each) and sets event 0; each AIV adds its 32 rows of x, converts them to NZ and inserts them
into the AIC's L1 tile h_mat at its row offset, then sets event 1; the AIC waits for both AIVs,
multiplies h by c and stores the result. FP32 throughout, [64, 64] operands.
The tiles are make_tile buffers, so each core orders its own pipes with sync_src/sync_dst
(Cube_matrix_computation.md: MTE2 -> MTE1 -> M -> FIX; Tile_vector_computation.md: MTE2 -> V
-> MTE3); the AIC's second move into `left` is ordered after the first matmul read it through
M -> FIX, the FIX set and the AIVs' MTE3 set back to its MTE1 wait, as in the official
test_matmul_add_matmul_add.py.
"""
import pypto_pro.language as pl


@pl.jit()
def fused_mm_add_mm_kernel(
    a: pl.Tensor[[64, 64], pl.DT_FP32],
    b: pl.Tensor[[64, 64], pl.DT_FP32],
    c: pl.Tensor[[64, 64], pl.DT_FP32],
    x: pl.Tensor[[64, 64], pl.DT_FP32],
    out: pl.Tensor[[64, 64], pl.DT_FP32],
):
    mm_ub = pl.make_tile(pl.TileType(shape=[32, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
                         addr=0x0000, size=8192)
    h_mat = pl.make_tile(pl.TileType(shape=[64, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat,
                                     layout=pl.NZ), addr=0x10000, size=16384)

    with pl.section_cube():
        mat_t = pl.TileType(shape=[64, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ)
        a_mat = pl.make_tile(mat_t, addr=0x0000, size=16384)
        b_mat = pl.make_tile(mat_t, addr=0x4000, size=16384)
        c_mat = pl.make_tile(mat_t, addr=0x8000, size=16384)
        left = pl.make_tile(pl.TileType(shape=[64, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left,
                                        layout=pl.NZ), addr=0x0000, size=16384)
        right_t = pl.TileType(shape=[64, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right, layout=pl.ZN)
        right_b = pl.make_tile(right_t, addr=0x0000, size=16384)
        right_c = pl.make_tile(right_t, addr=0x4000, size=16384)
        acc_t = pl.TileType(shape=[64, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc, layout=pl.NZ,
                            fractal=1024)
        acc1 = pl.make_tile(acc_t, addr=0x0000, size=16384)
        acc2 = pl.make_tile(acc_t, addr=0x8000, size=16384)

        pl.load(a_mat, a, [0, 0])
        pl.load(b_mat, b, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0)
        pl.move(left, a_mat)
        pl.move(right_b, b_mat)
        pl.system.sync_src(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=0)
        pl.matmul(acc1, left, right_b)
        pl.system.sync_src(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=0)
        pl.move(mm_ub, acc1, acc_to_vec_mode=pl.AccToVecMode.DualModeSplitM)
        pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=0)

        pl.load(c_mat, c, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0)
        pl.move(right_c, c_mat)
        pl.system.wait_cross_core(pipe=pl.PipeType.MTE1, event_id=1)
        pl.move(left, h_mat)
        pl.system.sync_src(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=0)
        pl.matmul(acc2, left, right_c)
        pl.system.sync_src(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=0)
        pl.store(out, acc2, [0, 0])

    with pl.section_vector():
        sub = pl.get_subblock_idx()
        row = sub * 32
        vec_t = pl.TileType(shape=[32, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
        x_ub = pl.make_tile(vec_t, addr=0x4000, size=8192)
        h_ub = pl.make_tile(vec_t, addr=0x6000, size=8192)
        h_nz = pl.make_tile(pl.TileType(shape=[32, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec,
                                        layout=pl.NZ), addr=0x8000, size=8192)

        pl.load(x_ub, x, [row, 0])
        pl.system.wait_cross_core(pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.add(h_ub, mm_ub, x_ub)
        pl.move(h_nz, h_ub)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.insert(h_mat, h_nz, [row, 0])
        pl.system.set_cross_core(pipe=pl.PipeType.MTE3, event_id=1)
