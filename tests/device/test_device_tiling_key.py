"""Tiling keys through the CPU device: `kernel[stream, block_dim, {...}]` binds the fields for
that launch (a module-level schema, a schema passed into a kernel factory, an is_valid() written
as a plain method or a classmethod), and the frontend's launch errors."""

import pypto_pro.language as pl
import pytest
import torch
from pypto_pro.runtime.tilingkey import TilingKeyField

ROWS, COLS = 16, 64


class OpKey:
    Op = TilingKeyField(bits=2, values=[0, 1, 2])

    @classmethod
    def is_valid(cls, key):
        return key[0] != 2  # Op 2 is declared but not built


class ScaleKey:
    Twice = TilingKeyField(bits=1, values=[0, 1])

    def is_valid(self, key):
        return True


@pl.jit(auto_mutex=True, tiling_key=OpKey)
def binary_kernel(
    x: pl.Tensor[[ROWS, COLS], pl.DT_FP32],
    y: pl.Tensor[[ROWS, COLS], pl.DT_FP32],
    z: pl.Tensor[[ROWS, COLS], pl.DT_FP32],
):
    tt = pl.TileType(shape=[ROWS, COLS], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
    ga = pl.make_tile_group(type=tt, addrs=0x0000, mutex_ids=[0])
    gb = pl.make_tile_group(type=tt, addrs=0x1000, mutex_ids=[1])
    gc = pl.make_tile_group(type=tt, addrs=0x2000, mutex_ids=[2])
    with pl.section_vector():
        a = ga.current()
        b = gb.current()
        c = gc.current()
        pl.load(a, x, [0, 0])
        pl.load(b, y, [0, 0])
        if Op == 0:
            pl.add(c, a, b)
        else:
            pl.sub(c, a, b)
        pl.store(z, c, [0, 0])


def make_scale_kernel(key_cls):
    @pl.jit(auto_mutex=True, tiling_key=key_cls)
    def scale_kernel(
        x: pl.Tensor[[ROWS, COLS], pl.DT_FP32],
        z: pl.Tensor[[ROWS, COLS], pl.DT_FP32],
    ):
        tt = pl.TileType(shape=[ROWS, COLS], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
        ga = pl.make_tile_group(type=tt, addrs=0x0000, mutex_ids=[0])
        gc = pl.make_tile_group(type=tt, addrs=0x1000, mutex_ids=[1])
        with pl.section_vector():
            a = ga.current()
            c = gc.current()
            pl.load(a, x, [0, 0])
            if Twice == 1:
                pl.muls(c, a, 2.0)
            else:
                pl.muls(c, a, 1.0)
            pl.store(z, c, [0, 0])

    return scale_kernel


def _data():
    x = torch.rand(ROWS, COLS, device="npu:0")
    y = torch.rand(ROWS, COLS, device="npu:0")
    return x, y, torch.zeros(ROWS, COLS, device="npu:0")


@pytest.mark.parametrize("op, ref", [(0, lambda x, y: x + y), (1, lambda x, y: x - y)])
def test_module_level_schema_selects_the_branch(op, ref):
    x, y, z = _data()
    binary_kernel[None, 1, {"Op": op}](x, y, z)
    torch.testing.assert_close(z, ref(x, y))


def test_is_valid_classmethod_rejects_the_key_at_launch():
    x, y, z = _data()
    with pytest.raises(ValueError):
        binary_kernel[None, 1, {"Op": 2}](x, y, z)


def test_plain_call_of_a_keyed_kernel_is_refused():
    x, y, z = _data()
    with pytest.raises(ValueError, match="bracket-launch"):
        binary_kernel(x, y, z)


@pytest.mark.parametrize("twice, factor", [(0, 1.0), (1, 2.0)])
def test_schema_passed_into_a_kernel_factory(twice, factor):
    kernel = make_scale_kernel(ScaleKey)
    x, _y, z = _data()
    kernel[None, 1, {"Twice": twice}](x, z)
    torch.testing.assert_close(z, x * factor)
