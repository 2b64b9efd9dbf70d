// `opdev gen`: generates the round's kernel file from the frozen op dir (DESIGN §1 transcribed,
// §2.1 constants, §5 wrapper, §8 tests) and writes it atomically; design defects are
// design_violation findings and then nothing is written.
#include "cli_util.h"
#include "command.h"

#include "opdev/codegen/generate.h"
#include "opdev/plan/dispatch.h"

#include <cstdlib>
#include <iostream>

namespace opdev::cli {
namespace {

constexpr const char* kUsage =
    "opdev gen <op_dir> [--module-k K | --finalize] [--target a5|a3] [--out FILE]\n"
    "          [--stdout] [--json]\n\n"
    "Generates the kernel file the round plan names (L0: <op_dir>/test_<op>.py) from the\n"
    "frozen DESIGN.md and SPEC.md: §2.1 constants verbatim, §1 kernel and vector functions\n"
    "transcribed with declarations completed from the §2/§3 tables, the §5 wrapper with\n"
    "exactly one launch, one test per §8 case and a __main__ runner. The file is re-parsed\n"
    "and its on-chip budget checked against DESIGN §3 before it is written atomically.\n"
    "Faithful transcription: a DESIGN defect (undefined name, address that differs from §3,\n"
    "VF parameters that do not match the call, MTE op inside a VF, ...) is reported as a\n"
    "design_violation with its DESIGN line, and no file is written.\n"
    "Never overwrites a read-only file or a frozen contract; never writes into the shared\n"
    "reference tree ($OPDEV_SHARED_DIR, default /work/shared).\n"
    "Exit status: 0 written, 1 findings (nothing written), 2 usage or I/O error.";

int RunGen(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("op_dir", po::value<std::string>(), "operator directory")(
      "module-k", po::value<std::string>(), "L1 staged Module K (needs a fusion backend)")(
      "finalize", po::bool_switch(), "L1 finalize (needs a fusion backend)")(
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

  codegen::GenerateOptions gopts;
  auto target = ParseTarget(vm["target"].as<std::string>());
  if (!target) return FailUsage("gen", "unknown target " + vm["target"].as<std::string>(), json);
  gopts.target = *target;
  if (vm.count("module-k")) {
    Diagnostics d;
    auto k = plan::ParseModuleK(vm["module-k"].as<std::string>(), &d);
    if (!k) return FailUsage("gen", "--module-k: " + (d.empty() ? "bad value" : d.items()[0].message), json);
    gopts.dispatch.module_k = *k;
  }
  gopts.dispatch.finalize = vm["finalize"].as<bool>();
  if (gopts.dispatch.module_k && gopts.dispatch.finalize)
    return FailUsage("gen", "--module-k and --finalize are exclusive", json);

  codegen::GenerateResult r = codegen::GenerateKernelFile(vm["op_dir"].as<std::string>(), gopts);
  std::string written;
  if (r.ok() && !vm["stdout"].as<bool>()) {
    codegen::WriteOptions w;
    const char* shared = std::getenv("OPDEV_SHARED_DIR");
    w.protected_roots.push_back(shared && *shared ? shared : "/work/shared");
    written = vm.count("out") ? vm["out"].as<std::string>() : r.file->path;
    if (auto st = codegen::WriteGeneratedFile(written, r.file->content, w); !st.ok())
      return FailUsage("gen", std::string(st.message()), json);
  }
  if (json) {
    boost::json::object o = r.ToJson();
    o["written"] = written;
    PrintJson(o);
  } else {
    if (r.ok() && vm["stdout"].as<bool>()) Out() << r.file->content;
    if (!r.diagnostics.empty()) PrintDiagnosticsText(r.diagnostics);
    if (r.ok() && !written.empty()) {
      const auto& f = *r.file;
      Out() << "wrote " << written << " (" << f.content.size() << " bytes): kernel "
                << f.kernel << ", " << f.vector_functions.size() << " vector function(s), wrapper "
                << f.wrapper << ", " << f.tests.size() << " test(s)\n";
      for (const auto& u : f.budget.spaces)
        Out() << "budget " << MemSpaceName(u.space) << ": "
                  << budget::HexAddress(u.high_water) << " (" << u.high_water << " B) of "
                  << u.capacity << " B\n";
    } else if (!r.ok()) {
      Err() << "opdev gen: nothing written\n";
    }
  }
  return r.ok() ? kExitOk : kExitFindings;
}

}  // namespace

OPDEV_COMMAND("gen", "generate the round's kernel file from the frozen DESIGN", RunGen);

}  // namespace opdev::cli
