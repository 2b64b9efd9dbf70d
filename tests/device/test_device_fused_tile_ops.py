"""Fused and composite tile ops, bit ops, part ops, transpose, fill_index and tile-scalar
comparisons on the CPU device. The fused ops run as the instruction sequences the backend emits
(add_relu is TADD(lhs, lhs, rhs); TRELU(out, lhs), so lhs holds the sum afterwards); bad
operands (overlapping workspace, shift amounts outside the element width, overlapping transpose
tiles) are findings with their lines."""

import inspect

import pypto_pro.language as pl
import pytest
import torch

import opdev.device as device

DEVICE = "npu:0"


def _line(func, marker):
    src, first = inspect.getsourcelines(func)
    return first + next(i for i, l in enumerate(src) if marker in l)


def _vec(shape, dtype):
    return pl.TileType(shape=shape, dtype=dtype, target_memory=pl.MemorySpace.Vec)


@pl.jit(auto_mutex=True)
def add_relu_kernel(a: pl.Tensor[[16, 64], pl.DT_FP32], b: pl.Tensor[[16, 64], pl.DT_FP32],
                    out: pl.Tensor[[16, 64], pl.DT_FP32], lhs_after: pl.Tensor[[16, 64], pl.DT_FP32]):
    ta = pl.make_tile_group(type=_vec([16, 64], pl.DT_FP32), addrs=0x0000, mutex_ids=[0])
    tb = pl.make_tile_group(type=_vec([16, 64], pl.DT_FP32), addrs=0x1000, mutex_ids=[1])
    to = pl.make_tile_group(type=_vec([16, 64], pl.DT_FP32), addrs=0x2000, mutex_ids=[2])
    with pl.section_vector():
        x, y, o = ta.current(), tb.current(), to.current()
        pl.load(x, a, [0, 0])
        pl.load(y, b, [0, 0])
        pl.add_relu(o, x, y)
        pl.store(out, o, [0, 0])
        pl.store(lhs_after, x, [0, 0])


def test_add_relu_leaves_the_sum_in_lhs():
    a = torch.randn([16, 64], device=DEVICE)
    b = torch.randn([16, 64], device=DEVICE)
    out, lhs_after = torch.zeros_like(a), torch.zeros_like(a)
    add_relu_kernel(a, b, out, lhs_after)
    assert torch.equal(out.cpu(), torch.relu(a + b).cpu())
    assert torch.equal(lhs_after.cpu(), (a + b).cpu())


@pl.jit(auto_mutex=True)
def sub_relu_cast_kernel(a: pl.Tensor[[16, 64], pl.DT_FP16], b: pl.Tensor[[16, 64], pl.DT_FP16],
                         out: pl.Tensor[[16, 64], pl.DT_FP32], prod: pl.Tensor[[16, 64], pl.DT_FP32]):
    ta = pl.make_tile_group(type=_vec([16, 64], pl.DT_FP16), addrs=0x0000, mutex_ids=[0])
    tb = pl.make_tile_group(type=_vec([16, 64], pl.DT_FP16), addrs=0x1000, mutex_ids=[1])
    to = pl.make_tile_group(type=_vec([16, 64], pl.DT_FP32), addrs=0x2000, mutex_ids=[2])
    with pl.section_vector():
        x, y, o = ta.current(), tb.current(), to.current()
        pl.load(x, a, [0, 0])
        pl.load(y, b, [0, 0])
        pl.sub_relu_cast(o, x, y, target_type=pl.DT_FP32, mode=pl.RoundMode.CAST_ROUND)
        pl.store(out, o, [0, 0])
        pl.load(x, a, [0, 0])
        pl.mul_cast(o, x, y, target_type=pl.DT_FP32)
        pl.store(prod, o, [0, 0])


def test_sub_relu_cast_and_mul_cast_round_in_the_input_dtype_then_convert():
    a = torch.randn([16, 64], device=DEVICE).half()
    b = torch.randn([16, 64], device=DEVICE).half()
    out = torch.zeros([16, 64], device=DEVICE)
    prod = torch.zeros([16, 64], device=DEVICE)
    sub_relu_cast_kernel(a, b, out, prod)
    # The intermediate lives in lhs (FP16): rounded to FP16 before the conversion.
    assert torch.equal(out.cpu(), torch.relu((a.float() - b.float()).half().float()).cpu())
    assert torch.equal(prod.cpu(), (a.float() * b.float()).half().float().cpu())


@pl.jit(auto_mutex=True)
def mul_add_kernel(a: pl.Tensor[[16, 64], pl.DT_FP32], b: pl.Tensor[[16, 64], pl.DT_FP32],
                   c: pl.Tensor[[16, 64], pl.DT_FP32], dst: pl.Tensor[[16, 64], pl.DT_FP32],
                   fma: pl.Tensor[[16, 64], pl.DT_FP32], ax: pl.Tensor[[16, 64], pl.DT_FP32]):
    ta = pl.make_tile_group(type=_vec([16, 64], pl.DT_FP32), addrs=0x0000, mutex_ids=[0])
    tb = pl.make_tile_group(type=_vec([16, 64], pl.DT_FP32), addrs=0x1000, mutex_ids=[1])
    tc = pl.make_tile_group(type=_vec([16, 64], pl.DT_FP32), addrs=0x2000, mutex_ids=[2])
    with pl.section_vector():
        x, y, z = ta.current(), tb.current(), tc.current()
        pl.load(x, a, [0, 0])
        pl.load(y, b, [0, 0])
        pl.load(z, c, [0, 0])
        pl.mul_add_dst(z, x, y)  # z = a * b + c
        pl.store(dst, z, [0, 0])
        pl.load(x, a, [0, 0])
        pl.load(z, c, [0, 0])
        pl.fused_mul_add(z, x, y)  # z = a * c + b
        pl.store(fma, z, [0, 0])
        pl.load(z, c, [0, 0])
        pl.axpy(z, y, 0.5)  # z = 0.5 * b + c
        pl.store(ax, z, [0, 0])


def test_multiply_add_forms():
    a, b, c = (torch.randn([16, 64], device=DEVICE) for _ in range(3))
    dst, fma, ax = (torch.zeros([16, 64], device=DEVICE) for _ in range(3))
    mul_add_kernel(a, b, c, dst, fma, ax)
    assert torch.equal(dst.cpu(), (a * b + c).cpu())
    assert torch.equal(fma.cpu(), (a * c + b).cpu())
    assert torch.equal(ax.cpu(), (0.5 * b + c).cpu())


@pl.jit(auto_mutex=True)
def bits_kernel(a: pl.Tensor[[8, 64], pl.DT_INT32], s: pl.Tensor[[8, 64], pl.DT_INT32],
                x: pl.Tensor[[8, 64], pl.DT_INT32], left: pl.Tensor[[8, 64], pl.DT_INT32],
                right: pl.Tensor[[8, 64], pl.DT_INT32]):
    ta = pl.make_tile_group(type=_vec([8, 64], pl.DT_INT32), addrs=0x0000, mutex_ids=[0])
    ts = pl.make_tile_group(type=_vec([8, 64], pl.DT_INT32), addrs=0x0800, mutex_ids=[1])
    to = pl.make_tile_group(type=_vec([8, 64], pl.DT_INT32), addrs=0x1000, mutex_ids=[2])
    tt = pl.make_tile_group(type=_vec([8, 64], pl.DT_INT32), addrs=0x1800, mutex_ids=[3])
    with pl.section_vector():
        ca, cs, co, tmp = ta.current(), ts.current(), to.current(), tt.current()
        pl.load(ca, a, [0, 0])
        pl.load(cs, s, [0, 0])
        pl.xor(co, ca, cs, tmp)
        pl.store(x, co, [0, 0])
        pl.shl(co, ca, cs)
        pl.store(left, co, [0, 0])
        pl.shr(co, ca, cs)
        pl.store(right, co, [0, 0])


@pl.jit(auto_mutex=True)
def xor_overlap_kernel(a: pl.Tensor[[8, 64], pl.DT_INT32]):
    ta = pl.make_tile_group(type=_vec([8, 64], pl.DT_INT32), addrs=0x0000, mutex_ids=[0])
    to = pl.make_tile_group(type=_vec([8, 64], pl.DT_INT32), addrs=0x1000, mutex_ids=[1])
    with pl.section_vector():
        ca, co = ta.current(), to.current()
        pl.load(ca, a, [0, 0])
        pl.xor(co, ca, ca, co)  # tmp is out
        pl.store(a, co, [0, 0])


def test_bit_ops_are_exact_and_bad_operands_are_findings():
    a = torch.randint(-2**31, 2**31 - 1, [8, 64], dtype=torch.int32, device=DEVICE)
    s = torch.randint(0, 32, [8, 64], dtype=torch.int32, device=DEVICE)
    x, left, right = (torch.zeros([8, 64], dtype=torch.int32, device=DEVICE) for _ in range(3))
    bits_kernel(a, s, x, left, right)
    assert torch.equal(x.cpu(), torch.bitwise_xor(a, s).cpu())
    wide = (a.cpu().long() << s.cpu().long()) & 0xFFFFFFFF
    assert torch.equal(left.cpu(), torch.where(wide >= 2**31, wide - 2**32, wide).int())
    assert torch.equal(right.cpu(), (a.cpu().long() >> s.cpu().long()).int())  # arithmetic

    s[3, 7] = 32  # outside [0, 32): undefined by shl.md/shr.md
    with pytest.raises(device.KernelHazardError, match=r"shift amount\(s\) outside \[0, 32\)") as info:
        bits_kernel(a, s, x, left, right)
    assert info.value.line == _line(bits_kernel._func, "pl.shl(")

    with pytest.raises(device.KernelHazardError) as info:
        xor_overlap_kernel(a)
    assert info.value.code == "SIM-TILE-OVERLAP"
    assert info.value.line == _line(xor_overlap_kernel._func, "tmp is out")


@pl.jit(auto_mutex=True)
def partadd_kernel(x: pl.Tensor[[32, 64], pl.DT_FP16], y: pl.Tensor[[32, 64], pl.DT_FP16],
                   z: pl.Tensor[[32, 64], pl.DT_FP16], rows: pl.DT_INT32):
    tt = pl.TileType(shape=[32, 64], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Vec, valid_shape=[-1, -1])
    ga = pl.make_tile_group(type=tt, addrs=0x0000, mutex_ids=[0])
    gb = pl.make_tile_group(type=tt, addrs=0x1000, mutex_ids=[1])
    gc = pl.make_tile_group(type=tt, addrs=0x2000, mutex_ids=[2])
    with pl.section_vector():
        a, b, c = ga.current(), gb.current(), gc.current()
        pl.set_validshape(a, [32, 64])
        pl.load(a, x, [0, 0])
        pl.set_validshape(b, [rows, 64])
        pl.load(b, y, [0, 0])
        pl.set_validshape(c, [32, 64])
        pl.partadd(c, a, b)
        pl.store(z, c, [0, 0])


@pl.jit(auto_mutex=True)
def partmax_both_partial_kernel(x: pl.Tensor[[32, 64], pl.DT_FP16], z: pl.Tensor[[32, 64], pl.DT_FP16]):
    tt = pl.TileType(shape=[32, 64], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Vec, valid_shape=[-1, -1])
    ga = pl.make_tile_group(type=tt, addrs=0x0000, mutex_ids=[0])
    gc = pl.make_tile_group(type=tt, addrs=0x2000, mutex_ids=[2])
    with pl.section_vector():
        a, c = ga.current(), gc.current()
        pl.set_validshape(a, [16, 64])
        pl.load(a, x, [0, 0])
        pl.set_validshape(c, [32, 64])
        pl.partmax(c, a, a)  # neither source covers out
        pl.store(z, c, [0, 0])


def test_part_ops_add_where_both_are_valid_and_copy_elsewhere():
    x = torch.randn([32, 64], device=DEVICE).half()
    y = torch.randn([32, 64], device=DEVICE).half()
    z = torch.zeros_like(x)
    partadd_kernel(x, y, z, 20)
    ref = x.clone()
    ref[:20] = (x[:20].float() + y[:20].float()).half()
    assert torch.equal(z.cpu(), ref.cpu())

    with pytest.raises(device.KernelHazardError, match="neither source's valid shape") as info:
        partmax_both_partial_kernel(x, z)
    assert info.value.code == "SIM-VALIDSHAPE-RANGE"
    assert info.value.line == _line(partmax_both_partial_kernel._func, "neither source")


@pl.jit(auto_mutex=True)
def transpose_kernel(a: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],
                     out: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32]):
    nd = pl.TileType(shape=[16, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec, valid_shape=[-1, -1])
    dn = pl.TileType(shape=[64, 16], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec, valid_shape=[-1, -1])
    gs = pl.make_tile_group(type=nd, addrs=0x0000, mutex_ids=[0])
    gd = pl.make_tile_group(type=dn, addrs=0x1000, mutex_ids=[1])
    with pl.section_vector():
        rows = a.shape[0]
        cols = a.shape[1]
        s, d = gs.current(), gd.current()
        pl.set_validshape(s, [rows, cols])
        pl.load(s, a, [0, 0])
        pl.set_validshape(d, [cols, rows])
        pl.transpose(d, s)
        pl.store(out, d, [0, 0])


@pl.jit(auto_mutex=True)
def transpose_too_wide_kernel(a: pl.Tensor[[16, 64], pl.DT_FP32], out: pl.Tensor[[64, 16], pl.DT_FP32]):
    gs = pl.make_tile_group(type=_vec([16, 64], pl.DT_FP32), addrs=0x0000, mutex_ids=[0])
    gd = pl.make_tile_group(type=_vec([64, 16], pl.DT_FP32), addrs=0x1000, mutex_ids=[1])
    with pl.section_vector():
        s, d = gs.current(), gd.current()
        pl.set_validshape(s, [8, 64])
        pl.load(s, a, [0, 0])
        pl.transpose(d, s)  # out's valid window reaches rows 8..15 of src, never loaded
        pl.store(out, d, [0, 0])


@pl.jit(auto_mutex=True)
def transpose_overlap_kernel(a: pl.Tensor[[16, 64], pl.DT_FP32]):
    gs = pl.make_tile_group(type=_vec([16, 64], pl.DT_FP32), addrs=0x0000, mutex_ids=[0])
    with pl.section_vector():
        s = gs.current()
        pl.load(s, a, [0, 0])
        pl.transpose(s, s)  # in place
        pl.store(a, s, [0, 0])


def test_transpose_swaps_the_valid_window_and_refuses_bad_operands():
    a = torch.randn([13, 40], device=DEVICE)
    out = torch.zeros([40, 13], device=DEVICE)
    transpose_kernel(a, out)
    assert torch.equal(out.cpu(), a.t().contiguous().cpu())

    # The transpose computes on the rows never loaded (a warning at its line: the values stay
    # undefined); the store that copies them to GM is the error.
    with pytest.warns(device.SimulatorWarning) as warned, pytest.raises(device.KernelHazardError) as info:
        transpose_too_wide_kernel(torch.randn([16, 64], device=DEVICE), torch.zeros([64, 16], device=DEVICE))
    assert info.value.code == "SIM-UNINIT-READ"
    assert info.value.line == _line(transpose_too_wide_kernel._func, "never loaded") + 1
    uses = [w for w in warned if str(w.message).startswith("SIM-UNINIT-USE")]
    assert [w.lineno for w in uses] == [_line(transpose_too_wide_kernel._func, "never loaded")]

    with pytest.raises(device.KernelHazardError) as info:
        transpose_overlap_kernel(torch.randn([16, 64], device=DEVICE))
    assert info.value.code == "SIM-TILE-OVERLAP"
    assert info.value.line == _line(transpose_overlap_kernel._func, "in place")


@pl.jit(auto_mutex=True)
def index_compare_kernel(out: pl.Tensor[[1, 64], pl.DT_INT32], x: pl.Tensor[[1, 64], pl.DT_FP32],
                         sel: pl.Tensor[[1, 64], pl.DT_FP32], start: pl.DT_INT32):
    gi = pl.make_tile_group(type=_vec([1, 64], pl.DT_INT32), addrs=0x0000, mutex_ids=[0])
    gx = pl.make_tile_group(type=_vec([1, 64], pl.DT_FP32), addrs=0x0100, mutex_ids=[1])
    gm = pl.make_tile_group(type=_vec([1, 64], pl.DT_FP32), addrs=0x0200, mutex_ids=[2])
    go = pl.make_tile_group(type=_vec([1, 64], pl.DT_FP32), addrs=0x0300, mutex_ids=[3])
    gt = pl.make_tile_group(type=_vec([1, 64], pl.DT_FP32), addrs=0x0400, mutex_ids=[4])
    with pl.section_vector():
        ti, tx, tm, to, tmp = gi.current(), gx.current(), gm.current(), go.current(), gt.current()
        pl.fill_index(ti, start)
        pl.store(out, ti, [0, 0])
        pl.load(tx, x, [0, 0])
        pl.gt(tm, tx, 0.0)
        pl.select(to, tm, tx, -1.0, tmp)
        pl.store(sel, to, [0, 0])


def test_fill_index_and_tile_scalar_compare_select():
    out = torch.zeros([1, 64], dtype=torch.int32, device=DEVICE)
    x = torch.randn([1, 64], device=DEVICE)
    sel = torch.zeros([1, 64], device=DEVICE)
    index_compare_kernel(out, x, sel, 5)
    assert out.cpu().tolist() == [list(range(5, 69))]
    assert torch.equal(sel.cpu(), torch.where(x > 0, x, torch.full_like(x, -1.0)).cpu())


@pl.jit(auto_mutex=True)
def row_sum_column_kernel(x: pl.Tensor[[16, 64], pl.DT_FP32], z: pl.Tensor[[16, 1], pl.DT_FP32]):
    ga = pl.make_tile_group(type=_vec([16, 64], pl.DT_FP32), addrs=0x0000, mutex_ids=[0])
    gt = pl.make_tile_group(type=_vec([16, 64], pl.DT_FP32), addrs=0x1000, mutex_ids=[1])
    go = pl.make_tile_group(type=_vec([16, 1], pl.DT_FP32), addrs=0x2000, mutex_ids=[2])  # no layout=
    with pl.section_vector():
        a, tmp, o = ga.current(), gt.current(), go.current()
        pl.load(a, x, [0, 0])
        pl.sum(o, a, tmp, dim=0)
        pl.store(z, o, [0, 0])


def test_a_one_column_vec_tile_is_column_major():
    # The backend declares every [N, 1] tile ColMajor (type_converter.cpp), so a row reduction
    # into a [16, 1] tile declared without layout=pl.DN is legal.
    x = torch.randn([16, 64], device=DEVICE)
    z = torch.zeros([16, 1], device=DEVICE)
    row_sum_column_kernel(x, z)
    torch.testing.assert_close(z.cpu(), x.cpu().sum(dim=1, keepdim=True), rtol=1e-5, atol=1e-5)


@pl.jit(auto_mutex=True)
def argmax_kernel(x: pl.Tensor[[16, 64], pl.DT_FP32], rows: pl.Tensor[[16, 1], pl.DT_INT32],
                  cols: pl.Tensor[[1, 64], pl.DT_INT32]):
    ga = pl.make_tile_group(type=_vec([16, 64], pl.DT_FP32), addrs=0x0000, mutex_ids=[0])
    gt = pl.make_tile_group(type=_vec([16, 64], pl.DT_FP32), addrs=0x1000, mutex_ids=[1])
    gr = pl.make_tile_group(type=_vec([16, 1], pl.DT_INT32), addrs=0x2000, mutex_ids=[2])
    gc = pl.make_tile_group(type=_vec([1, 64], pl.DT_INT32), addrs=0x2100, mutex_ids=[3])
    with pl.section_vector():
        a, tmp, r, c = ga.current(), gt.current(), gr.current(), gc.current()
        pl.load(a, x, [0, 0])
        pl.argmax(r, a, tmp, dim=0)
        pl.argmin(c, a, tmp, dim=1)
        pl.store(rows, r, [0, 0])
        pl.store(cols, c, [0, 0])


def test_argmax_argmin_index_the_extremes():
    x = torch.randn([16, 64], device=DEVICE)
    rows = torch.zeros([16, 1], dtype=torch.int32, device=DEVICE)
    cols = torch.zeros([1, 64], dtype=torch.int32, device=DEVICE)
    argmax_kernel(x, rows, cols)
    assert torch.equal(rows.cpu(), x.cpu().argmax(dim=1, keepdim=True).int())
    assert torch.equal(cols.cpu(), x.cpu().argmin(dim=0, keepdim=True).int())
