// `opdev gen`: generates the round's kernel file from the frozen op dir (DESIGN §1 transcribed,
// §2.1 constants, §5 wrapper, §8 tests) and writes it atomically; design defects are
// design_violation findings and then nothing is written.
#include "cli_util.h"
#include "command.h"

namespace opdev::cli {
namespace {

constexpr const char* kUsage =
    "opdev gen <op_dir> [--module-k K | --finalize [--retry] [--cleanup-failed |\n"
    "          --cleanup-succeeded]] [--target a5|a3] [--out FILE] [--stdout] [--json]\n\n"
    "Generates the kernel file the round plan names (L0: <op_dir>/test_<op>.py) from the\n"
    "frozen DESIGN.md and SPEC.md: §2.1 constants verbatim, §1 kernel and vector functions\n"
    "transcribed with declarations completed from the §2/§3 tables (a pure-Vector DESIGN\n"
    "with only vector_selection chains gets the pure-vec pattern skeleton; a pure-Cube\n"
    "DESIGN with only a `cube_matmul:` block of (TM, TK1, TK0, TN) gets the dynamic\n"
    "two-level-K matmul structure), the §5 wrapper with block_dim capped by\n"
    "vector_core_num (Vector) or core_num (Cube) and exactly one launch, one test per §8\n"
    "case and a __main__ runner. --module-k K (a Vector/Cube fusion): the staged file\n"
    "modules/test_<op>_module<suffix_K>.py holding Modules 1..K of the fused §1 kernel (one\n"
    "section block per Module, each through its section's backend; cross-core calls kept as\n"
    "§1 writes them once both sides are in the round), wrapper <op>_wrapper_module<suffix_K>\n"
    "returning Module K's outputs, tests against the staged golden; Module K > 1 needs the\n"
    "previous staged file unchanged since its round. --finalize: test_<op>.py from the last\n"
    "staged file by the L1 cleanup (staged wrapper and golden renamed, op-dir walk-up one\n"
    "level, delivery header) after its arity guard (what <op>_golden_cpu returns against how\n"
    "the file binds it) and a proofread; a refused cleanup is kept as warnings and the file\n"
    "is rebuilt from the last staged file's kernel. --cleanup-succeeded: proofread the\n"
    "orchestrator's existing test_<op>.py; --cleanup-failed: rebuild directly; --retry: a\n"
    "verifier retry repairs only the existing final file. The file is re-parsed\n"
    "and its on-chip budget checked against DESIGN §3 before it is written atomically.\n"
    "Faithful transcription: a DESIGN defect (undefined name, address that differs from §3,\n"
    "VF parameters that do not match the call, MTE op inside a VF, ...) is reported as a\n"
    "design_violation with its DESIGN line, and no file is written.\n"
    "Never overwrites a read-only file, a frozen contract or (--out) a file the round plan\n"
    "holds read-only, such as a historical staged file; never writes into the shared\n"
    "reference tree ($OPDEV_SHARED_DIR, default /work/shared).\n"
    "Exit status: 0 written, 1 findings (nothing written), 2 usage or I/O error.";

int RunGen(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("op_dir", po::value<std::string>(), "operator directory")(
      "module-k", po::value<std::string>(), "L1 staged Module K of a Vector/Cube fusion")(
      "finalize", po::bool_switch(), "L1 finalize: the delivery file by the L1 cleanup")(
      "retry", po::bool_switch(), "with --finalize: a verifier retry (repair the final file)")(
      "cleanup-failed", po::bool_switch(), "with --finalize: the orchestrator's cleanup failed")(
      "cleanup-succeeded", po::bool_switch(),
      "with --finalize: the orchestrator's cleanup wrote test_<op>.py; proofread it")(
      "target", po::value<std::string>()->default_value("a5"), "a5 or a3 (budget capacities)")(
      "out", po::value<std::string>(), "write here instead of the planned path")(
      "stdout", po::bool_switch(), "print the file instead of writing it")(
      "json", po::bool_switch(), "machine-readable result");
  po::positional_options_description pos;
  pos.add("op_dir", 1);
  po::variables_map vm;
  int code = 0;
  if (!ParseArgs(args, kUsage, opts, pos, vm, &code)) return code;
  const bool json = vm["json"].as<bool>();
  if (!vm.count("op_dir")) return FailUsage("gen", "missing <op_dir>", json);

  boost::json::object request{{"op_dir", vm["op_dir"].as<std::string>()},
                              {"target", vm["target"].as<std::string>()}};
  if (vm.count("module-k")) request["module_k"] = vm["module-k"].as<std::string>();
  if (vm["finalize"].as<bool>()) request["finalize"] = true;
  for (const char* key : {"retry", "cleanup-failed", "cleanup-succeeded"})
    if (vm[key].as<bool>()) {
      std::string k = key;
      for (auto& c : k) if (c == '-') c = '_';
      request[k] = true;
    }
  if (vm.count("out")) request["out"] = vm["out"].as<std::string>();
  if (vm["stdout"].as<bool>()) request["stdout"] = true;
  return RunAndPrintStep("gen", "gen", request, json);
}

}  // namespace

OPDEV_COMMAND("gen", "generate the round's kernel file from the frozen DESIGN", RunGen);

}  // namespace opdev::cli
