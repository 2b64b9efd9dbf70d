// The dispatch planner (see round_plan.h): decides the mode of a round and derives every
// name, path, prerequisite and read-only file from the frozen inputs.
#include "opdev/plan/round_plan.h"

#include "opdev/contract/kb_selection.h"
#include "opdev/contract/module_interfaces.h"
#include "opdev/plan/naming.h"
#include "opdev/pyfront/ast.h"

#include <boost/json.hpp>

#include <algorithm>
#include <filesystem>
#include <regex>

namespace fs = std::filesystem;

namespace opdev::plan {

std::string_view ModeName(Mode m) {
  switch (m) {
    case Mode::kL0: return "L0";
    case Mode::kL1Module: return "L1-module";
    case Mode::kL1Finalize: return "L1-finalize";
    case Mode::kL1FinalizeRetry: return "L1-finalize-retry";
  }
  return "?";
}

std::optional<Mode> ParseModeName(std::string_view name) {
  for (Mode m : {Mode::kL0, Mode::kL1Module, Mode::kL1Finalize, Mode::kL1FinalizeRetry}) {
    if (ModeName(m) == name) return m;
  }
  return std::nullopt;
}

std::string_view ReadOnlyKindName(ReadOnlyKind k) {
  switch (k) {
    case ReadOnlyKind::kFrozenContract: return "frozen_contract";
    case ReadOnlyKind::kGolden: return "golden";
    case ReadOnlyKind::kHistory: return "history";
  }
  return "?";
}

namespace {

boost::json::object PathJson(const PlannedPath& p) {
  boost::json::object o;
  o["rel"] = p.rel;
  o["path"] = p.path;
  o["exists"] = p.exists;
  o["why"] = p.why;
  return o;
}

bool Exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

bool IsSymlink(const fs::path& p) {
  std::error_code ec;
  return fs::is_symlink(fs::symlink_status(p, ec));
}

PlannedPath MakePath(const std::string& op_dir, const std::string& rel, std::string why) {
  PlannedPath p;
  p.rel = rel;
  p.path = (fs::path(op_dir) / rel).string();
  p.exists = Exists(p.path);
  p.why = std::move(why);
  return p;
}

// Staged files modules/test_<op>_module<digits>.py present in the op dir, sorted.
std::vector<std::string> ExistingStagedFiles(const std::string& op_dir, const std::string& op) {
  std::vector<std::string> out;
  std::error_code ec;
  std::regex re("test_" + std::regex_replace(op, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                "_module[0-9]+\\.py");
  for (fs::directory_iterator it(fs::path(op_dir) / "modules", ec), end; !ec && it != end;
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (std::regex_match(name, re)) out.push_back("modules/" + name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> ExistingStageGoldens(const std::string& op_dir, const std::string& op) {
  std::vector<std::string> out;
  std::error_code ec;
  std::string prefix = op + "_golden_stage";
  for (fs::directory_iterator it(fs::path(op_dir) / "modules", ec), end; !ec && it != end;
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) == 0 && name.size() > 3 && name.substr(name.size() - 3) == ".py") {
      out.push_back("modules/" + name);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

boost::json::object RoundPlan::ToJson() const {
  boost::json::object o;
  o["op"] = op;
  o["op_dir"] = op_dir;
  o["dispatch"] = dispatch.ToJson();
  o["mode"] = std::string(ModeName(mode));
  o["is_fusion"] = is_fusion;
  o["module_count"] = module_count;
  if (module_k) o["module_k"] = *module_k; else o["module_k"] = nullptr;
  o["suffix"] = suffix;
  o["product"] = PathJson(product);
  o["product_workspace_path"] = product_workspace_path;
  o["wrapper"] = wrapper;
  o["golden_module"] = golden_module;
  o["golden_file"] = golden_file;
  if (starting_point) o["starting_point"] = PathJson(*starting_point);
  else o["starting_point"] = nullptr;
  o["starting_point_reason"] = starting_point_reason;
  o["run_command"] = run_command;
  o["run_cwd"] = run_cwd;
  boost::json::array pre;
  for (const auto& p : prerequisites) pre.push_back(PathJson(p));
  o["prerequisites"] = std::move(pre);
  boost::json::array ro;
  for (const auto& f : read_only) {
    boost::json::object e;
    e["rel"] = f.rel;
    e["kind"] = std::string(ReadOnlyKindName(f.kind));
    e["is_symlink"] = f.is_symlink;
    ro.push_back(std::move(e));
  }
  o["read_only"] = std::move(ro);
  boost::json::array w;
  for (const auto& s : writable) w.push_back(boost::json::value(s));
  o["writable"] = std::move(w);
  boost::json::array u;
  for (const auto& s : kb_usage_files) u.push_back(boost::json::value(s));
  o["kb_usage_files"] = std::move(u);
  return o;
}

absl::StatusOr<RoundPlan> PlanRound(const std::string& op_dir, const Dispatch& dispatch,
                                    Diagnostics* diags) {
  Diagnostics local;
  Diagnostics& d = diags ? *diags : local;
  std::error_code ec;
  if (!fs::is_directory(op_dir, ec)) {
    d.Error(code::kPlanInterfaces, category::kInputError, op_dir, 0,
            "op dir does not exist or is not a directory");
    return absl::NotFoundError("op dir not found: " + op_dir);
  }
  std::string mi_path = (fs::path(op_dir) / "module_interfaces.yaml").string();
  auto mi = contract::LoadModuleInterfaces(mi_path, &d);
  if (!mi.ok()) {
    d.Error(code::kPlanInterfaces, category::kDesignViolation, mi_path, 0,
            "cannot plan the round: module_interfaces.yaml is unusable (" +
                std::string(mi.status().message()) + ")");
    return mi.status();
  }

  RoundPlan plan;
  plan.op_dir = op_dir;
  plan.dispatch = dispatch;
  plan.op = mi->op;
  std::string dir_name = fs::path(op_dir).lexically_normal().filename().string();
  if (dir_name.empty()) dir_name = fs::absolute(op_dir).lexically_normal().parent_path().filename().string();
  if (plan.op.empty()) {
    d.Error(code::kPlanOpName, category::kDesignViolation, mi_path, mi->FieldLine("op"),
            "module_interfaces.yaml has no `op`: the operator name decides every file name");
    return absl::FailedPreconditionError("module_interfaces.yaml has no op");
  }
  if (!py::IsIdentifier(plan.op)) {
    d.Error(code::kPlanOpName, category::kDesignViolation, mi_path, mi->FieldLine("op"),
            "op name '" + plan.op + "' is not a Python identifier; it cannot name test_<op>.py "
            "and <op>_wrapper")
        .evidence = plan.op;
    return absl::FailedPreconditionError("bad op name");
  }
  if (dir_name != plan.op) {
    d.Warning(code::kPlanOpName, category::kInputError, mi_path, mi->FieldLine("op"),
              "op '" + plan.op + "' differs from the op dir name '" + dir_name +
                  "'; the pipeline expects custom/<op>/");
  }
  if (!mi->is_fusion) {
    d.Error(code::kPlanNoIsFusion, category::kDesignViolation, mi_path, 0,
            "module_interfaces.yaml has no boolean `is_fusion`: the round's path (L0 or L1) "
            "cannot be decided");
    return absl::FailedPreconditionError("module_interfaces.yaml has no is_fusion");
  }
  plan.is_fusion = *mi->is_fusion;
  plan.module_count = mi->module_count ? *mi->module_count
                                       : static_cast<std::int64_t>(mi->modules.size());
  if (mi->module_count && *mi->module_count != static_cast<std::int64_t>(mi->modules.size())) {
    d.Warning(code::kPlanModuleCount, category::kDesignViolation, mi_path,
              mi->FieldLine("module_count"),
              "module_count " + std::to_string(*mi->module_count) + " differs from the " +
                  std::to_string(mi->modules.size()) + " modules listed (using module_count)");
  }

  // ---- Mode and dispatch validity ---------------------------------------------------
  const std::string& op = plan.op;
  size_t errors_before = d.ErrorCount();
  auto invalid = [&](const char* c, std::string msg) {
    d.Error(c, category::kDispatchInvalid, mi_path, 0, std::move(msg));
  };
  if (dispatch.module_k && dispatch.finalize) {
    invalid(code::kDispatchConflict,
            "dispatch has both module_k=" + std::to_string(*dispatch.module_k) +
                " and finalize=true; a round is either one Module or the finalize");
  } else if (dispatch.module_k) {
    std::int64_t k = *dispatch.module_k;
    if (k <= 0) {
      invalid(code::kDispatchRange, "module_k must be a positive integer, got " + std::to_string(k));
    } else if (!plan.is_fusion) {
      invalid(code::kDispatchNotFusion,
              "module_k=" + std::to_string(k) +
                  " on a non-fusion op (is_fusion: false): the L0 path has no Modules");
    } else if (k > plan.module_count) {
      invalid(code::kDispatchRange, "module_k=" + std::to_string(k) + " is beyond module_count " +
                                        std::to_string(plan.module_count));
    }
    plan.mode = Mode::kL1Module;
  } else if (dispatch.finalize) {
    if (!plan.is_fusion) {
      invalid(code::kDispatchNotFusion,
              "finalize on a non-fusion op (is_fusion: false): the L0 path has no finalize");
    } else {
      std::vector<std::string> missing;
      for (std::int64_t k = 1; k <= plan.module_count; ++k) {
        if (!Exists(fs::path(op_dir) / StagedFile(op, k))) missing.push_back(StagedFile(op, k));
      }
      if (!missing.empty()) {
        std::string list;
        for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
        invalid(code::kDispatchEarlyFinalize,
                "finalize before all " + std::to_string(plan.module_count) +
                    " Modules exist; missing: " + list);
      }
    }
    plan.mode = dispatch.retry_of_verifier ? Mode::kL1FinalizeRetry : Mode::kL1Finalize;
    if (dispatch.retry_of_verifier && !Exists(fs::path(op_dir) / FinalFile(op))) {
      invalid(code::kDispatchRetryNoFinal, "verifier retry of the finalize, but " + FinalFile(op) +
                                               " does not exist: there is no final file to fix");
    }
  } else {
    if (plan.is_fusion) {
      invalid(code::kDispatchNeedsModule,
              "empty dispatch on a fusion op (is_fusion: true): L1 needs module_k or finalize");
    }
    plan.mode = Mode::kL0;
  }
  if (dispatch.retry_of_verifier && !dispatch.finalize) {
    d.Warning(code::kDispatchConflict, category::kDispatchInvalid, mi_path, 0,
              "retry_of_verifier without finalize: planned as a redo of the same round");
  }
  if (dispatch.cleanup_succeeded && !dispatch.finalize) {
    d.Warning(code::kDispatchConflict, category::kDispatchInvalid, mi_path, 0,
              "cleanup_succeeded only applies to a finalize dispatch; ignored");
  }
  if (d.ErrorCount() > errors_before) {
    return absl::FailedPreconditionError("invalid dispatch");
  }

  // ---- Names --------------------------------------------------------------------------
  const bool staged = plan.mode == Mode::kL1Module;
  if (staged) {
    std::int64_t k = *dispatch.module_k;
    plan.module_k = k;
    plan.suffix = ModuleSuffix(k);
    plan.product = MakePath(op_dir, StagedFile(op, k), "staged kernel and tests of Module " +
                                                           std::to_string(k));
    plan.wrapper = StagedWrapper(op, k);
    plan.golden_module = StageGoldenModule(op, k);
    plan.golden_file = StageGoldenFile(op, k);
  } else {
    plan.product = MakePath(op_dir, FinalFile(op), "final kernel, wrapper and tests");
    plan.wrapper = FinalWrapper(op);
    plan.golden_module = FinalGoldenModule(op);
    plan.golden_file = FinalGoldenFile(op);
  }
  plan.product_workspace_path = WorkspacePath(op, plan.product.rel);
  plan.run_command = "python " + plan.product_workspace_path;
  fs::path abs = fs::absolute(op_dir, ec).lexically_normal();
  if (abs.filename().empty()) abs = abs.parent_path();
  if (abs.parent_path().filename() == "custom") {
    plan.run_cwd = abs.parent_path().parent_path().string();
  } else {
    d.Warning(code::kPlanWorkspace, category::kInputError, op_dir, 0,
              "op dir is not custom/<op>/ inside a workspace; the run command '" +
                  plan.run_command + "' assumes the pipeline's layout");
  }

  // ---- Starting point -----------------------------------------------------------------
  switch (plan.mode) {
    case Mode::kL0:
      if (plan.product.exists) {
        plan.starting_point = plan.product;
        plan.starting_point_reason = "redo: edit the existing " + plan.product.rel + " in place";
      } else {
        plan.starting_point_reason = "new file: start from the pure-vec / official matmul template";
      }
      break;
    case Mode::kL1Module: {
      std::int64_t k = *plan.module_k;
      if (plan.product.exists) {
        plan.starting_point = plan.product;
        plan.starting_point_reason =
            "redo of Module " + std::to_string(k) + ": edit only its own suffix file";
      } else if (k > 1) {
        plan.starting_point = MakePath(op_dir, StagedFile(op, k - 1),
                                       "last verified staged file (Module " +
                                           std::to_string(k - 1) + ")");
        plan.starting_point_reason = "new Module " + std::to_string(k) +
                                     ": start as a copy of the last verified staged file";
      } else {
        plan.starting_point_reason = "Module 1: start from the impl template";
      }
      break;
    }
    case Mode::kL1Finalize: {
      bool cleanup_ok = dispatch.cleanup_succeeded.value_or(plan.product.exists);
      if (cleanup_ok) {
        plan.starting_point = plan.product;
        plan.starting_point_reason =
            "cleanup succeeded: proofread its output " + plan.product.rel;
      } else {
        plan.starting_point = MakePath(op_dir, StagedFile(op, plan.module_count),
                                       "last verified staged file");
        plan.starting_point_reason =
            "cleanup failed: keep its original error and rebuild " + plan.product.rel +
            " from the last verified staged file with only the needed delivery fixes";
      }
      break;
    }
    case Mode::kL1FinalizeRetry:
      plan.starting_point = plan.product;
      plan.starting_point_reason =
          "verifier retry: fix the existing final file from the evidence; never reopen "
          "Modules, change staged files or rerun cleanup";
      break;
  }

  // ---- Prerequisites ------------------------------------------------------------------
  plan.prerequisites.push_back(MakePath(op_dir, "DESIGN.md", "frozen design contract"));
  plan.prerequisites.push_back(
      MakePath(op_dir, "DESIGN_BINDINGS.json", "frozen KB requirements"));
  plan.prerequisites.push_back(
      MakePath(op_dir, DeviceGoldenFile(op), "device golden: tests take _get_device() from it"));
  if (staged) {
    std::int64_t k = *plan.module_k;
    plan.prerequisites.push_back(MakePath(op_dir, StageGoldenFile(op, k),
                                          "staged golden of Module " + std::to_string(k)));
    if (k > 1) {
      plan.prerequisites.push_back(MakePath(op_dir, StagedFile(op, k - 1),
                                            "previous staged file (Module " +
                                                std::to_string(k - 1) + ")"));
    }
  } else {
    plan.prerequisites.push_back(
        MakePath(op_dir, FinalGoldenFile(op), "CPU FP32 golden the tests compare against"));
    if (plan.mode != Mode::kL0) {
      for (std::int64_t k = 1; k <= plan.module_count; ++k) {
        plan.prerequisites.push_back(MakePath(op_dir, StagedFile(op, k),
                                              "verified staged file of Module " + std::to_string(k)));
      }
    }
    if (plan.starting_point && plan.starting_point->rel == plan.product.rel &&
        plan.mode != Mode::kL0) {
      plan.prerequisites.push_back(plan.product);
      plan.prerequisites.back().why = plan.starting_point_reason;
    }
  }
  for (const auto& p : plan.prerequisites) {
    if (!p.exists) {
      d.Error(code::kPlanPrereqMissing, category::kMissingFile, p.path, 0,
              "prerequisite of this " + std::string(ModeName(plan.mode)) + " round is missing: " +
                  p.why);
    }
  }

  // ---- Read-only set ------------------------------------------------------------------
  auto add_ro = [&](const std::string& rel, ReadOnlyKind kind) {
    fs::path p = fs::path(op_dir) / rel;
    if (!Exists(p) && !IsSymlink(p)) return;
    for (const auto& f : plan.read_only) {
      if (f.rel == rel) return;
    }
    ReadOnlyFile f;
    f.rel = rel;
    f.path = p.string();
    f.kind = kind;
    f.is_symlink = IsSymlink(p);
    plan.read_only.push_back(f);
  };
  for (const char* rel : {"DESIGN.md", "DESIGN_BINDINGS.json", "module_interfaces.yaml",
                          "SPEC.md", "EXPLORE_REPORT.md", "PRO_MATERIAL_INDEX.md",
                          "PERFORMANCE_CASES.json", "cases.yaml", ".orchestrator_state.json"}) {
    add_ro(rel, ReadOnlyKind::kFrozenContract);
  }
  auto selections = contract::FindKbSelectionFiles(op_dir);
  for (const auto& [path, class_dir] : selections) {
    std::string rel = class_dir == "." ? "KB_SELECTION.json" : class_dir + "/KB_SELECTION.json";
    add_ro(rel, ReadOnlyKind::kFrozenContract);
    plan.kb_usage_files.push_back(class_dir == "." ? "KB_USAGE.json"
                                                   : class_dir + "/KB_USAGE.json");
  }
  if (plan.kb_usage_files.empty()) plan.kb_usage_files.push_back("KB_USAGE.json");
  add_ro(DeviceGoldenFile(op), ReadOnlyKind::kGolden);
  add_ro(FinalGoldenFile(op), ReadOnlyKind::kGolden);
  for (const auto& g : ExistingStageGoldens(op_dir, op)) add_ro(g, ReadOnlyKind::kGolden);
  for (const auto& s : ExistingStagedFiles(op_dir, op)) {
    if (s != plan.product.rel) add_ro(s, ReadOnlyKind::kHistory);
  }
  if (staged) add_ro(FinalFile(op), ReadOnlyKind::kHistory);
  for (const auto& f : plan.read_only) {
    if (f.is_symlink) {
      d.Error(code::kPlanSymlink, category::kInputError, f.path, 0,
              std::string("read-only ") + std::string(ReadOnlyKindName(f.kind)) +
                  " file is a symbolic link; its content could change through another path, "
                  "so the guard refuses it");
    }
  }
  if (IsSymlink(plan.product.path)) {
    d.Error(code::kPlanSymlink, category::kInputError, plan.product.path, 0,
            "the round's product is a symbolic link; writing it would write through to "
            "another file");
  }

  plan.writable.push_back(plan.product.rel);
  for (const auto& u : plan.kb_usage_files) plan.writable.push_back(u);
  plan.writable.push_back("precision_compare.py");
  return plan;
}

}  // namespace opdev::plan
