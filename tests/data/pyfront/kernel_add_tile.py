# Element-wise add of two fp16 matrices in 128x128 tiles, three double-buffered rings.
import pypto_pro.language as pl

TM = 128
TN = 128
TILE_BYTES = TM * TN * 2
A_BASE = 0x00000
B_BASE = 0x10000
C_BASE = 0x20000

half_tile = pl.TileType(shape=[TM, TN], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Vec)


@pl.jit(auto_mutex=True)
def add_kernel(a: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16],
               b: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16],
               c: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16]):
    ra = pl.make_tile_group(type=half_tile, addrs=A_BASE, mutex_ids=[0, 1])
    rb = pl.make_tile_group(type=half_tile, addrs=B_BASE, mutex_ids=[2, 3])
    rc = pl.make_tile_group(type=half_tile, addrs=C_BASE, mutex_ids=[4, 5])
    with pl.section_vector():
        grid_m = a.shape[0] // TM
        grid_n = a.shape[1] // TN
        for idx in pl.range(pl.get_block_idx(), grid_m * grid_n, pl.get_block_num()):
            i = idx // grid_n
            j = idx % grid_n
            ta = ra.next()
            tb = rb.next()
            tc = rc.next()
            pl.load_tile(ta, a, [i, j])
            pl.load_tile(tb, b, [i, j])
            pl.add(tc, ta, tb)
            pl.store_tile(c, tc, [i, j])
