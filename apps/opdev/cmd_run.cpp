// `opdev run`: runs an op dir's kernel file on the CPU simulator or the NPU and prints the
// per-case results with the triaged failure category.
#include "cli_util.h"
#include "command.h"

#include "opdev/stage/run_op.h"

#include <iomanip>
#include <iostream>
#include <unistd.h>

namespace opdev::cli {
namespace {

constexpr const char* kUsage =
    "opdev run <op_dir> --backend sim|npu [--case NAME] [--module-k K] [--file REL]\n"
    "          [--python PATH] [--device N] [--npu-smi PATH] [--timeout S] [--idle-timeout S]\n"
    "          [--log-dir DIR] [--json]\n\n"
    "npu: runs exactly the pipeline's command (python custom/<op>/test_<op>.py, or the staged\n"
    "file with --module-k) from the workspace root, argv only (no shell), with\n"
    "TILE_FWK_DEVICE_ID from --device or the first idle chip `npu-smi info` reports; the whole\n"
    "process group is killed after --timeout (default 1800 s) or --idle-timeout seconds\n"
    "without output (default 900 s). --python chooses the interpreter (default `python`).\n"
    "sim: runs every DESIGN §8 case through opdev's CPU simulator via the wrapper and compares\n"
    "with the CPU FP32 golden (<op>_golden_cpu.py, run by --python, default /usr/bin/python3).\n"
    "--case NAME runs one case alone. Logs go to <op_dir>/reports/opdev/run (or --log-dir).\n"
    "Exit status: 0 every case PASS, 1 a failure (or not measured), 2 usage error.";

int Run(const std::vector<std::string>& args) {
  po::options_description opts("options");
  stage::RunOpOptions o;
  std::string python;
  long long module_k = 0;
  int device = -1;
  opts.add_options()
      ("op_dir", po::value(&o.op_dir), "the op dir")
      ("backend", po::value(&o.backend)->default_value("sim"), "sim or npu")
      ("case", po::value(&o.case_name), "run one DESIGN §8 case alone")
      ("module-k", po::value(&module_k), "L1 Module K: run the staged file")
      ("file", po::value(&o.file), "run this op-dir-relative file")
      ("python", po::value(&python), "interpreter (npu: the test; sim: the golden)")
      ("device", po::value(&device), "NPU device id (TILE_FWK_DEVICE_ID)")
      ("npu-smi", po::value(&o.npu_smi), "npu-smi program for idle-chip discovery")
      ("timeout", po::value(&o.timeout_seconds), "wall-clock limit in seconds")
      ("idle-timeout", po::value(&o.idle_timeout_seconds), "no-output limit in seconds")
      ("log-dir", po::value(&o.log_dir), "where logs go")
      ("json", po::bool_switch(), "print JSON");
  po::positional_options_description pos;
  pos.add("op_dir", 1);
  po::variables_map vm;
  int code = 0;
  if (!ParseArgs(args, kUsage, opts, pos, vm, &code)) return code;
  bool json = vm["json"].as<bool>();
  if (o.op_dir.empty()) return FailUsage("run", "missing <op_dir>", json);
  if (o.backend != "sim" && o.backend != "npu")
    return FailUsage("run", "--backend must be sim or npu", json);
  if (vm.count("module-k")) {
    if (module_k <= 0) return FailUsage("run", "--module-k must be a positive integer", json);
    o.module_k = module_k;
  }
  if (vm.count("device")) {
    if (device < 0) return FailUsage("run", "--device must be >= 0", json);
    o.device = device;
  }
  if (o.timeout_seconds <= 0 || o.idle_timeout_seconds <= 0)
    return FailUsage("run", "timeouts must be positive", json);
  if (!python.empty()) {
    if (o.backend == "npu") o.interpreter = python;
    else o.python = python;
  }
  if (!json && ::isatty(2)) o.progress = [](const std::string& l) { Err() << "  " << l << "\n"; };
  auto r = stage::RunOp(o);
  if (!r.ok()) return FailUsage("run", std::string(r.status().message()), json);
  if (json) {
    PrintJson(r->ToJson());
  } else {
    for (const auto& c : r->commands) Out() << "$ " << c << "\n";
    for (const auto& c : r->cases) {
      Out() << "  " << std::left << std::setw(16) << runtime::CaseStatusName(c.status) << c.name;
      if (c.metrics.matched_ratio) Out() << "  matched_ratio=" << *c.metrics.matched_ratio;
      if (c.metrics.max_abs_error) Out() << " max_abs_error=" << *c.metrics.max_abs_error;
      if (!c.error.empty()) Out() << "  " << c.error.substr(0, 200);
      Out() << "\n";
    }
    if (!r->hazards.empty()) PrintDiagnosticsText(r->hazards, Out());
    const auto& t = r->triage;
    Out() << runtime::OutcomeName(t.outcome)
              << (t.outcome == runtime::Outcome::kNotMeasured ? " (not measured)"
                                                             : " (" + std::to_string(t.passed) + "/" +
                                                                   std::to_string(t.total) + " PASS)")
              << (t.category.empty() ? "" : "  failure_category: " + t.category) << "\n  " << t.summary
              << "\n";
    for (const auto& e : t.evidence) Out() << "  evidence: " << e << "\n";
    if (!t.layer.empty()) Out() << "  review next: " << t.layer << "\n";
    Out() << "  next: " << t.next_action << "\n";
    for (const auto& [role, path] : r->logs) Out() << "  " << role << ": " << path << "\n";
  }
  return r->triage.outcome == runtime::Outcome::kPass ? kExitOk : kExitFindings;
}

}  // namespace

OPDEV_COMMAND("run", "run the kernel file on the simulator or the NPU and triage failures", Run);

}  // namespace opdev::cli
