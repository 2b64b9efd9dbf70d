"""What the simulator finds reaches Python as Python expects: hazards raise with file:line
and code, warnings are warnings, compile-time API misuse raises at launch, bad arguments get
the frontend's messages, and what cannot be simulated raises a clear error."""

import inspect
import warnings

import pypto_pro.language as pl
from pypto_pro.language import Vf as vf  # noqa: N813
from pypto_pro.language.parser.diagnostics._exceptions import ParserError
import pytest
import torch

import opdev.device as device

TILE = 64


@pl.jit
def store_one_row_off_kernel(
    x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
    y: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
):
    tt = pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
    t = pl.make_tile(tt, addr=0x0, size=TILE * TILE * 4)
    with pl.section_vector():
        pl.load(t, x, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(y, t, [1, 0])  # one row past the end of y: out-of-range DMA


@pl.jit
def wrong_keyword_kernel(
    x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
    y: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
):
    tt = pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
    t = pl.make_tile(tt, addr=0x0, size=TILE * TILE * 4)
    with pl.section_vector():
        pl.load(t, x, [0, 0], bogus_option=1)
        pl.store(y, t, [0, 0])


@pl.vector_function
def loads_inside_vf(t, x):
    pl.load(t, x, [0, 0])


@pl.jit
def mte_in_vf_kernel(
    x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
    y: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
):
    tt = pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
    t = pl.make_tile(tt, addr=0x0, size=TILE * TILE * 4)
    with pl.section_vector():
        loads_inside_vf(t, x)
        pl.store(y, t, [0, 0])


@pl.vector_function
def stale_mask_vf(src, dst, n: pl.DT_INT64):
    full = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    for r in pl.range(0, n):
        m = vf.update_mask(TILE, dtype=pl.DT_FP32)
        reg = vf.load_align(src, r * TILE)
        vf.store_align(dst + r * TILE, vf.adds(reg, 1.0, full), m)
    for r in pl.range(0, n):
        reg = vf.load_align(src, r * TILE)
        vf.store_align(dst + r * TILE, vf.adds(reg, 1.0, full), m)


@pl.jit
def stale_mask_kernel(
    x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
    y: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
):
    tt = pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
    a = pl.make_tile(tt, addr=0x0, size=TILE * TILE * 4)
    b = pl.make_tile(tt, addr=TILE * TILE * 4, size=TILE * TILE * 4)
    with pl.section_vector():
        pl.load(a, x, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        stale_mask_vf(a, b, TILE)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(y, b, [0, 0])


@pl.jit
def matmul_kernel(
    x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
    y: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
):
    tt = pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
    t = pl.make_tile(tt, addr=0x0, size=TILE * TILE * 4)
    with pl.section_vector():
        pl.load(t, x, [0, 0])
        pl.histogram_of_everything(t)  # not a PyPTO-Pro op
        pl.store(y, t, [0, 0])


@pl.jit
def unsynced_kernel(
    x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
    y: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
):
    tt = pl.TileType(shape=[TILE, TILE], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
    t = pl.make_tile(tt, addr=0x0, size=TILE * TILE * 4)
    with pl.section_vector():
        pl.load(t, x, [0, 0])
        pl.mul(t, t, 2.0)  # no MTE2 -> V flag: a race on the device (make_tile: no automatic sync)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(y, t, [0, 0])


def _line_of(func, text):
    lines, start = inspect.getsourcelines(getattr(func, "__wrapped__", func))
    return start + next(i for i, l in enumerate(lines) if text in l)


def test_out_of_range_store_raises_with_file_line_and_code():
    x = torch.randn([TILE, TILE])
    y = torch.zeros([TILE, TILE])
    with pytest.raises(device.KernelHazardError) as info:
        store_one_row_off_kernel[None, 1](x, y)
    err = info.value
    assert err.code == "SIM-GM-OOB"
    assert err.filename.endswith("test_device_findings.py")
    assert err.line == _line_of(store_one_row_off_kernel, "pl.store(y, t, [1, 0])")
    assert "SIM-GM-OOB" in str(err) and "test_device_findings.py:%d" % err.line in str(err)
    assert isinstance(err, RuntimeError)


def test_unknown_keyword_is_a_compile_error():
    x = torch.randn([TILE, TILE])
    y = torch.zeros([TILE, TILE])
    with pytest.raises(ParserError) as info:
        wrong_keyword_kernel[None, 1](x, y)
    assert info.value.code == "API-UNKNOWN-KEYWORD"
    assert "bogus_option" in str(info.value)
    assert torch.count_nonzero(y) == 0  # nothing ran


def test_mte_op_inside_a_vector_function_is_a_compile_error():
    x = torch.randn([TILE, TILE])
    y = torch.zeros([TILE, TILE])
    with pytest.raises(ParserError) as info:
        mte_in_vf_kernel[None, 1](x, y)
    assert info.value.code in ("API-MTE-IN-VF", "API-CONTEXT")
    assert info.value.line == _line_of(loads_inside_vf, "pl.load(t, x, [0, 0])")


def test_warning_hazard_is_a_python_warning():
    x = torch.randn([TILE, TILE])
    y = torch.zeros([TILE, TILE])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        stale_mask_kernel[None, 1](x, y)
    found = [w for w in caught if issubclass(w.category, device.SimulatorWarning)]
    assert found and "SIM-VF-STALE-VALUE" in str(found[0].message)
    assert found[0].filename.endswith("test_device_findings.py")
    torch.testing.assert_close(y, x + 1.0)


def test_pipe_model_is_on_by_default_and_off_with_opdev_pipe_sync_0(monkeypatch):
    x = torch.randn([TILE, TILE])
    y = torch.zeros([TILE, TILE])
    monkeypatch.delenv("OPDEV_PIPE_SYNC", raising=False)
    with pytest.raises(device.KernelHazardError) as info:
        unsynced_kernel[None, 1](x, y)
    assert info.value.code == "SIM-PIPE-RACE"
    assert info.value.line == _line_of(unsynced_kernel, "pl.mul(t, t, 2.0)")
    monkeypatch.setenv("OPDEV_PIPE_SYNC", "0")
    unsynced_kernel[None, 1](x, y)
    torch.testing.assert_close(y, x * 2.0)


def test_wrong_dtype_gets_the_frontend_message():
    x = torch.randn([TILE, TILE]).half()
    y = torch.zeros([TILE, TILE])
    with pytest.raises(TypeError, match=r"^Tensor parameter 'x' dtype mismatch: expected torch.float32, got torch.float16$"):
        store_one_row_off_kernel[None, 1](x, y)


def test_wrong_rank_and_arity_and_block_dim():
    with pytest.raises(ValueError, match=r"^Tensor parameter 'x' rank mismatch: expected 2, got 3$"):
        store_one_row_off_kernel[None, 1](torch.randn([2, TILE, TILE]), torch.zeros([TILE, TILE]))
    with pytest.raises(TypeError, match="missing a required argument: 'y'"):
        store_one_row_off_kernel[None, 1](torch.randn([TILE, TILE]))
    with pytest.raises(ValueError, match=r"^block_dim must be a positive integer, got 0$"):
        store_one_row_off_kernel[None, 0](torch.randn([TILE, TILE]), torch.zeros([TILE, TILE]))
    with pytest.raises(ValueError, match=r"^Expected kernel\[stream, block_dim\] or kernel\[block_dim\]$"):
        store_one_row_off_kernel[None, 1, 2, 3, 4]


def test_an_op_the_simulator_cannot_run_raises_a_clear_error():
    x = torch.randn([TILE, TILE])
    y = torch.zeros([TILE, TILE])
    with pytest.raises((device.UnsupportedKernelError, ParserError)) as info:
        matmul_kernel[None, 1](x, y)
    assert "histogram_of_everything" in str(info.value)
    assert info.value.line == _line_of(matmul_kernel, "histogram_of_everything")
