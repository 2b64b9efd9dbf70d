"""The PyPTO-Pro language names of the CPU device (``pypto_pro.language``, ``pl``).

Kernel bodies are never executed by Python: opdev's simulator interprets them from the
source file at launch. What Python evaluates is the module-level surface: decorators
(``@pl.jit(...)``, ``@pl.vector_function``, ``@pl.inline``), annotations
(``pl.Tensor[[pl.DYNAMIC, 128], pl.DT_FP16]``, ``pl.Ptr[pl.DT_FP32]``, ``pl.DT_INT64``),
dtypes and enum members used in host code, and module constants. Those are real objects
here; any other ``pl.*`` / ``vf.*`` name is a :class:`DslName` that records its qualified
name (``pl.MaskPattern.ALL``), so a module-level ``X = pl.CastLayout.ZERO`` reaches the
simulator as that constant.
"""

import enum


class DataType(enum.Enum):
    """PyPTO-Pro element types (``pl.DT_*``)."""

    BOOL = "DT_BOOL"
    INT4 = "DT_INT4"
    INT8 = "DT_INT8"
    INT16 = "DT_INT16"
    INT32 = "DT_INT32"
    INT64 = "DT_INT64"
    UINT4 = "DT_UINT4"
    UINT8 = "DT_UINT8"
    UINT16 = "DT_UINT16"
    UINT32 = "DT_UINT32"
    UINT64 = "DT_UINT64"
    FP4 = "DT_FP4"
    FP8E4M3FN = "DT_FP8E4M3FN"
    FP8E5M2 = "DT_FP8E5M2"
    FP8E8M0 = "DT_FP8E8M0"
    FP4E2M1 = "DT_FP4E2M1"
    FP4E1M2 = "DT_FP4E1M2"
    FP16 = "DT_FP16"
    FP32 = "DT_FP32"
    BF16 = "DT_BF16"
    HF4 = "DT_HF4"
    HF8 = "DT_HF8"
    INDEX = "DT_INDEX"

    def __str__(self):
        return self.value

    def __repr__(self):
        return "pl." + self.value

    def is_float(self):
        return self.name.startswith(("FP", "BF", "HF"))

    def is_signed_int(self):
        return self.name.startswith("INT") or self.name == "INDEX"

    def is_unsigned_int(self):
        return self.name.startswith("UINT")

    @property
    def qualified(self):
        return "pl." + self.value


# pl dtype -> torch dtype name a tensor argument must have (the frontend's table).
TORCH_NAME = {
    DataType.FP16: "float16", DataType.BF16: "bfloat16", DataType.FP32: "float32",
    DataType.INT8: "int8", DataType.INT16: "int16", DataType.INT32: "int32",
    DataType.INT64: "int64", DataType.UINT8: "uint8", DataType.UINT64: "uint64",
    DataType.BOOL: "bool", DataType.HF8: "uint8",
}


class _Sentinel:
    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "pl." + self._name

    @property
    def qualified(self):
        return "pl." + self._name


DYNAMIC = _Sentinel("DYNAMIC")
STATIC = _Sentinel("STATIC")


class DslName:
    """A PyPTO-Pro name Python does not evaluate (an op, an enum member, a namespace).

    Attribute access extends the qualified name; a call returns a :class:`DslCall` (the
    simulator evaluates the real call from the source)."""

    __slots__ = ("_q",)

    def __init__(self, qualified):
        object.__setattr__(self, "_q", qualified)

    @property
    def qualified(self):
        return self._q

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return DslName(self._q + "." + name)

    def __call__(self, *args, **kwargs):
        return DslCall(self._q, args, kwargs)

    def __getitem__(self, item):
        return DslCall(self._q + "[]", (item,), {})

    def __repr__(self):
        return self._q

    def __eq__(self, other):
        return isinstance(other, DslName) and other._q == self._q

    def __hash__(self):
        return hash(self._q)


class DslCall:
    """The value of a PyPTO-Pro call made at module level (e.g. ``pl.PipelineConfig(...)``)."""

    def __init__(self, qualified, args, kwargs):
        self.qualified = qualified
        self.args = args
        self.kwargs = kwargs

    def __repr__(self):
        return "%s(...)" % self.qualified

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return DslName("%s().%s" % (self.qualified, name))


class TensorType:
    """``pl.Tensor[[dims], dtype(, layout)]``: a kernel tensor parameter's annotation."""

    def __init__(self, shape, dtype, layout=None):
        self.shape = list(shape)
        self.dtype = dtype
        self.layout = layout

    def __repr__(self):
        return "pl.Tensor[%r, %r]" % (self.shape, self.dtype)


class Tensor:
    def __class_getitem__(cls, item):
        if not isinstance(item, tuple) or len(item) < 2:
            raise TypeError("pl.Tensor[[shape], dtype] expects a shape and a dtype")
        shape, dtype = item[0], item[1]
        if not isinstance(shape, (list, tuple)):
            shape = [shape]
        return TensorType(shape, dtype, item[2] if len(item) > 2 else None)


class PtrType:
    def __init__(self, dtype):
        self.dtype = dtype

    def __repr__(self):
        return "pl.Ptr[%r]" % (self.dtype,)


class Ptr:
    def __class_getitem__(cls, item):
        return PtrType(item[0] if isinstance(item, tuple) else item)


class _Generic:
    """pl.Tile / pl.Scalar annotations."""

    def __class_getitem__(cls, item):
        return DslCall("pl." + cls.__name__ + "[]", (item,), {})


class Tile(_Generic):
    pass


class Scalar(_Generic):
    pass
