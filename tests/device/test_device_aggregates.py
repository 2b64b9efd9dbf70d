"""Compile-time aggregates (struct.md, struct_array.md, make_tuple.md): a pl.struct's scalar
and array fields are read and assigned, pl.struct_array slots are independent structs,
pl.make_tuple fields are read-only values, `if pl.constexpr(c)` picks its arm; misuse is a
clear error with its line."""

import inspect

import pypto_pro.language as pl
import pytest
import torch

import opdev.device as device

DEVICE = "npu:0"


@pl.jit()
def struct_fields_kernel(out: pl.Tensor[[8], pl.DT_INT32]):
    s = pl.struct("RunInfo", batch_id=0, offsets=[0, 0, 0, 0])
    arr = pl.struct_array(2, "Slot", v=1, w=[5, 6])
    with pl.section_vector():
        s.offsets[0] = 10
        s.offsets[3] = 40
        s.batch_id = 7
        total = 0
        for i in pl.range(0, 4):
            total = total + s.offsets[i]
        arr[1].v = 9
        arr[0].w[1] = 60
        t = pl.make_tuple(first=s.batch_id, second=total)
        out[0] = t.first
        out[1] = t.second
        out[2] = s.offsets[3]
        out[3] = arr[0].v
        out[4] = arr[1].v
        out[5] = arr[0].w[1]
        out[6] = arr[1].w[1]
        out[7] = 1 if pl.constexpr(True) else 2


def test_struct_fields_struct_arrays_and_tuples():
    out = torch.zeros([8], dtype=torch.int32, device=DEVICE)
    struct_fields_kernel(out)
    assert out.tolist() == [7, 50, 40, 1, 9, 60, 6, 1]


def _make_constexpr_kernel(flag):
    @pl.jit
    def kernel(out: pl.Tensor[[1], pl.DT_INT32]):
        with pl.section_vector():
            if pl.constexpr(flag):
                out[0] = 1
            else:
                out[0] = 2
    return kernel


@pytest.mark.parametrize("flag,expected", [(True, 1), (False, 2)])
def test_constexpr_picks_the_arm_of_its_condition(flag, expected):
    out = torch.zeros([1], dtype=torch.int32, device=DEVICE)
    _make_constexpr_kernel(flag)(out)
    assert out.item() == expected


@pl.jit()
def tuple_assign_kernel(out: pl.Tensor[[1], pl.DT_INT32]):
    t = pl.make_tuple(a=1)
    with pl.section_vector():
        t.a = 2  # make_tuple is read-only


@pl.jit()
def missing_field_kernel(out: pl.Tensor[[1], pl.DT_INT32]):
    s = pl.struct("Ctx", a=1)
    with pl.section_vector():
        s.b = 2  # no such field


@pl.jit()
def bad_struct_name_kernel(out: pl.Tensor[[1], pl.DT_INT32]):
    s = pl.struct("1st", a=1)  # not a C identifier
    out[0] = s.a


@pytest.mark.parametrize("kernel,marker,text", [
    (tuple_assign_kernel, "read-only", "cannot assign attribute 'a' of a pl.make_tuple"),
    (missing_field_kernel, "no such field", "struct 'Ctx' has no field 'b'"),
    (bad_struct_name_kernel, "not a C identifier", "type name '1st' is not a C identifier"),
])
def test_aggregate_misuse_is_an_error_with_its_line(kernel, marker, text):
    with pytest.raises(device.KernelHazardError) as info:
        kernel(torch.zeros([1], dtype=torch.int32, device=DEVICE))
    assert text in str(info.value)
    src, first = inspect.getsourcelines(kernel._func)
    assert info.value.line == first + next(i for i, l in enumerate(src) if marker in l)
