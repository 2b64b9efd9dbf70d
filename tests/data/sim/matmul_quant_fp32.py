"""Fixpipe quantisation (simulator test kernel, written after store.md / move.md `scale`):
acc = q @ k (FP32, one 64 x 64 tile), then
  * out_t = INT8(relu(acc) * 0.1)      pl.store with a per-tensor scale and relu_pre_mode
  * out_c = INT8(acc * s[n])           pl.store with a per-channel Scaling tile (Mat -> Scaling)
  * out_v = INT8(acc * s[n])           pl.move Acc -> Vec with the same Scaling tile, stored by AIV 0
  * out_h = FP16(acc * 0.5)            pl.move Acc -> Vec with a per-tensor scale, stored by AIV 0
`s` is the [1, 64] INT64 deqTensor: the float32 bits of each column's scale in its low 32 bits.
"""
import pypto_pro.language as pl


@pl.jit()
def matmul_quant_kernel(
    q: pl.Tensor[[64, 64], pl.DT_FP32],
    k: pl.Tensor[[64, 64], pl.DT_FP32],
    s: pl.Tensor[[1, 64], pl.DT_INT64],
    out_t: pl.Tensor[[64, 64], pl.DT_INT8],
    out_c: pl.Tensor[[64, 64], pl.DT_INT8],
    out_v: pl.Tensor[[64, 64], pl.DT_INT8],
    out_h: pl.Tensor[[64, 64], pl.DT_FP16],
):
    vec_i8 = pl.make_tile(pl.TileType(shape=[64, 64], dtype=pl.DT_INT8, target_memory=pl.MemorySpace.Vec),
                          addr=0x0000, size=4096)
    vec_h = pl.make_tile(pl.TileType(shape=[64, 64], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Vec),
                         addr=0x1000, size=8192)
    with pl.section_cube():
        mat_type = pl.TileType(shape=[64, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Mat, layout=pl.NZ)
        q_mat = pl.make_tile(mat_type, addr=0x0000, size=16384)
        k_mat = pl.make_tile(mat_type, addr=0x4000, size=16384)
        s_mat = pl.make_tile(pl.TileType(shape=[1, 64], dtype=pl.DT_INT64, target_memory=pl.MemorySpace.Mat,
                                         layout=pl.ND), addr=0x8000, size=512)
        q_left = pl.make_tile(pl.TileType(shape=[64, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Left,
                                          layout=pl.NZ), addr=0x0000, size=16384)
        k_right = pl.make_tile(pl.TileType(shape=[64, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Right,
                                           layout=pl.ZN), addr=0x0000, size=16384)
        acc = pl.make_tile(pl.TileType(shape=[64, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc,
                                       layout=pl.NZ, fractal=1024), addr=0x0000, size=16384)
        s_fb = pl.make_tile(pl.TileType(shape=[1, 64], dtype=pl.DT_INT64, target_memory=pl.MemorySpace.Scaling),
                            addr=0x0000, size=512)
        pl.load(q_mat, q, [0, 0])
        pl.load(k_mat, k, [0, 0])
        pl.load(s_mat, s, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0)
        pl.move(q_left, q_mat)
        pl.move(k_right, k_mat)
        pl.system.sync_src(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=0)
        pl.matmul(acc, q_left, k_right)
        pl.system.sync_src(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=0)
        pl.move(s_fb, s_mat)
        pl.system.sync_src(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.FIX, event_id=1)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.FIX, event_id=1)
        pl.store(out_t, acc, [0, 0], scale=0.1, relu_pre_mode=pl.ReluPreMode.NormalRelu)
        pl.store(out_c, acc, [0, 0], scale=s_fb)
        pl.move(vec_i8, acc, scale=s_fb, acc_to_vec_mode=pl.AccToVecMode.SingleModeVec0)
        pl.move(vec_h, acc, scale=0.5, acc_to_vec_mode=pl.AccToVecMode.SingleModeVec0)
        pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=0)
    with pl.section_vector():
        sub_id = pl.get_subblock_idx()
        pl.system.wait_cross_core(pipe=pl.PipeType.MTE3, event_id=0)
        if sub_id == 0:
            pl.store(out_v, vec_i8, [0, 0])
            pl.store(out_h, vec_h, [0, 0])
