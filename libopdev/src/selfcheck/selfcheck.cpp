// The self-check orchestrator: mode and names from the dispatch, the items of the
// verifier's stage4-check (1–15) or module-check (pre-check, then #1, #2, #5, #6, #3, #4,
// #7) in its order, KB usage through the kbusage checker in the same call, the dynamic items
// from the caller's run evidence, and the L1 read-only rule through the plan's snapshot.
#include "opdev/selfcheck/selfcheck.h"

#include "check_context.h"

#include "opdev/contract/module_interfaces.h"
#include "opdev/contract/op_dir.h"
#include "opdev/kbusage/check.h"
#include "opdev/plan/naming.h"
#include "opdev/support/file_io.h"

#include "absl/strings/str_cat.h"

#include <filesystem>
#include <regex>
#include <sstream>

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

ItemResult* SelfCheckReport::Find(std::string_view id) {
  for (auto& i : items)
    if (i.id == id) return &i;
  return nullptr;
}

void SelfCheckReport::Recount() {
  failed = passed = blocked = not_available = 0;
  failure_category.clear();
  for (const auto& i : items) {
    switch (i.status) {
      case ItemStatus::kPass: ++passed; break;
      case ItemStatus::kFail: ++failed; break;
      case ItemStatus::kBlocked: ++blocked; break;
      case ItemStatus::kNotAvailable: ++not_available; break;
      case ItemStatus::kSkipped: break;
    }
    if (i.status == ItemStatus::kFail && !i.category.empty() &&
        (failure_category.empty() || CategoryPriority(i.category) < CategoryPriority(failure_category)))
      failure_category = i.category;
  }
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
  // module-check: any failure reports the smallest failing Module boundary (this Module).
  o["failing_module_boundary"] = module_k && failed > 0 ? boost::json::value(*module_k) : boost::json::value(nullptr);
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

namespace {

// Does the op dir hold any class's KB_USAGE.json (flat or split layout)?
bool HasKbUsage(const std::string& op_dir) {
  std::error_code ec;
  if (fs::exists(fs::path(op_dir) / "KB_USAGE.json", ec)) return true;
  for (fs::directory_iterator it(op_dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec) && fs::exists(it->path() / "KB_USAGE.json", ec)) return true;
  return false;
}

// Unearned validation claims in the kernel file (stage4-check #14): conclusion lines copied
// from a KB sample's provenance header (`STATUS: VALIDATED`, `max_abs_diff = 0.0…`,
// `SAMPLE PROVENANCE`). The file may only state what it ran itself.
Diagnostics UnearnedClaims(const KernelFile* f) {
  Diagnostics d;
  if (!f) return d;
  static const std::regex kClaim(R"(STATUS:\s*VALIDATED|max_abs_diff\s*[=:]\s*[-+0-9.]|SAMPLE PROVENANCE)",
                                 std::regex::icase);
  std::istringstream in(f->source);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (std::regex_search(line, kClaim))
      AddFinding(&d, *f, "SC-UNEARNED-CLAIM", cat::kKbUsageInvalid, n,
                 "a validation claim this file did not earn (copied from a KB sample's provenance header)");
  return d;
}

ItemResult KbUsageItem(const SelfCheckOptions& opts, const KernelFile* file) {
  ItemResult r;
  Diagnostics claims = UnearnedClaims(file);
  if (!claims.empty()) {
    r.findings.Append(claims);
    Conclude(&r);
    r.evidence = absl::StrCat(claims.size(), " unearned validation claim(s) in the kernel file");
  }
  if (!opts.check_kb_usage) {
    if (claims.empty()) r.status = ItemStatus::kSkipped;
    r.evidence = absl::StrCat(r.evidence, r.evidence.empty() ? "" : "; ", "the caller checks KB usage itself");
    return r;
  }
  if (!HasKbUsage(opts.op_dir)) {
    if (claims.empty()) r.status = ItemStatus::kNotAvailable;
    r.evidence = absl::StrCat(r.evidence, r.evidence.empty() ? "" : "; ",
                              "the op dir has no KB_USAGE.json (generate it: opdev usage generate)");
    return r;
  }
  const std::string kb_root = contract::ResolveKbRoot(opts.op_dir, opts.kb_root);
  if (kb_root.empty()) {
    r.status = ItemStatus::kBlocked;
    r.category = std::string(cat::kKbUsageInvalid);
    r.evidence = "no KB root (--kb-root, $OPDEV_KB_ROOT or an ancestor with shared/fixtures/kb): usage cannot be checked";
    return r;
  }
  kbusage::CheckOptions ko;
  ko.kb_root = kb_root;
  if (opts.module_k) {
    ko.mode = plan::Mode::kL1Module;
    ko.module_k = *opts.module_k;
  } else if (opts.finalize) {
    ko.mode = plan::Mode::kL1Finalize;
  }
  auto s = kbusage::CheckKbUsage(opts.op_dir, ko, &r.findings);
  if (!s.ok()) {
    r.findings.Error("KBU-INPUTS", cat::kKbUsageInvalid, opts.op_dir, 0, std::string(s.status().message()));
    r.evidence = absl::StrCat("KB usage check could not run: ", s.status().message());
  } else {
    r.evidence = absl::StrCat(s->records, " record(s) in ", s->classes, " class(es) checked against ", kb_root);
  }
  Conclude(&r);
  return r;
}

}  // namespace

absl::StatusOr<SelfCheckReport> RunSelfCheck(const SelfCheckOptions& opts) {
  std::error_code ec;
  if (!fs::is_directory(opts.op_dir, ec))
    return absl::NotFoundError(absl::StrCat(opts.op_dir, ": not a directory"));
  CheckContext c;
  c.opts = &opts;
  c.op_dir = opts.op_dir;
  c.op = opts.op;
  Diagnostics load_diags;
  if (fs::exists(fs::path(opts.op_dir) / "module_interfaces.yaml")) {
    auto m = contract::LoadModuleInterfaces((fs::path(opts.op_dir) / "module_interfaces.yaml").string(),
                                            &load_diags);
    if (m.ok()) c.mi = std::move(*m);
  }
  if (c.op.empty() && c.mi && !c.mi->op.empty()) c.op = c.mi->op;
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
    if (c.mi)
      if (const auto* md = c.mi->FindModule(c.module_k); md && !md->golden_stage_fn.empty())
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
  if (fs::exists(c.Path("SPEC.md"))) {
    Diagnostics sd;
    c.spec = contract::LoadSpecContract(opts.op_dir, &sd);
  }

  SelfCheckReport rep;
  rep.mode = c.module_mode ? "module" : "stage4";
  rep.file = c.file_rel;
  if (c.module_mode) rep.module_k = c.module_k;
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
  // The dynamic items need a file that exists (the run of a missing file proves nothing new).
  auto run_item = [&](std::string id, std::string title, bool pass_item) {
    ItemResult r;
    if (!c.file) {
      r.status = ItemStatus::kBlocked;
      r.category = std::string(cat::kMissingFile);
      r.evidence = absl::StrCat(c.file_rel, " is missing or does not parse: nothing to run");
    } else {
      r = pass_item ? RunPassItem(opts.run, c.file_rel, c.module_mode) : RunExitItem(opts.run, c.file_rel);
    }
    add(std::move(id), std::move(title), std::move(r));
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
    // Pre-check, then #1, #2, #5, #6, #3, #4, #7 (the verifier's order).
    ItemResult pre = CheckModulePrecheck(c);
    const bool pre_ok = pre.status == ItemStatus::kPass;
    add("MC-0", "pre-check: frozen DESIGN_BINDINGS.json and DESIGN.md readable", std::move(pre));
    add("MC-1", absl::StrCat(c.file_rel, " exists"), exists);
    needs_file("MC-2", "import gate", CheckImportGate);
    if (c.file) {
      ItemResult one = CheckNoCheating(c);
      ItemResult boundary = CheckWrapperBoundary(c);
      one.findings.Append(boundary.findings);
      one.evidence += "; " + boundary.evidence;
      Conclude(&one);
      add("MC-5", "one @pl.jit, one launch not in a loop, no host compute, wrapper boundary", std::move(one));
    } else {
      needs_file("MC-5", "one @pl.jit, one launch not in a loop, no host compute, wrapper boundary", CheckNoCheating);
    }
    add("MC-6", absl::StrCat(c.golden_rel, " imports no staged implementation"), CheckStagedGoldenImports(c));
    if (pre_ok) {
      run_item("MC-3", absl::StrCat("python ", c.file_rel, " exits 0"), false);
      run_item("MC-4", "output has PASS, matched_ratio= and max_abs_error=", true);
    } else {
      for (auto [id, title] : {std::pair<std::string, std::string>{"MC-3", absl::StrCat("python ", c.file_rel, " exits 0")},
                               {"MC-4", "output has PASS, matched_ratio= and max_abs_error="}}) {
        ItemResult r;
        r.status = ItemStatus::kBlocked;
        r.category = std::string(cat::kDesignViolation);
        r.evidence = "the pre-check failed: the verifier does not run the staged kernel";
        add(id, title, std::move(r));
      }
    }
    add("MC-7", "KB usage for the current Module", KbUsageItem(opts, c.file));
    read_only();
  } else {
    // Static #1–7 and #10–14, dynamic #8–9, then #15; reported in item order.
    needs_file("S4-1", "import gate", CheckImportGate);
    add("S4-2", absl::StrCat(c.file_rel, " exists"), exists);
    needs_file("S4-3", "device from <op>_golden._get_device(), none hard-coded", CheckDevice);
    needs_file("S4-4", "precision standard (_assert_precision, golden_cpu, no custom tolerance)",
               CheckPrecisionStandard);
    needs_file("S4-5", "no cheating: ①–④ one @pl.jit, one launch, not in a loop, no non-Pro pypto; "
                       "⑤ no value-dependent host op; ⑥ kernel produces the output; ⑦ range not narrowed; "
                       "⑧ test data as DESIGN §8",
               CheckNoCheating);
    needs_file("S4-6", "buffers and sync (tile groups, scratch, auto_mutex)", CheckBuffersAndSync);
    needs_file("S4-7", "frozen vector_selection followed", CheckVectorSelection);
    run_item("S4-8", absl::StrCat("python ", c.file_rel, " exits 0"), false);
    run_item("S4-9", "output shows PASS, no Traceback/Error/Exception, matched_ratio= and max_abs_error=", true);
    needs_file("S4-10", "def test_ count >= 4 and equal to DESIGN §8", CheckTestCases);
    needs_file("S4-11", "dynamic-dimension declarations", CheckDynamicDims);
    needs_file("S4-12", "wrapper present, tests call it, optional parameters defaulted",
               CheckWrapperSignature);
    needs_file("S4-13", "delivery import safety", CheckDeliveryImport);
    add("S4-14", "KB usage", KbUsageItem(opts, c.file));
    needs_file("S4-15", "wrapper boundary (whole host call chain)", CheckWrapperBoundary);
    if (opts.finalize) read_only();
  }
  if (opts.run && c.file) {
    // ⑥ coverage evidence from the run.
    if (ItemResult* it = rep.Find(c.module_mode ? "MC-5" : "S4-5")) {
      it->findings.Append(CoverageFindings(*opts.run, c.file_rel));
      Conclude(it);
    }
  }
  rep.Recount();
  return rep;
}

void ApplyRunEvidence(SelfCheckReport* rep, const RunEvidence& run) {
  const bool module_mode = rep->mode == "module";
  std::optional<RunEvidence> ev = run;
  for (const char* id : {"S4-8", "MC-3", "S4-9", "MC-4"}) {
    ItemResult* it = rep->Find(id);
    if (!it) continue;
    if (it->status == ItemStatus::kBlocked && (it->category == cat::kMissingFile || it->category == cat::kDesignViolation))
      continue;  // nothing to run, or the pre-check stopped it
    const bool pass_item = std::string_view(id) == "S4-9" || std::string_view(id) == "MC-4";
    ItemResult r = pass_item ? RunPassItem(ev, rep->file, module_mode) : RunExitItem(ev, rep->file);
    r.id = it->id;
    r.title = it->title;
    *it = std::move(r);
  }
  if (ItemResult* it = rep->Find(module_mode ? "MC-5" : "S4-5"); it && it->status != ItemStatus::kBlocked) {
    it->findings.Append(CoverageFindings(run, rep->file));
    Conclude(it);
  }
  rep->Recount();
}

}  // namespace opdev::selfcheck
