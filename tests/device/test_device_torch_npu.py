"""torch.npu / torch_npu on the CPU device: availability, devices, tensors on "npu:N"."""

import os

import pytest
import torch
import torch_npu  # noqa: F401

from pypto_pro.runtime.platform import get_platform_info


def test_availability_and_name():
    assert torch.npu.is_available()
    assert torch.npu.device_count() >= 1
    target = os.environ.get("OPDEV_DEVICE_TARGET", "a5")
    name = torch.npu.get_device_name()
    assert ("Ascend950" in name) == (target == "a5")
    info = get_platform_info()
    assert info.arch == target
    assert info.vector_core_num > 0 and info.cube_core_num > 0


def test_set_device_and_hard_coded_devices():
    torch.npu.set_device("npu:1")
    assert torch.npu.current_device() == 1
    torch.npu.set_device(0)
    assert torch.npu.current_device() == 0
    for dev in ("npu", "npu:0", torch.device("npu:1"), torch.device("npu", 2)):
        x = torch.ones(2, 3, device=dev)
        assert x.is_npu and x.device.type == "cpu"
    assert isinstance(torch.device("npu:0"), torch.device)
    with pytest.raises(RuntimeError, match="Invalid device ordinal"):
        torch.npu.set_device(torch.npu.device_count())


def test_copies_between_host_and_device():
    host = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    dev = host.npu()
    assert dev.is_npu and not host.is_npu
    dev.add_(1)  # a copy, as a host-to-device transfer is
    assert torch.equal(host, torch.arange(6, dtype=torch.float32).reshape(2, 3))
    back = dev.cpu()
    back.zero_()
    assert dev.sum().item() == 21
    assert dev.to("npu:0") is dev
    assert host.to("npu").is_npu


def test_uninitialised_device_memory_is_not_zero():
    x = torch.empty(4, 4, device="npu:0", dtype=torch.float16)
    assert torch.isnan(x).all()
    y = torch.empty_like(x)
    assert torch.isnan(y).all()


def test_streams_events_synchronize():
    s = torch.npu.current_stream()
    e0, e1 = torch.npu.Event(enable_timing=True), torch.npu.Event(enable_timing=True)
    e0.record(s)
    torch.npu.synchronize()
    e1.record(s)
    assert e0.elapsed_time(e1) >= 0
    assert torch.npu.memory_reserved() == 0
