"""Clamp and leaky branch in VF: compare masks, select, and scalar min/max forms."""
import pypto_pro.language as pl
from pypto_pro.language import Vf as vf

LANES = 64
N = 4096
LOW = -6.0
HIGH = 6.0


@pl.vector_function
def clamp_leaky(src, dst, count: pl.DT_INT64):
    everything = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    zero = vf.full(0.0, everything, dtype=pl.DT_FP32)
    for r in pl.range((count + LANES - 1) // LANES):
        m = vf.update_mask(pl.min(LANES, count - r * LANES), dtype=pl.DT_FP32)
        v = vf.load_align(src, r * LANES)
        v = vf.maxs(vf.mins(v, HIGH, m), LOW, m)
        negative = vf.lt(v, zero, m)
        scaled = vf.muls(v, 0.01, m)
        v = vf.select(scaled, v, negative)
        vf.store_align(dst + r * LANES, v, m)
    vf.mem_bar(mode=pl.MemBarMode.VST_VLD)


flat_t = pl.TileType(shape=[1, N], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec,
                     valid_shape=[-1, -1])


@pl.jit(auto_mutex=True)
def clamp_kernel(x: pl.Tensor[[pl.DYNAMIC], pl.DT_FP32], y: pl.Tensor[[pl.DYNAMIC], pl.DT_FP32]):
    a = pl.make_tile_group(type=flat_t, addrs=[0, N * 4], mutex_ids=[0, 1])
    b = pl.make_tile_group(type=flat_t, addrs=[2 * N * 4, 3 * N * 4], mutex_ids=[2, 3])
    with pl.section_vector():
        total = x.shape[0]
        chunks = (total + N - 1) // N
        for c in pl.range(pl.get_block_idx(), chunks, pl.get_block_num()):
            live = pl.min(N, total - c * N)
            ta = a.next()
            tb = b.next()
            pl.set_validshape(ta, [1, live])
            pl.set_validshape(tb, [1, live])
            pl.load(ta, x, [c * N])
            clamp_leaky(ta, tb, live)
            pl.store(y, tb, [c * N])
