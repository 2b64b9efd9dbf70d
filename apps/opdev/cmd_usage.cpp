// `opdev usage generate|check`: write every class's KB_USAGE.json for a round, or check the
// usage files the way the verifier does.
#include "cli_util.h"
#include "command.h"

#include "opdev/contract/module_interfaces.h"
#include "opdev/contract/op_dir.h"
#include "opdev/kbusage/check.h"
#include "opdev/kbusage/generate.h"
#include "opdev/plan/dispatch.h"
#include "opdev/plan/round_plan.h"

#include <boost/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace opdev::cli {
namespace {

constexpr const char* kUsage =
    "opdev usage generate <op_dir> [--kb-root DIR] [--module-k K | --finalize [--retry]]\n"
    "                     [--module-checked 1,2,..] [--deviation [CLASS:]REF#REQ=WHY]...\n"
    "                     [--strict-locations] [--dry-run] [--json]\n"
    "opdev usage check <op_dir> [--kb-root DIR] [--mode L0|L1-module|L1-finalize]\n"
    "                  [--module-k K] [--module-checked 1,2,..] [--json]\n\n"
    "generate: writes each class's KB_USAGE.json for the round the dispatch names (no flag =\n"
    "L0, --module-k K = L1 Module K staged records, --finalize = final records plus the\n"
    "module-checked staged ones). Records point at symbols resolved from each requirement's\n"
    "planned_location and checked to exist in the produced file. Nothing is written when an\n"
    "error is found; writes are atomic. Usage is wiped only on first entry or when the\n"
    "upstream artifacts changed (hash kept in .opdev_kb_usage_state.json).\n"
    "check: the verifier's view of every class's KB_USAGE.json (category kb_usage_invalid).\n"
    "Default mode: L0 for a non-fusion op, else L1-module with --module-k, else L1-finalize.\n"
    "KB root: --kb-root, else $OPDEV_KB_ROOT, else found by walking up from the op dir.\n"
    "Exit status: 0 clean, 1 findings, 2 usage error or unusable inputs.";

std::optional<std::vector<std::int64_t>> ParseList(const std::string& text, std::string* err) {
  std::vector<std::int64_t> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    Diagnostics d;
    auto k = plan::ParseModuleK(item, &d);
    if (!k || *k <= 0) {
      *err = "--module-checked: '" + item + "' is not a positive Module number";
      return std::nullopt;
    }
    out.push_back(*k);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::optional<kbusage::Deviation> ParseDeviation(const std::string& text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos) return std::nullopt;
  std::string lhs = text.substr(0, eq);
  kbusage::Deviation d;
  d.justification = text.substr(eq + 1);
  size_t hash = lhs.rfind('#');
  if (hash == std::string::npos || hash + 1 == lhs.size()) return std::nullopt;
  d.req_id = lhs.substr(hash + 1);
  std::string ref = lhs.substr(0, hash);
  size_t colon = ref.find(':');
  if (colon != std::string::npos) {
    d.class_id = ref.substr(0, colon);
    ref = ref.substr(colon + 1);
  }
  d.reference = ref;
  if (d.reference.empty()) return std::nullopt;
  return d;
}

int Finish(const std::string& action, const std::string& dir, const Diagnostics& diags,
           int code, bool json, boost::json::object extra) {
  if (json) {
    boost::json::object o;
    o["action"] = action;
    o["op_dir"] = dir;
    o["status"] = code == kExitOk ? "ok" : code == kExitFindings ? "errors" : "input_error";
    for (auto& kv : extra) o[kv.key()] = kv.value();
    o["errors"] = diags.ErrorCount();
    o["warnings"] = diags.WarningCount();
    o["diagnostics"] = diags.ToJson();
    PrintJson(o);
  } else if (!diags.empty()) {
    PrintDiagnosticsText(diags);
  }
  return code;
}

int RunUsage(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("action", po::value<std::string>(), "generate or check")(
      "op-dir", po::value<std::string>(), "the op dir (custom/<op>/)")(
      "kb-root", po::value<std::string>()->default_value(""), "KB root holding topology-map.json")(
      "module-k", po::value<std::string>(), "L1 Module K (generate: the dispatch; check: current Module)")(
      "finalize", po::bool_switch(), "generate: L1 finalize dispatch")(
      "retry", po::bool_switch(), "generate: a verifier retry of the finalize")(
      "mode", po::value<std::string>(), "check: L0, L1-module or L1-finalize")(
      "module-checked", po::value<std::string>(),
      "finalize: comma-separated Modules whose staged files passed module-check (default: all)")(
      "deviation", po::value<std::vector<std::string>>()->composing(),
      "generate: [CLASS:]REFERENCE#REQ_ID=JUSTIFICATION for a deviation DESIGN froze")(
      "strict-locations", po::bool_switch(),
      "generate: a planned_location without a resolvable file/symbol is an error")(
      "dry-run", po::bool_switch(), "generate: compute and report, write nothing")(
      "print", po::bool_switch(), "generate: also print the generated files")(
      "json", po::bool_switch(), "print a JSON report on stdout");
  po::positional_options_description pos;
  pos.add("action", 1).add("op-dir", 1);
  po::variables_map vm;
  int exit_code = 0;
  if (!ParseArgs(args, kUsage, opts, pos, vm, &exit_code)) return exit_code;
  bool json = vm["json"].as<bool>();
  if (!vm.count("action")) return FailUsage("usage", "missing action: generate or check", json);
  std::string action = vm["action"].as<std::string>();
  if (action != "generate" && action != "check")
    return FailUsage("usage", "unknown action '" + action + "' (expected generate or check)", json);
  if (!vm.count("op-dir")) return FailUsage("usage", "missing <op_dir> (see --help)", json);
  const std::string dir = vm["op-dir"].as<std::string>();
  std::string kb_root = contract::ResolveKbRoot(dir, vm["kb-root"].as<std::string>());
  if (kb_root.empty())
    return FailUsage("usage", "no KB root: give --kb-root DIR (the directory of topology-map.json)", json);
  if (!std::filesystem::exists(std::filesystem::path(kb_root) / "topology-map.json"))
    return FailUsage("usage", kb_root + "/topology-map.json does not exist", json);

  std::optional<std::vector<std::int64_t>> checked;
  if (vm.count("module-checked")) {
    std::string err;
    checked = ParseList(vm["module-checked"].as<std::string>(), &err);
    if (!checked) return FailUsage("usage", err, json);
  }
  Diagnostics diags;

  if (action == "generate") {
    if (vm.count("mode")) return FailUsage("usage", "--mode is for check; generate takes the dispatch", json);
    plan::DispatchArgs da;
    if (vm.count("module-k")) da.module_k = vm["module-k"].as<std::string>();
    da.finalize = vm["finalize"].as<bool>();
    da.retry_of_verifier = vm["retry"].as<bool>();
    auto dispatch = plan::DispatchFromArgs(da, &diags);
    if (!dispatch) return Finish(action, dir, diags, kExitFindings, json, {});
    auto p = plan::PlanRound(dir, *dispatch, &diags);
    if (!p.ok()) return Finish(action, dir, diags, kExitFindings, json, {});
    kbusage::GenerateOptions go;
    go.kb_root = kb_root;
    go.module_checked = checked;
    go.strict_locations = vm["strict-locations"].as<bool>();
    go.dry_run = vm["dry-run"].as<bool>();
    const char* shared = std::getenv("OPDEV_SHARED_DIR");
    go.protected_roots.push_back(shared && *shared ? shared : "/work/shared");
    if (vm.count("deviation")) {
      for (const auto& s : vm["deviation"].as<std::vector<std::string>>()) {
        auto dv = ParseDeviation(s);
        if (!dv) return FailUsage("usage", "--deviation '" + s + "': expected [CLASS:]REF#REQ=WHY", json);
        go.deviations.push_back(*dv);
      }
    }
    auto res = kbusage::GenerateKbUsage(*p, go, &diags);
    boost::json::object extra;
    extra["mode"] = std::string(plan::ModeName(p->mode));
    if (res.ok()) extra["result"] = res->ToJson();
    if (!json && res.ok()) {
      for (const auto& c : res->classes) {
        Out() << (res->written ? "wrote " : "would write ") << c.usage_rel << ": "
                  << c.final_records << " final, " << c.staged_records << " staged, "
                  << c.kept_records << " kept, " << c.dropped_records << " dropped"
                  << (c.wiped ? " (wiped)" : "") << "\n";
        if (vm["print"].as<bool>()) Out() << c.content;
      }
    }
    return Finish(action, dir, diags, res.ok() ? kExitOk : kExitFindings, json, extra);
  }

  // check
  kbusage::CheckOptions co;
  co.kb_root = kb_root;
  co.module_checked = checked;
  if (vm.count("module-k")) {
    auto k = plan::ParseModuleK(vm["module-k"].as<std::string>(), &diags);
    if (!k) return Finish(action, dir, diags, kExitFindings, json, {});
    co.module_k = k;
  }
  if (vm.count("mode")) {
    auto m = plan::ParseModeName(vm["mode"].as<std::string>());
    if (!m) return FailUsage("usage", "unknown --mode '" + vm["mode"].as<std::string>() +
                                          "' (L0, L1-module, L1-finalize, L1-finalize-retry)", json);
    co.mode = *m;
  } else {
    Diagnostics mid;
    auto mi = contract::LoadModuleInterfaces(
        (std::filesystem::path(dir) / "module_interfaces.yaml").string(), &mid);
    bool fusion = mi.ok() && mi->is_fusion.value_or(false);
    co.mode = !fusion ? plan::Mode::kL0 : co.module_k ? plan::Mode::kL1Module : plan::Mode::kL1Finalize;
  }
  auto sum = kbusage::CheckKbUsage(dir, co, &diags);
  boost::json::object extra;
  extra["mode"] = std::string(plan::ModeName(co.mode));
  if (sum.ok()) extra["summary"] = sum->ToJson();
  int code = !sum.ok() ? kExitUsage : diags.HasErrors() ? kExitFindings : kExitOk;
  if (!json && sum.ok())
    Out() << "checked " << sum->classes << " usage file(s), " << sum->records << " record(s) ("
              << sum->final_records << " final, " << sum->staged_records << " staged) in mode "
              << plan::ModeName(co.mode) << ": " << (diags.HasErrors() ? "FAIL" : "PASS") << "\n";
  return Finish(action, dir, diags, code, json, extra);
}

}  // namespace

OPDEV_COMMAND("usage", "generate or check KB_USAGE.json (usage generate|check <op_dir>)", RunUsage);

}  // namespace opdev::cli
