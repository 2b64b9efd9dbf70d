"""A tiling-keyed kernel over raw GM pointers through the CPU device (tiling_key.md,
make_tensor.md, Ptr.md): `kernel[stream, block_dim, {...}]` binds each field of the schema as a
constant of that launch (the simulator's own tiling-key binding, not module globals), and
`pl.make_tensor(ptr, shape, dtype=...)` views a pl.Ptr argument's whole buffer as a tensor of that
shape and dtype. A partial view, a strided one and one past the buffer are findings at their lines."""

import inspect

import pypto_pro.language as pl
import pytest
import torch
from pypto_pro.runtime.tilingkey import TilingKeyField

import opdev.device as device

DEVICE = "npu:0"


class ScaleKey:
    Half = TilingKeyField(bits=1, values=[0, 1])


@pl.jit(tiling_key=ScaleKey)
def keyed_view_kernel(x_ptr: pl.Ptr[pl.DT_UINT8], out_ptr: pl.Ptr[pl.DT_UINT8]):
    if Half == 1:
        io = pl.DT_FP16
    else:
        io = pl.DT_FP32
    x = pl.make_tensor(x_ptr, [16, 64], dtype=io)
    out = pl.make_tensor(out_ptr, [16, 64], dtype=io)
    with pl.section_vector():
        t = pl.make_tile(pl.TileType(shape=[16, 64], dtype=io, target_memory=pl.MemorySpace.Vec), addr=0x0, size=4096)
        pl.load(t, x, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.add(t, t, t)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, t, [0, 0])


@pytest.mark.parametrize("half,dtype", [(1, torch.float16), (0, torch.float32)])
def test_tiling_key_selects_the_view_dtype(half, dtype):
    x = torch.randn(16, 64, device=DEVICE, dtype=dtype)
    out = torch.zeros(16, 64, device=DEVICE, dtype=dtype)
    keyed_view_kernel[None, 1, {"Half": half}](x, out)
    assert torch.equal(out, x + x)


def test_tiling_key_value_outside_the_schema_is_refused():
    x = torch.randn(16, 64, device=DEVICE, dtype=torch.float16)
    with pytest.raises(Exception):
        keyed_view_kernel[None, 1, {"Half": 2}](x, torch.zeros_like(x))


@pl.jit()
def partial_view_kernel(x_ptr: pl.Ptr[pl.DT_FP32], out: pl.Tensor[[8, 64], pl.DT_FP32]):
    x = pl.make_tensor(x_ptr, [8, 64])
    with pl.section_vector():
        t = pl.make_tile(pl.TileType(shape=[8, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x0, size=2048)
        pl.load(t, x, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, t, [0, 0])


@pl.jit()
def strided_view_kernel(x_ptr: pl.Ptr[pl.DT_FP32], out: pl.Tensor[[8, 64], pl.DT_FP32]):
    x = pl.make_tensor(x_ptr, [8, 64], [128, 1])
    with pl.section_vector():
        t = pl.make_tile(pl.TileType(shape=[8, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x0, size=2048)
        pl.load(t, x, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, t, [0, 0])


@pl.jit()
def oversized_view_kernel(x_ptr: pl.Ptr[pl.DT_FP32], out: pl.Tensor[[8, 64], pl.DT_FP32]):
    x = pl.make_tensor(x_ptr, [32, 64])
    with pl.section_vector():
        t = pl.make_tile(pl.TileType(shape=[8, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x0, size=2048)
        pl.load(t, x, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, t, [0, 0])


def _line(kernel, text):
    src, first = inspect.getsourcelines(kernel._func if hasattr(kernel, "_func") else kernel)
    return first + next(i for i, l in enumerate(src) if text in l)


@pytest.mark.parametrize("kernel,code,text", [
    (partial_view_kernel, "SIM-UNSUPPORTED", "pl.make_tensor(x_ptr, [8, 64])"),
    (strided_view_kernel, "SIM-UNSUPPORTED", "pl.make_tensor(x_ptr, [8, 64], [128, 1])"),
    (oversized_view_kernel, "SIM-GM-OOB", "pl.make_tensor(x_ptr, [32, 64])"),
])
def test_views_the_simulator_does_not_run_are_findings_at_their_line(kernel, code, text):
    x = torch.randn(16, 64, device=DEVICE, dtype=torch.float32)
    out = torch.zeros(8, 64, device=DEVICE, dtype=torch.float32)
    with pytest.raises(device.KernelHazardError) as e:
        kernel(x, out)
    assert e.value.code == code
    assert e.value.line == _line(kernel, text)
