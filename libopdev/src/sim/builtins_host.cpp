// Host-side builtins for module constants and the wrapper: Python builtins (min, max, len,
// int, float, abs, isinstance, exceptions, ...), torch.empty / torch.empty_like output
// allocation, get_platform_info() from the target, and math.ceil/floor.
#include "builtins.h"

#include "absl/strings/str_cat.h"

#include <charconv>
#include <cmath>

namespace opdev::sim {

namespace {

using BArgs = std::vector<Value>;

Value MinMax(Interp& in, const XNode& call, BArgs& pos, bool is_min) {
  std::vector<Value> items = pos;
  if (items.size() == 1 && items[0].IsSeq()) items = items[0].Items();
  if (items.empty()) in.Fail(hazard::kRuntimeError, call.line, "min()/max() of an empty sequence");
  Value best = items[0];
  for (size_t i = 1; i < items.size(); ++i) {
    double x = in.ToDouble(items[i], call.line, "min/max argument");
    double b = in.ToDouble(best, call.line, "min/max argument");
    if (is_min ? x < b : x > b) best = items[i];
  }
  return best;
}
Value Min(Interp& in, const XNode& c, BArgs& p, Kwargs&) { return MinMax(in, c, p, true); }
Value Max(Interp& in, const XNode& c, BArgs& p, Kwargs&) { return MinMax(in, c, p, false); }

Value Len(Interp& in, const XNode& call, BArgs& pos, Kwargs&) {
  if (pos.size() != 1) in.Fail(hazard::kRuntimeError, call.line, "len() takes one argument");
  if (pos[0].IsSeq()) return Value::Int(static_cast<int64_t>(pos[0].Items().size()));
  if (pos[0].kind == VK::kStr) return Value::Int(static_cast<int64_t>(pos[0].s.size()));
  if (pos[0].kind == VK::kTensor) {
    const auto& t = pos[0].As<GmTensor>();
    return Value::Int(t.shape.empty() ? 0 : t.shape[0]);
  }
  in.Fail(hazard::kRuntimeError, call.line, "len() of a " + KindName(pos[0].kind));
}

// A float's integral value as int64: ValueError / OverflowError as Python for NaN and
// infinities, SIM-LIMIT beyond int64 (Python would return a big int).
int64_t FloatToInt(Interp& in, int line, double v, const char* what) {
  if (std::isnan(v)) in.Fail(hazard::kRuntimeError, line, std::string(what) + ": cannot convert float NaN to integer (ValueError)");
  if (std::isinf(v)) in.Fail(hazard::kRuntimeError, line, std::string(what) + ": cannot convert float infinity to integer (OverflowError)");
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0))
    in.Fail(hazard::kLimit, line, std::string(what) + ": the integer leaves the int64 range");
  return static_cast<int64_t>(v);
}

Value IntFn(Interp& in, const XNode& call, BArgs& pos, Kwargs&) {
  if (pos.empty()) return Value::Int(0);
  if (pos[0].kind == VK::kFloat) return Value::Int(FloatToInt(in, call.line, std::trunc(pos[0].f), "int()"));
  if (pos[0].kind == VK::kStr) {
    const std::string& t = pos[0].s;
    size_t b = t.find_first_not_of(" \t\n"), e = t.find_last_not_of(" \t\n");
    std::string d = b == std::string::npos ? std::string() : t.substr(b, e - b + 1);
    int64_t v = 0;
    auto [p, ec] = std::from_chars(d.data() + (!d.empty() && d[0] == '+'), d.data() + d.size(), v);
    if (d.empty() || ec == std::errc::invalid_argument || p != d.data() + d.size())
      in.Fail(hazard::kRuntimeError, call.line, "invalid literal for int() with base 10: " + Repr(pos[0]) + " (ValueError)");
    if (ec == std::errc::result_out_of_range) in.Fail(hazard::kLimit, call.line, "int(): the integer leaves the int64 range");
    return Value::Int(v);
  }
  return Value::Int(in.ToInt(pos[0], call.line, "int() argument"));
}
Value FloatFn(Interp& in, const XNode& call, BArgs& pos, Kwargs&) {
  if (pos.empty()) return Value::Float(0);
  return Value::Float(in.ToDouble(pos[0], call.line, "float() argument"));
}
Value BoolFn(Interp& in, const XNode&, BArgs& pos, Kwargs&) { return Value::Bool(!pos.empty() && in.Truthy(pos[0])); }
Value AbsFn(Interp& in, const XNode& call, BArgs& pos, Kwargs&) {
  if (pos.size() != 1) in.Fail(hazard::kRuntimeError, call.line, "abs() takes one argument");
  if (pos[0].kind == VK::kFloat) return Value::Float(std::fabs(pos[0].f));
  int64_t v = in.ToInt(pos[0], call.line, "abs() argument");
  if (v == INT64_MIN) in.Fail(hazard::kLimit, call.line, "abs(): the integer leaves the int64 range");
  return Value::Int(v < 0 ? -v : v);
}
Value TupleFn(Interp& in, const XNode& call, BArgs& pos, Kwargs&) {
  if (pos.empty()) return Value::TupleV({});
  if (!pos[0].IsSeq()) in.Fail(hazard::kUnsupported, call.line, "tuple() of a " + KindName(pos[0].kind));
  return Value::TupleV(pos[0].Items());
}
Value ListFn(Interp& in, const XNode& call, BArgs& pos, Kwargs&) {
  if (pos.empty()) return Value::ListV({});
  if (!pos[0].IsSeq()) in.Fail(hazard::kUnsupported, call.line, "list() of a " + KindName(pos[0].kind));
  return Value::ListV(pos[0].Items());
}
Value StrFn(Interp&, const XNode&, BArgs& pos, Kwargs&) {
  if (!pos.empty() && pos[0].kind == VK::kStr) return pos[0];
  return Value::Str(pos.empty() ? "" : Repr(pos[0]));
}
Value Print(Interp&, const XNode&, BArgs&, Kwargs&) { return Value::None(); }
Value Exception(Interp&, const XNode& call, BArgs& pos, Kwargs&) {
  std::string msg = pos.empty() ? "" : (pos[0].kind == VK::kStr ? pos[0].s : Repr(pos[0]));
  (void)call;
  return Value::Str(msg);
}
Value IsInstance(Interp& in, const XNode& call, BArgs& pos, Kwargs&) {
  if (pos.size() != 2) in.Fail(hazard::kRuntimeError, call.line, "isinstance() takes two arguments");
  const Value& x = pos[0];
  const Value& t = pos[1];
  if (t.kind == VK::kModule) {
    if (t.s == "torch.Tensor") return Value::Bool(x.kind == VK::kTensor);
  }
  if (t.kind == VK::kBuiltin) {
    if (t.s == "int") return Value::Bool(x.kind == VK::kInt);
    if (t.s == "float") return Value::Bool(x.kind == VK::kFloat);
    if (t.s == "bool") return Value::Bool(x.kind == VK::kBool);
    if (t.s == "tuple") return Value::Bool(x.kind == VK::kTuple);
    if (t.s == "list") return Value::Bool(x.kind == VK::kList);
    if (t.s == "str") return Value::Bool(x.kind == VK::kStr);
  }
  in.Fail(hazard::kUnsupported, call.line, "isinstance() with this type");
}

std::vector<int64_t> ShapeArgs(Interp& in, const XNode& call, const BArgs& pos) {
  std::vector<int64_t> shape;
  if (pos.size() == 1 && pos[0].IsSeq()) {
    for (const auto& d : pos[0].Items()) shape.push_back(in.ToInt(d, call.line, "shape"));
  } else {
    for (const auto& d : pos) shape.push_back(in.ToInt(d, call.line, "shape"));
  }
  for (int64_t d : shape)
    if (d < 0) in.Fail(hazard::kRuntimeError, call.line, "negative dimension in torch.empty");
  return shape;
}

Value NewTensor(Interp& in, DType dtype, std::vector<int64_t> shape) {
  // Size in bytes without overflow, checked against the run's memory limit before allocating.
  int64_t bytes = static_cast<int64_t>(DTypeSize(dtype));
  for (int64_t d : shape)
    if (__builtin_mul_overflow(bytes, d, &bytes)) { bytes = -1; break; }
  in.AllocateGm(bytes, in.current_line);
  // torch.empty leaves memory uninitialised: fill with a NaN/garbage pattern.
  auto t = GmTensor::Make(absl::StrCat("out", in.tensors.size()), dtype, std::move(shape), kPoisonByte);
  if (!in.assign_name.empty()) t->name = std::string(in.assign_name);
  in.tensors.push_back(t);
  return Value::Obj(VK::kTensor, t);
}

Value Empty(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  DType dtype = DType::kFloat32;
  for (auto& [k, v] : kw) {
    if (k == "dtype") {
      if (v.kind != VK::kDType) in.Fail(hazard::kRuntimeError, call.line, "torch.empty dtype= must be a torch dtype");
      dtype = v.dtype();
    } else if (k == "size") {
      BArgs one{v};
      return NewTensor(in, dtype, ShapeArgs(in, call, one));
    }
  }
  return NewTensor(in, dtype, ShapeArgs(in, call, pos));
}

Value EmptyLike(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  if (pos.empty() || pos[0].kind != VK::kTensor) in.Fail(hazard::kRuntimeError, call.line, "torch.empty_like needs a tensor");
  const GmTensor& src = pos[0].As<GmTensor>();
  DType dtype = src.dtype;
  for (auto& [k, v] : kw)
    if (k == "dtype" && v.kind == VK::kDType) dtype = v.dtype();
  return NewTensor(in, dtype, src.shape);
}

Value PlatformInfoFn(Interp& in, const XNode&, BArgs&, Kwargs&) {
  auto p = std::make_shared<PlatformInfo>(in.platform);
  return Value::Obj(VK::kPlatform, p);
}

Value Ceil(Interp& in, const XNode& call, BArgs& pos, Kwargs&) {
  if (pos.size() != 1) in.Fail(hazard::kRuntimeError, call.line, "math.ceil takes one argument");
  return Value::Int(FloatToInt(in, call.line, std::ceil(in.ToDouble(pos[0], call.line, "math.ceil argument")), "math.ceil"));
}
Value Floor(Interp& in, const XNode& call, BArgs& pos, Kwargs&) {
  if (pos.size() != 1) in.Fail(hazard::kRuntimeError, call.line, "math.floor takes one argument");
  return Value::Int(FloatToInt(in, call.line, std::floor(in.ToDouble(pos[0], call.line, "math.floor argument")), "math.floor"));
}
// math.sqrt as CPython computes it (the correctly rounded double square root; a negative
// argument raises ValueError: math domain error). Module constants such as 1 / sqrt(D) use it.
Value Sqrt(Interp& in, const XNode& call, BArgs& pos, Kwargs&) {
  if (pos.size() != 1) in.Fail(hazard::kRuntimeError, call.line, "math.sqrt takes one argument");
  const double x = in.ToDouble(pos[0], call.line, "math.sqrt argument");
  if (x < 0) in.Fail(hazard::kRuntimeError, call.line, "ValueError: math domain error (math.sqrt)");
  return Value::Float(std::sqrt(x));
}
Value Sync(Interp&, const XNode&, BArgs&, Kwargs&) { return Value::None(); }

}  // namespace

void RegisterHostBuiltins(BuiltinTable& t) {
  t["builtins.min"] = Min;
  t["builtins.max"] = Max;
  t["builtins.len"] = Len;
  t["builtins.int"] = IntFn;
  t["builtins.float"] = FloatFn;
  t["builtins.bool"] = BoolFn;
  t["builtins.abs"] = AbsFn;
  t["builtins.tuple"] = TupleFn;
  t["builtins.list"] = ListFn;
  t["builtins.str"] = StrFn;
  t["builtins.print"] = Print;
  t["builtins.isinstance"] = IsInstance;
  for (const char* e : {"builtins.ValueError", "builtins.TypeError", "builtins.RuntimeError",
                        "builtins.AssertionError", "builtins.NotImplementedError", "builtins.Exception"})
    t[e] = Exception;
  if (t.count("pl.range")) t["builtins.range"] = t["pl.range"];
  t["torch.empty"] = Empty;
  t["torch.empty_like"] = EmptyLike;
  t["torch.npu.synchronize"] = Sync;
  t["platform.get_platform_info"] = PlatformInfoFn;
  t["math.ceil"] = Ceil;
  t["math.floor"] = Floor;
  t["math.sqrt"] = Sqrt;
}

}  // namespace opdev::sim
