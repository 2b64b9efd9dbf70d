// Compile-time aggregates of a kernel: pl.struct("Name", f=v, ...) (a C++ struct whose fields
// the kernel reads and assigns: `s.f = v`, `s.arr[i] = v`; struct.md), pl.struct_array(n,
// "Name", ...) (n such structs, indexed `a[i].f`; struct_array.md) and pl.make_tuple(f=v, ...)
// (named values folded back at compile time, read-only; make_tuple.md). Array fields are lists
// of scalars. Passing a struct through SSBUF (ssbuf_store / ssbuf_load) is not simulated.
#include "builtins.h"

#include "opdev/sim/hazards.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include <set>

namespace opdev::sim {

namespace {

using BArgs = std::vector<Value>;

bool IsCIdentifier(const std::string& s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

// A field value: a scalar (number or bool) or a list of scalars (an array field); copied, so
// that two structs built from one list do not share it.
Value FieldValue(Interp& in, const Value& v, const std::string& fn, const std::string& field, int line) {
  if (v.IsNumber()) return v;
  if (v.kind == VK::kList || v.kind == VK::kTuple) {
    std::vector<Value> items;
    for (const auto& x : v.Items()) {
      if (!x.IsNumber())
        in.Fail(hazard::kRuntimeError, line, absl::StrCat(fn, ": array field '", field, "' holds a ", KindName(x.kind),
                                                          "; array fields hold scalars"));
      items.push_back(x);
    }
    return Value::ListV(std::move(items));
  }
  in.Fail(hazard::kRuntimeError, line, absl::StrCat(fn, ": field '", field, "' is a ", KindName(v.kind),
                                                    "; struct fields are scalars or lists of scalars (struct.md)"));
}

std::shared_ptr<HostObject> NewStruct(Interp& in, const std::string& fn, const std::string& type_name, Kwargs& kw,
                                      int line) {
  if (!IsCIdentifier(type_name))
    in.Fail(hazard::kRuntimeError, line,
            absl::StrCat(fn, ": type name '", type_name, "' is not a C identifier (struct.md)"));
  if (kw.empty()) in.Fail(hazard::kRuntimeError, line, fn + ": at least one field=value (struct.md)");
  auto obj = std::make_shared<HostObject>();
  obj->type_name = type_name;
  obj->assignable = true;
  for (auto& [k, v] : kw) {
    if (!IsCIdentifier(k))
      in.Fail(hazard::kRuntimeError, line, absl::StrCat(fn, ": field name '", k, "' is not a C identifier"));
    obj->fields.emplace_back(k, FieldValue(in, v, fn, k, line));
  }
  return obj;
}

Value Struct(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  if (pos.size() != 1 || pos[0].kind != VK::kStr)
    in.Fail(hazard::kRuntimeError, call.line,
            "pl.struct takes the type name as its one positional argument, a string constant: "
            "pl.struct(\"TypeName\", field=value, ...) (struct.md)");
  return Value::Obj(VK::kObject, NewStruct(in, "pl.struct", pos[0].s, kw, call.line));
}

Value StructArray(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  if (pos.size() != 2 || pos[1].kind != VK::kStr)
    in.Fail(hazard::kRuntimeError, call.line,
            "pl.struct_array(size, \"TypeName\", field=value, ...): the size and the type name, a string "
            "constant, are its two positional arguments (struct_array.md)");
  const int64_t n = in.ToInt(pos[0], call.line, "struct_array size");
  if (n < 1) in.Fail(hazard::kRuntimeError, call.line, absl::StrFormat("pl.struct_array: size must be >= 1, got %d", n));
  in.CheckSequenceLength(n, call.line);
  std::vector<Value> items;
  for (int64_t i = 0; i < n; ++i)
    items.push_back(Value::Obj(VK::kObject, NewStruct(in, "pl.struct_array", pos[1].s, kw, call.line)));
  return Value::TupleV(std::move(items));
}

Value MakeTuple(Interp& in, const XNode& call, BArgs& pos, Kwargs& kw) {
  if (!pos.empty())
    in.Fail(hazard::kRuntimeError, call.line, "pl.make_tuple takes keyword arguments only (make_tuple.md)");
  if (kw.empty()) in.Fail(hazard::kRuntimeError, call.line, "pl.make_tuple: at least one field=value (make_tuple.md)");
  auto obj = std::make_shared<HostObject>();
  obj->type_name = "make_tuple";
  for (auto& [k, v] : kw) obj->fields.emplace_back(k, v);
  return Value::Obj(VK::kObject, obj);
}

}  // namespace

void AssignField(Interp& in, const Value& obj, const std::string& name, const Value& v, int line) {
  if (obj.kind != VK::kObject)
    in.Fail(hazard::kUnsupported, line, "attribute assignment on a " + KindName(obj.kind));
  HostObject& h = obj.As<HostObject>();
  if (!h.assignable)
    in.Fail(hazard::kRuntimeError, line,
            absl::StrCat("cannot assign attribute '", name, "' of a ", h.type_name == "make_tuple" ? "pl.make_tuple"
                                                                                                       : "'" + h.type_name + "' argument",
                         " (read-only)"));
  for (auto& [k, fv] : h.fields) {
    if (k != name) continue;
    if (fv.kind == VK::kList) {
      fv = FieldValue(in, v, "struct field assignment", name, line);
    } else {
      if (!v.IsNumber())
        in.Fail(hazard::kRuntimeError, line, absl::StrCat("struct field '", h.type_name, ".", name, "' takes a scalar, got ",
                                                          KindName(v.kind)));
      fv = v;
    }
    return;
  }
  in.Fail(hazard::kRuntimeError, line, absl::StrCat("struct '", h.type_name, "' has no field '", name, "'"));
}

void RegisterAggregateBuiltins(BuiltinTable& t) {
  t["pl.struct"] = Struct;
  t["pl.struct_array"] = StructArray;
  t["pl.make_tuple"] = MakeTuple;
}

}  // namespace opdev::sim
