// `opdev budget`: the on-chip memory budget of a kernel file or an op dir (DESIGN §3 map),
// their comparison, and an SVG memory map.
#include "cli_util.h"
#include "command.h"

namespace opdev::cli {
namespace {

constexpr const char* kUsage =
    "opdev budget <kernel.py|op_dir> [--target a5|a3] [--design DESIGN.md|-] [--svg FILE]\n"
    "             [--json]\n\n"
    "Computes every on-chip slot (space, address range, bytes, mutex ids) of a kernel's\n"
    "make_tile_group / make_tile declarations, or of an op dir's DESIGN §3 address map (and of\n"
    "its test_<op>.py when present), and checks alignment, capacity, overlap of coexisting\n"
    "slots (identical-address aliases written with the same address are listed), mutex-id\n"
    "range and uniqueness. Cube tiles forming a matmul tiling (TM, TK1, TK0, TN) also get\n"
    "the spec §9 footprint L1/L0A/L0B/L0C against each space's capacity and the Acc\n"
    "fractal. A kernel is compared with the DESIGN.md beside it (--design to name another,\n"
    "--design - for none). --svg writes a memory map with one lane per space used.\n"
    "Exit status: 0 clean, 1 findings, 2 usage or unreadable input.";

int RunBudget(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("path", po::value<std::string>(), "kernel .py file or op dir")(
      "target", po::value<std::string>()->default_value("a5"), "a5 or a3")(
      "design", po::value<std::string>()->default_value(""), "DESIGN.md to compare with")(
      "svg", po::value<std::string>(), "write the SVG memory map here")(
      "json", po::bool_switch(), "machine-readable result");
  po::positional_options_description pos;
  pos.add("path", 1);
  po::variables_map vm;
  int code = 0;
  if (!ParseArgs(args, kUsage, opts, pos, vm, &code)) return code;
  const bool json = vm["json"].as<bool>();
  if (!vm.count("path")) return FailUsage("budget", "missing <kernel.py|op_dir>", json);
  boost::json::object request{{"path", vm["path"].as<std::string>()},
                              {"target", vm["target"].as<std::string>()},
                              {"design", vm["design"].as<std::string>()}};
  if (vm.count("svg")) request["svg"] = vm["svg"].as<std::string>();
  return RunAndPrintStep("budget", "budget", request, json);
}

}  // namespace

OPDEV_COMMAND("budget", "on-chip memory budget of a kernel or an op dir's DESIGN §3 map", RunBudget);

}  // namespace opdev::cli
