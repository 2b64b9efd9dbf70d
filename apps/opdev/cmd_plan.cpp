// `opdev plan`: the plan of one Stage 4 round from the dispatch (mode, product, wrapper,
// golden, starting point, run command, prerequisites, read-only set), and the read-only
// guard (snapshot at plan time, check at the end of the round).
#include "cli_util.h"
#include "command.h"

#include "opdev/plan/dispatch.h"
#include "opdev/plan/read_only_guard.h"
#include "opdev/plan/round_plan.h"
#include "opdev/support/file_io.h"

#include <boost/json.hpp>

#include <iomanip>
#include <iostream>

namespace opdev::cli {
namespace {

constexpr const char* kUsage =
    "opdev plan <op_dir> [--module-k K | --finalize [--retry] [--cleanup-failed]]\n"
    "           [--dispatch JSON|@FILE] [--snapshot-out FILE] [--json]\n"
    "opdev plan <op_dir> --snapshot-check FILE [--json]\n\n"
    "Plans one Stage 4 round from the orchestrator's dispatch: no flag = L0, --module-k K =\n"
    "L1 Module K, --finalize = L1 finalize (--retry: a verifier retry of it). Prints the\n"
    "mode, the one file to produce, wrapper and golden names, the starting point, the run\n"
    "command exactly as the pipeline runs it, prerequisites and the read-only set.\n"
    "--snapshot-out FILE also records the content hash of every read-only file; at the end\n"
    "of the round --snapshot-check FILE reports every read-only file that changed.\n"
    "Exit status: 0 plan without errors, 1 invalid dispatch / missing prerequisites /\n"
    "read-only files changed, 2 usage error or unusable op dir.";

void PrintPlanText(const plan::RoundPlan& p) {
  auto row = [](const std::string& k, const std::string& v) {
    Out() << std::left << std::setw(16) << (k + ":") << v << "\n";
  };
  std::string mode(plan::ModeName(p.mode));
  if (p.module_k) mode += " (module_k=" + std::to_string(*p.module_k) + ", suffix " + p.suffix + ")";
  row("mode", mode);
  row("op", p.op + " (is_fusion: " + (p.is_fusion ? "true" : "false") + ", " +
                std::to_string(p.module_count) + " module(s))");
  row("product", p.product.rel + (p.product.exists ? " (exists)" : " (new)"));
  row("wrapper", p.wrapper);
  row("golden", p.golden_module + " (" + p.golden_file + ")");
  row("starting point", (p.starting_point ? p.starting_point->rel + " -- " : std::string()) +
                            p.starting_point_reason);
  row("run", p.run_command + (p.run_cwd.empty() ? "" : "   (from " + p.run_cwd + ")"));
  Out() << "prerequisites:\n";
  for (const auto& q : p.prerequisites)
    Out() << "  " << (q.exists ? "ok      " : "MISSING ") << q.rel << "  (" << q.why << ")\n";
  Out() << "read-only (" << p.read_only.size() << "):\n";
  for (const auto& f : p.read_only)
    Out() << "  " << std::left << std::setw(16) << plan::ReadOnlyKindName(f.kind) << f.rel
              << (f.is_symlink ? "  (symlink!)" : "") << "\n";
  Out() << "writable:\n";
  for (const auto& w : p.writable) Out() << "  " << w << "\n";
}

int SnapshotCheck(const std::string& file, bool json) {
  auto text = ReadTextFile(file);
  if (!text.ok()) return FailUsage("plan", std::string(text.status().message()), json);
  boost::system::error_code ec;
  auto v = boost::json::parse(*text, ec);
  if (ec) return FailUsage("plan", file + ": not JSON (" + ec.message() + ")", json);
  auto snap = plan::ReadOnlySnapshot::FromJson(v);
  if (!snap.ok()) return FailUsage("plan", file + ": " + std::string(snap.status().message()), json);
  Diagnostics diags = plan::CheckReadOnlySnapshot(*snap);
  if (json) {
    boost::json::object o;
    o["snapshot"] = file;
    o["files_checked"] = snap->files.size();
    o["status"] = diags.HasErrors() ? "changed" : "unchanged";
    o["diagnostics"] = diags.ToJson();
    PrintJson(o);
  } else {
    if (!diags.empty()) PrintDiagnosticsText(diags);
    else Out() << "read-only set unchanged (" << snap->files.size() << " files)\n";
  }
  return diags.HasErrors() ? kExitFindings : kExitOk;
}

int RunPlan(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("op-dir", po::value<std::string>(), "the op dir (custom/<op>/)")(
      "module-k", po::value<std::string>(), "dispatch: develop L1 Module K (positive integer)")(
      "finalize", po::bool_switch(), "dispatch: L1 finalize")(
      "retry", po::bool_switch(), "with --finalize: a verifier retry of the finalize")(
      "cleanup-failed", po::bool_switch(),
      "with --finalize: the orchestrator's cleanup failed (default: inferred from "
      "test_<op>.py)")("dispatch", po::value<std::string>(),
                       "the dispatch as a JSON object {module_k, finalize, retry_of_verifier, "
                       "cleanup_succeeded}, or @FILE")(
      "snapshot-out", po::value<std::string>(), "write the read-only guard snapshot to FILE")(
      "snapshot-check", po::value<std::string>(),
      "compare the read-only files with the snapshot in FILE and report changes")(
      "json", po::bool_switch(), "print a JSON report on stdout");
  po::positional_options_description pos;
  pos.add("op-dir", 1);
  po::variables_map vm;
  int exit_code = 0;
  if (!ParseArgs(args, kUsage, opts, pos, vm, &exit_code)) return exit_code;
  bool json = vm["json"].as<bool>();
  if (vm.count("snapshot-check")) return SnapshotCheck(vm["snapshot-check"].as<std::string>(), json);
  if (!vm.count("op-dir")) return FailUsage("plan", "missing <op_dir> (see --help)", json);
  const std::string dir = vm["op-dir"].as<std::string>();

  Diagnostics diags;
  plan::DispatchArgs da;
  if (vm.count("module-k")) da.module_k = vm["module-k"].as<std::string>();
  da.finalize = vm["finalize"].as<bool>();
  da.retry_of_verifier = vm["retry"].as<bool>();
  if (vm["cleanup-failed"].as<bool>()) da.cleanup_succeeded = false;
  if (vm.count("dispatch")) da.dispatch_json = vm["dispatch"].as<std::string>();
  auto dispatch = plan::DispatchFromArgs(da, &diags);

  std::optional<plan::RoundPlan> plan;
  bool input_error = false;
  if (dispatch) {
    auto p = plan::PlanRound(dir, *dispatch, &diags);
    if (p.ok()) {
      plan = std::move(*p);
    } else {
      // No plan: an invalid dispatch is a finding (1); an unusable op dir is an input error (2).
      input_error = !diags.HasCode(plan::code::kDispatchConflict) &&
                    !diags.HasCode(plan::code::kDispatchNotFusion) &&
                    !diags.HasCode(plan::code::kDispatchNeedsModule) &&
                    !diags.HasCode(plan::code::kDispatchRange) &&
                    !diags.HasCode(plan::code::kDispatchEarlyFinalize) &&
                    !diags.HasCode(plan::code::kDispatchRetryNoFinal) &&
                    !diags.HasCode(plan::code::kPlanNoIsFusion);
    }
  }
  std::optional<plan::ReadOnlySnapshot> snap;
  if (plan && vm.count("snapshot-out")) {
    auto s = plan::TakeReadOnlySnapshot(*plan);
    if (!s.ok()) return FailUsage("plan", std::string(s.status().message()), json);
    std::string out = vm["snapshot-out"].as<std::string>();
    auto st = WriteFileAtomic(out, boost::json::serialize(s->ToJson()) + "\n");
    if (!st.ok()) return FailUsage("plan", std::string(st.message()), json);
    snap = std::move(*s);
  }
  int code = input_error ? kExitUsage : (!plan || diags.HasErrors()) ? kExitFindings : kExitOk;
  if (json) {
    boost::json::object o;
    o["op_dir"] = dir;
    o["status"] = code == kExitOk ? "ok" : code == kExitFindings ? "errors" : "input_error";
    if (plan) o["plan"] = plan->ToJson(); else o["plan"] = nullptr;
    if (snap) o["snapshot"] = vm["snapshot-out"].as<std::string>();
    o["errors"] = diags.ErrorCount();
    o["warnings"] = diags.WarningCount();
    o["diagnostics"] = diags.ToJson();
    PrintJson(o);
  } else {
    if (plan) PrintPlanText(*plan);
    if (snap)
      Out() << "snapshot:       " << snap->files.size() << " read-only file(s) hashed into "
                << vm["snapshot-out"].as<std::string>() << "\n";
    if (!diags.empty()) PrintDiagnosticsText(diags);
  }
  return code;
}

}  // namespace

OPDEV_COMMAND("plan", "plan one Stage 4 round from the dispatch; guard the read-only set", RunPlan);

}  // namespace opdev::cli
