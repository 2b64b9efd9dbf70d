// Builtin registry, constants (dtypes, enum members, layouts) and argument helpers.
#include "builtins.h"

#include "free_list_alloc.h"

#include "opdev/api/catalog.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

#include <memory>
#include <new>
#include <set>

namespace opdev::sim {

BuiltinFn FindBuiltin(const std::string& q) {
  static const BuiltinTable table = [] {
    BuiltinTable t;
    RegisterTileBuiltins(t);
    RegisterVfBuiltins(t);
    RegisterHostBuiltins(t);
    RegisterCubeBuiltins(t);
    RegisterSyncBuiltins(t);
    RegisterScalarBuiltins(t);
    RegisterAggregateBuiltins(t);
    RegisterSimtBuiltins(t);
    RegisterGmViewBuiltins(t);
    RegisterPipeBuiltins(t);
    return t;
  }();
  auto it = table.find(q);
  return it == table.end() ? nullptr : it->second;
}

BoundBuiltin FindBoundBuiltin(const std::string& q) {
  static const BoundTable table = [] {
    BoundTable t;
    RegisterVfBoundBuiltins(t);
    RegisterScalarBoundBuiltins(t);
    return t;
  }();
  auto it = table.find(q);
  return it == table.end() ? BoundBuiltin{} : it->second;
}

bool FindConstant(const std::string& q, Value* out) {
  static const std::set<std::string> enums = {
      "MaskPattern", "CastLayout", "MemorySpace", "MergeMode", "TilePad", "FillPadMode",
      "PipeType", "MemBarMode", "LoadDist", "StoreDist", "RoundMode", "VFRoundMode", "AccPhase",
      "STPhase", "AtomicType", "AccToVecMode", "SaturateMode", "DuplicatePos", "DataCopyMode",
      "SyncCoreType", "CrossCoreSyncMode", "CompactMode", "TileLayout", "ReluPreMode", "IndexOrder"};
  if (absl::StartsWith(q, "pl.DT_")) {
    if (auto d = ParseDType(q)) { *out = Value::DTypeV(*d); return true; }
    return false;
  }
  if (absl::StartsWith(q, "torch.")) {
    static const std::set<std::string> dt = {"float16", "half", "bfloat16", "float32", "float",
                                             "float64", "double", "int8", "int16", "int32",
                                             "int64", "uint8", "bool", "long", "int", "short"};
    std::string n = q.substr(6);
    if (dt.count(n)) {
      if (auto d = ParseDType(q)) { *out = Value::DTypeV(*d); return true; }
    }
    return false;
  }
  if (!absl::StartsWith(q, "pl.")) return false;
  std::string rest = q.substr(3);
  static const std::set<std::string> layouts = {"ND", "DN", "NZ", "ZN", "ZZ", "NN"};
  if (layouts.count(rest)) { *out = Value::Enum("Layout." + rest); return true; }
  if (rest == "DYNAMIC" || rest == "STATIC") { *out = Value::Enum(rest); return true; }
  auto dot = rest.find('.');
  if (dot == std::string::npos || rest.find('.', dot + 1) != std::string::npos) return false;
  // An enum member the API catalog lists (pl.QuantMode.SYM, ...), or one of the enums the
  // simulator knows beyond it.
  const api::Enum* e = api::Catalog::Builtin().FindEnum("pl." + rest.substr(0, dot));
  if ((e && e->HasMember(rest.substr(dot + 1))) || enums.count(rest.substr(0, dot))) {
    *out = Value::Enum(rest);
    return true;
  }
  return false;
}


Value MakeReg(const VReg& r) {
  return Value::Obj(VK::kVReg, std::allocate_shared<VReg>(FreeListAlloc<VReg>(), r));
}
Value MakeMask(const MaskReg& m) {
  return Value::Obj(VK::kMask, std::allocate_shared<MaskReg>(FreeListAlloc<MaskReg>(), m));
}

void PutReg(Value& out, const VReg& r) {
  if (out.kind == VK::kVReg && out.o.use_count() == 1) out.As<VReg>() = r;
  else out = MakeReg(r);
}
void PutMask(Value& out, const MaskReg& m) {
  if (out.kind == VK::kMask && out.o.use_count() == 1) out.As<MaskReg>() = m;
  else out = MakeMask(m);
}
void PutFirstNMask(Value& out, int64_t count, int width) {
  if (out.kind == VK::kMask && out.o.use_count() == 1) out.As<MaskReg>().SetFirstN(count, width);
  else out = MakeMask(MaskReg::FirstN(count, width));
}

void Args::Fail(const std::string& msg) const {
  in_.Fail(hazard::kRuntimeError, call_.line, std::string(fname_) + ": " + msg);
}

void Args::Missing(std::string_view name) const {
  Fail(absl::StrCat("missing argument '", std::string(name), "'"));
}

void Args::NotA(std::string_view name, const char* what, const Value& v) const {
  Fail(absl::StrCat("argument '", std::string(name), "' must be ", what, ", got ", KindName(v.kind)));
}

// Ints and floats are read in place; the argument's name is spelled out only for a message.
int64_t Args::Int(size_t i, std::string_view name) const {
  const Value& v = Req(i, name);
  if (v.kind == VK::kInt || v.kind == VK::kBool) return v.i;
  return in_.ToInt(v, call_.line, std::string(name).c_str());
}

double Args::Num(size_t i, std::string_view name) const {
  const Value& v = Req(i, name);
  if (v.kind == VK::kFloat) return v.f;
  if (v.kind == VK::kInt || v.kind == VK::kBool) return static_cast<double>(v.i);
  return in_.ToDouble(v, call_.line, std::string(name).c_str());
}

std::shared_ptr<Tile> Args::TilePtr(size_t i, std::string_view name) const {
  const Value& v = Req(i, name);
  if (v.kind != VK::kTile) Fail(absl::StrCat("argument '", std::string(name), "' must be a tile, got ", KindName(v.kind)));
  std::shared_ptr<Tile> t = v.Ptr<Tile>();
  in().TouchShared(*t);
  return t;
}

Tile& Args::TileArg(size_t i, std::string_view name) const { return *TilePtr(i, name); }

GmTensor& Args::TensorArg(size_t i, std::string_view name) const {
  const Value& v = Req(i, name);
  if (v.kind != VK::kTensor) Fail(absl::StrCat("argument '", std::string(name), "' must be a GM tensor, got ", KindName(v.kind)));
  return v.As<GmTensor>();
}

DType Args::DTypeArg(size_t i, std::string_view name, DType dflt) const {
  const Value* v = Get(i, name);
  if (!v || v->kind == VK::kNone) return dflt;
  if (v->kind != VK::kDType) Fail(absl::StrCat("argument '", std::string(name), "' must be a dtype such as pl.DT_FP32"));
  return v->dtype();
}

std::string_view Args::EnumName(size_t i, std::string_view name) const {
  const Value* v = Get(i, name);
  if (!v || v->kind == VK::kNone) return {};
  if (v->kind != VK::kEnum) Fail(absl::StrCat("argument '", std::string(name), "' must be an enum member"));
  return v->EnumMember();
}

std::string Args::EnumArg(size_t i, std::string_view name) const { return std::string(EnumName(i, name)); }

IndexList Args::IntList(size_t i, std::string_view name) const {
  const Value& v = Req(i, name);
  IndexList out;
  if (v.kind == VK::kInt) { out.push_back(v.i); return out; }
  if (!v.IsSeq()) Fail(absl::StrCat("argument '", std::string(name), "' must be a list of integers"));
  for (const auto& x : v.Items()) out.push_back(in_.ToInt(x, call_.line, std::string(name).c_str()));
  return out;
}

}  // namespace opdev::sim
