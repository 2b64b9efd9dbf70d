// Scalar element access (the S pipe): pl.getval / pl.setval and the subscript forms
// `v = container[i, j]` / `container[i, j] = v` of a Vec tile or a GM tensor inside a kernel
// (getval.md, setval.md). A subscript takes one index per dimension (a 1-D container one index)
// and is linearised row-major over the container's shape; the linear API takes the offset
// itself. An offset outside the container is undefined behaviour on the device (the docs: "越界
// 行为不确定") and an error here; reading tile bytes never written in the run is SIM-UNINIT-READ.
// Sync calls are no-ops in the simulator (program order), so the S-pipe synchronisation the
// docs ask for with make_tile is not checked.
#include "builtins.h"
#include "simt.h"

#include "opdev/sim/hazards.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <cstring>

namespace opdev::sim {

namespace {

using BArgs = std::vector<Value>;

// The container's logical shape (a tile's declared 2-D shape, a tensor's shape).
std::vector<int64_t> ShapeOf(const Value& c) {
  if (c.kind == VK::kTile) {
    const Tile& t = c.As<Tile>();
    return {t.type.shape[0], t.type.shape[1]};
  }
  return c.As<GmTensor>().shape;
}

std::string NameOf(const Value& c) {
  return c.kind == VK::kTile ? "tile '" + c.As<Tile>().name + "'" : "tensor '" + c.As<GmTensor>().name + "'";
}

int64_t Numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

void RequireContainer(Interp& in, const Value& c, int line, const char* what) {
  if (c.kind != VK::kTile && c.kind != VK::kTensor)
    in.Fail(hazard::kRuntimeError, line, absl::StrCat(what, ": the container must be a Tile or a Tensor, got ", KindName(c.kind)));
  if (!in.in_kernel)
    in.Fail(hazard::kUnsupported, line, absl::StrCat(what, " of a ", KindName(c.kind), " outside a @pl.jit kernel"));
  if (c.kind == VK::kTile) {
    Tile& t = c.As<Tile>();
    if (t.type.space != MemSpace::kVec)
      in.Fail(hazard::kUnsupported, line,
              absl::StrCat(what, " on ", std::string(MemSpaceName(t.type.space)), " tile '", t.name,
                           "': getval.md/setval.md give element access of Vec tiles and GM tensors only"));
    if (t.type.EffectiveLayout() != Layout::kND && t.type.shape[0] > 1 && t.type.shape[1] > 1)
      in.Fail(hazard::kUnsupported, line,
              absl::StrCat(what, " on ", std::string(LayoutName(t.type.EffectiveLayout())), " tile '", t.name,
                           "': the docs do not say whether the offset of a non-ND tile is logical or physical"));
    in.MarkUsed(t);
  }
}

// Linear element offset of a subscript: one index per dimension, row-major over the shape.
int64_t SubscriptOffset(Interp& in, const Value& c, const Value& index, int line) {
  const std::vector<int64_t> shape = ShapeOf(c);
  std::vector<int64_t> idx;
  if (index.kind == VK::kTuple && index.s != "slice") {
    for (const auto& v : index.Items()) idx.push_back(in.ToInt(v, line, "subscript index"));
  } else if (index.kind == VK::kTuple) {
    in.Fail(hazard::kUnsupported, line, "a slice of a " + KindName(c.kind) + " (element access takes integer indices)");
  } else {
    idx.push_back(in.ToInt(index, line, "subscript index"));
  }
  // A 1-D container takes one index; a tile is always 2-D, a [1, N] tile is the 1-D case.
  std::vector<int64_t> dims = shape;
  if (idx.size() == 1 && c.kind == VK::kTile && shape[0] == 1) dims = {shape[1]};
  if (idx.size() != dims.size())
    in.Fail(hazard::kRuntimeError, line,
            absl::StrFormat("subscript of %s [%s] takes %d indices (one per dimension), got %d", NameOf(c),
                            absl::StrJoin(shape, ", "), dims.size(), idx.size()));
  int64_t off = 0;
  for (size_t a = 0; a < dims.size(); ++a) {
    if (idx[a] < 0 || idx[a] >= dims[a])
      in.Fail(c.kind == VK::kTensor ? hazard::kGmOutOfRange : hazard::kScalarRange, line,
              absl::StrFormat("element [%s] is outside %s [%s] (out-of-range element access is undefined, getval.md)",
                              absl::StrJoin(idx, ", "), NameOf(c), absl::StrJoin(shape, ", ")));
    off = off * dims[a] + idx[a];
  }
  return off;
}

void CheckOffset(Interp& in, const Value& c, int64_t off, int line, const char* what) {
  const std::vector<int64_t> shape = ShapeOf(c);
  const int64_t n = Numel(shape);
  if (off < 0 || off >= n)
    in.Fail(c.kind == VK::kTensor ? hazard::kGmOutOfRange : hazard::kScalarRange, line,
            absl::StrFormat("%s offset %d is outside %s [%s] of %d elements (0 <= offset < %d; out of range is "
                            "undefined, getval.md)",
                            what, off, NameOf(c), absl::StrJoin(shape, ", "), n, n));
}

Value ScalarOf(DType t, double v) {
  if (t == DType::kBool) return Value::Bool(v != 0);
  if (IsFloating(t)) return Value::Float(v);
  return Value::Int(static_cast<int64_t>(v));
}

Value ReadAt(Interp& in, const Value& c, int64_t off, int line, const char* what) {
  CheckOffset(in, c, off, line, what);
  if (c.kind == VK::kTensor) {
    const GmTensor& g = c.As<GmTensor>();
    if (in.simt) SimtAccess(in, &g, static_cast<uint64_t>(off) * g.elem_size(), false, line, "tensor", g.name, off);
    return ScalarOf(g.dtype, g.GetAsDouble(off));
  }
  const Tile& t = c.As<Tile>();
  const int64_t cols = t.type.shape[1];
  SpaceBuffer& buf = in.Mem().Get(t.type.space);
  const uint64_t pos = t.addr + t.ElementOffset(off / cols, off % cols);
  const size_t es = t.elem_size();
  if (pos + es > buf.bytes.size())
    in.Fail(hazard::kScalarRange, line, absl::StrFormat("%s of %s element %d lies past the end of %s memory", what,
                                                      NameOf(c), off, std::string(MemSpaceName(t.type.space))));
  if (in.simt) SimtAccess(in, &buf, pos, false, line, "tile", t.name, off);
  if (!in.simt) PipeScalarAccess(in, t, pos, es, false, what);  // SIMT: see docs, "SIMT"
  if (std::memchr(buf.written.data() + pos, 0, es) != nullptr)
    in.sink.Report(hazard::kUninitRead, line,
                   absl::StrFormat("%s reads element %d of tile '%s', never written in this run", what, off, t.name));
  return ScalarOf(t.type.dtype, LoadScalar(t.type.dtype, buf.bytes.data() + pos));
}

void WriteAt(Interp& in, const Value& c, int64_t off, const Value& v, int line, const char* what) {
  CheckOffset(in, c, off, line, what);
  if (!v.IsNumber())
    in.Fail(hazard::kRuntimeError, line, absl::StrCat(what, ": the value must be a scalar, got ", KindName(v.kind)));
  const double x = in.ToDouble(v, line, "value");
  if (c.kind == VK::kTensor) {
    GmTensor& g = c.As<GmTensor>();
    const size_t es = DTypeSize(g.dtype);
    if (in.simt) SimtAccess(in, &g, static_cast<uint64_t>(off) * es, true, line, "tensor", g.name, off);
    uint8_t before[16];  // an element is at most 8 bytes
    std::memcpy(before, g.data.data() + off * static_cast<int64_t>(es), es);
    g.SetFromDouble(off, x);
    const int32_t core_id = in.core ? in.core->ordinal : 0;
    int32_t& w = g.Writers()[off];
    if (w >= 0 && w != core_id && !g.multi_writer_reported) {
      // The same bytes again do not depend on the order (as pl.store: SIM-OUT-MULTI-CORE-SAME).
      if (std::memcmp(before, g.data.data() + off * static_cast<int64_t>(es), es) == 0) {
        in.sink.Report(hazard::kOutputMultiWriterSame, line,
                       absl::StrFormat("core %d writes element %d of tensor '%s' already written by core %d, with "
                                       "the same value (each output region is written by one core)",
                                       core_id, off, g.name, w));
      } else {
        g.multi_writer_reported = true;
        in.sink.Report(hazard::kOutputMultiWriter, line,
                       absl::StrFormat("core %d writes element %d of tensor '%s' already written by core %d", core_id,
                                       off, g.name, w));
      }
    }
    if (w < 0) w = core_id;
    if (!g.origin.empty()) {
      g.origin[off] = WriteOrigin{line, -1, 0};
      g.store_line[off] = line;
    }
    return;
  }
  const Tile& t = c.As<Tile>();
  const int64_t cols = t.type.shape[1];
  SpaceBuffer& buf = in.Mem().Get(t.type.space);
  const uint64_t pos = t.addr + t.ElementOffset(off / cols, off % cols);
  const size_t es = t.elem_size();
  if (pos + es > buf.bytes.size())
    in.Fail(hazard::kScalarRange, line, absl::StrFormat("%s of %s element %d lies past the end of %s memory", what,
                                                      NameOf(c), off, std::string(MemSpaceName(t.type.space))));
  if (in.simt) SimtAccess(in, &buf, pos, true, line, "tile", t.name, off);
  if (!in.simt) PipeScalarAccess(in, t, pos, es, true, what);  // SIMT: see docs, "SIMT"
  buf.Touch(pos, pos + es);
  StoreScalar(t.type.dtype, buf.bytes.data() + pos, x);
  std::memset(buf.written.data() + pos, 1, es);
  if (!buf.origin.empty()) std::fill_n(buf.origin.begin() + pos, es, WriteOrigin{line, -1, 0});
}

Value GetVal(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.getval");
  const Value& c = a.Req(0, "container");
  RequireContainer(in, c, call.line, "pl.getval");
  return ReadAt(in, c, a.Int(1, "offset"), call.line, "pl.getval");
}

Value SetVal(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.setval");
  const Value& c = a.Req(0, "container");
  RequireContainer(in, c, call.line, "pl.setval");
  WriteAt(in, c, a.Int(1, "offset"), a.Req(2, "value"), call.line, "pl.setval");
  return Value::None();
}

}  // namespace

Value ReadElement(Interp& in, const Value& container, const Value& index, int line) {
  RequireContainer(in, container, line, "element read");
  return ReadAt(in, container, SubscriptOffset(in, container, index, line), line, "element read");
}

void WriteElement(Interp& in, const Value& container, const Value& index, const Value& v, int line) {
  RequireContainer(in, container, line, "element write");
  WriteAt(in, container, SubscriptOffset(in, container, index, line), v, line, "element write");
}

void RegisterScalarBuiltins(BuiltinTable& t) {
  t["pl.getval"] = GetVal;
  t["pl.setval"] = SetVal;
}

}  // namespace opdev::sim
