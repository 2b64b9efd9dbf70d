"""Kernels defined inside functions (kernel factories): a kernel per dtype, tile size or
constant, whose closure variables are the factory's arguments, launches like a module-level
one; nested helpers it calls resolve lexically; a closure value the host cannot pass is a
clear error naming the variable; findings carry the nested kernel's own lines."""

import inspect

import pypto_pro.language as pl
import pytest
import torch

import opdev.device as device

DEVICE = "npu:0"


def _make_add_scalar_kernel(dtype, tile, scale):
    """Factory: y = x * scale + x over [tile, tile] tiles, the dtype, tile and scale from here."""
    elem = 2 if dtype == pl.DT_FP16 else 4

    def mul_then_add(out_t, in_t):
        pl.mul(out_t, in_t, scale)
        pl.add(out_t, out_t, in_t)

    @pl.jit
    def kernel(
        x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], dtype],
        y: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], dtype],
    ):
        tt = pl.TileType(shape=[tile, tile], dtype=dtype, target_memory=pl.MemorySpace.Vec)
        a = pl.make_tile(tt, addr=0x0, size=tile * tile * elem)
        b = pl.make_tile(tt, addr=tile * tile * elem, size=tile * tile * elem)
        with pl.section_vector():
            for i in pl.range(0, x.shape[0] // tile):
                for j in pl.range(0, x.shape[1] // tile):
                    pl.load(a, x, [i * tile, j * tile])
                    pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
                    pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
                    mul_then_add(b, a)
                    pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
                    pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
                    pl.store(y, b, [i * tile, j * tile])
                    pl.system.sync_src(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=0)
                    pl.system.sync_dst(set_pipe=pl.PipeType.MTE3, wait_pipe=pl.PipeType.MTE2, event_id=0)

    return kernel


@pytest.mark.parametrize("dtype,torch_dtype,tile,scale", [
    (pl.DT_FP32, torch.float32, 32, 3.0),
    (pl.DT_FP16, torch.float16, 64, 0.5),
    (pl.DT_FP32, torch.float32, 16, -2.0),
])
def test_a_factory_kernel_runs_with_its_closure_values(dtype, torch_dtype, tile, scale):
    kernel = _make_add_scalar_kernel(dtype, tile, scale)
    torch.manual_seed(0)
    x = torch.randn([2 * tile, 3 * tile], device=DEVICE, dtype=torch_dtype)
    y = torch.zeros_like(x)
    kernel[None, 1](x, y)
    expected = (x.float() * scale + x.float()).to(torch_dtype)
    torch.testing.assert_close(y.cpu(), expected, rtol=1e-3, atol=1e-3)
    assert kernel.last_launch["completed"]


def test_two_factories_of_one_file_keep_their_own_values():
    k3 = _make_add_scalar_kernel(pl.DT_FP32, 32, 3.0)
    k5 = _make_add_scalar_kernel(pl.DT_FP32, 32, 5.0)
    x = torch.ones([32, 32], device=DEVICE)
    y3, y5 = torch.zeros_like(x), torch.zeros_like(x)
    k3(x, y3)
    k5(x, y5)
    assert torch.all(y3 == 4.0) and torch.all(y5 == 6.0)


def _make_branch_kernel(negate):
    """Two defs of one qualified name: the one the branch defined is the one launched."""
    if negate:
        @pl.jit
        def kernel(x: pl.Tensor[[32, 32], pl.DT_FP32], y: pl.Tensor[[32, 32], pl.DT_FP32]):
            tt = pl.TileType(shape=[32, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
            a = pl.make_tile(tt, addr=0x0, size=4096)
            with pl.section_vector():
                pl.load(a, x, [0, 0])
                pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
                pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
                pl.neg(a, a)
                pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
                pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
                pl.store(y, a, [0, 0])
    else:
        @pl.jit
        def kernel(x: pl.Tensor[[32, 32], pl.DT_FP32], y: pl.Tensor[[32, 32], pl.DT_FP32]):
            tt = pl.TileType(shape=[32, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
            a = pl.make_tile(tt, addr=0x0, size=4096)
            with pl.section_vector():
                pl.load(a, x, [0, 0])
                pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
                pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
                pl.store(y, a, [0, 0])
    return kernel


@pytest.mark.parametrize("negate", [True, False])
def test_the_launched_def_is_the_one_the_branch_defined(negate):
    x = torch.randn([32, 32], device=DEVICE)
    y = torch.zeros_like(x)
    _make_branch_kernel(negate)(x, y)
    torch.testing.assert_close(y, -x if negate else x)


def _make_kernel_reading(value):
    @pl.jit
    def kernel(x: pl.Tensor[[32, 32], pl.DT_FP32], y: pl.Tensor[[32, 32], pl.DT_FP32]):
        tt = pl.TileType(shape=[32, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
        a = pl.make_tile(tt, addr=0x0, size=4096)
        with pl.section_vector():
            pl.load(a, x, [0, 0])
            pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
            pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
            pl.add(a, a, value)
            pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
            pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
            pl.store(y, a, [0, 0])
    return kernel


def test_a_closure_value_the_host_cannot_pass_names_the_variable():
    kernel = _make_kernel_reading(object())
    x = torch.randn([32, 32], device=DEVICE)
    with pytest.raises(device.UnsupportedKernelError) as info:
        kernel(x, torch.zeros_like(x))
    assert "name 'value' of the function enclosing _make_kernel_reading.<locals>.kernel" in str(info.value)
    assert info.value.code == "SIM-UNSUPPORTED"


def _make_oob_kernel(row):
    @pl.jit
    def kernel(x: pl.Tensor[[32, 32], pl.DT_FP32], y: pl.Tensor[[32, 32], pl.DT_FP32]):
        tt = pl.TileType(shape=[32, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
        a = pl.make_tile(tt, addr=0x0, size=4096)
        with pl.section_vector():
            pl.load(a, x, [0, 0])
            pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
            pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
            pl.store(y, a, [row, 0])  # row > 0: past the end of y
    return kernel


def test_a_hazard_in_a_nested_kernel_names_its_line():
    kernel = _make_oob_kernel(1)
    x = torch.randn([32, 32], device=DEVICE)
    with pytest.raises(device.KernelHazardError) as info:
        kernel(x, torch.zeros_like(x))
    src, first = inspect.getsourcelines(_make_oob_kernel)
    line = first + next(i for i, l in enumerate(src) if "past the end" in l)
    assert info.value.code == "SIM-GM-OOB"
    assert info.value.line == line
    _make_oob_kernel(0)(x, torch.zeros_like(x))  # in range: runs clean


@pl.inline
def _double_into(out_t, in_t):
    pl.add(out_t, in_t, in_t)


@pl.inline
def _negate_into(out_t, in_t):
    pl.neg(out_t, in_t)


def _make_kernel_applying(op):
    """Factory whose closure variable `op` holds a module-level helper (a @pl.inline function)."""
    @pl.jit
    def kernel(x: pl.Tensor[[32, 32], pl.DT_FP32], y: pl.Tensor[[32, 32], pl.DT_FP32]):
        tt = pl.TileType(shape=[32, 32], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
        a = pl.make_tile(tt, addr=0x0, size=4096)
        b = pl.make_tile(tt, addr=0x1000, size=4096)
        with pl.section_vector():
            pl.load(a, x, [0, 0])
            pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
            pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
            op(b, a)
            pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
            pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
            pl.store(y, b, [0, 0])
    return kernel


@pytest.mark.parametrize("helper,expect", [(_double_into, lambda x: x * 2), (_negate_into, lambda x: -x)])
def test_a_closure_variable_holding_a_helper_function_calls_that_helper(helper, expect):
    kernel = _make_kernel_applying(helper)
    x = torch.randn([32, 32], device=DEVICE)
    y = torch.zeros_like(x)
    kernel(x, y)
    torch.testing.assert_close(y.cpu(), expect(x.cpu()))
    assert kernel.last_launch["completed"]


def test_a_closure_function_that_is_not_a_def_of_the_file_names_the_variable():
    kernel = _make_kernel_applying(lambda out_t, in_t: pl.neg(out_t, in_t))
    x = torch.randn([32, 32], device=DEVICE)
    with pytest.raises(device.UnsupportedKernelError) as info:
        kernel(x, torch.zeros_like(x))
    assert "name 'op' of the function enclosing _make_kernel_applying.<locals>.kernel" in str(info.value)
    assert "<lambda>" in str(info.value)
