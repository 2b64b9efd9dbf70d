"""C[M, N] = A[M, K] @ B[K, N] + bias[1, N], BF16 in, FP32 accumulate and out (simulator
test kernel, written after matmul.md's K-split bias example).

The bias row goes GM -> Mat (BF16) -> Bias (FP32, converted by the move) and enters the
first K block through pl.matmul(acc, lhs, rhs, bias, phase=Partial); the other K blocks use
matmul_acc, the last one with phase=Final. K must be a multiple of TILE; M and N are
multiples of TILE.
"""
import pypto_pro.language as pl
import torch

TILE = 128
HALF = 0x40000


@pl.jit(auto_mutex=True)
def matmul_bias_kernel(
    a: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_BF16],
    b: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_BF16],
    bias: pl.Tensor[[1, pl.DYNAMIC], pl.DT_BF16],
    c: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
):
    m = a.shape[0]
    k = a.shape[1]
    n = b.shape[1]
    a_l1 = pl.make_tile_group(
        type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_BF16, target_memory=pl.MemorySpace.Mat),
        addrs=[0x00000, HALF], mutex_ids=[0, 1])
    b_l1 = pl.make_tile_group(
        type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_BF16, target_memory=pl.MemorySpace.Mat),
        addrs=[0x08000, HALF + 0x08000], mutex_ids=[2, 3])
    bias_l1 = pl.make_tile_group(
        type=pl.TileType(shape=[1, TILE], dtype=pl.DT_BF16, target_memory=pl.MemorySpace.Mat),
        addrs=[0x10000, HALF + 0x10000], mutex_ids=[4, 5])
    a_left = pl.make_tile_group(
        type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_BF16, target_memory=pl.MemorySpace.Left),
        addrs=[0x0000, 0x8000], mutex_ids=[6, 7])
    b_right = pl.make_tile_group(
        type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_BF16, target_memory=pl.MemorySpace.Right),
        addrs=[0x0000, 0x8000], mutex_ids=[8, 9])
    bias_bt = pl.make_tile_group(
        type=pl.TileType(shape=[1, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Bias),
        addrs=0x0000, mutex_ids=[10])
    acc = pl.make_tile_group(
        type=pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc,
                         fractal=1024),
        addrs=0x0000, mutex_ids=[11])
    with pl.section_cube():
        pl.system.set_mm_layout_transform(enabled=True)
        for t in pl.range(pl.get_block_idx(), (m // TILE) * (n // TILE), pl.get_block_num()):
            i = (t // (n // TILE)) * TILE
            j = (t % (n // TILE)) * TILE
            ac = acc.current()
            for kk in pl.range(0, k, TILE):
                cur_a = a_l1.next()
                cur_b = b_l1.next()
                al = a_left.next()
                br = b_right.next()
                pl.load(cur_a, a, [i, kk])
                pl.load(cur_b, b, [kk, j])
                pl.move(al, cur_a)
                pl.move(br, cur_b)
                if kk == 0:
                    bl1 = bias_l1.next()
                    pl.load(bl1, bias, [0, j])
                    bt = bias_bt.current()
                    pl.move(bt, bl1)
                    if k == TILE:
                        pl.matmul(ac, al, br, bt, phase=pl.AccPhase.Final)
                    else:
                        pl.matmul(ac, al, br, bt, phase=pl.AccPhase.Partial)
                elif kk < k - TILE:
                    pl.matmul_acc(ac, ac, al, br, phase=pl.AccPhase.Partial)
                else:
                    pl.matmul_acc(ac, ac, al, br, phase=pl.AccPhase.Final)
            pl.store(c, ac, [i, j], phase=pl.STPhase.Final)
        pl.system.set_mm_layout_transform(enabled=False)
