// The L1 finalize round: cleanup, or the rebuild after a failed cleanup, or the verifier
// retry's repair of the final file (see finalize.h).
#include "finalize.h"

#include "cleanup.h"

#include "opdev/budget/kernel_budget.h"
#include "opdev/plan/naming.h"
#include "opdev/pyfront/parser.h"
#include "opdev/pyfront/printer.h"
#include "opdev/support/file_io.h"

#include "absl/strings/str_format.h"

#include <boost/filesystem.hpp>

namespace opdev::codegen {
namespace {

namespace fs = boost::filesystem;

void Note(Diagnostics& d, const std::string& code, const std::string& file,
          const std::string& msg) {
  d.Add(Diagnostic{code, Severity::kNote, std::string(category::kImplementationError), file, 0, 0,
                   "", msg, ""});
}

// The printed @pl.jit def of `text` ("" when there is none or it does not parse).
std::string KernelText(const std::string& text, const std::string& file) {
  Diagnostics d;
  auto m = py::ParseModule(text, file, &d);
  if (!m.ok()) return "";
  for (const auto& def : py::TopLevelDefs(*m))
    if (def.HasDecorator("pl.jit")) return py::PrintStmt(*def.stmt);
  return "";
}

// Proofread, arity guard and the file record of a final text. False (findings in `out`) when
// it is not deliverable.
bool Finish(const std::string& content, const FinalizeContext& fc,
            const std::optional<ReturnShape>& golden, GeneratedFile* file, Diagnostics* out) {
  const plan::RoundPlan& plan = *fc.plan;
  const std::string& rel = plan.product.rel;
  const size_t before = out->ErrorCount();
  ProofreadFinal(content, plan.op, rel, out);
  Diagnostics parse;
  auto mod = py::ParseModule(content, rel, &parse);
  if (mod.ok() && golden)
    CheckGoldenArity(*golden, GoldenBindings(*mod, plan.op + "_golden_cpu"),
                     plan.op + "_golden_cpu", rel, category::kImplementationError, out,
                     GoldenReturnShape(*mod, plan.wrapper));
  if (!mod.ok() || out->ErrorCount() > before) return false;
  GeneratedFile f;
  f.rel = rel;
  f.path = plan.product.path;
  f.content = content;
  f.op = plan.op;
  f.wrapper = plan.wrapper;
  for (const auto& d : py::TopLevelDefs(*mod)) {
    if (d.HasDecorator("pl.jit")) f.kernel = d.name;
    if (d.HasDecorator("pl.vector_function")) f.vector_functions.push_back(d.name);
    if (d.name.rfind("test_", 0) == 0) f.tests.push_back(d.name);
  }
  Diagnostics bd;
  budget::SlotModel slots = budget::SlotsFromKernel(*mod, rel, fc.target, &bd);
  f.budget = budget::CheckBudget(slots);
  *file = std::move(f);
  return true;
}

}  // namespace

GenerateResult FinalizeRound(FinalizeContext& fc) {
  GenerateResult result;
  Diagnostics& diags = result.diagnostics;
  const plan::RoundPlan& plan = *fc.plan;
  diags.Append(fc.plan_diags);
  if (diags.HasErrors()) return result;
  const std::string& op = plan.op;
  const std::string suffix = plan::ModuleSuffix(plan.module_count);
  const std::string staged_rel = plan::StagedFile(op, plan.module_count);
  const std::string staged_path = (fs::path(fc.op_dir) / staged_rel).string();
  const std::string golden_fn = op + "_golden_cpu";

  // What the CPU golden returns (nullopt: not statically knowable, the guard stays silent).
  std::optional<ReturnShape> golden;
  if (auto g = ReadTextFile((fs::path(fc.op_dir) / (golden_fn + ".py")).string()); g.ok()) {
    Diagnostics gd;
    if (auto gm = py::ParseModule(*g, golden_fn + ".py", &gd); gm.ok())
      golden = GoldenReturnShape(*gm, golden_fn);
  }

  auto read = [&](const std::string& path, const std::string& what) -> std::optional<std::string> {
    auto t = ReadTextFile(path);
    if (!t.ok()) {
      diags.Error("CLEANUP-INPUT", category::kMissingFile, path, 0,
                  what + " cannot be read: " + std::string(t.status().message()));
      return std::nullopt;
    }
    return *t;
  };

  GeneratedFile file;
  if (plan.mode == plan::Mode::kL1FinalizeRetry) {
    auto text = read(plan.product.path, "the final file the verifier sent back");
    if (!text) return result;
    const std::string fixed = CleanupStagedText(*text, op, suffix, staged_rel);
    if (!Finish(fixed, fc, golden, &file, &diags)) return result;
    Note(diags, "CLEANUP-RETRY", plan.product.rel,
         fixed == *text ? "verifier retry: the final file needs no delivery fix; no Module "
                          "reopened, no staged file changed, cleanup not rerun"
                        : "verifier retry: the final file repaired in place with the delivery "
                          "fixes only; no Module reopened, no staged file changed, cleanup not "
                          "rerun");
    result.file = std::move(file);
    return result;
  }

  if (plan.dispatch.cleanup_succeeded.value_or(false)) {
    auto text = read(plan.product.path, "the cleanup output");
    if (!text) return result;
    const std::string fixed = CleanupStagedText(*text, op, suffix, staged_rel);
    if (!Finish(fixed, fc, golden, &file, &diags)) return result;
    Note(diags, "CLEANUP-PROOFREAD-OK", plan.product.rel,
         "cleanup succeeded (dispatch): its output proofread" +
             std::string(fixed == *text ? "" : " and given the missing delivery fixes"));
    result.file = std::move(file);
    return result;
  }

  // Cleanup by opdev, unless the dispatch says the orchestrator's cleanup already failed.
  if (!plan.dispatch.cleanup_succeeded.has_value()) {
    auto staged = read(staged_path, "the last verified staged file");
    if (!staged) return result;
    const std::string out = CleanupStagedText(*staged, op, suffix, staged_rel);
    Diagnostics cleanup;
    if (Finish(out, fc, golden, &file, &cleanup)) {
      diags.Append(cleanup);
      Note(diags, "CLEANUP-OK", plan.product.rel,
           "cleanup of " + staged_rel + " succeeded and its output passed the proofread");
      result.file = std::move(file);
      return result;
    }
    // Keep the original error, then rebuild.
    for (Diagnostic d : cleanup.items()) {
      if (d.severity == Severity::kError) {
        d.severity = Severity::kWarning;
        d.message = "cleanup of " + staged_rel + " failed: " + d.message;
      }
      diags.Add(std::move(d));
    }
  } else {
    diags.Warning("CLEANUP-FAILED", category::kImplementationError, plan.product.rel, 0,
                  "the dispatch reports that the cleanup failed (its error is the "
                  "orchestrator's): the final file is rebuilt from the last verified staged "
                  "file");
  }

  // Rebuild: Modules 1..N of the fused DESIGN kernel with the delivery names; the kernel must
  // be the last verified staged file's.
  GenerateResult r = fc.rebuild();
  for (Diagnostic d : r.diagnostics.items())
    if (d.code != plan::code::kPlanPrereqMissing) diags.Add(std::move(d));
  if (!r.ok()) return result;
  auto staged = read(staged_path, "the last verified staged file");
  if (!staged) return result;
  if (KernelText(r.file->content, plan.product.rel) != KernelText(*staged, staged_rel)) {
    diags.Error("CLEANUP-REBUILD-DIFFERS", category::kImplementationError, staged_path, 0,
                "the final kernel rebuilt from DESIGN differs from the kernel of the last "
                "verified staged file: the final file must carry that kernel unchanged "
                "(regenerate the staged file, or repair the final file by hand)");
    return result;
  }
  GeneratedFile rebuilt;
  if (!Finish(r.file->content, fc, golden, &rebuilt, &diags)) return result;
  rebuilt.source_map = std::move(r.file->source_map);
  rebuilt.budget = std::move(r.file->budget);
  Note(diags, "CLEANUP-REBUILT", plan.product.rel,
       "rebuilt from the last verified staged file " + staged_rel +
           " (its kernel, the delivery wrapper and the tests against " + golden_fn + ")");
  result.file = std::move(rebuilt);
  return result;
}

}  // namespace opdev::codegen
