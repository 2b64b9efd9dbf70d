// The L1 delivery cleanup, its arity guard and the final file's proofread (see cleanup.h).
#include "cleanup.h"

#include "ast_util.h"

#include "opdev/pyfront/parser.h"

#include "absl/strings/str_format.h"

#include <cctype>
#include <set>

namespace opdev::codegen {
namespace {

bool IdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Replaces `from` by `to` wherever it stands as a whole identifier (a dotted `from` counts as
// whole when neither end touches another identifier character).
std::string ReplaceIdentifier(const std::string& text, const std::string& from,
                              const std::string& to) {
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t at = text.find(from, pos);
    if (at == std::string::npos) break;
    const bool left_ok = at == 0 || !IdentChar(text[at - 1]);
    const size_t end = at + from.size();
    const bool right_ok = end >= text.size() || !IdentChar(text[end]);
    out.append(text, pos, at - pos);
    out += left_ok && right_ok ? to : from;
    pos = end;
  }
  out.append(text, pos, std::string::npos);
  return out;
}

std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

constexpr const char* kHeaderMark = "# Delivery file of ";

void OwnReturns(const std::vector<py::StmtPtr>& body, std::vector<const py::Stmt*>* out) {
  for (const auto& s : body) {
    if (s->Is(py::StmtKind::kFunctionDef) || s->Is(py::StmtKind::kClassDef)) continue;
    if (s->Is(py::StmtKind::kReturn)) out->push_back(s.get());
    OwnReturns(s->body, out);
    OwnReturns(s->orelse, out);
    OwnReturns(s->finalbody, out);
    for (const auto& h : s->handlers) OwnReturns(h.body, out);
    for (const auto& c : s->cases) OwnReturns(c.body, out);
  }
}

std::optional<ReturnShape> ShapeOf(const py::Expr& v) {
  if (v.Is(py::ExprKind::kTuple) || v.Is(py::ExprKind::kList)) {
    for (const auto& e : v.elts)
      if (e->Is(py::ExprKind::kStarred)) return std::nullopt;  // elastic width
    return ReturnShape{static_cast<int>(v.elts.size()), true};
  }
  if (v.Is(py::ExprKind::kBinOp) || v.Is(py::ExprKind::kUnaryOp) ||
      v.Is(py::ExprKind::kCompare) || v.Is(py::ExprKind::kConstant) ||
      v.Is(py::ExprKind::kSubscript))
    return ReturnShape{1, false};
  return std::nullopt;  // a call, name, attribute, conditional, ...: any arity
}

const py::Stmt* FindDef(const std::vector<py::StmtPtr>& body, const std::string& name) {
  for (const auto& s : body) {
    if (s->Is(py::StmtKind::kFunctionDef) && s->name == name) return s.get();
    for (const auto* nested : {&s->body, &s->orelse, &s->finalbody})
      if (const py::Stmt* d = FindDef(*nested, name)) return d;
  }
  return nullptr;
}

bool CallsFn(const py::Expr& v, const std::string& fn) {
  if (!v.Is(py::ExprKind::kCall) || !v.func) return false;
  if (v.func->Is(py::ExprKind::kName)) return v.func->id == fn;
  if (v.func->Is(py::ExprKind::kAttribute)) return v.func->id == fn;
  return false;
}

bool IsName(const py::Expr* e, const std::string& name) {
  return e && e->Is(py::ExprKind::kName) && e->id == name;
}

class SubscriptOf : public py::AstVisitor {
 public:
  explicit SubscriptOf(const std::string& n) : name(n) {}
  const std::string& name;
  bool found = false;
  bool EnterExpr(const py::Expr& e) override {
    if (e.Is(py::ExprKind::kSubscript) && IsName(e.value_expr.get(), name)) found = true;
    return true;
  }
};

// The delivery uses `name` as a tuple: it indexes it, unpacks it or iterates over it.
bool TreatedAsMulti(const py::Module& m, const std::string& name) {
  SubscriptOf sub(name);
  py::Walk(m, sub);
  if (sub.found) return true;
  bool multi = false;
  ForEachStmt(m.body, [&](const py::Stmt& s) {
    if (s.Is(py::StmtKind::kAssign) && IsName(s.value.get(), name))
      for (const auto& t : s.targets)
        if (t->Is(py::ExprKind::kTuple) || t->Is(py::ExprKind::kList)) multi = true;
    if (s.Is(py::StmtKind::kFor) && IsName(s.iter.get(), name)) multi = true;
  });
  return multi;
}

// The delivery passes `name` to list() or tuple().
class ConvertedSeq : public py::AstVisitor {
 public:
  explicit ConvertedSeq(const std::string& n) : name(n) {}
  const std::string& name;
  bool found = false;
  bool EnterExpr(const py::Expr& e) override {
    if (e.Is(py::ExprKind::kCall) && e.func && e.func->Is(py::ExprKind::kName) &&
        (e.func->id == "list" || e.func->id == "tuple") && e.args.size() == 1 && IsName(e.args[0].get(), name))
      found = true;
    return true;
  }
};

}  // namespace

std::string CleanupStagedText(const std::string& text, const std::string& op,
                              const std::string& suffix, const std::string& staged_rel) {
  const std::string wrapper = op + "_wrapper";
  const std::string staged_wrapper = op + "_wrapper_module" + suffix;
  const std::string golden = op + "_golden_cpu";
  const std::string stage_golden = op + "_golden_stage" + suffix;
  std::string out = ReplaceIdentifier(text, staged_wrapper, wrapper);
  out = ReplaceIdentifier(out, "modules." + stage_golden, golden);
  out = ReplaceIdentifier(out, stage_golden, golden);
  // The delivery file lives in the op dir itself: one level less to walk up.
  out = ReplaceAll(out, "Path(__file__).resolve().parent.parent", "Path(__file__).resolve().parent");
  out = ReplaceAll(out, "Path(__file__).resolve().parents[1]", "Path(__file__).resolve().parent");
  if (out.rfind(kHeaderMark, 0) != 0)
    out = absl::StrFormat(
              "%s%s, consolidated from %s by the L1 cleanup.\n"
              "# It exports %s; the kernel is the final staged file's, unchanged.\n"
              "# The staged file chain stays as the audit trail.\n",
              kHeaderMark, op, staged_rel, wrapper) +
          out;
  return out;
}

std::optional<ReturnShape> GoldenReturnShape(const py::Module& golden, const std::string& fn) {
  const py::Stmt* def = FindDef(golden.body, fn);
  if (!def) return std::nullopt;
  std::vector<const py::Stmt*> returns;
  OwnReturns(def->body, &returns);
  std::optional<ReturnShape> shape;
  bool any = false;
  for (const py::Stmt* r : returns) {
    if (!r->value) continue;
    auto s = ShapeOf(*r->value);
    if (!s) return std::nullopt;
    if (any && (s->arity != shape->arity || s->multi != shape->multi)) return std::nullopt;
    shape = s;
    any = true;
  }
  return shape;
}

std::vector<GoldenBinding> GoldenBindings(const py::Module& delivery, const std::string& fn) {
  std::vector<GoldenBinding> out;
  ForEachStmt(delivery.body, [&](const py::Stmt& s) {
    if (!s.Is(py::StmtKind::kAssign) || !s.value || !CallsFn(*s.value, fn)) return;
    for (const auto& t : s.targets) {
      if (t->Is(py::ExprKind::kTuple) || t->Is(py::ExprKind::kList)) {
        bool starred = false;
        for (const auto& e : t->elts) starred |= e->Is(py::ExprKind::kStarred);
        if (!starred) out.push_back({static_cast<int>(t->elts.size()), true, s.span.line});
      } else if (t->Is(py::ExprKind::kName) && !TreatedAsMulti(delivery, t->id)) {
        ConvertedSeq conv(t->id);
        py::Walk(delivery, conv);
        out.push_back({1, false, s.span.line, conv.found});
      }
    }
  });
  return out;
}

void CheckGoldenArity(const ReturnShape& shape, const std::vector<GoldenBinding>& bindings,
                      const std::string& fn, const std::string& file,
                      std::string_view category, Diagnostics* diags,
                      const std::optional<ReturnShape>& outputs) {
  for (const GoldenBinding& b : bindings) {
    if (!shape.multi && !b.tuple) continue;                         // one value, one name
    if (shape.multi && b.tuple && b.width == shape.arity) continue;  // matching unpack
    if (shape.multi && !b.tuple && b.converted && outputs && outputs->multi && outputs->arity == shape.arity)
      continue;  // a multi-output op compares its outputs with the golden values pairwise
    std::string msg;
    if (shape.multi && !b.tuple)
      msg = absl::StrFormat(
          "%s returns %d values, but the delivery binds them to one name that it never "
          "indexes or unpacks: the precision comparison would compare a tensor with a tuple "
          "in every case",
          fn, shape.arity);
    else if (!shape.multi)
      msg = absl::StrFormat(
          "%s returns one value, but the delivery unpacks it into %d target(s): that unpacks "
          "dim 0 of the tensor and fails every case",
          fn, b.width);
    else
      msg = absl::StrFormat("%s returns %d values, but the delivery unpacks it into %d target(s)",
                            fn, shape.arity, b.width);
    diags->Error("CLEANUP-ARITY", category, file, b.line, msg);
  }
}

void ProofreadFinal(const std::string& text, const std::string& op, const std::string& file,
                    Diagnostics* diags) {
  auto fail = [&](int line, const std::string& msg) {
    diags->Error("CLEANUP-PROOFREAD", category::kImplementationError, file, line, msg);
  };
  Diagnostics parse;
  auto m = py::ParseModule(text, file, &parse);
  if (!m.ok()) {
    fail(parse.empty() ? 0 : parse.items().front().line,
         "the final file does not parse: " + std::string(m.status().message()));
    return;
  }
  int jits = 0;
  bool wrapper = false;
  for (const auto& d : py::TopLevelDefs(*m)) {
    if (d.HasDecorator("pl.jit")) ++jits;
    if (d.name == op + "_wrapper") wrapper = true;
  }
  if (jits != 1)
    fail(0, absl::StrFormat("the final file has %d @pl.jit kernel(s); a delivery holds exactly one",
                            jits));
  if (!wrapper) fail(0, "the final file defines no " + op + "_wrapper");
  int line = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') ++line;
    auto at = [&](const std::string& s) { return text.compare(i, s.size(), s) == 0; };
    if (at(op + "_wrapper_module") || at(op + "_golden_stage"))
      fail(line, "the final file still names a staged wrapper or staged golden");
    if (at("resolve().parent.parent") || at("resolve().parents[1]"))
      fail(line, "the final file walks up two levels from its own directory, which is the op dir");
  }
  for (const auto& s : m->body) {
    if (!s->Is(py::StmtKind::kImport) && !s->Is(py::StmtKind::kImportFrom)) continue;
    std::vector<std::string> mods;
    if (s->Is(py::StmtKind::kImportFrom)) mods.push_back(s->module);
    for (const auto& a : s->names) mods.push_back(a.name);
    for (const auto& n : mods)
      if (n == "precision_compare" || n == op + "_golden_cpu")
        fail(s->span.line, "dev-only module " + n +
                               " is imported at module level; the delivered unit must import "
                               "without it");
  }
}

}  // namespace opdev::codegen
