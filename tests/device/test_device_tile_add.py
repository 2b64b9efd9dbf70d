"""Tile-op kernels launched on the CPU device: bracket and plain launches, several dtypes,
multi-core splits, in-place results in the caller's tensors (npu:0 hard-coded)."""

import pypto_pro.language as pl
import pytest
import torch

import pypto

TILE_M = 32
TILE_N = 64


@pl.jit(auto_mutex=True)
def add_fp16_kernel(
    x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16],
    y: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16],
    z: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16],
):
    m = x.shape[0]
    n = x.shape[1]
    tt = pl.TileType(shape=[TILE_M, TILE_N], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Vec)
    a_db = pl.make_tile_group(type=tt, addrs=0x0000, mutex_ids=[0, 1])
    b_db = pl.make_tile_group(type=tt, addrs=0x4000, mutex_ids=[2, 3])
    c_db = pl.make_tile_group(type=tt, addrs=0x8000, mutex_ids=[4, 5])
    with pl.section_vector():
        tiles = (m // TILE_M) * (n // TILE_N)
        for t in pl.range(pl.get_block_idx(), tiles, pl.get_block_num()):
            i = t // (n // TILE_N)
            j = t % (n // TILE_N)
            a = a_db.next()
            b = b_db.next()
            c = c_db.next()
            pl.load_tile(a, x, [i, j])
            pl.load_tile(b, y, [i, j])
            pl.add(c, a, b)
            pl.store_tile(z, c, [i, j])


@pl.jit(auto_mutex=True)
def mul_fp32_kernel(
    x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
    y: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
    z: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
):
    m = x.shape[0]
    n = x.shape[1]
    tt = pl.TileType(shape=[TILE_M, TILE_N], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
    a_db = pl.make_tile_group(type=tt, addrs=0x0000, mutex_ids=[0, 1])
    b_db = pl.make_tile_group(type=tt, addrs=0x8000, mutex_ids=[2, 3])
    c_db = pl.make_tile_group(type=tt, addrs=0x10000, mutex_ids=[4, 5])
    with pl.section_vector():
        for i in pl.range(0, m // TILE_M, 1):
            for j in pl.range(0, n // TILE_N, 1):
                a = a_db.next()
                b = b_db.next()
                c = c_db.next()
                pl.load_tile(a, x, [i, j])
                pl.load_tile(b, y, [i, j])
                pl.mul(c, a, b)
                pl.store_tile(z, c, [i, j])


@pytest.mark.soc("950")
@pypto.options(pass_options={"enable_slice": False})
@pytest.mark.parametrize("block_dim", [1, 3, 8])
def test_add_fp16_bracket_launch(block_dim):
    torch.npu.set_device("npu:0")
    torch.manual_seed(0)
    x = torch.rand([64, 256], device="npu:0", dtype=torch.float16)
    y = torch.rand([64, 256], device="npu:0", dtype=torch.float16)
    z = torch.zeros([64, 256], device="npu:0", dtype=torch.float16)
    add_fp16_kernel[None, block_dim](x, y, z)
    torch.npu.synchronize()
    torch.testing.assert_close(z, (x.float() + y.float()).to(torch.float16), atol=1e-3, rtol=1e-3)
    assert add_fp16_kernel.last_launch["stats"]["cores_run"] == block_dim


def test_mul_fp32_plain_call_writes_in_place():
    torch.manual_seed(1)
    x = torch.randn([64, 128], device="npu:0")
    y = torch.randn([64, 128], device="npu:0")
    z = torch.empty([64, 128], device="npu:0")
    mul_fp32_kernel(x, y, z)
    torch.testing.assert_close(z, x * y)


def test_non_contiguous_output_is_copied_back():
    x = torch.randn([64, 128])
    y = torch.randn([64, 128])
    z_big = torch.zeros([128, 64]).t()  # a [64, 128] view, not contiguous
    assert not z_big.is_contiguous()
    mul_fp32_kernel[1](x, y, z_big)
    torch.testing.assert_close(z_big, x * y)


def test_second_launch_uses_the_cache():
    x = torch.randn([32, 64])
    y = torch.randn([32, 64])
    z = torch.empty([32, 64])
    mul_fp32_kernel[None, 1](x, y, z)
    mul_fp32_kernel[None, 1](x, y, z)
    assert mul_fp32_kernel.last_launch["cache_hit"] is True
