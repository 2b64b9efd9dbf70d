// Transcription of DESIGN §1 kernel and VF code into the defs of a pure-Vector L0 file.
#include "vf_backend.h"

#include "../ast_util.h"
#include "../name_scope.h"
#include "api_rules.h"

#include "opdev/pyfront/printer.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <map>
#include <set>

namespace opdev::codegen::vector_vf {
namespace {

constexpr const char* kSection1 = "§1";

bool IsNoneLayout(const std::string& l) {
  return l.empty() || l == "—" || l == "-" || l == "–" || l == "n/a" || l == "N/A" ||
         l == "无" || l == "None";
}

std::string ShapeDim(std::int64_t v, const GenContext& ctx) {
  std::vector<std::string> names = ctx.LiteralConstantsEqualTo(v);
  if (names.size() == 1) return names.front();
  return std::to_string(v);
}

// ---- tile types ------------------------------------------------------------------------

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
  if (!IsNoneLayout(chosen->layout)) text += ", layout=pl." + chosen->layout;
  text += ")\n";
  py::StmtPtr s = ParseOneStmt(text);
  if (!s)
    ctx.Violation("CODEGEN-TILE-ATTR", chosen->line, "§2",
                  "§2 Tile 属性表 layout cannot be written as a pl.* layout", chosen->layout);
  return s;
}

// ---- legacy spellings -------------------------------------------------------------------

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

// ---- VF rules ---------------------------------------------------------------------------

void CheckVfBody(const CodeRegion& vf, GenContext& ctx) {
  ForEachCallIn(vf.ast.body, [&](const py::Expr& call) {
    const std::string name = py::CallName(call);
    if (IsMteOp(name)) {
      ctx.Violation("CODEGEN-MTE-IN-VF", call.span.line, kSection1,
                    absl::StrFormat("%s is an MTE operation and cannot run inside the "
                                    "@pl.vector_function %s (move it to the kernel)",
                                    name, vf.name));
    } else if (name.rfind("pl.", 0) == 0 && !IsAllowedPlInVf(name)) {
      ctx.Violation("CODEGEN-PL-IN-VF", call.span.line, kSection1,
                    absl::StrFormat("%s is not allowed inside the @pl.vector_function %s (only "
                                    "vf.* plus pl.range/pl.min/pl.max)",
                                    name, vf.name));
    }
  });
  ForEachStmt(vf.ast.body, [&](const py::Stmt& s) {
    if (s.Is(py::StmtKind::kReturn) && s.value)
      ctx.Violation("CODEGEN-VF-RETURN", s.span.line, kSection1,
                    absl::StrFormat("@pl.vector_function %s returns a value: registers die when "
                                    "a VF returns, state must pass through UB tiles",
                                    vf.name));
    if (s.Is(py::StmtKind::kWith))
      ctx.Violation("CODEGEN-SECTION-IN-VF", s.span.line, kSection1,
                    absl::StrFormat("a with-section inside the @pl.vector_function %s", vf.name));
    if (s.Is(py::StmtKind::kIf))
      ctx.Warn("CODEGEN-VF-BRANCH", s.span.line, kSection1,
               absl::StrFormat("`if` inside the @pl.vector_function %s executes both arms "
                               "predicated (transcribed as written)",
                               vf.name));
  });
}

// Free names of a VF body that are tiles: they appear inside the first argument of a
// vf.load*/vf.store* call.
std::set<std::string> VfTileNames(const CodeRegion& vf) {
  std::set<std::string> out;
  ForEachCallIn(vf.ast.body, [&](const py::Expr& call) {
    std::string n = py::CallName(call);
    if (n.rfind("vf.load", 0) != 0 && n.rfind("vf.store", 0) != 0) return;
    if (call.args.empty()) return;
    struct V : py::AstVisitor {
      std::set<std::string>* out;
      bool EnterExpr(const py::Expr& e) override {
        if (e.Is(py::ExprKind::kName)) out->insert(e.id);
        return true;
      }
    } v;
    v.out = &out;
    // store_align(dst, reg, mask): the destination is the first argument.
    py::Walk(*call.args[0], v);
  });
  return out;
}

// Kernel names bound to a tile: group cursors, group indexing, make_tile.
std::set<std::string> KernelTileNames(const std::vector<py::StmtPtr>& body) {
  std::set<std::string> groups, out;
  for (const auto& a : CallAssignments(body)) {
    std::string n = py::CallName(*a.call);
    if (n == "pl.make_tile_group") groups.insert(a.name);
    if (n == "pl.make_tile") out.insert(a.name);
  }
  ForEachStmt(body, [&](const py::Stmt& s) {
    if (!s.Is(py::StmtKind::kAssign) || s.targets.size() != 1 ||
        !s.targets[0]->Is(py::ExprKind::kName) || !s.value)
      return;
    const py::Expr& v = *s.value;
    if (v.Is(py::ExprKind::kCall) && v.func && v.func->Is(py::ExprKind::kAttribute) &&
        v.func->value_expr && v.func->value_expr->Is(py::ExprKind::kName) &&
        groups.count(v.func->value_expr->id) &&
        (v.func->id == "next" || v.func->id == "current" || v.func->id == "previous"))
      out.insert(s.targets[0]->id);
    if (v.Is(py::ExprKind::kSubscript) && v.value_expr &&
        v.value_expr->Is(py::ExprKind::kName) && groups.count(v.value_expr->id))
      out.insert(s.targets[0]->id);
  });
  for (const auto& g : groups) out.insert(g);
  return out;
}

int TokenScore(const std::string& a, const std::string& b) {
  if (a == b) return 100;
  static const std::set<std::string> kStop = {"tile", "slot", "n", "num", "valid", "reg", "t",
                                              "buf", "ub", "cnt", "count"};
  int score = 0;
  auto ta = NameTokens(a), tb = NameTokens(b);
  for (const auto& x : ta)
    if (!kStop.count(x) && std::find(tb.begin(), tb.end(), x) != tb.end()) ++score;
  return score;
}

// Matches the VF's free names (params) to the call's arguments; returns the params in call
// order, or an explanation of why they cannot be matched.
std::optional<std::vector<std::string>> MatchParams(const std::vector<std::string>& params,
                                                    const std::set<std::string>& vf_tiles,
                                                    const std::vector<std::string>& args,
                                                    const std::set<std::string>& kernel_tiles,
                                                    std::string* why) {
  if (params.size() != args.size()) {
    *why = absl::StrFormat("the call passes %d argument(s) but the VF body reads %d free "
                           "name(s) (%s)",
                           args.size(), params.size(), absl::StrJoin(params, ", "));
    return std::nullopt;
  }
  std::vector<std::string> ordered(args.size());
  for (bool tiles : {true, false}) {
    std::vector<std::string> ps, as;
    std::vector<size_t> positions;
    for (const auto& p : params)
      if (vf_tiles.count(p) == (tiles ? 1u : 0u)) ps.push_back(p);
    for (size_t i = 0; i < args.size(); ++i)
      if (kernel_tiles.count(args[i]) == (tiles ? 1u : 0u)) {
        as.push_back(args[i]);
        positions.push_back(i);
      }
    const char* kind = tiles ? "tile" : "scalar";
    if (ps.size() != as.size()) {
      *why = absl::StrFormat("the VF reads %d %s name(s) (%s) but the call passes %d %s "
                             "argument(s) (%s)",
                             ps.size(), kind, absl::StrJoin(ps, ", "), as.size(), kind,
                             absl::StrJoin(as, ", "));
      return std::nullopt;
    }
    if (ps.size() == 1) {
      ordered[positions[0]] = ps[0];
      continue;
    }
    // Mutual unique best match on name tokens.
    for (size_t i = 0; i < ps.size(); ++i) {
      int best = 0, best_j = -1, ties = 0;
      for (size_t j = 0; j < as.size(); ++j) {
        int s = TokenScore(ps[i], as[j]);
        if (s > best) {
          best = s;
          best_j = static_cast<int>(j);
          ties = 0;
        } else if (s == best && s > 0) {
          ++ties;
        }
      }
      if (best == 0 || ties > 0) {
        *why = absl::StrFormat("VF %s name %s matches no single call argument among (%s)", kind,
                               ps[i], absl::StrJoin(as, ", "));
        return std::nullopt;
      }
      for (size_t k = 0; k < ps.size(); ++k)
        if (k != i && TokenScore(ps[k], as[best_j]) >= best) {
          *why = absl::StrFormat("call argument %s matches both %s and %s", as[best_j], ps[i],
                                 ps[k]);
          return std::nullopt;
        }
      if (!ordered[positions[best_j]].empty()) {
        *why = absl::StrFormat("call argument %s matches more than one VF name", as[best_j]);
        return std::nullopt;
      }
      ordered[positions[best_j]] = ps[i];
    }
  }
  return ordered;
}

std::string TensorAnnotation(const SpecTensor& t, const GenContext& ctx) {
  std::vector<std::string> dims;
  for (const auto& d : t.shape) {
    bool numeric = !d.empty() && std::all_of(d.begin(), d.end(), ::isdigit);
    dims.push_back(numeric && !ctx.spec->dynamic_axes.count(d) ? d : "pl.DYNAMIC");
  }
  return absl::StrFormat("pl.Tensor[[%s], pl.%s]", absl::StrJoin(dims, ", "),
                         std::string(DTypePlName(*t.dtype)));
}

const SpecTensor* FindSpecTensor(const SpecContract& spec, const std::string& name) {
  for (const auto& t : spec.inputs)
    if (t.name == name) return &t;
  for (const auto& t : spec.outputs)
    if (t.name == name) return &t;
  return nullptr;
}

// set_validshape must precede the load of the same slot (§7).
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

}  // namespace

std::optional<KernelDefs> BuildKernelDefs(DesignCode& code, GenContext& ctx) {
  const size_t errors_before = ctx.diags->ErrorCount();
  KernelDefs out;
  CodeRegion* kernel = nullptr;
  std::vector<CodeRegion*> vfs;
  for (auto& r : code.regions) {
    if (r.kind == RegionKind::kKernel) kernel = &r;
    if (r.kind == RegionKind::kVectorFunction) vfs.push_back(&r);
  }
  if (!kernel) return std::nullopt;

  // Kernel name and parameters from the §5 launch contract (and a def when §1 gave one).
  if (!ctx.launch) {
    ctx.Violation("CODEGEN-LAUNCH-MISSING",
                  ctx.design->FindSection(5) ? ctx.design->FindSection(5)->line : 0, "§5",
                  "§5 gives no launch contract `<kernel>[None, block_dim](args)`: the kernel "
                  "name and arguments are undetermined");
    return std::nullopt;
  }
  out.kernel_name = ctx.launch->kernel;
  if (kernel->from_def && kernel->name != ctx.launch->kernel)
    ctx.Violation("CODEGEN-LAUNCH-MISMATCH", kernel->line, kSection1,
                  absl::StrFormat("§1 defines kernel %s but §5 launches %s", kernel->name,
                                  ctx.launch->kernel));
  if (kernel->from_def && kernel->params != ctx.launch->args)
    ctx.Violation("CODEGEN-LAUNCH-MISMATCH", kernel->line, kSection1,
                  absl::StrFormat("§1 kernel parameters (%s) differ from the §5 launch "
                                  "arguments (%s)",
                                  absl::StrJoin(kernel->params, ", "),
                                  absl::StrJoin(ctx.launch->args, ", ")));
  std::vector<std::string> param_decls;
  for (const auto& a : ctx.launch->args) {
    const SpecTensor* t = FindSpecTensor(*ctx.spec, a);
    if (!t) {
      ctx.Violation("CODEGEN-LAUNCH-ARG", ctx.launch->line, "§5",
                    absl::StrFormat("launch argument %s is neither a SPEC input nor a SPEC "
                                    "output",
                                    a));
      continue;
    }
    param_decls.push_back(a + ": " + TensorAnnotation(*t, ctx));
  }

  // Pure vector only.
  ForEachCallIn(kernel->ast.body, [&](const py::Expr& c) {
    std::string n = py::CallName(c);
    if (n == "pl.section_cube")
      ctx.Violation("CODEGEN-NOT-PURE-VECTOR", c.span.line, kSection1,
                    "the Vector VF backend generates pure-Vector kernels; this kernel has a "
                    "Cube section");
    if (n == "pl.section_vf")
      ctx.Violation("CODEGEN-LEGACY-SECTION-VF", c.span.line, kSection1,
                    "legacy `with pl.section_vf():` block: the target API needs a "
                    "@pl.vector_function, which changes the code's structure; write the VF "
                    "function in DESIGN §1");
  });

  RewriteLegacy(kernel->ast.body, ctx);
  for (CodeRegion* vf : vfs) RewriteLegacy(vf->ast.body, ctx);

  // Names visible everywhere.
  std::set<std::string> globals = PythonBuiltins();
  globals.insert({"pl", "vf"});
  for (const auto& n : ctx.constant_names) globals.insert(n);
  for (CodeRegion* vf : vfs) globals.insert(vf->name);
  globals.insert(out.kernel_name);

  // Kernel names: undefined names, except tile types completed from §2.
  std::set<std::string> params(ctx.launch->args.begin(), ctx.launch->args.end());
  auto type_uses = TileTypeUses(kernel->ast.body);
  NameScope ks = AnalyzeNames(kernel->ast.body, globals, params);
  std::vector<py::StmtPtr> type_decls;
  bool dynamic_valid = false;
  ForEachCallIn(kernel->ast.body, [&](const py::Expr& c) {
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

  // Multi-core split and validshape order.
  bool has_core_loop = false, has_block_idx = false;
  ForEachCallIn(kernel->ast.body, [&](const py::Expr& c) {
    std::string n = py::CallName(c);
    if (n == "pl.get_block_idx") has_block_idx = true;
  });
  ForEachStmt(kernel->ast.body, [&](const py::Stmt& s) {
    if (s.Is(py::StmtKind::kFor) && s.iter && s.iter->Is(py::ExprKind::kCall) &&
        py::CallName(*s.iter) == "pl.range" && s.iter->args.size() == 3)
      has_core_loop = true;
  });
  if (!has_core_loop || !has_block_idx)
    ctx.Violation("CODEGEN-NO-CORE-LOOP", kernel->line, "§4",
                  "the kernel code has no multi-core strided loop `for t in pl.range(core_id, "
                  "total, num_cores)` over pl.get_block_idx() (§4/§5 core split)");
  CheckValidShapeOrder(kernel->ast.body, ctx);

  // VF functions: parameters from the call site.
  const std::set<std::string> kernel_tiles = KernelTileNames(kernel->ast.body);
  std::vector<std::vector<std::string>> vf_param_lists;
  for (CodeRegion* vf : vfs) {
    CheckVfBody(*vf, ctx);
    std::set<std::string> vf_globals = globals;
    std::set<std::string> vf_params(vf->params.begin(), vf->params.end());
    NameScope vs = AnalyzeNames(vf->ast.body, vf_globals, vf_params);
    for (const NameUse& u : vs.loop_escapes)
      ctx.Warn("CODEGEN-LOOP-SCOPED-NAME", u.line, kSection1,
               absl::StrFormat("`%s` is read in %s after the loop that assigns it (line %d) has "
                               "ended; it carries that loop's last value (transcribed as written)",
                               u.name, vf->name, u.def_line));
    std::vector<const py::Expr*> calls;
    ForEachCallIn(kernel->ast.body, [&](const py::Expr& c) {
      if (c.func && c.func->Is(py::ExprKind::kName) && c.func->id == vf->name)
        calls.push_back(&c);
    });
    if (calls.empty()) {
      ctx.Violation("CODEGEN-VF-UNCALLED", vf->line, kSection1,
                    absl::StrFormat("@pl.vector_function %s is never called from the kernel, so "
                                    "its parameters cannot be matched to a call site",
                                    vf->name));
      vf_param_lists.push_back({});
      continue;
    }
    std::vector<std::string> ordered;
    if (vf->from_def) {
      for (const NameUse& u : vs.free)
        ctx.Violation("CODEGEN-UNDEFINED-NAME", u.line, kSection1,
                      absl::StrFormat("`%s` is read in %s but never defined", u.name, vf->name));
      ordered = vf->params;
      for (const py::Expr* c : calls)
        if (c->args.size() != vf->params.size() || !c->keywords.empty())
          ctx.Violation("CODEGEN-VF-CALL-MISMATCH", c->span.line, kSection1,
                        absl::StrFormat("%s takes %d parameter(s) but this call passes %d",
                                        vf->name, vf->params.size(), c->args.size()));
    } else {
      std::vector<std::string> free;
      for (const NameUse& u : vs.free) free.push_back(u.name);
      const std::set<std::string> vf_tiles = VfTileNames(*vf);
      for (const py::Expr* c : calls) {
        std::vector<std::string> args;
        bool simple = c->keywords.empty();
        for (const auto& a : c->args) {
          if (!a->Is(py::ExprKind::kName)) simple = false;
          args.push_back(a->Is(py::ExprKind::kName) ? a->id : py::PrintExpr(*a));
        }
        std::string why;
        std::optional<std::vector<std::string>> m;
        if (!simple)
          why = "the call passes an expression or keyword argument; only plain names can be "
                "matched to the VF body's free names";
        else
          m = MatchParams(free, vf_tiles, args, kernel_tiles, &why);
        if (!m) {
          ctx.Violation("CODEGEN-VF-CALL-MISMATCH", c->span.line, kSection1,
                        absl::StrFormat("the parameters of @pl.vector_function %s cannot be "
                                        "matched to this call: %s",
                                        vf->name, why));
          continue;
        }
        if (ordered.empty())
          ordered = *m;
        else if (ordered != *m)
          ctx.Violation("CODEGEN-VF-CALL-MISMATCH", c->span.line, kSection1,
                        absl::StrFormat("calls of %s match its free names in different orders "
                                        "(%s vs %s)",
                                        vf->name, absl::StrJoin(ordered, ", "),
                                        absl::StrJoin(*m, ", ")));
      }
      for (const auto& p : ordered) {
        (void)p;
      }
      vf->params = ordered;
      vf->param_annotations.assign(ordered.size(), "");
      for (size_t i = 0; i < ordered.size(); ++i)
        if (!vf_tiles.count(ordered[i])) vf->param_annotations[i] = "pl.DT_INT64";
    }
    vf_param_lists.push_back(ordered);
  }

  if (ctx.diags->ErrorCount() > errors_before) return std::nullopt;

  // Assemble the defs.
  for (CodeRegion* vf : vfs) {
    std::vector<std::string> ps;
    for (size_t i = 0; i < vf->params.size(); ++i)
      ps.push_back(vf->param_annotations.size() > i && !vf->param_annotations[i].empty()
                       ? vf->params[i] + ": " + vf->param_annotations[i]
                       : vf->params[i]);
    std::string decorator = vf->decorator.empty() ? "pl.vector_function" : vf->decorator;
    py::StmtPtr def = ParseOneStmt(absl::StrFormat("@%s\ndef %s(%s):\n    pass\n", decorator,
                                                   vf->name, absl::StrJoin(ps, ", ")));
    if (!def) {
      ctx.Violation("CODEGEN-VF-SIGNATURE", vf->line, kSection1,
                    "the VF signature cannot be written as Python", absl::StrJoin(ps, ", "));
      return std::nullopt;
    }
    def->body = std::move(vf->ast.body);
    out.vf_names.push_back(vf->name);
    out.vector_functions.push_back(std::move(def));
  }
  std::string decorator = kernel->decorator.empty() ? "pl.jit(auto_mutex=True)" : kernel->decorator;
  py::StmtPtr def = ParseOneStmt(absl::StrFormat("@%s\ndef %s(%s):\n    pass\n", decorator,
                                                 out.kernel_name,
                                                 absl::StrJoin(param_decls, ", ")));
  if (!def) {
    ctx.Violation("CODEGEN-KERNEL-SIGNATURE", kernel->line, kSection1,
                  "the kernel signature cannot be written as Python",
                  absl::StrJoin(param_decls, ", "));
    return std::nullopt;
  }
  // Tile type declarations go before the first statement that uses them.
  std::vector<py::StmtPtr> body;
  std::set<std::string> pending;
  for (const auto& d : type_decls) pending.insert(d->targets[0]->id);
  for (auto& s : kernel->ast.body) {
    if (!type_decls.empty()) {
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
      for (auto& d : type_decls)
        if (d && used.count(d->targets[0]->id)) body.push_back(std::move(d));
      type_decls.erase(std::remove(type_decls.begin(), type_decls.end(), nullptr),
                       type_decls.end());
    }
    body.push_back(std::move(s));
  }
  def->body = std::move(body);
  out.kernel = std::move(def);
  return out;
}

}  // namespace opdev::codegen::vector_vf
