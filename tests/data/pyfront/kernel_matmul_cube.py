"""Cube matmul with a two-level K loop: GM -> L1 (Mat) -> L0A/L0B -> L0C (Acc) -> GM."""
import pypto_pro.language as pl

TILE_M = 128
TILE_N = 128
K_L1 = 128
K_L0 = 64
A_L1 = 0x00000
B_L1 = 0x40000

a_mat_t = pl.TileType(shape=[TILE_M, K_L1], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Mat,
                      valid_shape=[-1, -1])
b_mat_t = pl.TileType(shape=[K_L1, TILE_N], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Mat,
                      valid_shape=[-1, -1])
a_left_t = pl.TileType(shape=[TILE_M, K_L0], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Left,
                       layout=pl.NZ)
b_right_t = pl.TileType(shape=[K_L0, TILE_N], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Right)
acc_t = pl.TileType(shape=[TILE_M, TILE_N], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Acc,
                    valid_shape=[-1, -1], fractal=1024)


@pl.jit(auto_mutex=True)
def matmul_kernel(a: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16],
                  b: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16],
                  c: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16]):
    with pl.section_cube():
        a_l1 = pl.make_tile_group(type=a_mat_t, addrs=A_L1, mutex_ids=[0, 1])
        b_l1 = pl.make_tile_group(type=b_mat_t, addrs=B_L1, mutex_ids=[2, 3])
        lefts = pl.make_tile_group(type=a_left_t, addrs=0, mutex_ids=[4, 5])
        rights = pl.make_tile_group(type=b_right_t, addrs=0, mutex_ids=[6, 7])
        acc = pl.make_tile(acc_t, addr=0)
        m, k, n = a.shape[0], a.shape[1], b.shape[1]
        tiles_m = (m + TILE_M - 1) // TILE_M
        tiles_n = (n + TILE_N - 1) // TILE_N
        k_blocks = (k + K_L1 - 1) // K_L1
        pl.system.set_mm_layout_transform(enabled=True)
        for t in pl.range(pl.get_block_idx(), tiles_m * tiles_n, pl.get_block_num()):
            mi = t // tiles_n
            ni = t % tiles_n
            valid_m = pl.min(TILE_M, m - mi * TILE_M)
            valid_n = pl.min(TILE_N, n - ni * TILE_N)
            for kb in pl.range(k_blocks):
                valid_k = pl.min(K_L1, k - kb * K_L1)
                a_wide = a_l1.next()
                b_wide = b_l1.next()
                pl.set_validshape(a_wide, [valid_m, valid_k])
                pl.set_validshape(b_wide, [valid_k, valid_n])
                pl.load(a_wide, a, [mi * TILE_M, kb * K_L1])
                pl.load(b_wide, b, [kb * K_L1, ni * TILE_N])
                for sub in pl.range(0, K_L1 // K_L0):
                    left = lefts.next()
                    right = rights.next()
                    pl.move(left, a_wide, offset=[0, sub * K_L0])
                    pl.move(right, b_wide, offset=[sub * K_L0, 0])
                    step = kb * (K_L1 // K_L0) + sub
                    last = k_blocks * (K_L1 // K_L0) - 1
                    phase = pl.AccPhase.Final if step == last else pl.AccPhase.Partial
                    if step == 0:
                        pl.matmul(acc, left, right, phase=phase)
                    else:
                        pl.matmul_acc(acc, acc, left, right, phase=phase)
            pl.set_validshape(acc, [valid_m, valid_n])
            pl.store(c, acc, [mi * TILE_M, ni * TILE_N], phase=pl.STPhase.Final)
        pl.system.set_mm_layout_transform(enabled=False)
