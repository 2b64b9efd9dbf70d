// The Cube matmul backend: §1 Cube code transcribed, or the dynamic matmul structure built.
#include "cube_backend.h"

#include "../ast_util.h"
#include "../transcribe.h"
#include "cube_rules.h"
#include "matmul_plan.h"
#include "matmul_skeleton.h"

#include "absl/strings/str_format.h"

namespace opdev::codegen::cube_matmul {
namespace {

class CubeMatmulBackend : public Backend {
 public:
  std::string_view Name() const override { return "cube_matmul"; }

  bool PrepareRegions(DesignCode& code, GenContext& ctx) override {
    if (code.Kernel()) return true;
    MatmulPlan plan;
    switch (ReadMatmulPlan(ctx, &plan)) {
      case PlanOutcome::kNone:
        ctx.diags
            ->Error("CODEGEN-NO-KERNEL-CODE", category::kDesignViolation, ctx.file(),
                    ctx.design->FindSection(1) ? ctx.design->FindSection(1)->line : 0,
                    "DESIGN §1 of this Cube Module gives no kernel code (no `# ... @pl.jit ...` "
                    "region and no @pl.jit def) and no `cube_matmul:` block freezing the API "
                    "sequence and (TM, TK1, TK0, TN): nothing to generate")
            .section = "§1";
        return false;
      case PlanOutcome::kFailed: return false;
      case PlanOutcome::kPlanned: break;
    }
    if (!BuildMatmulSkeleton(plan, code, ctx)) return false;
    plan_ = std::move(plan);
    return true;
  }

  std::optional<ModuleCode> BuildModule(DesignCode& code, const KernelSignature& sig,
                                        GenContext& ctx) override {
    const size_t errors_before = ctx.diags->ErrorCount();
    ModuleCode out;
    out.backend = "cube_matmul";
    out.launch.cores = CoreKind::kCube;
    out.kind_text = "pure Cube";
    out.provenance =
        plan_ ? "the module constants are DESIGN §2.1 verbatim, the kernel is the dynamic\n"
                "two-level-K matmul structure built from the API sequence and (TM, TK1, TK0,\n"
                "TN) DESIGN §1 freezes, with tiles, addresses and mutex ids from the §2/§3\n"
                "tables, the wrapper\n"
              : "the module constants are DESIGN §2.1 verbatim, the kernel is DESIGN §1\n"
                "transcribed with declarations completed from the §2/§3 tables, the wrapper\n";
    CodeRegion* kernel = nullptr;
    for (auto& r : code.regions) {
      if (r.kind == RegionKind::kKernel) kernel = &r;
      if (r.kind == RegionKind::kVectorFunction)
        ctx.Violation("CODEGEN-NOT-PURE-CUBE", r.line, "§1",
                      absl::StrFormat("@pl.vector_function %s in a pure-Cube Module: Vector code "
                                      "belongs to a section_vector Module",
                                      r.name));
    }
    if (!kernel) return std::nullopt;
    out.kernel_region = kernel;
    ForEachCallIn(kernel->ast.body, [&](const py::Expr& c) {
      if (py::CallName(c) == "pl.section_vf")
        ctx.Violation("CODEGEN-LEGACY-SECTION-VF", c.span.line, "§1",
                      "legacy `with pl.section_vf():` block in a Cube Module");
    });
    RewriteLegacy(kernel->ast.body, ctx);
    const std::set<std::string> globals = GlobalNames(ctx, {sig.name});
    const std::set<std::string> params(sig.params.begin(), sig.params.end());
    std::vector<py::StmtPtr> type_decls = ResolveKernelNames(*kernel, globals, params, ctx);
    CheckCubeKernel(*kernel, ctx);
    CheckValidShapeOrder(kernel->ast.body, ctx);
    if (ctx.diags->ErrorCount() > errors_before) return std::nullopt;
    if (plan_ && plan_->asw) {
      WrapperCheck w;
      w.count = absl::StrFormat("ceil(%s / %s)", plan_->m_sym, plan_->tm.name);
      w.multiple_of = plan_->window.name;
      w.message = absl::StrFormat("the ASW tile order needs ceil(%s / %s) to be a multiple of %s",
                                  plan_->m_sym, plan_->tm.name, plan_->window.name);
      out.wrapper_checks.push_back(std::move(w));
    }
    if (plan_ && plan_->k_multiple.value > 0) {
      WrapperCheck w;
      w.count = plan_->k_sym;
      w.multiple_of = plan_->k_multiple.name;
      w.message = absl::StrFormat("%s must be a multiple of %s (DESIGN §1 k_multiple)",
                                  plan_->k_sym, plan_->k_multiple.name);
      out.wrapper_checks.push_back(std::move(w));
    }
    out.kernel_decorator = kernel->decorator;
    out.body = InsertBeforeFirstUse(std::move(kernel->ast.body), std::move(type_decls));
    return out;
  }

 private:
  std::optional<MatmulPlan> plan_;
};

}  // namespace
}  // namespace opdev::codegen::cube_matmul

namespace opdev::codegen {
std::unique_ptr<Backend> MakeCubeMatmulBackend() {
  return std::make_unique<cube_matmul::CubeMatmulBackend>();
}
}  // namespace opdev::codegen
