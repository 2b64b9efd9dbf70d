"""Datatype specialisation through the CPU device (offline_binary_compilation.md, tiling_key.md):
`@pl.jit(datatype={"x": "io_dtype", ...})` makes `io_dtype` the dtype the launch's dict gives,
`kernel[stream, block_dim, {...}]` for a kernel without a tiling key and
`kernel[stream, block_dim, key, {...}]` after the key; one kernel serves fp16 and fp32 data.
A launch without the dict, or a direct call, is refused as the frontend refuses it."""

import pypto_pro.language as pl
import pytest
import torch
from pypto_pro.runtime.tilingkey import TilingKeyField

DEVICE = "npu:0"


class TwiceKey:
    Twice = TilingKeyField(bits=1, values=[0, 1])


# Plain helpers: the frontend inlines them at the call site.
def _load_synced(t, x):
    pl.load(t, x, [0, 0])
    pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
    pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)


def _store_synced(out, t):
    pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
    pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
    pl.store(out, t, [0, 0])


@pl.jit(datatype={"x_ptr": "io_dtype", "out_ptr": "io_dtype"})
def double_kernel(x_ptr: pl.Ptr[pl.DT_UINT8], out_ptr: pl.Ptr[pl.DT_UINT8]):
    x = pl.make_tensor(x_ptr, [16, 64], dtype=io_dtype)
    out = pl.make_tensor(out_ptr, [16, 64], dtype=io_dtype)
    with pl.section_vector():
        t = pl.make_tile(pl.TileType(shape=[16, 64], dtype=io_dtype, target_memory=pl.MemorySpace.Vec),
                         addr=0x0, size=4096)
        _load_synced(t, x)
        pl.add(t, t, t)
        _store_synced(out, t)


@pl.jit(tiling_key=TwiceKey, datatype={"x_ptr": "io_dtype", "out_ptr": "io_dtype"})
def keyed_kernel(x_ptr: pl.Ptr[pl.DT_UINT8], out_ptr: pl.Ptr[pl.DT_UINT8]):
    with pl.section_vector():
        t = pl.make_tile(pl.TileType(shape=[16, 64], dtype=io_dtype, target_memory=pl.MemorySpace.Vec),
                         addr=0x0, size=4096)
        _load_synced(t, pl.make_tensor(x_ptr, [16, 64], dtype=io_dtype))
        if Twice == 1:
            pl.add(t, t, t)
        _store_synced(pl.make_tensor(out_ptr, [16, 64], dtype=io_dtype), t)


CASES = [(torch.float16, pl.DT_FP16), (torch.float32, pl.DT_FP32)]


@pytest.mark.parametrize("dtype, pl_dtype", CASES)
def test_the_datatype_dict_sets_the_kernels_dtype(dtype, pl_dtype):
    x = torch.randn(16, 64, device=DEVICE, dtype=dtype)
    out = torch.zeros(16, 64, device=DEVICE, dtype=dtype)
    double_kernel[None, 1, {"x_ptr": pl_dtype, "out_ptr": pl_dtype}](x, out)
    assert torch.equal(out, x + x)


@pytest.mark.parametrize("dtype, pl_dtype", CASES)
@pytest.mark.parametrize("twice", [0, 1])
def test_the_datatype_dict_follows_the_tiling_key(dtype, pl_dtype, twice):
    x = torch.randn(16, 64, device=DEVICE, dtype=dtype)
    out = torch.zeros(16, 64, device=DEVICE, dtype=dtype)
    keyed_kernel[None, 1, {"Twice": twice}, {"x_ptr": pl_dtype, "out_ptr": pl_dtype}](x, out)
    assert torch.equal(out, x + x if twice else x)


def test_a_launch_without_the_dict_is_refused():
    x = torch.randn(16, 64, device=DEVICE)
    out = torch.zeros(16, 64, device=DEVICE)
    with pytest.raises(ValueError, match="datatype"):
        double_kernel[None, 1](x, out)
    with pytest.raises(ValueError, match="datatype"):
        keyed_kernel[None, 1, {"Twice": 1}](x, out)


def test_a_direct_call_is_refused():
    x = torch.randn(16, 64, device=DEVICE)
    out = torch.zeros(16, 64, device=DEVICE)
    with pytest.raises(ValueError, match="bracket-launch"):
        double_kernel(x, out)
