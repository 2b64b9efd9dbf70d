// pl.make_tensor (make_tensor.md): a Tensor view of a GM pointer argument (pl.Ptr[dtype]) or of an
// existing tensor, with a shape and an element dtype. The simulator runs the case the samples
// use: one contiguous view of the whole buffer (the view's bytes = the buffer's bytes), which
// reinterprets the argument's storage in place; every core of the launch asks for the same view.
// A partial or strided view, a second view of other shape or dtype of the same buffer, and
// pl.addptr offsets are SIM-UNSUPPORTED (GM views sharing storage are not modelled).
#include "builtins.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace opdev::sim {

namespace {

using BArgs = std::vector<Value>;

std::string Dims(const std::vector<int64_t>& s) { return "[" + absl::StrJoin(s, ", ") + "]"; }

Value MakeTensor(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  Args a(in, call, pos, kw, "pl.make_tensor");
  if (!in.in_kernel) a.Fail("only valid inside a @pl.jit kernel");
  const Value& src_v = a.Req(0, "ptr");
  if (src_v.kind != VK::kTensor)
    in.Fail(hazard::kRuntimeError, call.line,
            "pl.make_tensor: 'ptr' must be a pl.Ptr[dtype] argument or a Tensor (make_tensor.md), got " + Repr(src_v));
  GmTensor& g = src_v.As<GmTensor>();
  const auto shape_list = a.IntList(1, "shape");
  const std::vector<int64_t> shape(shape_list.begin(), shape_list.end());
  if (shape.empty()) a.Fail("'shape' must name at least one dimension");
  for (int64_t d : shape)
    if (d <= 0) in.Fail(hazard::kRuntimeError, call.line, "pl.make_tensor: shape " + Dims(shape) + " has a dimension <= 0");
  const DType dt = a.DTypeArg(3, "dtype", g.dtype);
  if (const Value* st = a.Get(2, "stride"); st && st->kind != VK::kNone) {
    const auto stride_list = a.IntList(2, "stride");
    const std::vector<int64_t> stride(stride_list.begin(), stride_list.end());
    std::vector<int64_t> contiguous(shape.size(), 1);
    for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) contiguous[i] = contiguous[i + 1] * shape[i + 1];
    if (stride != contiguous)
      in.Fail(hazard::kUnsupported, call.line,
              absl::StrFormat("pl.make_tensor with stride %s (not the contiguous %s) is not simulated: strided GM "
                              "views are not modelled",
                              Dims(stride), Dims(contiguous)));
  }
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  const uint64_t bytes = static_cast<uint64_t>(n) * DTypeSize(dt);
  if (bytes > g.data.size())
    in.Fail(hazard::kGmOutOfRange, call.line,
            absl::StrFormat("pl.make_tensor view %s of %s needs %d bytes but '%s' holds %d: the view reaches past "
                            "the buffer",
                            Dims(shape), std::string(DTypeName(dt)), bytes, g.name, g.data.size()));
  if (g.dtype == dt && g.shape == shape) return src_v;  // the same view (every core asks for it)
  if (bytes != g.data.size())
    in.Fail(hazard::kUnsupported, call.line,
            absl::StrFormat("pl.make_tensor view %s of %s covers %d of the %d bytes of '%s': a partial GM view is "
                            "not simulated (only a view of the whole buffer)",
                            Dims(shape), std::string(DTypeName(dt)), bytes, g.data.size(), g.name));
  if (g.AnyWritten())
    in.Fail(hazard::kUnsupported, call.line,
            absl::StrFormat("pl.make_tensor: '%s' was already written as %s %s; a second view of other shape or "
                            "dtype of one buffer is not simulated",
                            g.name, std::string(DTypeName(g.dtype)), Dims(g.shape)));
  g.dtype = dt;
  g.shape = shape;
  g.writer.clear();  // no element written (checked above)
  if (!g.origin.empty()) {
    g.origin.assign(static_cast<size_t>(n), WriteOrigin{});
    g.store_line.assign(static_cast<size_t>(n), 0);
  }
  return src_v;
}

}  // namespace

void RegisterGmViewBuiltins(BuiltinTable& t) { t["pl.make_tensor"] = MakeTensor; }

}  // namespace opdev::sim
