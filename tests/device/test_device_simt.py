"""SIMT through the CPU device: @pl.simt.function (launchable with max_threads, or a helper),
pl.simt.launch from a vector section with a 2-D grid, and a race between threads raised as a
KernelHazardError."""

import pypto_pro.language as pl
import pytest
import torch

N = 64


@pl.simt.function
def scaled(v, s):
    return v * s


@pl.simt.function(max_threads=N)
def axpy(dst: pl.Tile[[1, N], pl.DT_FP32], src: pl.Tile[[1, N], pl.DT_FP32], a: pl.DT_FP32):
    t = pl.simt.thread_idx()
    i = t.x + t.y * pl.simt.block_dim().x
    dst[0, i] = scaled(src[0, i], a) + dst[0, i]


@pl.simt.function(max_threads=N)
def shift_left(dst: pl.Tile[[1, N], pl.DT_FP32], src: pl.Tile[[1, N], pl.DT_FP32], a: pl.DT_FP32):
    i = pl.simt.linear_thread_idx()
    dst[0, i] = dst[0, (i + 1) % N] * a  # reads the element the next thread writes


@pl.jit()
def axpy_kernel(x: pl.Tensor[[1, N], pl.DT_FP32], y: pl.Tensor[[1, N], pl.DT_FP32], a: pl.DT_FP32):
    tt = pl.TileType(shape=[1, N], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
    tx = pl.make_tile(tt, addr=0x0000, size=N * 4)
    ty = pl.make_tile(tt, addr=0x1000, size=N * 4)
    with pl.section_vector():
        pl.load(tx, x, [0, 0])
        pl.load(ty, y, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.simt.launch(axpy, threads=(16, 4), args=(ty, tx, a))
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=1)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=1)
        pl.store(y, ty, [0, 0])


@pl.jit()
def shift_kernel(x: pl.Tensor[[1, N], pl.DT_FP32], y: pl.Tensor[[1, N], pl.DT_FP32], a: pl.DT_FP32):
    tt = pl.TileType(shape=[1, N], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
    tx = pl.make_tile(tt, addr=0x0000, size=N * 4)
    ty = pl.make_tile(tt, addr=0x1000, size=N * 4)
    with pl.section_vector():
        pl.load(tx, x, [0, 0])
        pl.load(ty, y, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.simt.launch(shift_left, threads=N, args=(ty, tx, a))
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=1)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=1)
        pl.store(y, ty, [0, 0])


def test_simt_axpy_on_a_2d_grid():
    x = torch.rand(1, N, device="npu:0")
    y = torch.rand(1, N, device="npu:0")
    want = x * 3.0 + y
    axpy_kernel(x, y, 3.0)
    torch.testing.assert_close(y, want)


def test_threads_racing_on_an_element_raise():
    x = torch.rand(1, N, device="npu:0")
    y = torch.rand(1, N, device="npu:0")
    with pytest.raises(RuntimeError, match="SIM-SIMT-RACE"):
        shift_kernel(x, y, 2.0)


def test_simt_function_needs_max_threads_or_a_function():
    with pytest.raises(TypeError):
        pl.simt.function()


def test_simt_function_is_not_callable_from_host():
    with pytest.raises(RuntimeError, match="only be called from a @pl.jit kernel"):
        axpy(None, None, 1.0)
