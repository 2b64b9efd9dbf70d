// `opdev stage`: the whole Stage 4 round with its verdict report.
#include "cli_util.h"
#include "command.h"

#include "opdev/stage/stage.h"

#include <iostream>
#include <unistd.h>

namespace opdev::cli {
namespace {

constexpr const char* kUsage =
    "opdev stage <op_dir> [--kb-root DIR] [--module-k K | --finalize] [--backend sim|npu]\n"
    "            [--no-gen] [--python PATH] [--device N] [--timeout S] [--idle-timeout S] [--json]\n\n"
    "One Stage 4 round: check -> plan -> gen (or, with --no-gen, verify the existing file) ->\n"
    "budget -> self-check -> run -> compare -> KB usage generate + check -> read-only guard ->\n"
    "verdict. Writes <op_dir>/reports/opdev/stage_report.json and stage_report.md (commands,\n"
    "per-quadruple KB evidence, per-case results, hazards, artifacts, failure category and\n"
    "next action). The verdict is CLEAN, FAIL, NOT_MEASURED (environment) or INCOMPLETE (a\n"
    "step could not run); it is opdev's self-check, never a verifier PASS. Progress goes to\n"
    "stderr on a terminal; --json prints only the report.\n"
    "--python is the interpreter of the NPU run (default `python`); the golden and the import\n"
    "probe use --probe-python (default /usr/bin/python3).\n"
    "Exit status: 0 CLEAN, 1 FAIL / NOT_MEASURED / INCOMPLETE, 2 usage error.";

int Run(const std::vector<std::string>& args) {
  po::options_description opts("options");
  stage::StageOptions o;
  long long module_k = 0;
  int device = -1;
  opts.add_options()
      ("op_dir", po::value(&o.op_dir), "the op dir")
      ("kb-root", po::value(&o.kb_root), "KB root (topology-map.json)")
      ("module-k", po::value(&module_k), "L1 Module K")
      ("finalize", po::bool_switch(&o.finalize), "L1 finalize")
      ("backend", po::value(&o.backend)->default_value("sim"), "sim or npu")
      ("no-gen", po::bool_switch(&o.no_gen), "verify the existing kernel file")
      ("python", po::value(&o.interpreter), "interpreter of the NPU run")
      ("probe-python", po::value(&o.python), "Python with torch for the golden and import probe")
      ("device", po::value(&device), "NPU device id")
      ("npu-smi", po::value(&o.npu_smi), "npu-smi program")
      ("timeout", po::value(&o.timeout_seconds), "NPU run wall-clock limit (s)")
      ("idle-timeout", po::value(&o.idle_timeout_seconds), "NPU run no-output limit (s)")
      ("report-dir", po::value(&o.report_dir), "report folder (default <op_dir>/reports/opdev)")
      ("json", po::bool_switch(), "print the report JSON");
  po::positional_options_description pos;
  pos.add("op_dir", 1);
  po::variables_map vm;
  int code = 0;
  if (!ParseArgs(args, kUsage, opts, pos, vm, &code)) return code;
  bool json = vm["json"].as<bool>();
  if (o.op_dir.empty()) return FailUsage("stage", "missing <op_dir>", json);
  if (o.backend != "sim" && o.backend != "npu") return FailUsage("stage", "--backend must be sim or npu", json);
  if (vm.count("module-k")) {
    if (module_k <= 0) return FailUsage("stage", "--module-k must be a positive integer", json);
    if (o.finalize) return FailUsage("stage", "--module-k and --finalize exclude each other", json);
    o.module_k = module_k;
  }
  if (vm.count("device")) {
    if (device < 0) return FailUsage("stage", "--device must be >= 0", json);
    o.device = device;
  }
  if (!json && ::isatty(2)) o.progress = [](const std::string& l) { Err() << l << "\n"; };
  auto r = stage::RunStage(o);
  if (!r.ok()) return FailUsage("stage", std::string(r.status().message()), json);
  if (json) {
    PrintJson(r->ToJson());
  } else {
    Out() << "opdev stage " << r->op << " (" << r->mode << ", " << r->backend << ")\n";
    for (const auto& s : r->steps)
      Out() << "  " << s.name << ": " << stage::StepStatusName(s.status) << " - " << s.summary << "\n";
    Out() << "verdict: " << r->verdict.outcome
              << (r->verdict.failure_category.empty() ? "" : "  failure_category: " + r->verdict.failure_category)
              << "\n  " << r->verdict.summary << "\n  next: " << r->verdict.next_action << "\n";
    for (const auto& e : r->verdict.evidence) Out() << "  evidence: " << e << "\n";
    Out() << "  (self-verification only; not a verifier PASS)\n";
    if (!r->report_json_path.empty())
      Out() << "report: " << r->report_json_path << "\n        " << r->report_md_path << "\n";
  }
  return r->verdict.outcome == "CLEAN" ? kExitOk : kExitFindings;
}

}  // namespace

OPDEV_COMMAND("stage", "the whole Stage 4 round with a verdict report", Run);

}  // namespace opdev::cli
