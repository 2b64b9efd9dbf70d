"""C[M, N] = A[M, K] @ B[K, N] for any M, N, K (simulator test kernel, written after the
structure of the official dynamic matmul: two-level K blocking with 2-D move offsets,
four-branch Partial/Final accumulation, loads clipped to the live window with compute on
the full tile and a clipped store, ASW snake order over the output tiles).

FP16 in, FP32 accumulate (Acc fractal=1024, set_mm_layout_transform around the K loop),
FP16 out. The number of M tiles must be a multiple of WINDOW (the snake walks WINDOW M tiles
at a time).
"""
import pypto_pro.language as pl
import torch

TILE_M = 128
TILE_N = 128
KL1 = 128
KL0 = 64
STEP_K = KL1 // KL0
WINDOW = 2
HALF = 0x40000
A_L1 = 0x00000
B_L1 = 0x08000


@pl.jit(auto_mutex=True)
def matmul_dynamic_kernel(
    a: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16],
    b: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16],
    out: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16],
):
    num_cores = pl.get_block_num()
    core_id = pl.get_block_idx() // pl.get_subblock_num()
    m = a.shape[0]
    k = a.shape[1]
    n = b.shape[1]
    with pl.section_cube():
        a_wide = pl.make_tile_group(
            type=pl.TileType(shape=[TILE_M, KL1], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Mat,
                             valid_shape=[-1, -1]),
            addrs=[A_L1, A_L1 + HALF], mutex_ids=[0, 1])
        b_wide = pl.make_tile_group(
            type=pl.TileType(shape=[KL1, TILE_N], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Mat,
                             valid_shape=[-1, -1]),
            addrs=[B_L1, B_L1 + HALF], mutex_ids=[2, 3])
        a_left = pl.make_tile_group(
            type=pl.TileType(shape=[TILE_M, KL0], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Left,
                             layout=pl.NZ, valid_shape=[-1, -1]),
            addrs=[0x0000, 0x4000], mutex_ids=[4, 5])
        b_right = pl.make_tile_group(
            type=pl.TileType(shape=[KL0, TILE_N], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Right,
                             valid_shape=[-1, -1]),
            addrs=[0x0000, 0x4000], mutex_ids=[6, 7])
        acc = pl.make_tile_group(
            type=pl.TileType(shape=[TILE_M, TILE_N], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc,
                             fractal=1024, valid_shape=[-1, -1]),
            addrs=0x0000, mutex_ids=[8])
        pl.system.set_mm_layout_transform(enabled=True)
        m_tiles = (m + TILE_M - 1) // TILE_M
        n_tiles = (n + TILE_N - 1) // TILE_N
        total = m_tiles * n_tiles
        k_outer = (k + KL1 - 1) // KL1
        last_sub = (k + KL0 - 1) // KL0 - 1
        rounds = (total + num_cores - 1) // num_cores
        for r in pl.range(0, rounds):
            index = core_id + r * num_cores
            if index < total:
                row = index // n_tiles // WINDOW
                mi = row * WINDOW + index % WINDOW
                ni_fwd = (index // WINDOW) % n_tiles
                ni = ni_fwd + (row % 2) * (n_tiles - 1 - 2 * ni_fwd)
                i = mi * TILE_M
                j = ni * TILE_N
                valid_m = pl.min(TILE_M, m - i)
                valid_n = pl.min(TILE_N, n - j)
                for ko in pl.range(0, k_outer):
                    k_off = ko * KL1
                    valid_k1 = pl.min(KL1, k - k_off)
                    aw = a_wide.next()
                    pl.set_validshape(aw, [valid_m, valid_k1])
                    pl.load(aw, a, [i, k_off])
                    bw = b_wide.next()
                    pl.set_validshape(bw, [valid_k1, valid_n])
                    pl.load(bw, b, [k_off, j])
                    n_sub = (valid_k1 + KL0 - 1) // KL0
                    for ki in pl.range(0, n_sub):
                        sub_off = ki * KL0
                        sub_k = pl.min(KL0, valid_k1 - sub_off)
                        gsub = ko * STEP_K + ki
                        # move.md: the extracted window is [offset, offset + dst valid shape).
                        al = a_left.next()
                        pl.set_validshape(al, [TILE_M, sub_k])
                        pl.move(al, aw, offset=[0, sub_off])
                        br = b_right.next()
                        pl.set_validshape(br, [sub_k, TILE_N])
                        pl.move(br, bw, offset=[sub_off, 0])
                        if gsub == 0:
                            if gsub == last_sub:
                                pl.matmul(acc.current(), al, br, phase=pl.AccPhase.Final)
                            else:
                                pl.matmul(acc.current(), al, br, phase=pl.AccPhase.Partial)
                        else:
                            if gsub == last_sub:
                                pl.matmul_acc(acc.current(), acc.current(), al, br, phase=pl.AccPhase.Final)
                            else:
                                pl.matmul_acc(acc.current(), acc.current(), al, br, phase=pl.AccPhase.Partial)
                pl.set_validshape(acc.current(), [valid_m, valid_n])
                pl.store(out, acc.current(), [i, j], phase=pl.STPhase.Final)
        pl.system.set_mm_layout_transform(enabled=False)


def matmul_dynamic_wrapper(a, b):
    if a.shape[1] != b.shape[0]:
        raise ValueError("K of a and b differ")
    m_tiles = (a.shape[0] + TILE_M - 1) // TILE_M
    if m_tiles % WINDOW != 0:
        raise ValueError("the number of M tiles must be a multiple of WINDOW")
    out = torch.empty((a.shape[0], b.shape[1]), dtype=torch.float16)
    total = m_tiles * ((b.shape[1] + TILE_N - 1) // TILE_N)
    matmul_dynamic_kernel[None, min(24, total)](a, b, out)
    return out
