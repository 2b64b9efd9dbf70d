// The self-check orchestrator: mode and names from the dispatch, the items of the
// verifier's stage4-check or module-check in its order, KB usage through the injected
// checker, and the L1 read-only rule through the plan's snapshot.
#include "opdev/selfcheck/selfcheck.h"

#include "check_context.h"

#include "opdev/contract/module_interfaces.h"
#include "opdev/plan/naming.h"

#include "absl/strings/str_cat.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace opdev::selfcheck {

std::string_view ItemStatusName(ItemStatus s) {
  switch (s) {
    case ItemStatus::kPass: return "pass";
    case ItemStatus::kFail: return "fail";
    case ItemStatus::kBlocked: return "blocked";
    case ItemStatus::kNotAvailable: return "not_available";
    case ItemStatus::kSkipped: return "skipped";
  }
  return "fail";
}

int CategoryPriority(std::string_view c) {
  static const std::string_view order[] = {
      "kb_selection_invalid", "golden_failure", "design_violation", "cheating",
      "wrapper_boundary_violation", "kb_usage_invalid", "missing_file", "import_violation",
      "signature_mismatch", "delivery_import_unsafe", "incomplete_structure", "perf_violation",
      "precision_failure", "runtime_failure", "env_error"};
  for (size_t i = 0; i < std::size(order); ++i)
    if (order[i] == c) return static_cast<int>(i);
  return 100;
}

boost::json::object ItemResult::ToJson() const {
  boost::json::object o;
  o["id"] = id;
  o["title"] = title;
  o["status"] = std::string(ItemStatusName(status));
  o["failure_category"] = category.empty() ? boost::json::value(nullptr) : boost::json::value(category);
  o["evidence"] = evidence;
  o["findings"] = findings.ToJson();
  return o;
}

Diagnostics SelfCheckReport::AllFindings() const {
  Diagnostics all;
  for (const auto& i : items) all.Append(i.findings);
  return all;
}

boost::json::object SelfCheckReport::ToJson() const {
  boost::json::object o;
  o["mode"] = mode;
  o["file"] = file;
  o["failure_category"] = failure_category.empty() ? boost::json::value(nullptr)
                                                   : boost::json::value(failure_category);
  boost::json::object counts;
  counts["pass"] = passed;
  counts["fail"] = failed;
  counts["blocked"] = blocked;
  counts["not_available"] = not_available;
  o["counts"] = std::move(counts);
  boost::json::array a;
  for (const auto& i : items) a.push_back(i.ToJson());
  o["items"] = std::move(a);
  return o;
}

absl::StatusOr<SelfCheckReport> RunSelfCheck(const SelfCheckOptions& opts) {
  std::error_code ec;
  if (!fs::is_directory(opts.op_dir, ec))
    return absl::NotFoundError(absl::StrCat(opts.op_dir, ": not a directory"));
  CheckContext c;
  c.opts = &opts;
  c.op_dir = opts.op_dir;
  c.op = opts.op;
  Diagnostics load_diags;
  std::optional<contract::ModuleInterfaces> mi;
  if (fs::exists(fs::path(opts.op_dir) / "module_interfaces.yaml")) {
    auto m = contract::LoadModuleInterfaces((fs::path(opts.op_dir) / "module_interfaces.yaml").string(),
                                            &load_diags);
    if (m.ok()) mi = std::move(*m);
  }
  if (c.op.empty() && mi && !mi->op.empty()) c.op = mi->op;
  if (c.op.empty()) c.op = fs::absolute(opts.op_dir).lexically_normal().filename().string();
  if (c.op.empty()) c.op = fs::absolute(opts.op_dir).lexically_normal().parent_path().filename().string();
  c.module_mode = opts.module_k.has_value();
  if (c.module_mode) {
    c.module_k = *opts.module_k;
    c.file_rel = plan::StagedFile(c.op, c.module_k);
    c.wrapper = plan::StagedWrapper(c.op, c.module_k);
    c.golden_module = plan::StageGoldenModule(c.op, c.module_k);
    c.golden_rel = plan::StageGoldenFile(c.op, c.module_k);
    c.golden_fn = c.golden_module;
    if (mi)
      if (const auto* md = mi->FindModule(c.module_k); md && !md->golden_stage_fn.empty())
        c.golden_fn = md->golden_stage_fn;
  } else {
    c.file_rel = plan::FinalFile(c.op);
    c.wrapper = plan::FinalWrapper(c.op);
    c.golden_module = plan::FinalGoldenModule(c.op);
    c.golden_rel = plan::FinalGoldenFile(c.op);
    c.golden_fn = c.golden_module;
  }
  if (!opts.file.empty()) c.file_rel = opts.file;
  c.file_path = c.Path(c.file_rel);
  if (fs::exists(c.Path("DESIGN.md"))) {
    auto d = contract::LoadDesignDoc(c.Path("DESIGN.md"), &load_diags);
    if (d.ok()) c.design = std::move(*d);
  }

  SelfCheckReport rep;
  rep.mode = c.module_mode ? "module" : "stage4";
  rep.file = c.file_rel;
  auto add = [&](std::string id, std::string title, ItemResult r) {
    r.id = std::move(id);
    r.title = std::move(title);
    rep.items.push_back(std::move(r));
  };

  // The file itself (S4-2 / MC-1), then parsing.
  ItemResult exists;
  std::optional<KernelFile> file;
  if (!fs::is_regular_file(c.file_path, ec)) {
    exists.findings.Error("SC-FILE-MISSING", cat::kMissingFile, c.file_rel, 0,
                          absl::StrCat(c.file_rel, " does not exist in ", opts.op_dir));
  } else {
    Diagnostics pd;
    auto kf = LoadKernelFile(c.file_path, c.file_rel, &pd);
    if (kf.ok()) {
      file = std::move(*kf);
    } else {
      exists.findings.Append(pd);
      if (pd.empty())
        exists.findings.Error("SC-FILE-UNREADABLE", cat::kMissingFile, c.file_rel, 0,
                              std::string(kf.status().message()));
      for (auto& d : exists.findings.items()) d.category = std::string(cat::kIncompleteStructure);
    }
  }
  exists.evidence = c.file_rel;
  Conclude(&exists);
  c.file = file ? &*file : nullptr;

  auto needs_file = [&](std::string id, std::string title, ItemResult (*fn)(const CheckContext&)) {
    if (!c.file) {
      ItemResult r;
      r.status = ItemStatus::kBlocked;
      r.category = std::string(cat::kMissingFile);
      r.evidence = absl::StrCat(c.file_rel, " is missing or does not parse");
      add(std::move(id), std::move(title), std::move(r));
    } else {
      add(std::move(id), std::move(title), fn(c));
    }
  };
  auto kb_usage = [&](std::string id) {
    ItemResult r;
    std::optional<Diagnostics> d;
    if (opts.kb_usage_check) d = opts.kb_usage_check(opts.op_dir);
    if (!d) {
      r.status = ItemStatus::kNotAvailable;
      r.evidence = "no KB usage checker is wired into this call (run `opdev stage`)";
    } else {
      r.findings = *d;
      r.evidence = absl::StrCat(d->size(), " KB usage finding(s)");
      Conclude(&r);
    }
    add(std::move(id), "KB usage", std::move(r));
  };
  auto read_only = [&]() {
    ItemResult r;
    if (!opts.snapshot) {
      r.status = ItemStatus::kSkipped;
      r.evidence = "no read-only snapshot from the start of the round";
    } else {
      r.findings = plan::CheckReadOnlySnapshot(*opts.snapshot);
      r.evidence = absl::StrCat(opts.snapshot->files.size(), " read-only file(s) re-hashed");
      Conclude(&r);
    }
    add("L1-RO", "only this round's file changed; historical staged files unchanged", std::move(r));
  };

  if (c.module_mode) {
    add("MC-1", absl::StrCat(c.file_rel, " exists"), exists);
    needs_file("MC-2", "import gate", CheckImportGate);
    if (c.file) {
      ItemResult one = CheckNoCheating(c);
      ItemResult boundary = CheckWrapperBoundary(c);
      one.findings.Append(boundary.findings);
      one.evidence += "; " + boundary.evidence;
      Conclude(&one);
      add("MC-5", "one @pl.jit, one launch not in a loop, wrapper boundary", std::move(one));
    } else {
      needs_file("MC-5", "one @pl.jit, one launch not in a loop, wrapper boundary", CheckNoCheating);
    }
    add("MC-6", absl::StrCat(c.golden_rel, " imports no staged implementation"), CheckStagedGoldenImports(c));
    kb_usage("MC-7");
    read_only();
  } else {
    needs_file("S4-1", "import gate", CheckImportGate);
    add("S4-2", absl::StrCat(c.file_rel, " exists"), exists);
    needs_file("S4-3", "device from <op>_golden._get_device(), none hard-coded", CheckDevice);
    needs_file("S4-4", "precision standard (_assert_precision, golden_cpu, no custom tolerance)",
               CheckPrecisionStandard);
    needs_file("S4-5", "no cheating: one @pl.jit, one launch, not in a loop, no non-Pro pypto",
               CheckNoCheating);
    needs_file("S4-6", "buffers and sync (tile groups, scratch, auto_mutex)", CheckBuffersAndSync);
    needs_file("S4-7", "frozen vector_selection followed", CheckVectorSelection);
    needs_file("S4-10", "def test_ count >= 4 and equal to DESIGN §8", CheckTestCases);
    needs_file("S4-11", "dynamic-dimension declarations", CheckDynamicDims);
    needs_file("S4-12", "wrapper present, tests call it, optional parameters defaulted",
               CheckWrapperSignature);
    needs_file("S4-13", "delivery import safety", CheckDeliveryImport);
    kb_usage("S4-14");
    needs_file("S4-15", "wrapper boundary (whole host call chain)", CheckWrapperBoundary);
    if (opts.finalize) read_only();
  }
  for (const auto& i : rep.items) {
    switch (i.status) {
      case ItemStatus::kPass: ++rep.passed; break;
      case ItemStatus::kFail: ++rep.failed; break;
      case ItemStatus::kBlocked: ++rep.blocked; break;
      case ItemStatus::kNotAvailable: ++rep.not_available; break;
      case ItemStatus::kSkipped: break;
    }
    if (i.status == ItemStatus::kFail && !i.category.empty() &&
        (rep.failure_category.empty() ||
         CategoryPriority(i.category) < CategoryPriority(rep.failure_category)))
      rep.failure_category = i.category;
  }
  return rep;
}

}  // namespace opdev::selfcheck
