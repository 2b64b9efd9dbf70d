"""Tensor parameters whose pl dtype the frontend does not map to a torch dtype (DT_UINT32,
DT_UINT16): the frontend passes the tensor's bytes unchecked, so the kernel sees an int32
tensor's bits as uint32; a tensor of another element size is refused (it would be read past
its end)."""

import pypto_pro.language as pl
import pytest
import torch


@pl.jit(auto_mutex=True)
def max_u32_kernel(
    a: pl.Tensor[[8, 16], pl.DT_UINT32],
    b: pl.Tensor[[8, 16], pl.DT_UINT32],
    c: pl.Tensor[[8, 16], pl.DT_UINT32],
):
    tt = pl.TileType(shape=[8, 16], dtype=pl.DT_UINT32, target_memory=pl.MemorySpace.Vec)
    ga = pl.make_tile_group(type=tt, addrs=0x0000, mutex_ids=[0])
    gb = pl.make_tile_group(type=tt, addrs=0x1000, mutex_ids=[1])
    gc = pl.make_tile_group(type=tt, addrs=0x2000, mutex_ids=[2])
    with pl.section_vector():
        ta = ga.current()
        tb = gb.current()
        tc = gc.current()
        pl.load(ta, a, [0, 0])
        pl.load(tb, b, [0, 0])
        pl.maximum(tc, ta, tb)
        pl.store(c, tc, [0, 0])


def test_uint32_parameter_takes_int32_bits():
    a = torch.full((8, 16), -1, dtype=torch.int32, device="npu:0")
    b = torch.full((8, 16), 5, dtype=torch.int32, device="npu:0")
    c = torch.zeros((8, 16), dtype=torch.int32, device="npu:0")
    max_u32_kernel(a, b, c)
    assert (c == -1).all()  # 0xFFFFFFFF is the larger uint32


def test_uint32_parameter_refuses_other_element_sizes():
    a = torch.zeros((8, 16), dtype=torch.int16, device="npu:0")
    b = torch.zeros((8, 16), dtype=torch.int32, device="npu:0")
    with pytest.raises(Exception, match="2-byte elements"):
        max_u32_kernel(a, b, b)
