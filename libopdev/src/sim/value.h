// Runtime values of the kernel interpreter: Python scalars and containers, PyPTO-Pro objects
// (dtypes, enum members, TileType, tiles, tile+offset, tile groups, GM tensors, vector and
// mask registers), functions, builtins and bound methods. Heap objects are shared; registers
// are immutable once built, so copying a Value never copies register bytes.
#pragma once

#include "opdev/sim/memory.h"
#include "opdev/sim/tile.h"
#include "opdev/sim/vreg.h"
#include "opdev/support/dtype.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace opdev::sim {

class Interp;
struct XNode;
struct FuncIR;
struct Value;

enum class VK : uint8_t {
  kNone, kBool, kInt, kFloat, kStr, kTuple, kList, kDType, kEnum, kTileType, kTile, kTileOffset,
  kGroup, kTensor, kVReg, kMask, kFunc, kBuiltin, kModule, kMethod, kLaunch, kPlatform,
  kUnavailable, kDict, kObject, kUnalignReg,
};

// A Value's text (str, enum member, module name, method name, reason): immutable and shared,
// so copying or moving a Value never copies characters. An empty text holds nothing.
inline const std::string kEmptyText;
class Text {
 public:
  Text() = default;
  explicit Text(std::string v) {
    if (!v.empty()) p_ = std::make_shared<const std::string>(std::move(v));
  }
  Text& operator=(std::string v) { return *this = Text(std::move(v)); }
  const std::string& str() const { return p_ ? *p_ : kEmptyText; }
  operator const std::string&() const { return str(); }
  operator std::string_view() const { return str(); }
  bool empty() const { return !p_; }
  size_t size() const { return str().size(); }
  size_t find(std::string_view x, size_t pos = 0) const { return str().find(x, pos); }
  size_t rfind(std::string_view x, size_t pos = std::string::npos) const { return str().rfind(x, pos); }
  std::string substr(size_t pos, size_t n = std::string::npos) const { return str().substr(pos, n); }
  friend bool operator==(const Text& a, const Text& b) { return a.p_ == b.p_ || a.str() == b.str(); }
  friend bool operator==(const Text& a, std::string_view b) { return a.str() == b; }
  friend std::string operator+(const Text& a, std::string_view b) { return a.str() + std::string(b); }
  friend std::string operator+(std::string_view a, const Text& b) { return std::string(a) + b.str(); }
  friend std::string operator+(const Text& a, const Text& b) { return a.str() + b.str(); }

 private:
  std::shared_ptr<const std::string> p_;
};

struct Kwarg {
  const std::string* name;
  Value* value;
};

using BuiltinFn = Value (*)(Interp&, const XNode& call, std::vector<Value>& args,
                            std::vector<std::pair<std::string, Value>>& kwargs);
// A builtin bound at its call site (program.h, XNode::bound): the positional operands by
// reference, the call's keywords (all constants) kept on the node. It returns false, having
// done nothing, when an operand is not of the kind it takes; the call then runs through the
// builtin's BuiltinFn, which reports the problem exactly as it would have. The result goes to
// *out, which may be the local the call assigns (and one of the operands): a register result
// reuses the storage of the register *out holds when nothing else shares it (PutReg).
using BoundFn = bool (*)(Interp&, const XNode& call, const Value* const* ops, Value* out);

struct Value {
  VK kind = VK::kNone;
  int64_t i = 0;      // int / bool / dtype (enum value) / tile offset / a method's receiver kind
  double f = 0;       // float
  Text s;             // str, enum member "MaskPattern.ALL", module "pl", method name, reason
  std::shared_ptr<void> o;  // heap object by kind (a method: its receiver's)
  BuiltinFn fn = nullptr;   // kBuiltin

  static Value None() { return Value{}; }
  static Value Int(int64_t v) { Value x; x.kind = VK::kInt; x.i = v; return x; }
  static Value Float(double v) { Value x; x.kind = VK::kFloat; x.f = v; return x; }
  static Value Bool(bool v) { Value x; x.kind = VK::kBool; x.i = v ? 1 : 0; return x; }
  static Value Str(std::string v) { Value x; x.kind = VK::kStr; x.s = std::move(v); return x; }
  static Value DTypeV(DType t) { Value x; x.kind = VK::kDType; x.i = static_cast<int64_t>(t); return x; }
  // An enum member "Class.MEMBER"; i is where MEMBER starts (EnumMember).
  static Value Enum(std::string v) {
    Value x;
    x.kind = VK::kEnum;
    const size_t dot = v.rfind('.');
    x.i = dot == std::string::npos ? 0 : static_cast<int64_t>(dot + 1);
    x.s = std::move(v);
    return x;
  }
  static Value Module(std::string v) { Value x; x.kind = VK::kModule; x.s = std::move(v); return x; }
  static Value Unavailable(std::string why) { Value x; x.kind = VK::kUnavailable; x.s = std::move(why); return x; }
  static Value TupleV(std::vector<Value> items);
  static Value ListV(std::vector<Value> items);
  template <typename T>
  static Value Obj(VK k, std::shared_ptr<T> p) { Value x; x.kind = k; x.o = std::move(p); return x; }

  template <typename T>
  T& As() const { return *static_cast<T*>(o.get()); }
  template <typename T>
  std::shared_ptr<T> Ptr() const { return std::static_pointer_cast<T>(o); }

  bool IsNumber() const { return kind == VK::kInt || kind == VK::kFloat || kind == VK::kBool; }
  bool IsSeq() const { return kind == VK::kTuple || kind == VK::kList; }
  const std::vector<Value>& Items() const { return As<std::vector<Value>>(); }
  std::vector<Value>& MutItems() const { return As<std::vector<Value>>(); }
  DType dtype() const { return static_cast<DType>(i); }
  // The member name of an enum value without its class ("ALL" of "MaskPattern.ALL").
  std::string_view EnumMember() const { return std::string_view(s.str()).substr(static_cast<size_t>(i)); }
};

inline Value Value::TupleV(std::vector<Value> items) {
  Value x;
  x.kind = VK::kTuple;
  x.o = std::make_shared<std::vector<Value>>(std::move(items));
  return x;
}
inline Value Value::ListV(std::vector<Value> items) {
  Value x;
  x.kind = VK::kList;
  x.o = std::make_shared<std::vector<Value>>(std::move(items));
  return x;
}

// Platform info object (get_platform_info()).
struct PlatformInfo {
  int64_t core_num = 0, vector_core_num = 0, cube_core_num = 0;
  std::string soc_version;
};

// An object with read-only attributes handed in by the host (a dataclass instance).
// Also a pl.struct instance (assignable fields) or a pl.make_tuple (builtins_aggregate.cpp).
struct HostObject {
  std::string type_name;
  std::vector<std::pair<std::string, Value>> fields;
  bool assignable = false;  // pl.struct: `s.field = v`
};

// kernel[stream, block_dim] before the call.
struct LaunchSpec {
  const FuncIR* kernel = nullptr;
  Value block_dim;
  Value key;       // kernel[stream, block_dim, {tiling key}]: the dict, else None
  Value datatype;  // kernel[stream, block_dim, (key,) {datatype}]: the dict, else None
};

std::string KindName(VK k);
std::string Repr(const Value& v);  // short text for messages

}  // namespace opdev::sim
