"""C[M, N] = A[M, K] @ B[K, N] with K = 128: one 128x128x128 Cube step per output tile
(simulator test kernel, written after the Cube tutorial's structure).

load_tile (GM ND -> Mat NZ) -> move (Mat -> Left NZ / Right ZN) -> matmul (Acc NZ, FP32)
-> store_tile (FIX, NZ -> ND). Output tiles are split over the cores with a stride loop over
the M tiles; L1 is double-buffered with ping and pong in different bank halves.
"""
import pypto_pro.language as pl
import torch

TILE_M = 128
TILE_K = 128
TILE_N = 128
A_L1 = 0x00000
B_L1 = 0x10000
HALF = 0x40000


@pl.jit(auto_mutex=True)
def matmul_basic_kernel(
    a: pl.Tensor[[pl.DYNAMIC, TILE_K], pl.DT_FP16],
    b: pl.Tensor[[TILE_K, pl.DYNAMIC], pl.DT_FP16],
    out: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
):
    num_cores = pl.get_block_num()
    core_id = pl.get_block_idx()
    m = a.shape[0]
    n = b.shape[1]
    a_l1 = pl.make_tile_group(
        type=pl.TileType(shape=[TILE_M, TILE_K], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Mat),
        addrs=[A_L1, A_L1 + HALF], mutex_ids=[0, 1])
    b_l1 = pl.make_tile_group(
        type=pl.TileType(shape=[TILE_K, TILE_N], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Mat),
        addrs=[B_L1, B_L1 + HALF], mutex_ids=[2, 3])
    a_left = pl.make_tile_group(
        type=pl.TileType(shape=[TILE_M, TILE_K], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Left),
        addrs=0x0000, mutex_ids=[4])
    b_right = pl.make_tile_group(
        type=pl.TileType(shape=[TILE_K, TILE_N], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Right),
        addrs=0x0000, mutex_ids=[5])
    acc = pl.make_tile_group(
        type=pl.TileType(shape=[TILE_M, TILE_N], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc),
        addrs=0x0000, mutex_ids=[6])
    with pl.section_cube():
        for i in pl.range(core_id, m // TILE_M, num_cores):
            for j in pl.range(0, n // TILE_N, 1):
                cur_a = a_l1.next()
                cur_b = b_l1.next()
                pl.load_tile(cur_a, a, [i, 0])
                pl.load_tile(cur_b, b, [0, j])
                al = a_left.current()
                br = b_right.current()
                pl.move(al, cur_a)
                pl.move(br, cur_b)
                ac = acc.current()
                pl.matmul(ac, al, br)
                pl.store_tile(out, ac, [i, j])


def matmul_basic_wrapper(a, b):
    if a.shape[1] != TILE_K or b.shape[0] != TILE_K:
        raise ValueError("K must be 128")
    if a.shape[0] % TILE_M != 0 or b.shape[1] % TILE_N != 0:
        raise ValueError("M and N must be multiples of 128")
    out = torch.empty((a.shape[0], b.shape[1]), dtype=torch.float32)
    m_tiles = a.shape[0] // TILE_M
    matmul_basic_kernel[None, min(24, m_tiles)](a, b, out)
    return out
