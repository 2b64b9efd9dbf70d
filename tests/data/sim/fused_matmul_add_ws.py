"""out = a @ b + x through a GM workspace ring of two tiles (simulator test kernel, written
after the structure of the official GM-workspace matmul + add sample).

The AIC computes each 64x64 tile of a @ b (FP16 in, FP32 accumulate) into workspace slot
t % 2 and sets READY (event 0); both AIVs wait for it, add their 32 rows of x and store them,
and give the slot back with FREE (event 1), which the AIC waits for before it writes that slot
again. L1/L0/UB buffers are tile groups under auto_mutex. One block (1 AIC + 2 AIV).
"""
import pypto_pro.language as pl

M = 128
K = 64
N = 128
TM = 64
TN = 64
TILES = (M // TM) * (N // TN)
READY = 0
FREE = 1


@pl.jit(auto_mutex=True)
def fused_ws_kernel(
    a: pl.Tensor[[M, K], pl.DT_FP16],
    b: pl.Tensor[[K, N], pl.DT_FP16],
    x: pl.Tensor[[M, N], pl.DT_FP32],
    out: pl.Tensor[[M, N], pl.DT_FP32],
    ws: pl.Tensor[[2 * TM, TN], pl.DT_FP32],
):
    a_l1 = pl.make_tile_group(
        type=pl.TileType(shape=[TM, K], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Mat),
        addrs=0x00000, mutex_ids=[0])
    b_l1 = pl.make_tile_group(
        type=pl.TileType(shape=[K, TN], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Mat),
        addrs=0x04000, mutex_ids=[1])
    a_l0 = pl.make_tile_group(
        type=pl.TileType(shape=[TM, K], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Left),
        addrs=0x0000, mutex_ids=[2])
    b_l0 = pl.make_tile_group(
        type=pl.TileType(shape=[K, TN], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Right),
        addrs=0x0000, mutex_ids=[3])
    acc = pl.make_tile_group(
        type=pl.TileType(shape=[TM, TN], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc),
        addrs=0x0000, mutex_ids=[4])
    mm_ub = pl.make_tile_group(
        type=pl.TileType(shape=[32, TN], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x0000, mutex_ids=[5])
    x_ub = pl.make_tile_group(
        type=pl.TileType(shape=[32, TN], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x2000, mutex_ids=[6])
    o_ub = pl.make_tile_group(
        type=pl.TileType(shape=[32, TN], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x4000, mutex_ids=[7])

    with pl.section_cube():
        t = 0
        for i in pl.range(0, M, TM):
            for j in pl.range(0, N, TN):
                slot = t % 2
                if t >= 2:
                    pl.system.wait_cross_core(pipe=pl.PipeType.FIX, event_id=FREE)
                ca = a_l1.current()
                cb = b_l1.current()
                al = a_l0.current()
                br = b_l0.current()
                ac = acc.current()
                pl.load(ca, a, [i, 0])
                pl.load(cb, b, [0, j])
                pl.move(al, ca)
                pl.move(br, cb)
                pl.matmul(ac, al, br)
                pl.store(ws, ac, [slot * TM, 0])
                pl.system.set_cross_core(pipe=pl.PipeType.FIX, event_id=READY)
                t = t + 1

    with pl.section_vector():
        sub = pl.get_subblock_idx()
        row = sub * 32
        t = 0
        for i in pl.range(0, M, TM):
            for j in pl.range(0, N, TN):
                slot = t % 2
                pl.system.wait_cross_core(pipe=pl.PipeType.MTE2, event_id=READY)
                mm = mm_ub.current()
                xb = x_ub.current()
                ob = o_ub.current()
                pl.load(mm, ws, [slot * TM + row, 0])
                pl.load(xb, x, [i + row, j])
                if t < TILES - 2:
                    pl.system.set_cross_core(pipe=pl.PipeType.MTE2, event_id=FREE)
                pl.add(ob, mm, xb)
                pl.store(out, ob, [i + row, j])
                t = t + 1
