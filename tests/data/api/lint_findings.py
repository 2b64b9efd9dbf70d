# Deliberately wrong kernel: every marked line holds one finding the API checker reports.
import pypto_pro.language as pl
from pypto_pro.language import Vf as vf

ROWS = 8
COLS = 256
tile_t = pl.TileType(shape=[ROWS, COLS], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
bad_t = pl.TileType(shape=[ROWS, COLS], dtype=pl.DT_FP17)  # API-UNKNOWN constant


@pl.inline  # API-LEGACY (deprecated -> warning)
def helper(t):
    pl.exp(t, t)


@pl.vector_function
def body_vf(src, dst, n: pl.DT_INT64):
    m = vf.create_mask(pattern=pl.MaskPattern.ALLL, dtype=pl.DT_FP32)  # unknown member
    v = vf.load_align(src, 0)
    vf.add(v, v, m)  # API-VF-RESULT-UNUSED
    pl.load(dst, src, [0, 0])  # API-MTE-IN-VF
    pl.add(dst, dst, dst)  # API-CONTEXT (tile op in a VF body)
    vf.store_align(dst, v, m)


@pl.jit(auto_mutex=True, autotune=True)  # API-UNKNOWN-KEYWORD
def bad_kernel(x: pl.Tensor[[pl.DYNAMIC, COLS], pl.DT_FP32],
               y: pl.Tensor[[pl.DYNAMIC, COLS], pl.DT_FP32]):
    ring = pl.make_tile_group(type=tile_t, addrs=[0, 0x8000], mutex_ids=[0, 1])
    body_vf(ring.next(), ring.next(), 4)  # API-VF-CALL-CONTEXT (outside section_vector)
    with pl.section_vector():
        t = ring.next()
        pl.lod(t, x, [0, 0])  # API-UNKNOWN (did you mean pl.load?)
        pl.add(t, t)  # API-ARITY (missing rhs)
        pl.load(t, x, [0, 0], orders=[1, 0])  # API-UNKNOWN-KEYWORD
        pl.exp(out=t, src=t)  # API-POSITIONAL-ONLY x2
        pl.load(t, x, [0, 0], dst_tile=t)  # API-DUPLICATE-ARG
        pl.set_validshape(t, ROWS, COLS)  # API-LEGACY (changed signature)
        pl.fillpad_inplace(t, t)  # API-LEGACY (removed)
        r = vf.load_align(t, 0)  # API-CONTEXT (vf op outside a VF body)
        pl.matmul(t, t, t)  # API-CONTEXT (cube op in section_vector)
        pl.system.sync_src(pl.PipeType.MTE2, pl.PipeType.V, 0)  # API-ARITY (keyword-only)
        pl.store(y, t, [0, 0], 1, 2)  # API-ARITY (too many positional)
        scale = lambda v: v * 2  # API-KERNEL-SYNTAX
        try:  # API-KERNEL-SYNTAX
            pl.store(y, t, [0, 0])
        except Exception:
            pass
        body_vf(t, t, r)
    with pl.section_vf():  # API-LEGACY (removed)
        pass
