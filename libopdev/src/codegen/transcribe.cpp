// Backend-independent transcription of a DESIGN §1 kernel region (see transcribe.h).
#include "transcribe.h"

#include "ast_util.h"
#include "name_scope.h"

#include "opdev/pyfront/printer.h"

#include "absl/strings/str_format.h"

#include <algorithm>
#include <map>
#include <regex>

namespace opdev::codegen {
namespace {

constexpr const char* kSection1 = "§1";

bool IsNoneLayout(const std::string& l) {
  return l.empty() || l == "—" || l == "-" || l == "–" || l == "n/a" || l == "N/A" ||
         l == "无" || l == "None";
}

struct TypeUse {
  std::string type_var;
  std::vector<std::string> groups;  // TileGroup / tile variables declared with this type
  int line = 0;                     // first use
};

std::map<std::string, TypeUse> TileTypeUses(const std::vector<py::StmtPtr>& body) {
  std::map<std::string, TypeUse> out;
  for (const auto& a : CallAssignments(body)) {
    std::string callee = py::CallName(*a.call);
    const py::Expr* type = nullptr;
    if (callee == "pl.make_tile_group")
      type = py::FindKeyword(*a.call, "type");
    else if (callee == "pl.make_tile")
      type = py::FindKeyword(*a.call, "type")
                 ? py::FindKeyword(*a.call, "type")
                 : (a.call->args.empty() ? nullptr : a.call->args[0].get());
    if (!type || !type->Is(py::ExprKind::kName)) continue;
    TypeUse& u = out[type->id];
    u.type_var = type->id;
    u.groups.push_back(a.name);
    if (!u.line) u.line = a.call->span.line;
  }
  return out;
}

// `fractal=1024` / `compact=1` stated in a §2 row (layout or notes cell): Cube tile options
// the row freezes.
std::string CubeTileOptions(const contract::TileAttr& row) {
  std::string out;
  static const std::regex kFractal(R"(fractal\s*=\s*([0-9]+))");
  static const std::regex kCompact(R"(compact\s*=\s*([0-9]+))");
  std::smatch m;
  const std::string text = row.layout + " " + row.notes;
  if (std::regex_search(text, m, kFractal)) out += ", fractal=" + m[1].str();
  if (std::regex_search(text, m, kCompact)) out += ", compact=" + m[1].str();
  return out;
}

std::string LayoutOf(const contract::TileAttr& row) {
  // A layout cell may carry options after the layout ("NZ, fractal=1024").
  std::string l = row.layout;
  if (auto p = l.find_first_of(",，;；("); p != std::string::npos) l = l.substr(0, p);
  while (!l.empty() && l.back() == ' ') l.pop_back();
  if (l.rfind("pl.", 0) == 0) l = l.substr(3);
  return l;
}

// Builds `T = pl.TileType(...)` from the §2 Tile 属性表 rows of the groups using T.
py::StmtPtr CompleteTileType(const TypeUse& use, bool dynamic_valid, GenContext& ctx) {
  const auto tiles = ctx.design->Tiles();
  const contract::TileAttr* chosen = nullptr;
  bool ok = true;
  for (const auto& g : use.groups) {
    const contract::TileAttr* row = nullptr;
    for (const auto& t : tiles)
      if (t.group == g || t.var == g) {
        row = &t;
        break;
      }
    if (!row) {
      ctx.Violation("CODEGEN-TILE-UNDECLARED", use.line, kSection1,
                    absl::StrFormat("tile type %s of %s is not defined in the §1 code and §2 "
                                    "Tile 属性表 has no row for %s to complete it from",
                                    use.type_var, g, g));
      ok = false;
      continue;
    }
    if (row->shape.size() != 2 || !row->dtype || !row->space) {
      ctx.Violation("CODEGEN-TILE-ATTR", row->line, "§2",
                    absl::StrFormat("§2 Tile 属性表 row of %s needs a 2-D integer shape, a dtype "
                                    "and a memory space to declare %s",
                                    g, use.type_var));
      ok = false;
      continue;
    }
    std::uint64_t bytes = DTypeSize(*row->dtype);
    for (auto d : row->shape) bytes *= static_cast<std::uint64_t>(d);
    if (row->size_bytes && static_cast<std::uint64_t>(*row->size_bytes) != bytes) {
      ctx.Violation("CODEGEN-TILE-SIZE-MISMATCH", row->line, "§2",
                    absl::StrFormat("§2 Tile 属性表 gives %d bytes per slot for %s, but shape "
                                    "%s of %s is %d bytes",
                                    *row->size_bytes, g, row->shape_text, row->dtype_text, bytes));
      ok = false;
    }
    if (!chosen) {
      chosen = row;
    } else if (chosen->shape != row->shape || chosen->dtype != row->dtype ||
               chosen->space != row->space || chosen->layout != row->layout) {
      ctx.Violation("CODEGEN-TILE-TABLE-CONFLICT", row->line, "§2",
                    absl::StrFormat("%s and %s share tile type %s in §1 but their §2 Tile 属性表 "
                                    "rows differ (line %d vs %d)",
                                    use.groups.front(), g, use.type_var, chosen->line, row->line));
      ok = false;
    }
  }
  if (!ok || !chosen) return nullptr;
  std::string text = absl::StrFormat(
      "%s = pl.TileType(shape=[%s, %s], dtype=pl.%s, target_memory=pl.MemorySpace.%s",
      use.type_var, ShapeDim(chosen->shape[0], ctx), ShapeDim(chosen->shape[1], ctx),
      std::string(DTypePlName(*chosen->dtype)), std::string(MemSpaceName(*chosen->space)));
  if (dynamic_valid) text += ", valid_shape=[-1, -1]";
  const std::string layout = LayoutOf(*chosen);
  if (!IsNoneLayout(layout)) text += ", layout=pl." + layout;
  text += CubeTileOptions(*chosen);
  text += ")\n";
  py::StmtPtr s = ParseOneStmt(text);
  if (!s)
    ctx.Violation("CODEGEN-TILE-ATTR", chosen->line, "§2",
                  "§2 Tile 属性表 layout cannot be written as a pl.* layout", chosen->layout);
  return s;
}

}  // namespace

std::string ShapeDim(std::int64_t v, const GenContext& ctx) {
  std::vector<std::string> names = ctx.LiteralConstantsEqualTo(v);
  if (names.size() == 1) return names.front();
  return std::to_string(v);
}

void RewriteLegacy(std::vector<py::StmtPtr>& body, GenContext& ctx) {
  ForEachCallIn(body, [&](const py::Expr& c) {
    py::Expr& call = const_cast<py::Expr&>(c);
    const std::string name = py::CallName(call);
    if (name == "pl.set_validshape" && call.args.size() == 3 && call.keywords.empty()) {
      auto list = std::make_unique<py::Expr>();
      list->kind = py::ExprKind::kList;
      list->span = call.args[1]->span;
      list->elts.push_back(std::move(call.args[1]));
      list->elts.push_back(std::move(call.args[2]));
      call.args.resize(1);
      call.args.push_back(std::move(list));
      ctx.diags->Add(Diagnostic{"CODEGEN-LEGACY-API", Severity::kNote,
                                std::string(category::kDesignViolation), ctx.file(),
                                call.span.line, call.span.col, kSection1,
                                "legacy pl.set_validshape(tile, rows, cols) emitted as "
                                "pl.set_validshape(tile, [rows, cols])",
                                ctx.DesignLine(call.span.line)});
    } else if (name == "pl.fillpad_inplace" || name == "pl.fillpad_expand") {
      const bool inplace = name == "pl.fillpad_inplace";
      call.func = ParseExpr("pl.fillpad");
      if (inplace && call.args.size() == 1) call.args.push_back(ParseExpr(py::PrintExpr(*call.args[0])));
      py::Keyword kw;
      kw.arg = "mode";
      kw.value = ParseExpr(inplace ? "pl.FillPadMode.INPLACE" : "pl.FillPadMode.EXPAND");
      call.keywords.push_back(std::move(kw));
      ctx.diags->Add(Diagnostic{"CODEGEN-LEGACY-API", Severity::kNote,
                                std::string(category::kDesignViolation), ctx.file(),
                                call.span.line, call.span.col, kSection1,
                                "legacy " + name + " emitted as pl.fillpad(..., mode=" +
                                    (inplace ? "pl.FillPadMode.INPLACE" : "pl.FillPadMode.EXPAND") + ")",
                                ctx.DesignLine(call.span.line)});
    }
  });
}

std::set<std::string> GlobalNames(const GenContext& ctx, const std::vector<std::string>& extra) {
  std::set<std::string> globals = PythonBuiltins();
  globals.insert({"pl", "vf"});
  for (const auto& n : ctx.constant_names) globals.insert(n);
  for (const auto& n : extra) globals.insert(n);
  return globals;
}

std::vector<py::StmtPtr> ResolveKernelNames(const CodeRegion& kernel,
                                            const std::set<std::string>& globals,
                                            const std::set<std::string>& params, GenContext& ctx) {
  auto type_uses = TileTypeUses(kernel.ast.body);
  NameScope ks = AnalyzeNames(kernel.ast.body, globals, params);
  std::vector<py::StmtPtr> type_decls;
  bool dynamic_valid = false;
  ForEachCallIn(kernel.ast.body, [&](const py::Expr& c) {
    if (py::CallName(c) == "pl.set_validshape") dynamic_valid = true;
  });
  for (const NameUse& u : ks.free) {
    auto it = type_uses.find(u.name);
    if (it != type_uses.end()) {
      if (py::StmtPtr decl = CompleteTileType(it->second, dynamic_valid, ctx))
        type_decls.push_back(std::move(decl));
      continue;
    }
    ctx.Violation("CODEGEN-UNDEFINED-NAME", u.line, kSection1,
                  absl::StrFormat("`%s` is read in the kernel code but never defined (not a "
                                  "§2.1 constant, kernel argument or earlier assignment)",
                                  u.name));
  }
  for (const NameUse& u : ks.loop_escapes)
    ctx.Warn("CODEGEN-LOOP-SCOPED-NAME", u.line, kSection1,
             absl::StrFormat("`%s` is read after the loop that assigns it (line %d) has ended; "
                             "it carries that loop's last value (transcribed as written)",
                             u.name, u.def_line));
  return type_decls;
}

void CheckValidShapeOrder(const std::vector<py::StmtPtr>& body, GenContext& ctx) {
  std::set<std::string> ever_set;
  ForEachCallIn(body, [&](const py::Expr& c) {
    if (py::CallName(c) == "pl.set_validshape" && !c.args.empty() &&
        c.args[0]->Is(py::ExprKind::kName))
      ever_set.insert(c.args[0]->id);
  });
  std::set<std::string> valid;
  ForEachStmt(body, [&](const py::Stmt& s) {
    if (s.Is(py::StmtKind::kAssign))
      for (const auto& t : s.targets)
        if (t->Is(py::ExprKind::kName)) valid.erase(t->id);
    // Calls of this statement only (nested bodies are visited as their own statements).
    std::vector<const py::Expr*> calls;
    for (const py::Expr* e : {s.value.get(), s.test.get(), s.iter.get()}) {
      if (!e) continue;
      struct V : py::AstVisitor {
        std::vector<const py::Expr*>* out;
        bool EnterExpr(const py::Expr& x) override {
          if (x.Is(py::ExprKind::kCall)) out->push_back(&x);
          return true;
        }
      } v;
      v.out = &calls;
      py::Walk(*e, v);
    }
    for (const py::Expr* c : calls) {
      std::string n = py::CallName(*c);
      if (c->args.empty() || !c->args[0]->Is(py::ExprKind::kName)) continue;
      const std::string& slot = c->args[0]->id;
      if (n == "pl.set_validshape") valid.insert(slot);
      if ((n == "pl.load" || n == "pl.load_tile") && ever_set.count(slot) && !valid.count(slot))
        ctx.Violation("CODEGEN-VALIDSHAPE-ORDER", c->span.line, "§7",
                      absl::StrFormat("%s loads %s before pl.set_validshape sets its valid "
                                      "window (§7: set_validshape before load)",
                                      n, slot));
    }
  });
}

std::vector<py::StmtPtr> InsertBeforeFirstUse(std::vector<py::StmtPtr> body,
                                              std::vector<py::StmtPtr> decls) {
  std::vector<py::StmtPtr> out;
  for (auto& s : body) {
    if (!decls.empty()) {
      std::set<std::string> used;
      struct V : py::AstVisitor {
        std::set<std::string>* used;
        bool EnterExpr(const py::Expr& e) override {
          if (e.Is(py::ExprKind::kName)) used->insert(e.id);
          return true;
        }
      } v;
      v.used = &used;
      py::Walk(*s, v);
      for (auto& d : decls)
        if (d && used.count(d->targets[0]->id)) out.push_back(std::move(d));
      decls.erase(std::remove(decls.begin(), decls.end(), nullptr), decls.end());
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace opdev::codegen
