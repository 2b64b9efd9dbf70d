"""Tile sub-views (subview.md): `tile[r0:r1, c0:c1]` is a tile over the source's bytes with the
source's row stride and the slice, clamped to the source's valid shape, as its valid shape; a
slice outside the tile, a step and a non-slice axis are findings with their lines."""

import inspect

import pypto_pro.language as pl
import pytest
import torch

import opdev.device as device

DEVICE = "npu:0"


def _line(func, marker):
    src, first = inspect.getsourcelines(func)
    return first + next(i for i, l in enumerate(src) if marker in l)


@pl.jit(auto_mutex=True)
def subview_kernel(a: pl.Tensor[[8, 64], pl.DT_FP16], out: pl.Tensor[[4, 34], pl.DT_FP16],
                   clamped: pl.Tensor[[8, 64], pl.DT_FP16], doubled: pl.Tensor[[8, 64], pl.DT_FP16]):
    tt = pl.TileType(shape=[8, 64], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Vec, valid_shape=[-1, -1])
    g = pl.make_tile_group(type=tt, addrs=0x0000, mutex_ids=[0])
    with pl.section_vector():
        t = g.next()
        pl.load(t, a, [0, 0])
        pl.store(out, t[2:6, 16:50], [0, 0])
        pl.set_validshape(t, [6, 40])
        pl.store(clamped, t[2:, 16:50], [0, 0])  # clamped to [4, 24]
        sub = t[0:2, 0:8]
        pl.add(sub, sub, sub)  # writes through to t's bytes
        pl.set_validshape(t, [8, 64])
        pl.store(doubled, t, [0, 0])


@pl.jit(auto_mutex=True)
def subview_outside_kernel(a: pl.Tensor[[8, 64], pl.DT_FP16]):
    g = pl.make_tile_group(type=pl.TileType(shape=[8, 64], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Vec),
                           addrs=0x0000, mutex_ids=[0])
    with pl.section_vector():
        t = g.next()
        pl.load(t, a, [0, 0])
        pl.store(a, t[4:9, 0:8], [0, 0])  # row 8 is outside


def test_subviews_share_the_source_bytes_and_clamp_to_its_valid_shape():
    a = torch.randn([8, 64], device=DEVICE).half()
    out = torch.zeros([4, 34], device=DEVICE).half()
    clamped = torch.zeros([8, 64], device=DEVICE).half()
    doubled = torch.zeros([8, 64], device=DEVICE).half()
    subview_kernel(a, out, clamped, doubled)
    assert torch.equal(out.cpu(), a[2:6, 16:50].cpu())
    expect = torch.zeros([8, 64]).half()
    expect[:4, :24] = a[2:6, 16:40].cpu()
    assert torch.equal(clamped.cpu(), expect)
    expect = a.cpu().clone()
    expect[:2, :8] = (a[:2, :8].float() * 2).half().cpu()
    assert torch.equal(doubled.cpu(), expect)

    with pytest.raises(device.KernelHazardError, match=r"row range \[4, 9\) is empty or outside \[0, 8\)") as info:
        subview_outside_kernel(a)
    assert info.value.line == _line(subview_outside_kernel._func, "row 8 is outside")
