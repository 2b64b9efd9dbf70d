// Extraction of the slot model from a kernel file's TileType / make_tile_group / make_tile
// declarations.
#include "opdev/budget/kernel_budget.h"

#include "opdev/budget/const_eval.h"
#include "opdev/pyfront/printer.h"

#include "absl/strings/str_format.h"

#include <map>

namespace opdev::budget {
namespace {

struct TypeInfo {
  std::vector<std::int64_t> shape;
  std::optional<DType> dtype;
  MemSpace space = MemSpace::kVec;
  bool ok = false;
};

const py::Expr* Arg(const py::Expr& call, size_t pos, std::string_view kw) {
  if (const py::Expr* k = py::FindKeyword(call, kw)) return k;
  if (pos < call.args.size()) return call.args[pos].get();
  return nullptr;
}

class Extractor : public py::AstVisitor {
 public:
  Extractor(const std::string& file, Target target, Diagnostics* diags, ConstEnv env)
      : file_(file), diags_(diags), env_(std::move(env)) {
    model_.file = file;
    model_.target = target;
  }

  bool EnterStmt(const py::Stmt& s) override {
    if (s.Is(py::StmtKind::kAssign) && s.targets.size() == 1 &&
        s.targets[0]->Is(py::ExprKind::kName) && s.value) {
      const std::string& var = s.targets[0]->id;
      const py::Expr& v = *s.value;
      if (v.Is(py::ExprKind::kCall)) {
        std::string callee = py::CallName(v);
        if (callee == "pl.TileType") {
          types_[var] = ParseType(v);
        } else if (callee == "pl.make_tile_group") {
          AddGroup(var, v);
        } else if (callee == "pl.make_tile") {
          AddTile(var, v);
        }
      } else if (auto val = EvalInt(v, env_)) {
        // Local integer constants (rare in kernels, but fold them for addresses).
        if (!env_.count(var)) env_[var] = *val;
      }
    }
    return true;
  }

  SlotModel Take() { return std::move(model_); }

 private:
  void Unresolved(int line, const std::string& what, const std::string& evidence) {
    if (!diags_) return;
    Diagnostic d;
    d.code = "BUDGET-UNRESOLVED";
    d.severity = Severity::kError;
    d.category = "implementation_error";
    d.file = file_;
    d.line = line;
    d.message = what;
    d.evidence = evidence;
    diags_->Add(std::move(d));
  }

  TypeInfo ParseType(const py::Expr& call) {
    TypeInfo t;
    const py::Expr* shape = Arg(call, 0, "shape");
    const py::Expr* dtype = Arg(call, 1, "dtype");
    const py::Expr* mem = Arg(call, 2, "target_memory");
    if (!shape || !(shape->Is(py::ExprKind::kList) || shape->Is(py::ExprKind::kTuple))) {
      Unresolved(call.span.line, "TileType shape is not a literal list", py::PrintExpr(call));
      return t;
    }
    for (const auto& d : shape->elts) {
      auto v = EvalInt(*d, env_);
      if (!v || *v <= 0) {
        Unresolved(call.span.line,
                   "TileType shape dimension does not fold to a positive module constant",
                   py::PrintExpr(*d));
        return t;
      }
      t.shape.push_back(*v);
    }
    if (dtype) {
      if (auto name = py::DottedName(*dtype)) t.dtype = ParseDType(*name);
    }
    if (!t.dtype) {
      Unresolved(call.span.line, "TileType dtype is not a pl.DT_* name",
                 dtype ? py::PrintExpr(*dtype) : "(missing)");
      return t;
    }
    if (mem) {
      auto name = py::DottedName(*mem);
      auto space = name ? ParseMemSpace(*name) : std::nullopt;
      if (!space) {
        Unresolved(call.span.line, "TileType target_memory is not a pl.MemorySpace member",
                   py::PrintExpr(*mem));
        return t;
      }
      t.space = *space;
    }
    t.ok = true;
    return t;
  }

  std::optional<TypeInfo> TypeOf(const py::Expr* e, int line) {
    if (!e) {
      Unresolved(line, "tile declaration without a type", "");
      return std::nullopt;
    }
    if (e->Is(py::ExprKind::kName)) {
      auto it = types_.find(e->id);
      if (it == types_.end()) {
        Unresolved(line, "tile type " + e->id + " is not a pl.TileType declared before it",
                   e->id);
        return std::nullopt;
      }
      if (!it->second.ok) return std::nullopt;
      return it->second;
    }
    if (e->Is(py::ExprKind::kCall) && py::CallName(*e) == "pl.TileType") {
      TypeInfo t = ParseType(*e);
      if (!t.ok) return std::nullopt;
      return t;
    }
    Unresolved(line, "tile type is neither a TileType variable nor a pl.TileType(...) call",
               py::PrintExpr(*e));
    return std::nullopt;
  }

  static std::uint64_t Bytes(const TypeInfo& t) {
    std::uint64_t n = DTypeSize(*t.dtype);
    for (auto d : t.shape) n *= static_cast<std::uint64_t>(d);
    return n;
  }

  // mutex_ids: [0, 1] (one id per slot) or [[0], [1]] (a list per slot).
  std::optional<std::vector<std::vector<int>>> MutexIds(const py::Expr* e, int line) {
    std::vector<std::vector<int>> out;
    if (!e || (e->Is(py::ExprKind::kConstant) && e->const_kind == py::ConstKind::kNone))
      return out;
    if (!e->Is(py::ExprKind::kList) && !e->Is(py::ExprKind::kTuple)) {
      Unresolved(line, "mutex_ids is not a literal list", py::PrintExpr(*e));
      return std::nullopt;
    }
    for (const auto& item : e->elts) {
      std::vector<int> ids;
      if (item->Is(py::ExprKind::kList) || item->Is(py::ExprKind::kTuple)) {
        for (const auto& x : item->elts) {
          auto v = EvalInt(*x, env_);
          if (!v) {
            Unresolved(line, "mutex id does not fold to an integer", py::PrintExpr(*x));
            return std::nullopt;
          }
          ids.push_back(static_cast<int>(*v));
        }
      } else {
        auto v = EvalInt(*item, env_);
        if (!v) {
          Unresolved(line, "mutex id does not fold to an integer", py::PrintExpr(*item));
          return std::nullopt;
        }
        ids.push_back(static_cast<int>(*v));
      }
      out.push_back(ids);
    }
    return out;
  }

  void AddGroup(const std::string& var, const py::Expr& call) {
    const int line = call.span.line;
    auto type = TypeOf(py::FindKeyword(call, "type"), line);
    if (!type) return;
    auto mutex = MutexIds(py::FindKeyword(call, "mutex_ids"), line);
    if (!mutex) return;
    std::optional<std::int64_t> depth;
    if (const py::Expr* d = py::FindKeyword(call, "depth")) depth = EvalInt(*d, env_);
    const py::Expr* addrs = py::FindKeyword(call, "addrs");
    if (!addrs) {
      Unresolved(line, "make_tile_group " + var + " has no addrs", py::PrintExpr(call));
      return;
    }
    const std::uint64_t bytes = Bytes(*type);
    std::vector<std::pair<std::uint64_t, std::string>> starts;
    if (addrs->Is(py::ExprKind::kList) || addrs->Is(py::ExprKind::kTuple)) {
      for (const auto& a : addrs->elts) {
        auto v = EvalInt(*a, env_);
        if (!v || *v < 0) {
          Unresolved(line, "address of " + var + " does not fold to a non-negative constant",
                     py::PrintExpr(*a));
          return;
        }
        starts.push_back({static_cast<std::uint64_t>(*v), py::PrintExpr(*a)});
      }
    } else {
      auto v = EvalInt(*addrs, env_);
      if (!v || *v < 0) {
        Unresolved(line, "address of " + var + " does not fold to a non-negative constant",
                   py::PrintExpr(*addrs));
        return;
      }
      size_t n = !mutex->empty() ? mutex->size() : static_cast<size_t>(depth.value_or(1));
      std::string base = py::PrintExpr(*addrs);
      for (size_t i = 0; i < n; ++i)
        starts.push_back({static_cast<std::uint64_t>(*v) + i * bytes,
                          i == 0 ? base : absl::StrFormat("%s + %d * %d", base, i, bytes)});
    }
    for (size_t i = 0; i < starts.size(); ++i) {
      Slot s;
      s.group = var;
      s.index = static_cast<int>(i);
      s.name = absl::StrFormat("%s[%d]", var, i);
      s.space = type->space;
      s.address = starts[i].first;
      s.address_expr = starts[i].second;
      s.bytes = bytes;
      s.shape = type->shape;
      s.dtype = type->dtype;
      if (i < mutex->size()) s.mutex_ids = (*mutex)[i];
      s.line = line;
      model_.slots.push_back(std::move(s));
    }
  }

  void AddTile(const std::string& var, const py::Expr& call) {
    const int line = call.span.line;
    auto type = TypeOf(Arg(call, 0, "type"), line);
    if (!type) return;
    const py::Expr* addr = py::FindKeyword(call, "addr");
    auto v = addr ? EvalInt(*addr, env_) : std::nullopt;
    if (!v || *v < 0) {
      Unresolved(line, "address of tile " + var + " does not fold to a non-negative constant",
                 addr ? py::PrintExpr(*addr) : "(missing addr=)");
      return;
    }
    Slot s;
    s.name = var;
    s.space = type->space;
    s.address = static_cast<std::uint64_t>(*v);
    s.address_expr = py::PrintExpr(*addr);
    s.bytes = Bytes(*type);
    if (const py::Expr* size = py::FindKeyword(call, "size")) {
      if (auto sz = EvalInt(*size, env_); sz && *sz > 0) s.bytes = static_cast<std::uint64_t>(*sz);
    }
    s.shape = type->shape;
    s.dtype = type->dtype;
    s.line = line;
    model_.slots.push_back(std::move(s));
  }

  std::string file_;
  Diagnostics* diags_;
  ConstEnv env_;
  std::map<std::string, TypeInfo> types_;
  SlotModel model_;
};

}  // namespace

SlotModel SlotsFromKernel(const py::Module& m, const std::string& file, Target target,
                          Diagnostics* diags) {
  Extractor x(file, target, diags, FoldModuleConstants(m));
  py::Walk(m, x);
  return x.Take();
}

}  // namespace opdev::budget
