// Kernel signature, backend selection and kernel assembly (see composer.h).
#include "composer.h"

#include "ast_util.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <algorithm>

namespace opdev::codegen {
namespace {

std::string TensorAnnotation(const SpecTensor& t, const GenContext& ctx) {
  std::vector<std::string> dims;
  for (const auto& d : t.shape) {
    bool numeric = !d.empty() && std::all_of(d.begin(), d.end(), ::isdigit);
    dims.push_back(numeric && !ctx.spec->dynamic_axes.count(d) ? d : "pl.DYNAMIC");
  }
  return absl::StrFormat("pl.Tensor[[%s], pl.%s]", absl::StrJoin(dims, ", "),
                         std::string(DTypePlName(*t.dtype)));
}

bool IsCubeSection(const std::string& s) { return s.find("cube") != std::string::npos; }
bool IsVectorSection(const std::string& s) { return s.find("vector") != std::string::npos; }

}  // namespace

std::unique_ptr<Backend> SelectBackend(GenContext& ctx) {
  bool vector = false, cube = false;
  for (const auto& m : ctx.design->Modules()) {
    if (IsCubeSection(m.section)) {
      cube = true;
    } else if (IsVectorSection(m.section)) {
      vector = true;
    } else {
      ctx.Violation("CODEGEN-MODULE-SECTION", m.line, "§0",
                    absl::StrFormat("%s has section `%s`; a Module runs in section_vector or "
                                    "section_cube",
                                    m.name, m.section));
      return nullptr;
    }
  }
  if (vector && cube) {
    const auto mods = ctx.design->Modules();
    ctx.diags->Error("CODEGEN-MODE-UNSUPPORTED", category::kCapabilityGap, ctx.file(),
                     mods.front().line,
                     "DESIGN §0 has both section_vector and section_cube Modules: a Vector/Cube "
                     "fusion is generated Module by Module in L1 rounds (--module-k), not as an L0 "
                     "file")
        .section = "§0";
    return nullptr;
  }
  if (cube) return MakeCubeMatmulBackend();
  return MakeVectorVfBackend();
}

std::optional<KernelSignature> ReadKernelSignature(const CodeRegion* kernel, GenContext& ctx) {
  if (!ctx.launch) {
    ctx.Violation("CODEGEN-LAUNCH-MISSING",
                  ctx.design->FindSection(5) ? ctx.design->FindSection(5)->line : 0, "§5",
                  "§5 gives no launch contract `<kernel>[None, block_dim](args)`: the kernel "
                  "name and arguments are undetermined");
    return std::nullopt;
  }
  KernelSignature sig;
  sig.name = ctx.launch->kernel;
  sig.params = ctx.launch->args;
  if (kernel && kernel->from_def && kernel->name != ctx.launch->kernel)
    ctx.Violation("CODEGEN-LAUNCH-MISMATCH", kernel->line, "§1",
                  absl::StrFormat("§1 defines kernel %s but §5 launches %s", kernel->name,
                                  ctx.launch->kernel));
  if (kernel && kernel->from_def && kernel->params != ctx.launch->args)
    ctx.Violation("CODEGEN-LAUNCH-MISMATCH", kernel->line, "§1",
                  absl::StrFormat("§1 kernel parameters (%s) differ from the §5 launch "
                                  "arguments (%s)",
                                  absl::StrJoin(kernel->params, ", "),
                                  absl::StrJoin(ctx.launch->args, ", ")));
  for (const auto& a : ctx.launch->args) {
    const SpecTensor* t = ctx.FindTensor(a);
    if (!t) {
      ctx.Violation("CODEGEN-LAUNCH-ARG", ctx.launch->line, "§5",
                    absl::StrFormat("launch argument %s is neither a SPEC input nor a SPEC "
                                    "output%s",
                                    a, ctx.workspaces.empty() ? ""
                                                              : " nor a Module output of "
                                                                "module_interfaces.yaml"));
      continue;
    }
    sig.param_decls.push_back(a + ": " + TensorAnnotation(*t, ctx));
  }
  return sig;
}

std::optional<ComposedKernel> ComposeKernel(const KernelSignature& sig,
                                            std::vector<ModuleCode> modules, GenContext& ctx) {
  ComposedKernel out;
  out.kernel_name = sig.name;
  if (modules.empty()) return std::nullopt;
  std::string decorator;
  const CodeRegion* first_region = modules.front().kernel_region;
  bool any_cube = false;
  for (const ModuleCode& m : modules) {
    if (!m.kernel_decorator.empty()) {
      if (!decorator.empty() && decorator != m.kernel_decorator) {
        ctx.Violation("CODEGEN-DECORATOR-CONFLICT", m.kernel_region ? m.kernel_region->line : 0,
                      "§1",
                      absl::StrFormat("Module %d's kernel code asks for @%s but an earlier Module "
                                      "for @%s: one kernel has one decorator",
                                      m.module, m.kernel_decorator, decorator));
        return std::nullopt;
      }
      decorator = m.kernel_decorator;
    }
    if (m.launch.cores == CoreKind::kCube) any_cube = true;
  }
  out.launch.cores = any_cube ? CoreKind::kCube : CoreKind::kVector;
  if (modules.size() == 1) {
    out.kind_text = modules.front().kind_text;
    out.provenance = modules.front().provenance;
  } else {
    out.kind_text = any_cube ? "Vector/Cube fusion" : "pure Vector";
    out.provenance = modules.front().provenance;
  }
  if (decorator.empty()) decorator = "pl.jit(auto_mutex=True)";
  py::StmtPtr def = ParseOneStmt(absl::StrFormat("@%s\ndef %s(%s):\n    pass\n", decorator,
                                                 sig.name, absl::StrJoin(sig.param_decls, ", ")));
  if (!def) {
    ctx.Violation("CODEGEN-KERNEL-SIGNATURE", first_region ? first_region->line : 0, "§1",
                  "the kernel signature cannot be written as Python",
                  absl::StrJoin(sig.param_decls, ", "));
    return std::nullopt;
  }
  def->body.clear();
  for (ModuleCode& m : modules) {
    for (auto& f : m.functions) out.functions.push_back(std::move(f));
    for (auto& n : m.function_names) out.function_names.push_back(n);
    for (auto& s : m.body) def->body.push_back(std::move(s));
    for (auto& w : m.wrapper_checks) out.wrapper_checks.push_back(std::move(w));
  }
  out.kernel = std::move(def);
  return out;
}

}  // namespace opdev::codegen
