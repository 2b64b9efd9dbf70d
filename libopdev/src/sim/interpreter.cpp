// Evaluation of the lowered program: expressions, statements, calls, kernel launches over the
// SPMD cores, tile registration with placement and overlap checks.
#include "interpreter.h"

#include "builtins.h"

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <array>
#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

namespace opdev::sim {

std::string KindName(VK k) {
  switch (k) {
    case VK::kNone: return "None";
    case VK::kBool: return "bool";
    case VK::kInt: return "int";
    case VK::kFloat: return "float";
    case VK::kStr: return "str";
    case VK::kTuple: return "tuple";
    case VK::kList: return "list";
    case VK::kDType: return "dtype";
    case VK::kEnum: return "enum";
    case VK::kTileType: return "TileType";
    case VK::kTile: return "Tile";
    case VK::kTileOffset: return "Tile+offset";
    case VK::kGroup: return "TileGroup";
    case VK::kTensor: return "Tensor";
    case VK::kVReg: return "RegTensor";
    case VK::kMask: return "MaskReg";
    case VK::kUnalignReg: return "UnalignRegForStore";
    case VK::kFunc: return "function";
    case VK::kBuiltin: return "builtin";
    case VK::kModule: return "module";
    case VK::kMethod: return "method";
    case VK::kLaunch: return "kernel launch";
    case VK::kPlatform: return "PlatformInfo";
    case VK::kUnavailable: return "unavailable value";
    case VK::kDict: return "dict";
    case VK::kObject: return "object";
  }
  return "value";
}

std::string Repr(const Value& v) {
  switch (v.kind) {
    case VK::kInt: return std::to_string(v.i);
    case VK::kBool: return v.i ? "True" : "False";
    case VK::kFloat: return absl::StrFormat("%g", v.f);
    case VK::kStr: return "'" + v.s + "'";
    case VK::kNone: return "None";
    case VK::kDType: return std::string(DTypeName(v.dtype()));
    case VK::kEnum: case VK::kModule: return v.s;
    case VK::kTuple: case VK::kList: {
      std::vector<std::string> parts;
      for (const auto& x : v.Items()) parts.push_back(Repr(x));
      return (v.kind == VK::kTuple ? "(" : "[") + absl::StrJoin(parts, ", ") + (v.kind == VK::kTuple ? ")" : "]");
    }
    case VK::kTile: return "tile '" + v.As<Tile>().name + "'";
    case VK::kTensor: return "tensor '" + v.As<GmTensor>().name + "'";
    default: return KindName(v.kind);
  }
}

Interp::Interp(Program& p, HazardSink& s, Target t)
    : prog(p), sink(s), target(t), stack_top_(reinterpret_cast<uintptr_t>(__builtin_frame_address(0))) {}

void Interp::CheckStack(int line) const {
  const uintptr_t here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  if (stack_top_ > here && stack_top_ - here > kMaxInterpStackBytes)
    Fail(hazard::kLimit, line,
         absl::StrFormat("expressions and calls nested too deeply: the interpretation would use more than "
                         "%d KiB of native stack (the simulator's limit)",
                         kMaxInterpStackBytes >> 10));
}

void Interp::Fail(std::string_view code, int line, const std::string& msg) const {
  throw SimError(code, line, msg);
}

int64_t Interp::ToInt(const Value& v, int line, const char* what) const {
  if (v.kind == VK::kInt || v.kind == VK::kBool) return v.i;
  if (v.kind == VK::kFloat && std::floor(v.f) == v.f && std::fabs(v.f) < 9e15) return static_cast<int64_t>(v.f);
  Fail(hazard::kRuntimeError, line, absl::StrCat(what, " must be an integer, got ", KindName(v.kind), " ", Repr(v)));
}

double Interp::ToDouble(const Value& v, int line, const char* what) const {
  if (v.kind == VK::kInt || v.kind == VK::kBool) return static_cast<double>(v.i);
  if (v.kind == VK::kFloat) return v.f;
  Fail(hazard::kRuntimeError, line, absl::StrCat(what, " must be a number, got ", KindName(v.kind)));
}

bool Interp::Truthy(const Value& v) const {
  switch (v.kind) {
    case VK::kNone: return false;
    case VK::kBool: case VK::kInt: return v.i != 0;
    case VK::kFloat: return v.f != 0;
    case VK::kStr: return !v.s.empty();
    case VK::kTuple: case VK::kList: return !v.Items().empty();
    default: return true;
  }
}

void Interp::RunModuleBody() {
  Frame fr;
  for (const SNode& s : prog.module_body) {
    try {
      Value ret;
      std::vector<SNode> one;
      // Module statements run one by one; a failure makes the names it would bind unavailable.
      if (s.kind == SK::kAssign) {
        Value v = Eval(*s.value, fr);
        for (const auto& t : s.targets) Assign(*t, v, fr);
      } else if (s.kind == SK::kAugAssign) {
        Value& g = Global(*s.target);
        g = BinOp(s.op, g, Eval(*s.value, fr), s.line);
      }
    } catch (const SimError& e) {
      for (const auto& t : s.targets)
        if (t->kind == XK::kGlobal) prog.globals[t->name] = Value::Unavailable(absl::StrCat(e.what(), " (line ", s.line, ")"));
    }
  }
}

Value& Interp::Global(const XNode& n) {
  if (n.global) return *n.global;
  auto it = prog.globals.find(n.name);
  if (it == prog.globals.end()) {
    if (BuiltinFn fn = FindBuiltin("builtins." + n.name)) {
      Value b;
      b.kind = VK::kBuiltin;
      b.fn = fn;
      b.s = n.name;
      it = prog.globals.emplace(n.name, b).first;
    } else {
      Fail(hazard::kRuntimeError, n.line, "name '" + n.name + "' is not defined");
    }
  }
  n.global = &it->second;
  return it->second;
}

// ---- expressions -------------------------------------------------------------------------

// An int local or constant is read here, inline; module names and nested arithmetic go to
// PeekCompound (see there for what a false return means).
[[gnu::always_inline]] inline bool Interp::PeekInt(const XNode& x, Frame& fr, int64_t* out) {
  if (x.kind == XK::kLocal) {
    const Value& v = fr.slots[x.slot];
    if (v.kind != VK::kInt) return false;
    *out = v.i;
    return true;
  }
  if (x.kind == XK::kConst) {
    if (x.constant.kind != VK::kInt) return false;
    *out = x.constant.i;
    return true;
  }
  return PeekCompound(x, fr, out);
}

Value Interp::Eval(const XNode& n, Frame& fr) {
  switch (n.kind) {
    case XK::kConst: return n.constant;
    case XK::kLocal: {
      const Value& v = fr.slots[n.slot];
      if (v.kind == VK::kUnavailable && v.s.empty()) UsedBeforeAssignment(n);
      return v;
    }
    case XK::kGlobal: {
      const Value& v = Global(n);
      if (v.kind == VK::kUnavailable) {
        size_t colon = n.name.rfind(':');  // a closure variable `<qualname>:<name>` (program.h)
        if (colon != std::string::npos)
          Fail(hazard::kUnsupported, n.line, "name '" + n.name.substr(colon + 1) + "' of the function enclosing " +
                                                 n.name.substr(0, colon) + " has no value here: " + v.s);
        // A tiling-key field outside its launch is not a name at all (Python's NameError).
        if (v.s.rfind("tiling-key field", 0) == 0 || v.s.rfind("datatype variable", 0) == 0)
          Fail(hazard::kRuntimeError, n.line, "name '" + n.name + "' is not defined: " + v.s);
        Fail(hazard::kUnsupported, n.line, "module name '" + n.name + "' has no value here: " + v.s);
      }
      return v;
    }
    case XK::kBuiltinRef: {
      Value b;
      b.kind = VK::kBuiltin;
      b.fn = n.fn;
      b.s = n.name;
      return b;
    }
    case XK::kUnsupported:
      if (n.constant.kind == VK::kStr) Fail(n.constant.s, n.line, n.name);  // a limit with its own code
      Fail(hazard::kUnsupported, n.line, n.name + " is not supported by the simulator");
    case XK::kAttr: return Attr(Eval(*n.a, fr), n.name, n.line, n.name_text);
    case XK::kSubscript: {
      // Python's order: the object, then the index (C++ leaves argument order unspecified).
      Value obj = Eval(*n.a, fr);
      return Subscript(obj, Eval(*n.b, fr), n.line);
    }
    case XK::kSlice: {
      std::vector<Value> parts(3);
      if (n.a) parts[0] = Eval(*n.a, fr);
      if (n.b) parts[1] = Eval(*n.b, fr);
      if (n.c) parts[2] = Eval(*n.c, fr);
      Value v = Value::TupleV(std::move(parts));
      v.s = "slice";
      return v;
    }
    case XK::kCall: return EvalCall(n, fr);
    case XK::kBin: {
      // Integer operands (indices, sizes, offsets, `base + r * LANES`) computed in place;
      // anything else, or an operation that is not an int operation, takes the general path
      // (which evaluates the operands again: they have no effects, see PeekCompound).
      int64_t x, y;
      if (PeekInt(*n.a, fr, &x) && PeekInt(*n.b, fr, &y)) {
        Value r = IntOp(n.op, x, y, n.line);
        if (r.kind != VK::kNone) return r;
      }
      // Left operand first, as Python (its error, not the right one's, is the one reported).
      Value left = Eval(*n.a, fr);
      return BinOp(n.op, left, Eval(*n.b, fr), n.line);
    }
    case XK::kUnary: {
      Value v = Eval(*n.a, fr);
      switch (n.op) {
        case py::Op::kNot: return Value::Bool(!Truthy(v));
        case py::Op::kUSub: {
          if (v.kind == VK::kFloat) return Value::Float(-v.f);
          int64_t x = ToInt(v, n.line, "operand of unary -");
          return IntOp(py::Op::kSub, 0, x, n.line);
        }
        case py::Op::kUAdd: return v;
        case py::Op::kInvert: return Value::Int(~ToInt(v, n.line, "operand of ~"));
        default: Fail(hazard::kUnsupported, n.line, "unary operator");
      }
    }
    case XK::kBoolOp: {
      Value v;
      for (const auto& x : n.items) {
        v = Eval(*x, fr);
        bool t = Truthy(v);
        if (n.op == py::Op::kAnd && !t) return v;
        if (n.op == py::Op::kOr && t) return v;
      }
      return v;
    }
    case XK::kCompare: {
      Value left = Eval(*n.a, fr);
      for (size_t i = 0; i < n.ops.size(); ++i) {
        Value right = Eval(*n.items[i], fr);
        if (!CompareOp(n.ops[i], left, right, n.line)) return Value::Bool(false);
        left = std::move(right);
      }
      return Value::Bool(true);
    }
    case XK::kIfExp: return Truthy(Eval(*n.a, fr)) ? Eval(*n.b, fr) : Eval(*n.c, fr);
    case XK::kTuple: case XK::kList: return EvalSequence(n, fr);
    case XK::kDict: {
      std::vector<Value> kv;
      for (size_t i = 0; i < n.items.size(); ++i) {
        kv.push_back(Eval(*n.keys[i], fr));
        kv.push_back(Eval(*n.items[i], fr));
      }
      Value d = Value::TupleV(std::move(kv));
      d.kind = VK::kDict;
      return d;
    }
  }
  Fail(hazard::kUnsupported, n.line, "expression");
}

// An int module name, or integer arithmetic (nested kBin) of int locals, constants and
// module names, in evaluation order without Value temporaries. False when an operand is
// something else or the operation has no int result (IntArith declines: true division, a
// negative power, a non-int operator): nothing has changed then (reading those names has no
// effect), and the general path evaluates the expression again and reports what it finds. An
// operation IntArith refuses (a division by zero, int64 overflow) fails here as it would there.
bool Interp::PeekCompound(const XNode& x, Frame& fr, int64_t* out) {
  switch (x.kind) {
    case XK::kGlobal: {
      const Value& v = Global(x);
      if (v.kind != VK::kInt) return false;
      *out = v.i;
      return true;
    }
    case XK::kBin: {
      int64_t a, b;
      if (!PeekInt(*x.a, fr, &a) || !PeekInt(*x.b, fr, &b)) return false;
      return IntArith(x.op, a, b, x.line, out);
    }
    default: return false;
  }
}

// The argument vectors of the call being evaluated: reused per call depth (their capacity
// survives the call), so a call allocates nothing for its arguments.
// (Inlined: every call of the interpreter passes here.)
struct Interp::CallScope {
  Interp& in;
  CallScratch& cs;
  [[gnu::always_inline]] CallScope(Interp& in, int line) : in(in), cs(Acquire(in)) {
    ++in.call_depth_;
    ++in.calls_;
    in.CheckStack(line);
  }
  [[gnu::always_inline]] ~CallScope() {
    cs.args.clear();
    cs.kw.clear();
    --in.call_depth_;
  }
  [[gnu::always_inline]] static CallScratch& Acquire(Interp& in) {
    if (in.call_depth_ == in.call_scratch_.size()) in.call_scratch_.push_back(std::make_unique<CallScratch>());
    return *in.call_scratch_[in.call_depth_];
  }
};

// A tuple or list display. The items are evaluated first (an item may run a call that
// evaluates this node again); a sequence of numbers (no object a run could keep alive) then
// goes into the node's last sequence when nothing else holds it (program.h, XNode::sequence).
Value Interp::EvalSequence(const XNode& n, Frame& fr) {
  constexpr size_t kReused = 8;
  const size_t k = n.items.size();
  const VK kind = n.kind == XK::kTuple ? VK::kTuple : VK::kList;
  if (k == 0 || k > kReused) {
    std::vector<Value> items;
    items.reserve(k);
    for (const auto& x : n.items) items.push_back(Eval(*x, fr));
    return kind == VK::kTuple ? Value::TupleV(std::move(items)) : Value::ListV(std::move(items));
  }
  std::array<Value, kReused> vals;
  bool numbers = true;
  for (size_t i = 0; i < k; ++i) {
    vals[i] = Eval(*n.items[i], fr);
    numbers = numbers && vals[i].IsNumber();
  }
  std::shared_ptr<std::vector<Value>> seq;
  if (!numbers) {
    seq = std::make_shared<std::vector<Value>>(std::make_move_iterator(vals.begin()),
                                               std::make_move_iterator(vals.begin() + k));
  } else {
    if (!n.sequence || n.sequence.use_count() != 1) n.sequence = std::make_shared<std::vector<Value>>();
    n.sequence->assign(vals.begin(), vals.begin() + k);
    seq = n.sequence;
  }
  Value v;
  v.kind = kind;
  v.o = std::move(seq);
  return v;
}

Value Interp::EvalCall(const XNode& n, Frame& fr) {
  if (n.bound) {
    Value out;
    CallBound(n, fr, out);
    return out;
  }
  CallScope scope(*this, n.line);
  std::vector<Value>& args = scope.cs.args;
  for (const auto& x : n.items) {
    // Locals and constants (most arguments: registers, masks, tiles) are copied into place
    // instead of through a temporary.
    if (x->kind == XK::kLocal) {
      const Value& v = fr.slots[x->slot];
      if (v.kind == VK::kUnavailable && v.s.empty()) UsedBeforeAssignment(*x);
      args.push_back(v);
    } else if (x->kind == XK::kConst) {
      args.push_back(x->constant);
    } else {
      args.push_back(Eval(*x, fr));
    }
  }
  Kwargs& kw = scope.cs.kw;
  for (const auto& [k, x] : n.kwargs) {
    if (x->kind == XK::kConst) kw.emplace_back(k, x->constant);  // dtype=, layout=, ...: constants
    else kw.emplace_back(k, Eval(*x, fr));
  }
  current_line = n.line;
  if (core && core->mem) core->mem->op_line = n.line;
  if (n.a->kind == XK::kBuiltinRef) return CallBuiltin(n, args, kw);
  Value callee = Eval(*n.a, fr);
  return CallValue(callee, args, kw, n);
}

Value Interp::CallBuiltin(const XNode& n, std::vector<Value>& args, Kwargs& kw) {
  // A builtin without tile operands (registers, scalars) has nothing for the pipe model.
  if (!core || !in_kernel || !pipe_sync || !n.a->pipe_spec) return n.a->fn(*this, n, args, kw);
  const PipeOp op = PipeOpBefore(*this, n, args, kw);
  Value v = n.a->fn(*this, n, args, kw);
  PipeOpAfter(*this, op);
  return v;
}

// A bound call with its operands read: the bound form, or the general entry when the form
// declines. The caller counted the call and CallScope counts it again, so one count is taken back.
[[gnu::always_inline]] inline void Interp::BoundOrGeneral(const XNode& n, const Value* const* ops, size_t k,
                                                          Value& out) {
  current_line = n.line;
  if (core && core->mem) core->mem->op_line = n.line;
  if (n.bound(*this, n, ops, &out)) return;
  CallScope scope(*this, n.line);
  --calls_;
  GeneralEntry(n, ops, k, scope.cs, out);
}

// A builtin call bound at lowering (XNode::bound): locals and constants reach it in place, an
// operand of any other form is evaluated into the call's scratch; the operands are evaluated
// in order, as in the general path. When the bound form declines, the general entry runs on
// copies of the same operands. The result goes to `out` (value.h, BoundFn).
void Interp::CallBound(const XNode& n, Frame& fr, Value& out) {
  if (n.bound_inline) {
    // Every operand a local or a constant (program.h, XNode::bound_ops): read where it is,
    // nothing evaluated, so the call needs no argument scratch unless its form declines.
    const Value* ops[kMaxBoundOperands];
    const size_t k = n.items.size();
    for (size_t i = 0; i < k; ++i) {
      const XNode::InPlaceOperand& o = n.bound_ops[i];
      if (o.slot < 0) {
        ops[i] = o.value;
        continue;
      }
      const Value& v = fr.slots[o.slot];
      if (v.kind == VK::kUnavailable && v.s.empty()) UsedBeforeAssignment(*n.items[i]);
      ops[i] = &v;
    }
    ++calls_;
    BoundOrGeneral(n, ops, k, out);
    return;
  }
  if (n.bound_direct) {
    // Operands that are locals, constants, integer arithmetic or direct bound calls
    // (program.h, XNode::bound_direct), in order; what is not read in place goes to the node's
    // own values, so the call needs no argument scratch unless its form declines.
    ++calls_;
    CheckStack(n.line);
    const Value* ops[kMaxBoundOperands];
    std::array<Value, kMaxBoundOperands>& vals = *n.direct_values;
    const size_t k = n.items.size();
    for (size_t i = 0; i < k; ++i) {
      const XNode& x = *n.items[i];
      switch (n.direct_forms[i]) {
        case XNode::OperandForm::kSlot: {
          const Value& v = fr.slots[x.slot];
          if (v.kind == VK::kUnavailable && v.s.empty()) UsedBeforeAssignment(x);
          ops[i] = &v;
          break;
        }
        case XNode::OperandForm::kConst: ops[i] = &x.constant; break;
        case XNode::OperandForm::kInt: {
          int64_t v;
          if (!PeekInt(x, fr, &v)) vals[i] = Eval(x, fr);
          else if (vals[i].kind == VK::kInt) vals[i].i = v;  // an int Value holds nothing else
          else vals[i] = Value::Int(v);
          ops[i] = &vals[i];
          break;
        }
        case XNode::OperandForm::kCall:
          CallBound(x, fr, vals[i]);
          ops[i] = &vals[i];
          break;
      }
    }
    BoundOrGeneral(n, ops, k, out);
    return;
  }
  CallScope scope(*this, n.line);
  std::vector<Value>& args = scope.cs.args;
  const size_t k = n.items.size();
  const Value* ops[kMaxBoundOperands];
  args.reserve(k);  // the evaluated operands stay where `ops` points
  for (size_t i = 0; i < k; ++i) {
    const XNode& x = *n.items[i];
    if (x.kind == XK::kLocal) {
      const Value& v = fr.slots[x.slot];
      if (v.kind == VK::kUnavailable && v.s.empty()) UsedBeforeAssignment(x);
      ops[i] = &v;
    } else if (x.kind == XK::kConst) {
      ops[i] = &x.constant;
    } else {
      args.push_back(Eval(x, fr));
      ops[i] = &args.back();
    }
  }
  current_line = n.line;
  if (core && core->mem) core->mem->op_line = n.line;
  if (n.bound(*this, n, ops, &out)) return;
  GeneralEntry(n, ops, k, scope.cs, out);
}

// A declined bound call: the builtin's general entry on copies of the operands (in order) and
// the call's constant keywords, in the call's scratch.
void Interp::GeneralEntry(const XNode& n, const Value* const* ops, size_t k, CallScratch& cs, Value& out) {
  std::vector<Value> ordered;
  ordered.reserve(k);
  for (size_t i = 0; i < k; ++i) ordered.push_back(*ops[i]);
  cs.args = std::move(ordered);
  for (const auto& [name, x] : n.kwargs) cs.kw.emplace_back(name, x->constant);
  out = CallBuiltin(n, cs.args, cs.kw);
}

void Interp::UsedBeforeAssignment(const XNode& local) const {
  Fail(hazard::kRuntimeError, local.line, "local variable '" + local.name + "' is used before it is assigned");
}

Value Interp::CallValue(const Value& callee, std::vector<Value>& args, Kwargs& kw, const XNode& site) {
  switch (callee.kind) {
    case VK::kBuiltin: return callee.fn(*this, site, args, kw);
    case VK::kFunc: {
      const FuncIR& f = *callee.As<const FuncIR*>();
      if (f.kind == FuncKind::kJit) {
        if (in_kernel) Fail(hazard::kRuntimeError, site.line, "a @pl.jit kernel cannot launch another kernel");
        Launch(f, 1, args, kw, site.line);
        return Value::None();
      }
      if (f.pipeline_stage && core && in_kernel && core->pipeline) return CallStage(*this, f, args, kw, site);
      if (f.kind == FuncKind::kVector && core && in_kernel && !in_vf && pipe_sync) {
        const MutexIdList ids = PipeVfCallBefore(*this, args, kw);
        Value v = CallFunction(f, args, kw, site.line);
        PipeVfCallAfter(*this, ids);
        return v;
      }
      return CallFunction(f, args, kw, site.line);
    }
    case VK::kLaunch: {
      const LaunchSpec& spec = callee.As<LaunchSpec>();
      int64_t bd = spec.block_dim.kind == VK::kInt || spec.block_dim.kind == VK::kBool
                       ? spec.block_dim.i
                       : ToInt(spec.block_dim, site.line, "block_dim");
      Launch(*spec.kernel, bd, args, kw, site.line, &spec.key, &spec.datatype);
      return Value::None();
    }
    case VK::kMethod: return CallMethod(callee, args, kw, site.line);
    case VK::kModule: {
      if (BuiltinFn fn = FindBuiltin(callee.s)) return fn(*this, site, args, kw);
      Fail(hazard::kUnsupported, site.line, callee.s + "() is not supported by the simulator");
    }
    default:
      Fail(hazard::kRuntimeError, site.line, "'" + KindName(callee.kind) + "' object is not callable");
  }
}

Value Interp::CallFunction(const FuncIR& f, std::vector<Value>& args, Kwargs& kw, int line) {
  // The frame's locals in the storage of an earlier call's, given back when this one ends.
  struct Locals {
    Interp& in;
    Frame fr;
    explicit Locals(Interp& in) : in(in) {
      if (in.spare_slots_.empty()) return;
      fr.slots = std::move(in.spare_slots_.back());
      in.spare_slots_.pop_back();
    }
    ~Locals() {
      fr.slots.clear();
      in.spare_slots_.push_back(std::move(fr.slots));
    }
  } locals(*this);
  Frame& fr = locals.fr;
  fr.fn = &f;
  fr.slots.resize(f.slot_names.size());
  for (auto& s : fr.slots) s.kind = VK::kUnavailable;  // "unassigned" marker (empty reason)
  const size_t np = f.params.size();
  if (args.size() > np)
    Fail(hazard::kRuntimeError, line, absl::StrFormat("%s() takes %d arguments but %d were given", f.name, np, args.size()));
  absl::InlinedVector<bool, 16> bound(np, false);
  for (size_t i = 0; i < args.size(); ++i) { fr.slots[i] = std::move(args[i]); bound[i] = true; }
  for (auto& [k, v] : kw) {
    size_t i = 0;
    for (; i < np; ++i) if (f.params[i].name == k) break;
    if (i == np) Fail(hazard::kRuntimeError, line, f.name + "() got an unexpected keyword argument '" + k + "'");
    fr.slots[i] = std::move(v);
    bound[i] = true;
  }
  const size_t nd = f.defaults.size();
  for (size_t i = 0; i < np; ++i) {
    if (bound[i]) continue;
    if (i + nd >= np) {
      Frame empty;
      fr.slots[i] = Eval(*f.defaults[i + nd - np], empty);
      continue;
    }
    Fail(hazard::kRuntimeError, line, f.name + "() missing argument '" + f.params[i].name + "'");
  }
  if (f.kind == FuncKind::kSimt && !simt)
    Fail(hazard::kRuntimeError, line,
         "@pl.simt.function '" + f.name + "' runs through pl.simt.launch (or is called from another SIMT "
         "function), not as an ordinary call");
  bool was_vf = in_vf;
  std::map<std::string, VfCursor>* was_cursors = vf_cursors;
  std::map<std::string, VfCursor> cursors;
  if (f.kind == FuncKind::kVector) {
    if (!in_kernel) Fail(hazard::kRuntimeError, line, "@pl.vector_function '" + f.name + "' called outside a kernel");
    for (size_t i = 0; i < np; ++i) {
      VK k = fr.slots[i].kind;
      if (k == VK::kVReg || k == VK::kMask)
        sink.Report(hazard::kVfReturnChain, line,
                    "argument '" + f.params[i].name + "' of VF function '" + f.name +
                        "' is a register returned by another VF function; registers die when a VF "
                        "function returns — pass state through a UB tile",
                    f.params[i].name);
    }
    in_vf = true;
    vf_cursors = &cursors;
  }
  if (fn_depth_ >= kMaxCallDepth)
    Fail(hazard::kLimit, line,
         absl::StrFormat("call of '%s' exceeds the simulator's call depth limit of %d nested calls "
                         "(recursion?); a @pl.jit kernel's helper and VF functions are inlined and "
                         "cannot recurse",
                         f.name, kMaxCallDepth));
  ++fn_depth_;
  Value ret;
  try {
    Exec(f.body, fr, &ret);
  } catch (...) {
    in_vf = was_vf;
    vf_cursors = was_cursors;
    --fn_depth_;
    throw;
  }
  in_vf = was_vf;
  vf_cursors = was_cursors;
  --fn_depth_;
  return ret;
}

// ---- statements --------------------------------------------------------------------------

void Interp::Assign(const XNode& t, const Value& v, Frame& fr) {
  switch (t.kind) {
    case XK::kLocal: fr.slots[t.slot] = v; return;
    case XK::kGlobal: prog.globals[t.name] = v; t.global = nullptr; ++state_writes_; return;
    case XK::kTuple: case XK::kList: {
      if (!v.IsSeq()) Fail(hazard::kRuntimeError, t.line, "cannot unpack a " + KindName(v.kind));
      const auto& items = v.Items();
      if (items.size() != t.items.size())
        Fail(hazard::kRuntimeError, t.line, absl::StrFormat("cannot unpack %d values into %d names", items.size(), t.items.size()));
      for (size_t i = 0; i < items.size(); ++i) Assign(*t.items[i], items[i], fr);
      return;
    }
    case XK::kSubscript: {
      Value obj = Eval(*t.a, fr);
      if (obj.kind == VK::kList) {
        int64_t i = ToInt(Eval(*t.b, fr), t.line, "list index");
        auto& items = obj.MutItems();
        if (i < 0) i += static_cast<int64_t>(items.size());
        if (i < 0 || i >= static_cast<int64_t>(items.size())) Fail(hazard::kRuntimeError, t.line, "list index out of range");
        items[i] = v;
        ++state_writes_;
        return;
      }
      if (obj.kind == VK::kTile || obj.kind == VK::kTensor) {
        WriteElement(*this, obj, Eval(*t.b, fr), v, t.line);
        return;
      }
      Fail(hazard::kUnsupported, t.line, "item assignment on a " + KindName(obj.kind));
    }
    case XK::kAttr: AssignField(*this, Eval(*t.a, fr), t.name, v, t.line); ++state_writes_; return;
    default: Fail(hazard::kUnsupported, t.line, "assignment target");
  }
}

namespace {

// Whether two snapshots of a frame's locals are the same state: scalars by value, objects
// (tensors, tiles, lists, ...) by identity. Objects change only through calls and item
// assignments, which the no-progress check counts separately.
bool SameSlots(const std::vector<Value>& a, const std::vector<Value>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const Value& x = a[i];
    const Value& y = b[i];
    if (x.kind != y.kind || x.i != y.i || x.s != y.s || x.o != y.o || x.fn != y.fn) return false;
    if (x.kind == VK::kFloat && !(x.f == y.f || (x.f != x.f && y.f != y.f))) return false;
  }
  return true;
}

// "; enclosing loops: line 10 at iteration 3, line 8 at iteration 1" (innermost first),
// skipping the `skip` innermost frames.
template <typename Frames>
std::string EnclosingLoops(const Frames& loops, size_t skip) {
  std::string out;
  for (size_t k = loops.size(); k-- > 0;) {
    if (loops.size() - k <= skip) continue;
    out += out.empty() ? "; enclosing loops: " : ", ";
    out += absl::StrFormat("line %d at iteration %d", loops[k].line, loops[k].iterations);
  }
  return out;
}

}  // namespace

void Interp::WorkBudgetExhausted(int line) const {
  std::string where;
  int at = line;
  if (!loops_.empty()) {
    at = loops_.back().line;
    where = absl::StrFormat("; the loop at line %d was at iteration %d%s", loops_.back().line,
                            loops_.back().iterations, EnclosingLoops(loops_, 1));
  }
  Fail(hazard::kWorkBudget, at,
       absl::StrFormat("work budget exhausted: %d work units (statements %d, register ops %d, tile "
                       "elements %d) exceed the budget of %d%s%s; an endless or runaway loop hangs the "
                       "device — raise the budget (SimOptions::work_budget, opdev sim --work-budget, "
                       "request key work_budget) only for a kernel that really does this much work",
                       Work(), stats.statements, stats.vf_ops, stats.tile_elems, limits.work_budget,
                       limits.budget_origin.empty() ? "" : " (" + limits.budget_origin + ")", where));
}

void Interp::AllocateGm(int64_t bytes, int line) {
  if (bytes < 0 || bytes > limits.memory_bytes - gm_allocated_)
    Fail(hazard::kLimit, line,
         absl::StrFormat("allocating %d bytes of GM would exceed the simulator's host-memory limit of "
                         "%d bytes for tensors a run allocates (%d already allocated; "
                         "SimOptions::memory_limit_bytes)",
                         bytes, limits.memory_bytes, gm_allocated_));
  gm_allocated_ += bytes;
}

void Interp::CheckSequenceLength(int64_t n, int line) const {
  if (n > kMaxSequenceItems)
    Fail(hazard::kLimit, line,
         absl::StrFormat("a list/tuple of %s items exceeds the simulator's limit of %d items",
                         n > kMaxSequenceItems + 1 ? std::to_string(n) : std::string("more than ") + std::to_string(kMaxSequenceItems),
                         kMaxSequenceItems));
}

Flow Interp::Exec(const std::vector<SNode>& body, Frame& fr, Value* ret) {
  for (const SNode& s : body) {
    ++stats.statements;
    current_line = s.line;
    if (Work() > limits.work_budget) WorkBudgetExhausted(s.line);
    switch (s.kind) {
      case SK::kPass: break;
      case SK::kAssign: {
        const XNode& t0 = *s.targets[0];
        assign_name = (t0.kind == XK::kLocal || t0.kind == XK::kGlobal) ? std::string_view(t0.name) : std::string_view();
        assign_target = t0.kind == XK::kLocal && s.targets.size() == 1 ? &fr.slots[t0.slot] : nullptr;
        assign_value = s.value.get();
        if (s.value->bound && s.targets.size() == 1 && t0.kind == XK::kLocal) {
          // The slot takes the result itself: a register it holds alone is reused (BoundFn).
          CallBound(*s.value, fr, fr.slots[t0.slot]);
          assign_name = {};
          assign_target = nullptr;
          assign_value = nullptr;
          break;
        }
        Value v = Eval(*s.value, fr);
        assign_name = {};
        assign_target = nullptr;
        assign_value = nullptr;
        if (s.targets.size() == 1 && t0.kind == XK::kLocal) fr.slots[t0.slot] = std::move(v);
        else if (s.targets.size() == 1) Assign(t0, v, fr);
        else for (const auto& t : s.targets) Assign(*t, v, fr);
        break;
      }
      case SK::kAugAssign: {
        Value cur = Eval(*s.target, fr);
        Assign(*s.target, BinOp(s.op, cur, Eval(*s.value, fr), s.line), fr);
        break;
      }
      case SK::kExpr: Eval(*s.value, fr); break;
      case SK::kIf: {
        Flow f = Truthy(Eval(*s.test, fr)) ? Exec(s.body, fr, ret) : Exec(s.orelse, fr, ret);
        if (f != Flow::kNormal) return f;
        break;
      }
      case SK::kFor: {
        const XNode& it = *s.iter;
        bool is_range = false;
        if (it.kind == XK::kCall && it.kwargs.empty()) {
          if (it.a->kind == XK::kBuiltinRef && it.a->name == "pl.range") is_range = true;
          if (it.a->kind == XK::kGlobal && it.a->name == "range" && !prog.globals.count("range")) is_range = true;
        }
        bool broke = false;
        if (is_range) {
          int64_t a = 0, b = 0, step = 1;
          size_t na = it.items.size();
          if (na == 0 || na > 3) Fail(hazard::kRuntimeError, s.line, "range() takes 1 to 3 arguments");
          int64_t v[3] = {0, 0, 0};  // the arguments (1 to 3, checked above)
          for (size_t j = 0; j < na; ++j) v[j] = ToInt(Eval(*it.items[j], fr), s.line, "range() argument");
          if (na == 1) b = v[0];
          else { a = v[0]; b = v[1]; if (na == 3) step = v[2]; }
          if (step == 0) Fail(hazard::kRuntimeError, s.line, "range() step must not be zero");
          // The iteration count, computed without overflow; i advances by at most `count` steps.
          const uint64_t span = step > 0 ? (a < b ? static_cast<uint64_t>(b) - static_cast<uint64_t>(a) : 0)
                                         : (a > b ? static_cast<uint64_t>(a) - static_cast<uint64_t>(b) : 0);
          const uint64_t ustep = step > 0 ? static_cast<uint64_t>(step) : 0 - static_cast<uint64_t>(step);
          const uint64_t count = span == 0 ? 0 : (span - 1) / ustep + 1;
          loops_.push_back({s.line, 0});
          for (uint64_t k = 0; k < count; ++k) {
            const int64_t i = static_cast<int64_t>(static_cast<uint64_t>(a) + k * static_cast<uint64_t>(step));
            ++loops_.back().iterations;
            if (s.target->kind == XK::kLocal) { Value& slot = fr.slots[s.target->slot]; slot.kind = VK::kInt; slot.i = i; slot.o.reset(); }
            else Assign(*s.target, Value::Int(i), fr);
            Flow f = Exec(s.body, fr, ret);
            if (f == Flow::kBreak) { broke = true; break; }
            if (f == Flow::kReturn) { loops_.pop_back(); return f; }
          }
          loops_.pop_back();
        } else {
          Value seq = Eval(it, fr);
          if (!seq.IsSeq()) Fail(hazard::kUnsupported, s.line, "iteration over a " + KindName(seq.kind));
          std::vector<Value> items = seq.Items();
          loops_.push_back({s.line, 0});
          for (const auto& v : items) {
            ++loops_.back().iterations;
            Assign(*s.target, v, fr);
            Flow f = Exec(s.body, fr, ret);
            if (f == Flow::kBreak) { broke = true; break; }
            if (f == Flow::kReturn) { loops_.pop_back(); return f; }
          }
          loops_.pop_back();
        }
        if (!broke) {
          Flow f = Exec(s.orelse, fr, ret);
          if (f != Flow::kNormal) return f;
        }
        break;
      }
      case SK::kWhile: {
        bool broke = false;
        loops_.push_back({s.line, 0});
        // No-progress detection: an iteration that calls nothing, assigns no global or list
        // item, does no register or tile work and leaves every local as it was will repeat
        // forever — the interpreter is deterministic — so it ends the run at once instead of
        // when the budget runs out.
        std::vector<Value> before;
        while (Truthy(Eval(*s.test, fr))) {
          ++loops_.back().iterations;
          const int64_t calls0 = calls_, writes0 = state_writes_, vf0 = stats.vf_ops, tile0 = stats.tile_elems;
          before = fr.slots;
          Flow f = Exec(s.body, fr, ret);
          if (f == Flow::kBreak) { broke = true; break; }
          if (f == Flow::kReturn) { loops_.pop_back(); return f; }
          if (calls_ == calls0 && state_writes_ == writes0 && stats.vf_ops == vf0 && stats.tile_elems == tile0 &&
              SameSlots(before, fr.slots))
            Fail(hazard::kWorkBudget, s.line,
                 absl::StrFormat("the while loop at line %d makes no progress: iteration %d changed no "
                                 "variable and did no work, so its condition stays true forever (on the "
                                 "device: a hang)%s",
                                 s.line, loops_.back().iterations, EnclosingLoops(loops_, 1)));
        }
        loops_.pop_back();
        if (!broke) {
          Flow f = Exec(s.orelse, fr, ret);
          if (f != Flow::kNormal) return f;
        }
        break;
      }
      case SK::kBreak: return Flow::kBreak;
      case SK::kContinue: return Flow::kContinue;
      case SK::kReturn:
        if (ret) *ret = s.value ? Eval(*s.value, fr) : Value::None();
        return Flow::kReturn;
      case SK::kWith: {
        if (core && !core->Runs(s.section)) break;  // the other domain's section
        Flow f = Exec(s.body, fr, ret);
        if (f != Flow::kNormal) return f;
        break;
      }
      case SK::kAssert:
        if (!Truthy(Eval(*s.test, fr))) {
          std::string msg = "assertion failed";
          if (s.msg) {
            Value m = Eval(*s.msg, fr);
            if (m.kind == VK::kStr) msg += ": " + m.s;
          }
          Fail(hazard::kRuntimeError, s.line, msg);
        }
        break;
      case SK::kRaise: {
        std::string msg = "raise";
        if (s.value) {
          Value e = Eval(*s.value, fr);
          if (e.kind == VK::kStr) msg = "raised " + e.s;
        }
        Fail(hazard::kRuntimeError, s.line, msg);
      }
      case SK::kSkip:
        if (in_wrapper && !in_kernel) {
          sink.Report(hazard::kWrapperBoundary, s.line,
                      "wrapper statement outside the wrapper boundary (" + s.note +
                          "): not executed by the simulator; the wrapper may only check arguments, "
                          "read shapes/dtypes, allocate outputs with torch.empty/empty_like and "
                          "launch the kernel once",
                      s.note);
        } else {
          Fail(hazard::kUnsupported, s.line, s.note + " is not supported by the simulator");
        }
        break;
    }
  }
  return Flow::kNormal;
}

// ---- operators ---------------------------------------------------------------------------

namespace {
int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
// x / y correctly rounded, as Python's int true division (converting both operands to double
// first would round twice for |x| > 2^53). The quotient is formed with 62+ significant bits
// plus a sticky bit for the remainder, then rounded once by the conversion to double.
double TrueDivide(int64_t x, int64_t y) {
  const bool neg = (x < 0) != (y < 0);
  const uint64_t au = x < 0 ? 0 - static_cast<uint64_t>(x) : static_cast<uint64_t>(x);
  const uint64_t bu = y < 0 ? 0 - static_cast<uint64_t>(y) : static_cast<uint64_t>(y);
  if (au == 0) return neg ? -0.0 : 0.0;
  const int la = 64 - __builtin_clzll(au), lb = 64 - __builtin_clzll(bu);
  const int shift = 63 - (la - lb);  // a * 2^shift / b lies in (2^62, 2^64)
  const unsigned __int128 num = static_cast<unsigned __int128>(au) << shift;
  const unsigned __int128 q = num / bu;
  const bool sticky = num % bu != 0;
  const double d = std::ldexp(static_cast<double>(static_cast<uint64_t>(q) | (sticky ? 1u : 0u)), -shift);
  return neg ? -d : d;
}

// Python's float floor division and modulo (y != 0): the remainder from fmod, exact, moved to
// the divisor's sign, and the quotient from the exact difference x - mod, so that
// x == q * y + mod as nearly as floats allow (`x - floor(x / y) * y` is off by a rounding of
// x / y for large quotients, `1e18 % 7.0` among them). Zeros take the signs Python gives them.
std::pair<double, double> PyFloatDivMod(double x, double y) {
  double mod = std::fmod(x, y);
  double div = (x - mod) / y;
  if (mod != 0) {
    if ((y < 0) != (mod < 0)) {
      mod += y;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, y);
  }
  double floordiv;
  if (div != 0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
  } else {
    floordiv = std::copysign(0.0, x / y);
  }
  return {floordiv, mod};
}

int64_t PyMod(int64_t a, int64_t b) {
  int64_t m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}
}  // namespace

// Python int semantics on int64 for the operations with an int result: exact results,
// floor division/modulo, negative shift counts raise ValueError as in Python, shifts past 63
// bits saturate as Python's unbounded ints do (`1 >> 64` is 0, `-1 >> 64` is -1); a result
// outside int64 (which Python would keep as a big int) ends the run with SIM-LIMIT instead of
// wrapping. False, with nothing reported, for an operation whose result is not an int here
// (true division, a negative power: IntFloatOp) or that is not an int operation at all.
// Inline in this file: index arithmetic (`base + r * LANES`) runs through it without a Value.
[[gnu::always_inline]] inline bool Interp::IntArith(py::Op op, int64_t x, int64_t y, int line, int64_t* out) {
  switch (op) {
    case py::Op::kAdd:
      if (__builtin_add_overflow(x, y, out)) IntRange(line, "sum", x, y);
      return true;
    case py::Op::kSub:
      if (__builtin_sub_overflow(x, y, out)) IntRange(line, "difference", x, y);
      return true;
    case py::Op::kMult:
      if (__builtin_mul_overflow(x, y, out)) IntRange(line, "product", x, y);
      return true;
    case py::Op::kFloorDiv:
      if (y == 0) Fail(hazard::kRuntimeError, line, "integer division or modulo by zero (ZeroDivisionError)");
      if (x == INT64_MIN && y == -1) IntRange(line, "floor quotient", x, y);
      *out = FloorDiv(x, y);
      return true;
    case py::Op::kMod:
      if (y == 0) Fail(hazard::kRuntimeError, line, "integer division or modulo by zero (ZeroDivisionError)");
      *out = y == -1 ? 0 : PyMod(x, y);
      return true;
    case py::Op::kPow: {
      if (y < 0) return false;
      // Square-and-multiply, O(log y) steps. When base² overflows while bits remain, the
      // result has a factor at least that large, so it overflows too.
      int64_t acc = 1, base = x;
      for (int64_t e = y; e > 0; e >>= 1) {
        if ((e & 1) && __builtin_mul_overflow(acc, base, &acc)) IntRange(line, "power", x, y);
        if (e > 1 && __builtin_mul_overflow(base, base, &base)) IntRange(line, "power", x, y);
      }
      *out = acc;
      return true;
    }
    case py::Op::kLShift:
      if (y < 0) Fail(hazard::kRuntimeError, line, "negative shift count (ValueError)");
      if (x == 0) return *out = 0, true;
      if (y >= 63) {
        if (x == -1 && y == 63) return *out = INT64_MIN, true;
        IntRange(line, "left shift", x, y);
      }
      if (__builtin_mul_overflow(x, int64_t{1} << y, out)) IntRange(line, "left shift", x, y);
      return true;
    case py::Op::kRShift:
      if (y < 0) Fail(hazard::kRuntimeError, line, "negative shift count (ValueError)");
      *out = y >= 64 ? (x < 0 ? -1 : 0) : x >> y;  // arithmetic (floor) shift, as Python's
      return true;
    case py::Op::kBitAnd: return *out = x & y, true;
    case py::Op::kBitOr: return *out = x | y, true;
    case py::Op::kBitXor: return *out = x ^ y, true;
    default: return false;
  }
}

void Interp::IntRange(int line, const char* what, int64_t x, int64_t y) const {
  Fail(hazard::kLimit, line,
       absl::StrFormat("integer %s of %d and %d leaves the int64 range; Python ints are unbounded, "
                       "the simulator (and the device's scalar unit) is not",
                       what, x, y));
}

// The int operations whose result is a float: true division, and a power with a negative
// exponent. None for every other operation.
Value Interp::IntFloatOp(py::Op op, int64_t x, int64_t y, int line) const {
  if (op == py::Op::kDiv) {
    if (y == 0) Fail(hazard::kRuntimeError, line, "division by zero (ZeroDivisionError)");
    return Value::Float(TrueDivide(x, y));
  }
  if (op == py::Op::kPow && y < 0) {
    if (x == 0) Fail(hazard::kRuntimeError, line, "0 cannot be raised to a negative power (ZeroDivisionError)");
    return Value::Float(std::pow(static_cast<double>(x), static_cast<double>(y)));
  }
  return Value::None();
}

// Either: Python's result of an int operation as a Value, or None for a non-int operation.
Value Interp::IntOp(py::Op op, int64_t x, int64_t y, int line) {
  int64_t r;
  if (IntArith(op, x, y, line, &r)) return Value::Int(r);
  return IntFloatOp(op, x, y, line);
}

Value Interp::BinOp(py::Op op, const Value& a, const Value& b, int line) {
  // Tile + offset (VF addressing).
  if (op == py::Op::kAdd && (a.kind == VK::kTile || a.kind == VK::kTileOffset) && (b.kind == VK::kInt)) {
    Value r = a;
    r.kind = VK::kTileOffset;
    r.i = (a.kind == VK::kTileOffset ? a.i : 0) + b.i;
    return r;
  }
  const bool ints = (a.kind == VK::kInt || a.kind == VK::kBool) && (b.kind == VK::kInt || b.kind == VK::kBool);
  if (ints) {
    Value r = IntOp(op, a.i, b.i, line);
    if (r.kind != VK::kNone) return r;
  }
  if (a.IsNumber() && b.IsNumber()) {
    double x = ToDouble(a, line, "operand"), y = ToDouble(b, line, "operand");
    switch (op) {
      case py::Op::kAdd: return Value::Float(x + y);
      case py::Op::kSub: return Value::Float(x - y);
      case py::Op::kMult: return Value::Float(x * y);
      case py::Op::kDiv:
        if (y == 0) Fail(hazard::kRuntimeError, line, "float division by zero");
        return Value::Float(x / y);
      case py::Op::kFloorDiv:
        if (y == 0) Fail(hazard::kRuntimeError, line, "float floor division by zero");
        return Value::Float(PyFloatDivMod(x, y).first);
      case py::Op::kMod:
        if (y == 0) Fail(hazard::kRuntimeError, line, "float modulo by zero");
        return Value::Float(PyFloatDivMod(x, y).second);
      case py::Op::kPow: return Value::Float(std::pow(x, y));
      default: break;
    }
  }
  if (op == py::Op::kAdd && a.kind == VK::kStr && b.kind == VK::kStr) return Value::Str(a.s + b.s);
  if (op == py::Op::kAdd && a.IsSeq() && b.kind == a.kind) {
    CheckSequenceLength(static_cast<int64_t>(a.Items().size() + b.Items().size()), line);
    std::vector<Value> items = a.Items();
    for (const auto& x : b.Items()) items.push_back(x);
    return a.kind == VK::kTuple ? Value::TupleV(std::move(items)) : Value::ListV(std::move(items));
  }
  if (op == py::Op::kMult && a.IsSeq() && b.kind == VK::kInt) {
    std::vector<Value> items;
    const int64_t n = static_cast<int64_t>(a.Items().size());
    if (b.i > 0 && n > 0) CheckSequenceLength(b.i > kMaxSequenceItems / n ? kMaxSequenceItems + 1 : b.i * n, line);
    for (int64_t k = 0; k < b.i; ++k) for (const auto& x : a.Items()) items.push_back(x);
    return a.kind == VK::kTuple ? Value::TupleV(std::move(items)) : Value::ListV(std::move(items));
  }
  Fail(hazard::kRuntimeError, line,
       absl::StrCat("unsupported operand types for ", std::string(py::OpText(op)), ": ", KindName(a.kind), " and ", KindName(b.kind)));
}

namespace {
bool SameValue(const Value& a, const Value& b) {
  if (a.IsNumber() && b.IsNumber()) {
    double x = a.kind == VK::kFloat ? a.f : static_cast<double>(a.i);
    double y = b.kind == VK::kFloat ? b.f : static_cast<double>(b.i);
    return x == y;
  }
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case VK::kNone: return true;
    case VK::kStr: case VK::kEnum: case VK::kModule: return a.s == b.s;
    case VK::kDType: return a.i == b.i;
    case VK::kTuple: case VK::kList: {
      const auto& x = a.Items();
      const auto& y = b.Items();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) if (!SameValue(x[i], y[i])) return false;
      return true;
    }
    default: return a.o == b.o;
  }
}
}  // namespace

bool Interp::CompareOp(py::Op op, const Value& a, const Value& b, int line) {
  switch (op) {
    case py::Op::kEq: return SameValue(a, b);
    case py::Op::kNotEq: return !SameValue(a, b);
    case py::Op::kIs: return (a.kind == VK::kNone && b.kind == VK::kNone) || (a.kind == b.kind && SameValue(a, b));
    case py::Op::kIsNot: return !((a.kind == VK::kNone && b.kind == VK::kNone) || (a.kind == b.kind && SameValue(a, b)));
    case py::Op::kIn: case py::Op::kNotIn: {
      bool found = false;
      if (b.IsSeq()) for (const auto& x : b.Items()) if (SameValue(a, x)) { found = true; break; }
      if (b.kind == VK::kStr && a.kind == VK::kStr) found = b.s.find(a.s) != std::string::npos;
      return op == py::Op::kIn ? found : !found;
    }
    default: break;
  }
  if (a.IsNumber() && b.IsNumber()) {
    if ((a.kind != VK::kFloat) && (b.kind != VK::kFloat)) {
      switch (op) {
        case py::Op::kLt: return a.i < b.i;
        case py::Op::kLtE: return a.i <= b.i;
        case py::Op::kGt: return a.i > b.i;
        case py::Op::kGtE: return a.i >= b.i;
        default: break;
      }
    }
    double x = ToDouble(a, line, "operand"), y = ToDouble(b, line, "operand");
    switch (op) {
      case py::Op::kLt: return x < y;
      case py::Op::kLtE: return x <= y;
      case py::Op::kGt: return x > y;
      case py::Op::kGtE: return x >= y;
      default: break;
    }
  }
  Fail(hazard::kRuntimeError, line,
       absl::StrCat("cannot compare ", KindName(a.kind), " and ", KindName(b.kind), " with ", std::string(py::OpText(op))));
}

// ---- attributes, subscripts, methods -----------------------------------------------------

Value Interp::Attr(const Value& obj, const std::string& name, int line, const Text& name_text) {
  // A bound method: its name, and its receiver (a tensor or a tile group) as the receiver's
  // kind and object, so that binding allocates nothing.
  auto method = [&]() {
    Value m;
    m.kind = VK::kMethod;
    m.s = name_text;
    m.i = static_cast<int64_t>(obj.kind);
    m.o = obj.o;
    return m;
  };
  switch (obj.kind) {
    case VK::kTensor: {
      const GmTensor& t = obj.As<GmTensor>();
      if (name == "shape") {
        std::vector<Value> dims;
        for (int64_t d : t.shape) dims.push_back(Value::Int(d));
        return Value::TupleV(std::move(dims));
      }
      if (name == "ndim") return Value::Int(static_cast<int64_t>(t.shape.size()));
      if (name == "dtype") return Value::DTypeV(t.dtype);
      if (name == "device") return Value::Str("sim");
      if (name == "dim" || name == "size" || name == "is_contiguous" || name == "numel" ||
          name == "element_size" || name == "stride")
        return method();
      break;
    }
    case VK::kGroup:
      if (name == "next" || name == "current" || name == "previous") return method();
      if (name == "depth") return Value::Int(static_cast<int64_t>(obj.As<TileGroup>().slots.size()));
      break;
    case VK::kTile: {
      const Tile& t = obj.As<Tile>();
      if (name == "shape") return Value::TupleV({Value::Int(t.type.shape[0]), Value::Int(t.type.shape[1])});
      if (name == "valid_shape") return Value::TupleV({Value::Int(t.valid_rows), Value::Int(t.valid_cols)});
      if (name == "dtype") return Value::DTypeV(t.type.dtype);
      break;
    }
    case VK::kPlatform: {
      const PlatformInfo& p = obj.As<PlatformInfo>();
      if (name == "core_num") return Value::Int(p.core_num);
      if (name == "vector_core_num") return Value::Int(p.vector_core_num);
      if (name == "cube_core_num") return Value::Int(p.cube_core_num);
      if (name == "soc_version") return Value::Str(p.soc_version);
      break;
    }
    case VK::kModule: {
      std::string q = obj.s + "." + name;
      Value c;
      if (FindConstant(q, &c)) return c;
      if (BuiltinFn fn = FindBuiltin(q)) {
        Value b;
        b.kind = VK::kBuiltin;
        b.fn = fn;
        b.s = q;
        return b;
      }
      return Value::Module(q);
    }
    case VK::kObject: {
      const HostObject& h = obj.As<HostObject>();
      for (const auto& [k, v] : h.fields)
        if (k == name) return v;
      Fail(hazard::kRuntimeError, line, "'" + h.type_name + "' object has no attribute '" + name + "'");
    }
    case VK::kDType:
      if (name == "itemsize") return Value::Int(static_cast<int64_t>(DTypeSize(obj.dtype())));
      break;
    default: break;
  }
  Fail(hazard::kUnsupported, line, "'" + KindName(obj.kind) + "' has no attribute '" + name + "' in the simulator");
}

Value Interp::CallMethod(const Value& m, std::vector<Value>& args, Kwargs& kw, int line) {
  Value self;  // the receiver (Attr)
  self.kind = static_cast<VK>(m.i);
  self.o = m.o;
  const std::string& name = m.s;
  if (self.kind == VK::kGroup) {
    TileGroup& g = self.As<TileGroup>();
    std::shared_ptr<Tile> t;
    if (name == "next") t = g.Next();
    else if (name == "current") t = g.Current();
    else t = g.Previous();
    if (!t) Fail(hazard::kRuntimeError, line, "tile group '" + g.name + "' has no tiles");
    return Value::Obj(VK::kTile, t);
  }
  if (self.kind == VK::kTensor) {
    const GmTensor& t = self.As<GmTensor>();
    if (name == "dim") return Value::Int(static_cast<int64_t>(t.shape.size()));
    if (name == "is_contiguous") return Value::Bool(true);
    if (name == "numel") return Value::Int(t.numel());
    if (name == "element_size") return Value::Int(static_cast<int64_t>(t.elem_size()));
    if (name == "size") {
      if (args.empty()) {
        std::vector<Value> dims;
        for (int64_t d : t.shape) dims.push_back(Value::Int(d));
        return Value::TupleV(std::move(dims));
      }
      int64_t i = ToInt(args[0], line, "size() index");
      int64_t nd = static_cast<int64_t>(t.shape.size());
      if (i < 0) i += nd;
      if (i < 0 || i >= nd) Fail(hazard::kRuntimeError, line, "size() index out of range");
      return Value::Int(t.shape[i]);
    }
    if (name == "stride") {
      auto st = t.Strides();
      if (args.empty()) {
        std::vector<Value> v;
        for (int64_t s : st) v.push_back(Value::Int(s));
        return Value::TupleV(std::move(v));
      }
      int64_t i = ToInt(args[0], line, "stride() index");
      if (i < 0) i += static_cast<int64_t>(st.size());
      return Value::Int(st.at(static_cast<size_t>(i)));
    }
  }
  Fail(hazard::kUnsupported, line, "method ." + name + "() on " + KindName(self.kind));
}

Value Interp::Subscript(const Value& obj, const Value& idx, int line) {
  if (obj.IsSeq()) {
    const auto& items = obj.Items();
    if (idx.kind == VK::kTuple && idx.s == "slice") {
      const auto& p = idx.Items();
      int64_t n = static_cast<int64_t>(items.size());
      int64_t step = p[2].kind == VK::kNone ? 1 : ToInt(p[2], line, "slice step");
      if (step != 1) Fail(hazard::kUnsupported, line, "slices with a step");
      int64_t lo = p[0].kind == VK::kNone ? 0 : ToInt(p[0], line, "slice start");
      int64_t hi = p[1].kind == VK::kNone ? n : ToInt(p[1], line, "slice stop");
      if (lo < 0) lo += n;
      if (hi < 0) hi += n;
      lo = std::clamp<int64_t>(lo, 0, n);
      hi = std::clamp<int64_t>(hi, 0, n);
      std::vector<Value> out;
      for (int64_t i = lo; i < hi; ++i) out.push_back(items[i]);
      return obj.kind == VK::kTuple ? Value::TupleV(std::move(out)) : Value::ListV(std::move(out));
    }
    int64_t i = ToInt(idx, line, "index");
    int64_t n = static_cast<int64_t>(items.size());
    if (i < 0) i += n;
    if (i < 0 || i >= n) Fail(hazard::kRuntimeError, line, absl::StrFormat("index %d out of range for length %d", ToInt(idx, line, "index"), n));
    return items[i];
  }
  if (obj.kind == VK::kGroup) {
    TileGroup& g = obj.As<TileGroup>();
    int64_t i = ToInt(idx, line, "tile group index");
    if (i < 0 || i >= static_cast<int64_t>(g.slots.size()))
      Fail(hazard::kRuntimeError, line, absl::StrFormat("tile group '%s' index %d out of range (depth %d)", g.name, i, g.slots.size()));
    return Value::Obj(VK::kTile, g.slots[i]);
  }
  if (obj.kind == VK::kFunc) {
    const FuncIR* f = obj.As<const FuncIR*>();
    if (f->kind != FuncKind::kJit) Fail(hazard::kRuntimeError, line, "'" + f->name + "' is not a @pl.jit kernel and cannot be launched");
    auto spec = std::make_shared<LaunchSpec>();
    spec->kernel = f;
    if (idx.kind == VK::kTuple) {
      const auto& p = idx.Items();
      if (p.size() < 2) Fail(hazard::kRuntimeError, line, "kernel[stream, block_dim] needs two items");
      spec->block_dim = p[1];
      // The frontend's launch forms (jit.py, _parse_launch_key): a third item is the tiling key,
      // or the datatype dict of a kernel that has a datatype schema and no tiling key; a fourth
      // is the datatype dict after the key.
      if (p.size() > 4)
        Fail(hazard::kRuntimeError, line, "kernel[...] takes at most four items: [stream, block_dim, tilingkey, datatype]");
      const bool dt_third = p.size() == 3 && f->datatype && !f->tiling_key;
      for (size_t i = 2; i < p.size(); ++i) {
        const bool is_dt = i == 3 || dt_third;
        if (p[i].kind != VK::kDict)
          Fail(hazard::kRuntimeError, line,
               is_dt ? "kernel[stream, block_dim, ..., datatype]: the datatype must be a dict of parameter names to "
                       "dtypes (offline_binary_compilation.md), not a " + KindName(p[i].kind)
                     : "kernel[stream, block_dim, key]: the tiling key must be a dict (tiling_key.md), not a " +
                           KindName(p[i].kind));
        (is_dt ? spec->datatype : spec->key) = p[i];
      }
    } else {
      spec->block_dim = idx;
    }
    return Value::Obj(VK::kLaunch, spec);
  }
  if (obj.kind == VK::kDict) {
    const auto& kv = obj.Items();
    for (size_t i = 0; i + 1 < kv.size(); i += 2)
      if (SameValue(kv[i], idx)) return kv[i + 1];
    Fail(hazard::kRuntimeError, line, "key " + Repr(idx) + " not in dict");
  }
  if (IsTileSubview(obj, idx)) return TileSubview(*this, obj, idx, line);
  if (obj.kind == VK::kTile || obj.kind == VK::kTensor) return ReadElement(*this, obj, idx, line);
  Fail(hazard::kUnsupported, line, "subscript of a " + KindName(obj.kind));
}

// ---- kernel launch -----------------------------------------------------------------------

void Interp::RegisterTile(const std::shared_ptr<Tile>& t, int line) {
  t->id = next_tile_id++;
  t->decl_line = line;
  for (const auto& issue : CheckPlacement(*t, target)) sink.Report(issue.code, line, issue.message);
  if (!core) return;
  for (const auto& other : core->tiles)
    if (PartiallyOverlap(*t, *other)) core->overlaps.push_back({t, other});
  core->tiles.push_back(t);
}

void Interp::WrongCoreSpace(const Tile& t) const {
  const MemSpaceInfo* info = FindSpace(target, t.type.space);
  Fail(hazard::kCoreSpace, current_line,
       absl::StrFormat("tile '%s' is in %s (%s), which %s does not have: %s; this %s kernel runs "
                       "this statement on an %s",
                       t.name, std::string(MemSpaceName(t.type.space)), info ? std::string(info->hardware) : "?",
                       core->Name(),
                       core->kind == CoreKind::kAiv ? "Cube spaces belong to the AIC (code inside pl.section_cube())"
                                                    : "Vec (UB) belongs to the AIV (code inside pl.section_vector())",
                       std::string(LaunchKindName(core->launch)), std::string(CoreKindName(core->kind))));
}

void Interp::FinishCore(bool completed) {
  if (completed) FinishCubeCore(*this, *core);
  FinishPipes(*this, *core, completed);
  // Under auto_mutex, two overlapping tiles that carry a common mutex id are ordered: every op
  // on either locks that id (views of one locked buffer, a wide multi-id tile over its
  // single-id slots, make_tile_group.md); only overlaps without a shared id are unordered.
  auto share_id = [&](const Tile* a, const Tile* b) {
    if (!core->auto_mutex) return false;
    for (int64_t i : a->mutex_ids)
      for (int64_t j : b->mutex_ids)
        if (i == j) return true;
    return false;
  };
  for (const auto& ov : core->overlaps) {
    if (!ov.a->used || !ov.b->used) continue;
    if (share_id(ov.a.get(), ov.b.get())) continue;
    sink.Report(hazard::kTileOverlap, ov.a->decl_line,
                absl::StrFormat("tile '%s' [0x%x, 0x%x) partially overlaps tile '%s' [0x%x, 0x%x) "
                                "(declared at line %d) in %s; both are used",
                                ov.a->name, ov.a->addr, ov.a->addr + ov.a->size, ov.b->name, ov.b->addr,
                                ov.b->addr + ov.b->size, ov.b->decl_line,
                                std::string(MemSpaceName(ov.a->type.space))));
  }
  core->overlaps.clear();
  core->tiles.clear();
  core->groups.clear();
}

void Interp::BindTilingKey(const FuncIR& kernel, const Value* key, int line, std::vector<std::string>& bound) {
  const bool given = key && key->kind == VK::kDict;
  const TilingKeySchema* schema = host_tiling_key ? host_tiling_key.get() : kernel.tiling_key.get();
  if (!schema) {
    if (given)
      Fail(hazard::kRuntimeError, line,
           "kernel '" + kernel.name + "' is launched with a tiling key but its @pl.jit has no tiling_key= (tiling_key.md)");
    return;
  }
  if (!schema->problem.empty())
    Fail(hazard::kUnsupported, schema->line ? schema->line : line, "tiling key of '" + kernel.name + "': " + schema->problem);
  if (!given)
    Fail(hazard::kRuntimeError, line,
         absl::StrFormat("kernel '%s' has tiling_key=%s: launch it as kernel[stream, block_dim, {...}] with every "
                         "field (tiling_key.md; opdev sim --tiling-key NAME=VALUE for a kernel entry)",
                         kernel.name, schema->cls));
  const auto& kv = key->Items();
  std::map<std::string, int64_t> got;
  for (size_t i = 0; i + 1 < kv.size(); i += 2) {
    if (kv[i].kind != VK::kStr) Fail(hazard::kRuntimeError, line, "tiling key fields are named by strings");
    got[kv[i].s] = ToInt(kv[i + 1], line, "tiling key value");
  }
  for (const auto& entry : got) {
    const std::string& name = entry.first;
    const int64_t v = entry.second;
    auto f = std::find_if(schema->fields.begin(), schema->fields.end(), [&](const auto& x) { return x.name == name; });
    if (f == schema->fields.end())
      Fail(hazard::kRuntimeError, line,
           absl::StrFormat("tiling key field '%s' is not in %s (tiling_key.md: the dict names exactly the schema's "
                           "fields)", name, schema->cls));
    if (std::find(f->values.begin(), f->values.end(), v) == f->values.end())
      Fail(hazard::kRuntimeError, line,
           absl::StrFormat("tiling key %s=%d is not one of the field's values [%s] (tiling_key.md)", name, v,
                           absl::StrJoin(f->values, ", ")));
  }
  for (const auto& f : schema->fields) {
    auto it = got.find(f.name);
    if (it == got.end())
      Fail(hazard::kRuntimeError, line,
           absl::StrFormat("tiling key of '%s' lacks field '%s' (tiling_key.md: every field must be given)",
                           kernel.name, f.name));
    auto g = prog.globals.find(f.name);
    if (g != prog.globals.end() && !(g->second.kind == VK::kUnavailable && !g->second.s.empty() &&
                                     g->second.s.rfind("tiling-key field", 0) == 0))
      Fail(hazard::kRuntimeError, schema->line,
           "tiling key field '" + f.name + "' has the name of a module-level variable (tiling_key.md forbids it)");
    prog.globals[f.name] = Value::Int(it->second);
    bound.push_back(f.name);
  }
}

void Interp::BindDatatype(const FuncIR& kernel, const Value* datatype, int line,
                          std::vector<std::pair<std::string, std::optional<Value>>>& bound) {
  if (host_datatype) return;
  const bool given = datatype && datatype->kind == VK::kDict;
  const DatatypeSchema* schema = kernel.datatype.get();
  if (!schema) {
    if (given)
      Fail(hazard::kRuntimeError, line,
           "kernel '" + kernel.name + "' is launched with a datatype dict but its @pl.jit has no datatype= "
           "(offline_binary_compilation.md)");
    return;
  }
  if (!schema->problem.empty())
    Fail(hazard::kRuntimeError, schema->line ? schema->line : line, "@pl.jit(datatype=...) of '" + kernel.name + "': " + schema->problem);
  if (!given)
    Fail(hazard::kRuntimeError, line,
         "kernel '" + kernel.name + "' has compile-time specialization (datatype=): launch it as kernel[stream, "
         "block_dim, " + (kernel.tiling_key ? "{tiling key}, " : "") +
             "{param: dtype, ...}] (opdev sim --datatype PARAM=DTYPE for a kernel entry)");
  const auto& kv = datatype->Items();
  std::map<std::string, Value> got;
  for (size_t i = 0; i + 1 < kv.size(); i += 2) {
    if (kv[i].kind != VK::kStr) Fail(hazard::kRuntimeError, line, "datatype dict keys are parameter names (strings)");
    got[kv[i].s] = kv[i + 1];
  }
  std::set<std::string> expected;
  for (const auto& [param, var] : schema->params) expected.insert(param);
  std::set<std::string> actual;
  for (const auto& entry : got) actual.insert(entry.first);
  if (actual != expected)
    Fail(hazard::kRuntimeError, line,
         absl::StrFormat("datatype keys [%s] do not match schema params [%s] of '%s'", absl::StrJoin(actual, ", "),
                         absl::StrJoin(expected, ", "), kernel.name));
  std::map<std::string, DType> var_dtype;
  for (const auto& [param, var] : schema->params) {
    const Value& v = got[param];
    if (v.kind != VK::kDType)
      Fail(hazard::kRuntimeError, line,
           "datatype['" + param + "'] must be a pypto_pro DataType (pl.DT_*), got " + KindName(v.kind));
    auto [it, fresh] = var_dtype.emplace(var, v.dtype());
    if (!fresh && it->second != v.dtype())
      Fail(hazard::kRuntimeError, line,
           absl::StrFormat("datatype params mapped to variable '%s' disagree: %s vs %s", var,
                           std::string(DTypeName(it->second)), std::string(DTypeName(v.dtype()))));
  }
  for (const auto& [var, dt] : var_dtype) {
    auto g = prog.globals.find(var);
    std::optional<Value> hidden;
    if (g != prog.globals.end() &&
        !(g->second.kind == VK::kUnavailable && g->second.s.rfind("datatype variable", 0) == 0))
      hidden = g->second;
    bound.emplace_back(var, std::move(hidden));
    prog.globals[var] = Value::DTypeV(dt);
  }
}

void Interp::Launch(const FuncIR& kernel, int64_t bd, std::vector<Value>& args, Kwargs& kw, int line,
                    const Value* key, const Value* datatype) {
  if (block_dim_override > 0) bd = block_dim_override;
  // Tiling-key fields are names of the kernel for this launch only (tiling_key.md).
  struct Unbind {
    Program& prog;
    std::vector<std::string> names;
    ~Unbind() {
      for (const auto& n : names)
        prog.globals[n] = Value::Unavailable("tiling-key field '" + n + "' outside a launch that gives it");
    }
  } unbind{prog, {}};
  BindTilingKey(kernel, key, line, unbind.names);
  // Datatype variables likewise; a module value of the same name comes back after the launch.
  struct UnbindDatatype {
    Program& prog;
    std::vector<std::pair<std::string, std::optional<Value>>> names;
    ~UnbindDatatype() {
      for (auto it = names.rbegin(); it != names.rend(); ++it)
        prog.globals[it->first] = it->second ? *it->second
                                             : Value::Unavailable("datatype variable '" + it->first +
                                                                  "' outside a launch that gives it");
    }
  } unbind_dt{prog, {}};
  BindDatatype(kernel, datatype, line, unbind_dt.names);
  if (bd <= 0) {
    sink.Report(hazard::kBlockDim, line, absl::StrFormat("kernel '%s' launched with block_dim=%d", kernel.name, bd));
    Fail(hazard::kBlockDim, line, "launch with a non-positive block_dim");
  }
  // The platform's limits (the launcher does not clamp): one AIV per block for a vector-only
  // kernel, one AIC + two AIV per block for a Cube or mixed one.
  const bool cube = kernel.launch != LaunchKind::kVectorOnly;  // the lowering's classification
  const int64_t cores = cube ? platform.core_num : platform.vector_core_num;
  if (bd > cores)
    Fail(hazard::kBlockDim, line,
         absl::StrFormat("kernel '%s' launched with block_dim=%d, more than the platform's %s=%d (%s "
                         "kernel); clamp block_dim on the host, e.g. min(get_platform_info().%s, tiles)",
                         kernel.name, bd, cube ? "core_num" : "vector_core_num", cores,
                         cube ? "Cube or mixed" : "vector-only", cube ? "core_num" : "vector_core_num"));
  launches.push_back({kernel.name, bd, line});
  // Check tensor arguments against the annotations' dtypes.
  for (size_t i = 0; i < kernel.params.size() && i < args.size(); ++i) {
    const py::Expr* ann = kernel.params[i].annotation;
    if (!ann || args[i].kind != VK::kTensor) continue;
    if (ann->kind == py::ExprKind::kSubscript && ann->slice && ann->slice->kind == py::ExprKind::kTuple &&
        ann->slice->elts.size() >= 2) {
      std::string dn = py::DottedName(*ann->slice->elts[1]).value_or("");
      auto want = ParseDType(dn);
      if (!want && !dn.empty() && dn.find('.') == std::string::npos) {
        // A dtype held by a variable: a closure variable of a kernel factory or a module global.
        auto c = kernel.closure.find(dn);
        auto g = prog.globals.find(c != kernel.closure.end() ? c->second : dn);
        if (g != prog.globals.end() && g->second.kind == VK::kDType) want = g->second.dtype();
      }
      GmTensor& t = args[i].As<GmTensor>();
      // The frontend checks a tensor's dtype only for the pl dtypes it maps to torch dtypes
      // (jit.py, _PL_DTYPE_TO_TORCH: no UINT16/UINT32); for those two it passes the tensor's
      // bytes as they are, so the kernel sees them as its annotated dtype. HF8 has no torch
      // dtype: the frontend maps it to torch.uint8, whose bytes are the HF8 codes.
      const bool unchecked = want && (*want == DType::kUInt16 || *want == DType::kUInt32);
      if (want && *want == DType::kHiFloat8 && t.dtype == DType::kUInt8) {
        t.dtype = *want;
      } else if (unchecked && *want != t.dtype && DTypeSize(*want) == DTypeSize(t.dtype)) {
        t.dtype = *want;
      } else if (want && *want != t.dtype) {
        Fail(hazard::kTypeMismatch, line,
             unchecked
                 ? absl::StrFormat("kernel '%s' parameter '%s' is annotated %s (%d-byte elements) but receives a "
                                   "%s tensor (%d-byte elements): the kernel would access %d bytes of a %d-byte "
                                   "tensor",
                                   kernel.name, kernel.params[i].name, dn, DTypeSize(*want),
                                   std::string(DTypeName(t.dtype)), DTypeSize(t.dtype),
                                   t.numel() * static_cast<int64_t>(DTypeSize(*want)),
                                   t.numel() * static_cast<int64_t>(DTypeSize(t.dtype)))
                 : absl::StrFormat("kernel '%s' parameter '%s' is annotated %s but receives a %s tensor",
                                   kernel.name, kernel.params[i].name, dn, std::string(DTypeName(t.dtype))));
      }
      const py::Expr& dims = *ann->slice->elts[0];
      if (dims.kind == py::ExprKind::kList || dims.kind == py::ExprKind::kTuple) {
        // A final `...` stands for any number of further axes (at least the listed ones).
        const bool tail = !dims.elts.empty() && dims.elts.back() &&
                          dims.elts.back()->kind == py::ExprKind::kConstant &&
                          dims.elts.back()->const_kind == py::ConstKind::kEllipsis;
        const size_t listed = dims.elts.size() - (tail ? 1 : 0);
        if (tail ? t.shape.size() < listed : listed != t.shape.size())
          Fail(hazard::kTypeMismatch, line,
               absl::StrFormat("kernel '%s' parameter '%s' is annotated with %s%d dims but the tensor has %d",
                               kernel.name, kernel.params[i].name, tail ? "at least " : "", listed,
                               t.shape.size()));
        for (size_t d = 0; d < listed; ++d) {
          if (auto v = py::IntValue(*dims.elts[d]); v && *v != t.shape[d])
            Fail(hazard::kTypeMismatch, line,
                 absl::StrFormat("kernel '%s' parameter '%s' dim %d is fixed to %d but the tensor has %d",
                                 kernel.name, kernel.params[i].name, d, *v, t.shape[d]));
        }
      }
    }
  }
  const int64_t ncores = bd * CoresPerBlock(kernel.launch);
  std::vector<CoreContext> ctxs(static_cast<size_t>(ncores));
  for (int64_t ordinal = 0; ordinal < ncores; ++ordinal) {
    CoreContext& ctx = ctxs[static_cast<size_t>(ordinal)];
    ctx = PlanCore(kernel.launch, bd, ordinal);
    ctx.auto_mutex = kernel.auto_mutex;
    ctx.pipeline = kernel.pipeline;
    ctx.pipes.Init(static_cast<int>(ordinal), static_cast<int>(ncores));
  }
  // Every core starts from a fresh execution state; the launching state is set aside.
  ExecState outer;
  SaveExec(outer);
  std::vector<ExecState> states(static_cast<size_t>(ncores));
  for (int64_t i = 0; i < ncores; ++i) {
    states[static_cast<size_t>(i)].core = &ctxs[static_cast<size_t>(i)];
    states[static_cast<size_t>(i)].in_kernel = true;
    states[static_cast<size_t>(i)].current_line = line;
    states[static_cast<size_t>(i)].stack_top = stack_top_;
  }
  CoreScheduler scheduler(static_cast<int>(ncores), schedule_seed,
                          [&](int i) { SaveExec(states[static_cast<size_t>(i)]); },
                          [&](int i) { RestoreExec(states[static_cast<size_t>(i)]); });
  CrossCoreSync sync(ctxs);
  GmRaceTracker tracker(sync);
  sched = &scheduler;
  xsync = &sync;
  launch_cores = &ctxs;
  race = ncores > 1 ? &tracker : nullptr;
  struct Restore {
    Interp& in;
    std::vector<CoreContext>& ctxs;
    ExecState& outer;
    ~Restore() {
      for (auto& c : ctxs)
        if (c.mem) in.spare_mem_[c.kind == CoreKind::kAic ? 0 : 1].push_back(std::move(c.mem));
      in.sched = nullptr;
      in.xsync = nullptr;
      in.launch_cores = nullptr;
      in.race = nullptr;
      in.RestoreExec(outer);
    }
  } restore{*this, ctxs, outer};
  scheduler.Run([&](int i) {
    // A core on its own thread measures its interpreter stack from the thread's first frame.
    if (ncores > 1) stack_top_ = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
    // A core's on-chip memory lives while the core runs: cores that run one after the other
    // reuse one buffer set (reset to the poison bytes), concurrent ones have their own.
    CoreContext& ctx = ctxs[static_cast<size_t>(i)];
    auto& spare = spare_mem_[ctx.kind == CoreKind::kAic ? 0 : 1];
    MemOf(ctx);
    struct Release {
      CoreContext& ctx;
      std::vector<std::unique_ptr<CoreMemory>>& spare;
      ~Release() { spare.push_back(std::move(ctx.mem)); }
    } release{ctx, spare};
    std::vector<Value> a = args;
    Kwargs k = kw;
    try {
      CallFunction(kernel, a, k, line);
      if (ctx.pipeline) DrainStages(*this);
    } catch (...) {
      FinishCore(false);
      throw;
    }
    FinishCore(true);
    ++stats.cores_run;
    (void)i;
  });
  const auto& dead = scheduler.deadlock();
  if (dead.empty()) {
    // A set no wait consumed stays on the flag after the kernel ends.
    for (const auto& l : sync.Leftovers())
      sink.Report(hazard::kXcoreUnconsumed, l.line,
                  absl::StrFormat("%s set cross-core event %d (%s) for %s %zu time(s) more than %s waited for it "
                                  "(first unconsumed set at line %d): the launch ends with the flag still set, "
                                  "so a later wait on it (in this or the next kernel) passes without its "
                                  "producer; balance every set with a wait",
                                  ctxs[static_cast<size_t>(l.setter)].Name(), l.event,
                                  std::string(CrossModeName(l.mode)), ctxs[static_cast<size_t>(l.receiver)].Name(),
                                  l.count, ctxs[static_cast<size_t>(l.receiver)].Name(), l.line));
  }
  if (!dead.empty()) {
    std::vector<std::string> parts;
    for (const auto& w : dead)
      parts.push_back(absl::StrFormat("%s waits at line %d for %s", ctxs[static_cast<size_t>(w.core)].Name(), w.line, w.what));
    const std::string all = absl::StrJoin(parts, "; ");
    const int done = static_cast<int>(ncores) - static_cast<int>(dead.size());
    for (size_t j = 1; j < dead.size(); ++j)
      sink.Report(hazard::kDeadlock, dead[j].line,
                  absl::StrFormat("deadlock: %s; every live core waits (%d core(s) ended) and no set can come: %s",
                                  parts[j], done, all));
    Fail(hazard::kDeadlock, dead[0].line,
         absl::StrFormat("deadlock: %s; every live core waits (%d core(s) ended) and no set can come: %s", parts[0],
                         done, all));
  }
}

CoreMemory& Interp::MemOf(CoreContext& c) {
  if (!c.mem) {
    auto& spare = spare_mem_[c.kind == CoreKind::kAic ? 0 : 1];
    if (!spare.empty()) {
      c.mem = std::move(spare.back());
      spare.pop_back();
    } else {
      c.mem = std::make_unique<CoreMemory>(target);
    }
    c.mem->Reset();
    c.mem->RecordOrigins(record_provenance);
  }
  return *c.mem;
}

void Interp::SaveExec(ExecState& s) {
  s.core = core;
  s.in_kernel = in_kernel;
  s.in_vf = in_vf;
  s.simt = simt;
  s.vf_cursors = vf_cursors;
  s.current_line = current_line;
  s.assign_name = assign_name;
  s.assign_target = assign_target;
  s.assign_value = assign_value;
  s.call_scratch = std::move(call_scratch_);
  s.call_depth = call_depth_;
  s.loops = std::move(loops_);
  s.fn_depth = fn_depth_;
  s.stack_top = stack_top_;
}

void Interp::RestoreExec(ExecState& s) {
  core = s.core;
  in_kernel = s.in_kernel;
  in_vf = s.in_vf;
  simt = s.simt;
  vf_cursors = s.vf_cursors;
  current_line = s.current_line;
  assign_name = s.assign_name;
  assign_target = s.assign_target;
  assign_value = s.assign_value;
  call_scratch_ = std::move(s.call_scratch);
  call_depth_ = s.call_depth;
  loops_ = std::move(s.loops);
  fn_depth_ = s.fn_depth;
  stack_top_ = s.stack_top;
}

void Interp::ReportRace(const GmRace& r, const GmTensor& t, bool is_write, int line) {
  std::vector<int64_t> coord(t.shape.size());
  int64_t rem = r.element;
  for (int d = static_cast<int>(t.shape.size()) - 1; d >= 0; --d) {
    coord[static_cast<size_t>(d)] = t.shape[static_cast<size_t>(d)] ? rem % t.shape[static_cast<size_t>(d)] : 0;
    rem = t.shape[static_cast<size_t>(d)] ? rem / t.shape[static_cast<size_t>(d)] : 0;
  }
  const std::string other = xsync ? xsync->Core(r.other_core).Name() : absl::StrCat("core ", r.other_core);
  sink.Report(hazard::kGmRace, line,
              absl::StrFormat("%s %s '%s'[%s] at line %d, which %s %s at line %d with no happens-before edge "
                              "between the two accesses (no set_cross_core -> wait_cross_core chain orders "
                              "them): on the device the result depends on timing",
                              core->Name(), is_write ? "writes" : "reads", t.name, absl::StrJoin(coord, ", "), line,
                              other, r.other_wrote ? "wrote" : "read", r.other_line),
              absl::StrFormat("%s line %d; %s line %d", core->Name(), line, other, r.other_line));
}

}  // namespace opdev::sim
