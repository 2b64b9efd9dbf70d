"""Scalar element access (getval.md, setval.md): pl.getval / pl.setval and subscripts of Vec
tiles and GM tensors read and write single elements in the element dtype; an index outside
the container, a read of never-written tile bytes, a wrong number of indices and two cores
writing one element are findings with their lines."""

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
def tile_swap_kernel(a: pl.Tensor[[16, 64], pl.DT_FP16], b: pl.Tensor[[16, 64], pl.DT_FP16]):
    group = pl.make_tile_group(
        type=pl.TileType(shape=[16, 64], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Vec),
        addrs=0x0000, mutex_ids=[0])
    with pl.section_vector():
        t = group.next()
        pl.load(t, a, [0, 0])
        first = t[0, 0]
        t[0, 0] = t[15, 63]          # subscript: row-major [i, j]
        t[15, 63] = first
        pl.setval(t, 65, pl.getval(t, 64) * 2.0)  # linear offset 64 = [1, 0]
        pl.store(b, t, [0, 0])


def test_tile_elements_are_read_and_written_by_subscript_and_offset():
    a = torch.randn([16, 64], device=DEVICE, dtype=torch.float16)
    b = torch.empty_like(a)
    tile_swap_kernel(a, b)
    expected = a.clone()
    expected[0, 0], expected[15, 63] = a[15, 63], a[0, 0]
    expected[1, 1] = (a[1, 0].float() * 2.0).half()
    assert torch.equal(b.cpu(), expected.cpu())


@pl.jit
def tensor_scalars_kernel(
    scale: pl.Tensor[[2], pl.DT_FP32],
    out: pl.Tensor[[4], pl.DT_INT32],
    grid: pl.Tensor[[3, 5], pl.DT_FP32],
):
    with pl.section_vector():
        s = scale[0]
        scale[1] = s * 4.0
        out[0] = pl.min(3, 9)
        out[1] = pl.max(-5, -2)
        out[2] = 7 // 2
        out[3] = grid.shape[1]
        grid[2, 4] = grid[1, 3] + pl.getval(grid, 0)


def test_tensor_elements_are_read_and_written_in_the_element_dtype():
    scale = torch.tensor([1.5, 0.0], device=DEVICE)
    out = torch.zeros([4], dtype=torch.int32, device=DEVICE)
    grid = torch.arange(15, dtype=torch.float32, device=DEVICE).reshape(3, 5)
    tensor_scalars_kernel(scale, out, grid)
    assert scale.tolist() == [1.5, 6.0]
    assert out.tolist() == [3, -2, 3, 5]
    assert grid[2, 4].item() == 8.0 + 0.0
    assert grid[0, 0].item() == 0.0


@pl.jit
def tensor_oob_kernel(out: pl.Tensor[[4], pl.DT_INT32], n: pl.DT_INT32):
    out[n] = 1  # n == 4: one past the end


@pl.jit(auto_mutex=True)
def tile_oob_kernel(a: pl.Tensor[[16, 64], pl.DT_FP32]):
    group = pl.make_tile_group(
        type=pl.TileType(shape=[16, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x0000, mutex_ids=[0])
    with pl.section_vector():
        t = group.next()
        pl.load(t, a, [0, 0])
        pl.setval(t, 16 * 64, 1.0)  # offset == numel: outside the tile


@pl.jit(auto_mutex=True)
def tile_uninit_kernel(a: pl.Tensor[[4], pl.DT_FP32]):
    group = pl.make_tile_group(
        type=pl.TileType(shape=[16, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec),
        addrs=0x0000, mutex_ids=[0])
    with pl.section_vector():
        t = group.next()
        a[0] = t[3, 3]  # never loaded or written


@pl.jit
def wrong_rank_kernel(grid: pl.Tensor[[3, 5], pl.DT_FP32]):
    grid[1] = 0.0  # a 2-D tensor takes two indices


def test_out_of_range_and_uninitialised_accesses_are_hazards_with_their_lines():
    out = torch.zeros([4], dtype=torch.int32, device=DEVICE)
    with pytest.raises(device.KernelHazardError) as info:
        tensor_oob_kernel(out, 4)
    assert info.value.code == "SIM-GM-OOB"
    assert info.value.line == _line(tensor_oob_kernel._func, "one past the end")
    tensor_oob_kernel(out, 3)
    assert out.tolist() == [0, 0, 0, 1]

    with pytest.raises(device.KernelHazardError) as info:
        tile_oob_kernel(torch.zeros([16, 64], device=DEVICE))
    assert info.value.code == "SIM-SCALAR-RANGE"
    assert info.value.line == _line(tile_oob_kernel._func, "outside the tile")

    with pytest.raises(device.KernelHazardError) as info:
        tile_uninit_kernel(torch.zeros([4], device=DEVICE))
    assert info.value.code == "SIM-UNINIT-READ"
    assert info.value.line == _line(tile_uninit_kernel._func, "never loaded")

    with pytest.raises(device.KernelHazardError, match="takes 2 indices"):
        wrong_rank_kernel(torch.zeros([3, 5], device=DEVICE))


@pl.jit
def every_core_writes_zero_kernel(out: pl.Tensor[[8], pl.DT_INT32]):
    with pl.section_vector():
        out[0] = pl.get_block_idx()


def test_two_cores_writing_one_element_is_a_race():
    out = torch.zeros([8], dtype=torch.int32, device=DEVICE)
    with pytest.raises(device.KernelHazardError) as info:
        every_core_writes_zero_kernel[None, 2](out)
    assert info.value.code == "SIM-OUT-MULTI-CORE"
    every_core_writes_zero_kernel[None, 1](out)
    assert out[0].item() == 0


@pl.jit
def every_core_writes_seven_kernel(out: pl.Tensor[[8], pl.DT_INT32]):
    with pl.section_vector():
        out[0] = 7


def test_two_cores_writing_the_same_value_is_a_warning():
    import warnings
    out = torch.zeros([8], dtype=torch.int32, device=DEVICE)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        every_core_writes_seven_kernel[None, 2](out)
    found = [w for w in caught if issubclass(w.category, device.SimulatorWarning)]
    assert any("SIM-OUT-MULTI-CORE-SAME" in str(w.message) for w in found)
    assert int(out.cpu()[0]) == 7
