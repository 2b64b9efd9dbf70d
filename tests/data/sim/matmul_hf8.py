"""HF8 (HiFloat8) Cube matmul (simulator test kernel, written after matmul_acc.md's K-blocked
accumulation and store.md's `scale`): C[64, 64] = A[64, 128] @ B[128, 64] with HF8 operands
(`pl.DT_HF8`, 1-byte elements: 16 x 32 fractals as INT8), FP32 accumulation in two K blocks
(matmul Partial, matmul_acc Final, layout transform on, Acc fractal=1024), then
  * matmul_hf8_fp32_kernel: out = FP32(acc)         pl.store(phase=Final)
  * matmul_hf8_hf8_kernel:  out = HF8(acc * 0.5)    pl.store(phase=Final) with a per-tensor scale
HF8 has no torch dtype: the HF8 tensors are uint8 tensors of codes, as the frontend passes them.
"""
import pypto_pro.language as pl

TILE = 64
K_TOTAL = 128


@pl.jit(auto_mutex=True)
def matmul_hf8_fp32_kernel(
    a: pl.Tensor[[TILE, K_TOTAL], pl.DT_HF8],
    b: pl.Tensor[[K_TOTAL, TILE], pl.DT_HF8],
    out: pl.Tensor[[TILE, TILE], pl.DT_FP32],
):
    a_mat = pl.make_tile_group(
        type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_HF8, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
        addrs=[0x00000, 0x40000], mutex_ids=[0, 1])
    b_mat = pl.make_tile_group(
        type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_HF8, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
        addrs=[0x08000, 0x48000], mutex_ids=[2, 3])
    a_left = pl.make_tile_group(
        type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_HF8, target_memory=pl.MemorySpace.Left, layout=pl.NZ),
        addrs=[0x0000, 0x2000], mutex_ids=[4, 5])
    b_right = pl.make_tile_group(
        type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_HF8, target_memory=pl.MemorySpace.Right, layout=pl.ZN),
        addrs=[0x0000, 0x2000], mutex_ids=[6, 7])
    acc = pl.make_tile_group(
        type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc, layout=pl.NZ,
                         fractal=1024),
        addrs=0x0000, mutex_ids=[8])
    with pl.section_cube():
        pl.system.set_mm_layout_transform(enabled=True)
        ac = acc.current()
        for kb in pl.range(0, K_TOTAL // TILE, 1):
            am = a_mat.next()
            bm = b_mat.next()
            pl.load(am, a, [0, kb * TILE])
            pl.load(bm, b, [kb * TILE, 0])
            al = a_left.next()
            br = b_right.next()
            pl.move(al, am)
            pl.move(br, bm)
            if kb == 0:
                pl.matmul(ac, al, br, phase=pl.AccPhase.Partial)
            else:
                pl.matmul_acc(ac, ac, al, br, phase=pl.AccPhase.Final)
        pl.store(out, ac, [0, 0], phase=pl.STPhase.Final)
        pl.system.set_mm_layout_transform(enabled=False)


@pl.jit(auto_mutex=True)
def matmul_hf8_hf8_kernel(
    a: pl.Tensor[[TILE, K_TOTAL], pl.DT_HF8],
    b: pl.Tensor[[K_TOTAL, TILE], pl.DT_HF8],
    out: pl.Tensor[[TILE, TILE], pl.DT_HF8],
):
    a_mat = pl.make_tile_group(
        type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_HF8, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
        addrs=[0x00000, 0x40000], mutex_ids=[0, 1])
    b_mat = pl.make_tile_group(
        type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_HF8, target_memory=pl.MemorySpace.Mat, layout=pl.NZ),
        addrs=[0x08000, 0x48000], mutex_ids=[2, 3])
    a_left = pl.make_tile_group(
        type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_HF8, target_memory=pl.MemorySpace.Left, layout=pl.NZ),
        addrs=[0x0000, 0x2000], mutex_ids=[4, 5])
    b_right = pl.make_tile_group(
        type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_HF8, target_memory=pl.MemorySpace.Right, layout=pl.ZN),
        addrs=[0x0000, 0x2000], mutex_ids=[6, 7])
    acc = pl.make_tile_group(
        type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc, layout=pl.NZ,
                         fractal=1024),
        addrs=0x0000, mutex_ids=[8])
    with pl.section_cube():
        pl.system.set_mm_layout_transform(enabled=True)
        ac = acc.current()
        for kb in pl.range(0, K_TOTAL // TILE, 1):
            am = a_mat.next()
            bm = b_mat.next()
            pl.load(am, a, [0, kb * TILE])
            pl.load(bm, b, [kb * TILE, 0])
            al = a_left.next()
            br = b_right.next()
            pl.move(al, am)
            pl.move(br, bm)
            if kb == 0:
                pl.matmul(ac, al, br, phase=pl.AccPhase.Partial)
            else:
                pl.matmul_acc(ac, ac, al, br, phase=pl.AccPhase.Final)
        pl.store(out, ac, [0, 0], scale=0.5, phase=pl.STPhase.Final)
        pl.system.set_mm_layout_transform(enabled=False)


@pl.jit(auto_mutex=True)
def matmul_hf8_fp16_kernel(
    a: pl.Tensor[[TILE, TILE], pl.DT_HF8],
    b: pl.Tensor[[TILE, TILE], pl.DT_FP16],
    out: pl.Tensor[[TILE, TILE], pl.DT_FP32],
):
    """HF8 x FP16: not one of matmul_acc.md's operand combinations."""
    a_mat = pl.make_tile(pl.TileType(shape=[TILE, TILE], dtype=pl.DT_HF8, target_memory=pl.MemorySpace.Mat,
                                     layout=pl.NZ), addr=0x00000, size=4096)
    b_mat = pl.make_tile(pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Mat,
                                     layout=pl.NZ), addr=0x08000, size=8192)
    a_left = pl.make_tile(pl.TileType(shape=[TILE, TILE], dtype=pl.DT_HF8, target_memory=pl.MemorySpace.Left,
                                      layout=pl.NZ), addr=0x0000, size=4096)
    b_right = pl.make_tile(pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Right,
                                       layout=pl.ZN), addr=0x0000, size=8192)
    acc = pl.make_tile(pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc,
                                   layout=pl.NZ, fractal=1024), addr=0x0000, size=16384)
    with pl.section_cube():
        pl.load(a_mat, a, [0, 0])
        pl.load(b_mat, b, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE1, event_id=0)
        pl.move(a_left, a_mat)
        pl.move(b_right, b_mat)
        pl.system.sync_src(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE1, wait_pipe=pl.PipeType.M, event_id=0)
        pl.matmul(acc, a_left, b_right)
        pl.system.sync_src(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.M, wait_pipe=pl.PipeType.FIX, event_id=0)
        pl.store(out, acc, [0, 0])
