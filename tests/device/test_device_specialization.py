"""The frontend's launch-time behaviour that is not the simulator's: one compiled variant per
static shape signature (pl.STATIC axes and a final `...` specialise, pl.DYNAMIC and literal
axes do not), @pl.jit on a plain function, the internal tile-scalar spellings (pl.muls, ...)
and pl.getval of a GM tensor in the kernel body outside a section."""

import pypto_pro.language as pl
import pytest
import torch

TILE = 32


@pl.jit(auto_mutex=True)
def double_dynamic(
    x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
    z: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
):
    tt = pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
    a_g = pl.make_tile_group(type=tt, addrs=0x0000, mutex_ids=[0])
    c_g = pl.make_tile_group(type=tt, addrs=0x1000, mutex_ids=[1])
    with pl.section_vector():
        for i in pl.range(0, x.shape[0] // TILE, 1):
            for j in pl.range(0, x.shape[1] // TILE, 1):
                a = a_g.current()
                c = c_g.current()
                pl.load_tile(a, x, [i, j])
                pl.muls(c, a, 2.0)
                pl.store_tile(z, c, [i, j])


@pl.jit(auto_mutex=True)
def double_static_cols(
    x: pl.Tensor[[pl.DYNAMIC, pl.STATIC], pl.DT_FP32],
    z: pl.Tensor[[pl.DYNAMIC, pl.STATIC], pl.DT_FP32],
):
    tt = pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
    a_g = pl.make_tile_group(type=tt, addrs=0x0000, mutex_ids=[0])
    c_g = pl.make_tile_group(type=tt, addrs=0x1000, mutex_ids=[1])
    with pl.section_vector():
        for i in pl.range(0, x.shape[0] // TILE, 1):
            for j in pl.range(0, x.shape[1] // TILE, 1):
                a = a_g.current()
                c = c_g.current()
                pl.load_tile(a, x, [i, j])
                pl.adds(c, a, 1.5)
                pl.store_tile(z, c, [i, j])


@pl.jit(auto_mutex=True)
def double_tail(
    x: pl.Tensor[[pl.DYNAMIC, ...], pl.DT_FP32],
    z: pl.Tensor[[pl.DYNAMIC, ...], pl.DT_FP32],
):
    tt = pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
    a_g = pl.make_tile_group(type=tt, addrs=0x0000, mutex_ids=[0])
    c_g = pl.make_tile_group(type=tt, addrs=0x1000, mutex_ids=[1])
    with pl.section_vector():
        for b in pl.range(0, x.shape[0], 1):
            for i in pl.range(0, x.shape[1] // TILE, 1):
                a = a_g.current()
                c = c_g.current()
                pl.load_tile(a, x, [b, i, 0], order=[1, 2])
                pl.maxs(c, a, 0.25)
                pl.store_tile(z, c, [b, i, 0], order=[1, 2])


def _variants(kernel, shapes, ref):
    kernel._compiled_by_signature.clear()
    kernel._kernel_def_by_static_signature.clear()
    for shape in shapes:
        x = torch.rand(shape, device="npu:0", dtype=torch.float32)
        z = torch.zeros(shape, device="npu:0", dtype=torch.float32)
        kernel[None, 1](x, z)
        torch.testing.assert_close(z, ref(x))
    assert len(kernel._kernel_def_by_static_signature) == len(kernel._compiled_by_signature)
    return len(kernel._compiled_by_signature)


def test_dynamic_axes_do_not_specialise():
    assert _variants(double_dynamic, [(32, 64), (64, 64), (32, 96)], lambda x: x * 2) == 1


def test_static_axis_specialises_per_value():
    # N = 64, 64 (reuse), 96 (new); M changes are DYNAMIC.
    assert _variants(double_static_cols, [(32, 64), (64, 64), (32, 96), (96, 64)], lambda x: x + 1.5) == 2


def test_ellipsis_tail_is_static_and_takes_any_higher_rank():
    shapes = [(1, 32, 32), (2, 32, 32), (1, 64, 32)]
    assert _variants(double_tail, shapes, lambda x: torch.clamp(x, min=0.25)) == 2
    with pytest.raises(Exception, match="at least 1"):
        double_tail[None, 1](torch.zeros(()), torch.zeros(()))


def test_jit_on_a_plain_function_is_a_pass_through():
    @pl.jit()
    def not_a_kernel(a, b=3):
        return a * b

    assert not_a_kernel(2) == 6
    assert not_a_kernel.__name__ == "not_a_kernel"


@pl.jit(auto_mutex=True)
def flag_from_gm_kernel(
    flags: pl.Tensor[[2], pl.DT_INT32],
    out: pl.Tensor[[2], pl.DT_INT32],
):
    first = pl.getval(flags, 0)  # kernel body, outside any section
    with pl.section_vector():
        pl.setval(out, 0, first + 1)
        pl.setval(out, 1, pl.getval(flags, 1) * 3)


def test_getval_of_gm_in_the_kernel_body():
    flags = torch.tensor([4, 5], dtype=torch.int32, device="npu:0")
    out = torch.zeros(2, dtype=torch.int32, device="npu:0")
    flag_from_gm_kernel(flags, out)
    assert out.tolist() == [5, 15]
