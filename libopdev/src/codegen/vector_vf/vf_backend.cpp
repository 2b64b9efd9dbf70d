// The Vector VF backend: DESIGN §1 kernel and VF code (or the pattern skeleton built from the
// vector_selection chains) transcribed into the code of a section_vector Module.
#include "vf_backend.h"

#include "../ast_util.h"
#include "../name_scope.h"
#include "../transcribe.h"
#include "api_rules.h"
#include "pattern_skeleton.h"

#include "opdev/pyfront/printer.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <map>
#include <set>

namespace opdev::codegen::vector_vf {
namespace {

constexpr const char* kSection1 = "§1";

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

}  // namespace

class VectorVfBackend : public Backend {
 public:
  std::string_view Name() const override { return "vector_vf"; }
  bool PrepareRegions(DesignCode& code, GenContext& ctx) override;
  std::optional<ModuleCode> BuildModule(DesignCode& code, const KernelSignature& sig,
                                        GenContext& ctx) override;
};

bool VectorVfBackend::PrepareRegions(DesignCode& code, GenContext& ctx) {
  if (code.Kernel()) return true;
  // §1 gives only an API chain: the pure-vec pattern skeleton builds the regions.
  switch (BuildPatternSkeleton(code, ctx)) {
    case SkeletonOutcome::kBuilt: return true;
    case SkeletonOutcome::kNoChain: ReportNoKernelCode(*ctx.design, ctx.diags); return false;
    case SkeletonOutcome::kFailed: return false;
  }
  return false;
}

std::optional<ModuleCode> VectorVfBackend::BuildModule(DesignCode& code,
                                                       const KernelSignature& sig,
                                                       GenContext& ctx) {
  const size_t errors_before = ctx.diags->ErrorCount();
  ModuleCode out;
  out.backend = "vector_vf";
  out.launch.cores = CoreKind::kVector;
  out.kind_text = "pure Vector";
  out.provenance =
      "the module constants are DESIGN §2.1 verbatim, the kernel and vector functions are\n"
      "DESIGN §1 transcribed with declarations completed from the §2/§3 tables, the wrapper\n";
  CodeRegion* kernel = nullptr;
  std::vector<CodeRegion*> vfs;
  for (auto& r : code.regions) {
    if (r.kind == RegionKind::kKernel) kernel = &r;
    if (r.kind == RegionKind::kVectorFunction) vfs.push_back(&r);
  }
  if (!kernel) return std::nullopt;
  out.kernel_region = kernel;

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
  std::vector<std::string> extra;
  for (CodeRegion* vf : vfs) extra.push_back(vf->name);
  extra.push_back(sig.name);
  const std::set<std::string> globals = GlobalNames(ctx, extra);

  // Kernel names: undefined names, except tile types completed from §2.
  std::set<std::string> params(sig.params.begin(), sig.params.end());
  std::vector<py::StmtPtr> type_decls = ResolveKernelNames(*kernel, globals, params, ctx);

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
    out.function_names.push_back(vf->name);
    out.functions.push_back(std::move(def));
  }
  out.kernel_decorator = kernel->decorator;
  out.body = InsertBeforeFirstUse(std::move(kernel->ast.body), std::move(type_decls));
  return out;
}

}  // namespace opdev::codegen::vector_vf

namespace opdev::codegen {
std::unique_ptr<Backend> MakeVectorVfBackend() {
  return std::make_unique<vector_vf::VectorVfBackend>();
}
}  // namespace opdev::codegen
