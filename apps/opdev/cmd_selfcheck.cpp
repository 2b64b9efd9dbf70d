// `opdev selfcheck`: the static items of the verifier's stage4-check (or module-check with
// --module-k) on the kernel file of an op dir, each with its status, category and findings.
#include "cli_util.h"
#include "command.h"

#include "opdev/kbusage/check.h"
#include "opdev/plan/naming.h"
#include "opdev/plan/read_only_guard.h"
#include "opdev/selfcheck/selfcheck.h"
#include "opdev/support/file_io.h"

#include <boost/json/parse.hpp>

#include <iomanip>
#include <iostream>

namespace opdev::cli {
namespace {

constexpr const char* kUsage =
    "opdev selfcheck <op_dir> [--module-k K | --finalize] [--file REL] [--kb-root DIR]\n"
    "                [--snapshot FILE] [--python PATH|--no-probe] [--json]\n\n"
    "Runs every static item of the verifier's stage4-check (S4-1..7, S4-10..15) or, with\n"
    "--module-k K, of its module-check (MC-1, 2, 5, 6, 7) on the kernel file, on its parsed\n"
    "AST. S4-13 imports the delivered unit (test file + <op>_golden.py alone) with --python\n"
    "(default /usr/bin/python3; missing runtime packages are stubbed). KB usage (S4-14/MC-7)\n"
    "is checked with the KB at --kb-root. --snapshot FILE (from `opdev plan --snapshot-out`)\n"
    "adds the L1 rule that only this round's file changed. Never writes anything.\n"
    "Exit status: 0 every item passed, 1 an item failed or is blocked, 2 usage error.";

int Run(const std::vector<std::string>& args) {
  po::options_description opts("options");
  std::string op_dir, file, kb_root, snapshot, python = "/usr/bin/python3";
  long long module_k = 0;
  opts.add_options()
      ("op_dir", po::value(&op_dir), "the op dir (custom/<op>)")
      ("module-k", po::value(&module_k), "L1 Module K: module-check items")
      ("finalize", po::bool_switch(), "L1 finalize: stage4-check items plus the read-only rule")
      ("file", po::value(&file), "check this op-dir-relative file instead of the mode's product")
      ("kb-root", po::value(&kb_root), "KB root (topology-map.json) for the KB usage item")
      ("snapshot", po::value(&snapshot), "read-only snapshot taken at the start of the round")
      ("python", po::value(&python), "interpreter for the delivery import probe")
      ("no-probe", po::bool_switch(), "skip the import probe (AST rule only)")
      ("json", po::bool_switch(), "print the report as JSON");
  po::positional_options_description pos;
  pos.add("op_dir", 1);
  po::variables_map vm;
  int code = 0;
  if (!ParseArgs(args, kUsage, opts, pos, vm, &code)) return code;
  bool json = vm["json"].as<bool>();
  if (op_dir.empty()) return FailUsage("selfcheck", "missing <op_dir>", json);
  if (vm.count("module-k") && vm["finalize"].as<bool>())
    return FailUsage("selfcheck", "--module-k and --finalize exclude each other", json);
  if (vm.count("module-k") && module_k <= 0)
    return FailUsage("selfcheck", "--module-k must be a positive integer", json);

  selfcheck::SelfCheckOptions o;
  o.op_dir = op_dir;
  if (vm.count("module-k")) o.module_k = module_k;
  o.finalize = vm["finalize"].as<bool>();
  o.file = file;
  o.kb_root = kb_root;
  o.python = vm["no-probe"].as<bool>() ? "" : python;
  if (!snapshot.empty()) {
    auto text = ReadTextFile(snapshot);
    if (!text.ok()) return FailUsage("selfcheck", std::string(text.status().message()), json);
    boost::system::error_code ec;
    auto v = boost::json::parse(*text, ec);
    if (ec) return FailUsage("selfcheck", snapshot + ": not JSON: " + ec.message(), json);
    auto s = plan::ReadOnlySnapshot::FromJson(v);
    if (!s.ok()) return FailUsage("selfcheck", std::string(s.status().message()), json);
    o.snapshot = *s;
  }
  if (!kb_root.empty()) {
    o.kb_usage_check = [&](const std::string& dir) -> std::optional<Diagnostics> {
      Diagnostics d;
      kbusage::CheckOptions ko;
      ko.kb_root = kb_root;
      if (o.module_k) {
        ko.mode = plan::Mode::kL1Module;
        ko.module_k = *o.module_k;
      } else if (o.finalize) {
        ko.mode = plan::Mode::kL1Finalize;
      }
      auto s = kbusage::CheckKbUsage(dir, ko, &d);
      if (!s.ok()) d.Error("KBU-INPUTS", "kb_usage_invalid", dir, 0, std::string(s.status().message()));
      return d;
    };
  }
  auto report = selfcheck::RunSelfCheck(o);
  if (!report.ok()) return FailUsage("selfcheck", std::string(report.status().message()), json);
  if (json) {
    PrintJson(report->ToJson());
  } else {
    Out() << "self-check (" << report->mode << ") of " << report->file << "\n";
    for (const auto& i : report->items) {
      Out() << "  " << std::left << std::setw(6) << i.id << std::setw(14)
                << std::string(selfcheck::ItemStatusName(i.status)) << i.title << "\n";
      if (i.status != selfcheck::ItemStatus::kPass && !i.evidence.empty())
        Out() << "        " << i.evidence << "\n";
    }
    Diagnostics all = report->AllFindings();
    if (!all.empty()) PrintDiagnosticsText(all, Out());
    Out() << report->passed << " passed, " << report->failed << " failed, " << report->blocked
              << " blocked, " << report->not_available << " not available"
              << (report->failure_category.empty() ? "" : "; failure_category: " + report->failure_category)
              << "\n";
  }
  return report->failed > 0 || report->blocked > 0 ? kExitFindings : kExitOk;
}

}  // namespace

OPDEV_COMMAND("selfcheck", "static self-check of a kernel file (verifier stage4/module-check items)", Run);

}  // namespace opdev::cli
