"""A @pl.vector_function kernel with a scalar argument and a dataclass (tiling) argument,
module constants read by the kernel, and a constant the host computes (not a literal)."""

from __future__ import annotations

from dataclasses import dataclass
import math

import pypto_pro.language as pl
from pypto_pro.language import Vf as vf  # noqa: N813
import torch

LANES = 64                      # fp32 lanes of a 256-byte register
ROWS = 4
COLS = int(math.sqrt(LANES * LANES))  # 64: the host evaluates this, the simulator gets the value
SLOT = ROWS * COLS * 4


@dataclass
class ScaleTiling:
    scale: float
    rows_per_core: int


@pl.vector_function
def scale_rows_vf(src, dst, n_rows: pl.DT_INT64, scale: pl.DT_FP32, bias: pl.DT_FP32):
    mask = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    for r in pl.range(0, n_rows):
        reg = vf.load_align(src, r * COLS)
        out = vf.muls(reg, scale, mask)
        out = vf.adds(out, bias, mask)
        vf.store_align(dst + r * COLS, out, mask)


@pl.jit(auto_mutex=True)
def scale_kernel(
    x: pl.Tensor[[pl.DYNAMIC, COLS], pl.DT_FP32],
    y: pl.Tensor[[pl.DYNAMIC, COLS], pl.DT_FP32],
    bias: pl.DT_FP32,
    tiling: ScaleTiling,
):
    tt = pl.TileType(shape=[ROWS, COLS], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec, valid_shape=[-1, -1])
    src_g = pl.make_tile_group(type=tt, addrs=[0, SLOT], mutex_ids=[0, 1])
    dst_g = pl.make_tile_group(type=tt, addrs=[2 * SLOT, 3 * SLOT], mutex_ids=[2, 3])
    with pl.section_vector():
        rows = x.shape[0]
        first = pl.get_block_idx() * tiling.rows_per_core
        for r0 in pl.range(first, first + tiling.rows_per_core, ROWS):
            n = pl.min(ROWS, rows - r0)
            src = src_g.next()
            pl.set_validshape(src, [n, COLS])
            pl.load(src, x, [r0, 0])
            dst = dst_g.next()
            pl.set_validshape(dst, [n, COLS])
            scale_rows_vf(src, dst, n, tiling.scale, bias)
            pl.store(y, dst, [r0, 0])


def test_scale_with_dataclass_and_scalar():
    torch.manual_seed(3)
    x = torch.randn([24, COLS], device="npu:0")
    y = torch.empty([24, COLS], device="npu:0")
    tiling = ScaleTiling(scale=0.5, rows_per_core=8)
    scale_kernel[None, 3](x, y, 0.25, tiling)
    torch.testing.assert_close(y, x * 0.5 + 0.25)


def test_fixed_dim_mismatch_has_the_frontend_message():
    x = torch.randn([8, COLS + 1])
    y = torch.empty([8, COLS + 1])
    try:
        scale_kernel[None, 1](x, y, 0.0, ScaleTiling(1.0, 8))
    except ValueError as e:
        assert str(e) == "Tensor parameter 'x' axis 1 mismatch: expected 64, got 65"
    else:
        raise AssertionError("a fixed-dim mismatch must be rejected")


def test_scalar_of_the_wrong_kind_is_rejected():
    x = torch.randn([8, COLS])
    y = torch.empty([8, COLS])
    try:
        scale_kernel[None, 1](x, y, "0.5", ScaleTiling(1.0, 8))
    except TypeError as e:
        assert "arg[2] 'bias': expected Python scalar (int/float/bool), got str" == str(e)
    else:
        raise AssertionError("a string scalar must be rejected")
