"""Transfers along chosen axes through the CPU device (load_tile.md, store.md): `order=[a, b]`
on pl.load / pl.store / pl.load_tile / pl.store_tile. The tile spans the two named tensor axes;
a descending order is a transposed load; offsets on the two axes of load_tile/store_tile are
block indices, absolute elsewhere; a descending store order is a finding with its line."""

import inspect

import pypto_pro.language as pl
import pytest
import torch

from pypto_pro.language.parser.diagnostics._exceptions import ParserSyntaxError

import opdev.device as device

DEVICE = "npu:0"


@pl.jit()
def transpose_kernel(x: pl.Tensor[[32, 64], pl.DT_FP16], y: pl.Tensor[[64, 32], pl.DT_FP16]):
    with pl.section_vector():
        t = pl.make_tile(pl.TileType(shape=[64, 32], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Vec),
                         addr=0x0, size=4096)
        pl.load(t, x, [0, 0], order=[1, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(y, t, [0, 0])


@pl.jit()
def axes_kernel(x: pl.Tensor[[64, 3, 32], pl.DT_FP16], y: pl.Tensor[[32, 1, 32], pl.DT_FP16],
                yt: pl.Tensor[[32, 32], pl.DT_FP16]):
    with pl.section_vector():
        t = pl.make_tile(pl.TileType(shape=[32, 32], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Vec),
                         addr=0x0, size=2048)
        tt = pl.make_tile(pl.TileType(shape=[32, 32], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Vec),
                          addr=0x800, size=2048)
        pl.load_tile(t, x, [1, 2, 0], order=[0, 2])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store_tile(y, t, [0, 0, 0], order=[0, 2])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=0)
        pl.load_tile(tt, x, [1, 2, 0], order=[2, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(yt, tt, [0, 0])


@pl.jit()
def descending_store_kernel(x: pl.Tensor[[64, 3, 32], pl.DT_FP16], y: pl.Tensor[[32, 1, 32], pl.DT_FP16]):
    with pl.section_vector():
        t = pl.make_tile(pl.TileType(shape=[32, 32], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Vec),
                         addr=0x0, size=2048)
        pl.load_tile(t, x, [1, 2, 0], order=[0, 2])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store_tile(y, t, [0, 0, 0], order=[2, 0])  # descending store order


def test_a_descending_order_is_a_transposed_load():
    x = torch.randn([32, 64], device=DEVICE).half()
    y = torch.zeros([64, 32], device=DEVICE).half()
    transpose_kernel(x, y)
    assert torch.equal(y.cpu(), x.cpu().t().contiguous())


def test_load_tile_and_store_tile_walk_the_named_axes_of_a_3d_tensor():
    x = torch.randn([64, 3, 32], device=DEVICE).half()
    y = torch.zeros([32, 1, 32], device=DEVICE).half()
    yt = torch.zeros([32, 32], device=DEVICE).half()
    axes_kernel(x, y, yt)
    # tile offset [1, 2, 0]: block 1 on axis 0 (rows 32..63), absolute index 2 on axis 1.
    assert torch.equal(y.cpu()[:, 0, :], x.cpu()[32:64, 2, :])
    assert torch.equal(yt.cpu(), x.cpu()[32:64, 2, :].t().contiguous())


def test_a_descending_store_order_is_rejected_at_compile_time_with_its_line():
    # store.md: only ascending orders; the frontend's parser raises ParserSyntaxError.
    x = torch.randn([64, 3, 32], device=DEVICE).half()
    y = torch.zeros([32, 1, 32], device=DEVICE).half()
    with pytest.raises(ParserSyntaxError, match="order must be ascending") as info:
        descending_store_kernel(x, y)
    assert isinstance(info.value, device.KernelCompileError)
    assert info.value.code == "API-STORE-ORDER"
    src, first = inspect.getsourcelines(descending_store_kernel._func)
    assert info.value.line == first + next(i for i, l in enumerate(src) if "descending store order" in l)
    assert torch.equal(y.cpu(), torch.zeros([32, 1, 32]).half())  # nothing ran
