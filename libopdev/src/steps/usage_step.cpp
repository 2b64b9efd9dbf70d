// The "usage-generate" and "usage-check" steps: write every class's KB_USAGE.json for a
// round, or check the usage files the way the verifier does.
// usage-generate: {"op_dir", "kb_root"?, "module_k"?, "finalize"?, "retry"?,
//                  "module_checked"?: [1, 2] or "1,2", "deviation"?: ["[CLASS:]REF#REQ=WHY"],
//                  "strict_locations"?, "dry_run"?, "print"?}
// usage-check:    {"op_dir", "kb_root"?, "mode"?: "L0"|"L1-module"|"L1-finalize",
//                  "module_k"?, "module_checked"?}
#include "opdev/contract/module_interfaces.h"
#include "opdev/contract/op_dir.h"
#include "opdev/kbusage/check.h"
#include "opdev/kbusage/generate.h"
#include "opdev/plan/dispatch.h"
#include "opdev/plan/round_plan.h"
#include "opdev/steps/step.h"
#include "steps/step_util.h"

#include <filesystem>
#include <sstream>

namespace opdev::steps {
namespace {

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

// What both actions read first: op dir, the resolved KB root and --module-checked.
struct Common {
  std::string dir, kb_root;
  std::optional<std::vector<std::int64_t>> checked;
};

std::optional<StepResult> ReadCommon(const StepContext& ctx, RequestReader& rr, Common* c) {
  c->dir = rr.String("op_dir", /*required=*/true);
  std::string kb = KbRootOf(ctx, rr);
  std::optional<std::string> checked_text;
  const boost::json::value* mc = rr.request.if_contains("module_checked");
  if (mc && mc->is_array()) {
    std::string joined;
    for (const auto& v : mc->as_array()) {
      if (!joined.empty()) joined += ",";
      joined += v.is_int64() ? std::to_string(v.as_int64()) : v.is_string() ? std::string(v.as_string()) : "?";
    }
    checked_text = joined;
  } else if (mc && !mc->is_null()) {
    checked_text = rr.IntOrString("module_checked");
  }
  if (!rr.Ok()) return StepResult::Error(rr.error);
  c->kb_root = contract::ResolveKbRoot(c->dir, kb);
  if (c->kb_root.empty())
    return StepResult::Error("no KB root: give --kb-root DIR (the directory of topology-map.json)");
  if (!std::filesystem::exists(std::filesystem::path(c->kb_root) / "topology-map.json"))
    return StepResult::Error(c->kb_root + "/topology-map.json does not exist");
  if (checked_text) {
    std::string err;
    c->checked = ParseList(*checked_text, &err);
    if (!c->checked) return StepResult::Error(err);
  }
  return std::nullopt;
}

StepResult Finish(const std::string& action, const std::string& dir, const Diagnostics& diags,
                  int status, boost::json::object extra, std::string text = {}) {
  StepResult r;
  r.status = status;
  boost::json::object o;
  o["action"] = action;
  o["op_dir"] = dir;
  o["status"] = StatusWord(status);
  for (auto& kv : extra) o[kv.key()] = kv.value();
  o["errors"] = diags.ErrorCount();
  o["warnings"] = diags.WarningCount();
  o["diagnostics"] = diags.ToJson();
  r.document = std::move(o);
  r.text = std::move(text);
  if (!diags.empty()) {
    std::ostringstream err;
    WriteDiagnosticsText(diags, err);
    r.text_err = err.str();
  }
  return r;
}

}  // namespace

StepResult RunUsageGenerateStep(const StepContext& ctx, const boost::json::object& request) {
  RequestReader rr(request);
  Common c;
  if (auto e = ReadCommon(ctx, rr, &c)) return *e;
  if (request.if_contains("mode") && !request.at("mode").is_null())
    return StepResult::Error("--mode is for check; generate takes the dispatch");
  const std::string action = "generate";
  Diagnostics diags;
  plan::DispatchArgs da;
  da.module_k = rr.IntOrString("module_k");
  da.finalize = rr.Bool("finalize");
  da.retry_of_verifier = rr.Bool("retry");
  kbusage::GenerateOptions go;
  go.kb_root = c.kb_root;
  go.module_checked = c.checked;
  go.strict_locations = rr.Bool("strict_locations");
  go.dry_run = rr.Bool("dry_run");
  const bool print = rr.Bool("print");
  std::vector<std::string> deviations = rr.Strings("deviation");
  if (!rr.Ok()) return StepResult::Error(rr.error);
  auto dispatch = plan::DispatchFromArgs(da, &diags);
  if (!dispatch) return Finish(action, c.dir, diags, kStatusFindings, {});
  auto p = plan::PlanRound(c.dir, *dispatch, &diags);
  if (!p.ok()) return Finish(action, c.dir, diags, kStatusFindings, {});
  go.protected_roots.push_back(ProtectedSharedRoot());
  for (const auto& s : deviations) {
    auto dv = ParseDeviation(s);
    if (!dv) return StepResult::Error("--deviation '" + s + "': expected [CLASS:]REF#REQ=WHY");
    go.deviations.push_back(*dv);
  }
  auto res = kbusage::GenerateKbUsage(*p, go, &diags);
  boost::json::object extra;
  extra["mode"] = std::string(plan::ModeName(p->mode));
  std::ostringstream out;
  if (res.ok()) {
    extra["result"] = res->ToJson();
    for (const auto& cl : res->classes) {
      out << (res->written ? "wrote " : "would write ") << cl.usage_rel << ": " << cl.final_records
          << " final, " << cl.staged_records << " staged, " << cl.kept_records << " kept, "
          << cl.dropped_records << " dropped" << (cl.wiped ? " (wiped)" : "") << "\n";
      if (print) out << cl.content;
    }
  }
  return Finish(action, c.dir, diags, res.ok() ? kStatusOk : kStatusFindings, std::move(extra), out.str());
}

StepResult RunUsageCheckStep(const StepContext& ctx, const boost::json::object& request) {
  RequestReader rr(request);
  Common c;
  if (auto e = ReadCommon(ctx, rr, &c)) return *e;
  const std::string action = "check";
  auto module_k = rr.IntOrString("module_k");
  const std::string mode = rr.String("mode");
  if (!rr.Ok()) return StepResult::Error(rr.error);
  Diagnostics diags;
  kbusage::CheckOptions co;
  co.kb_root = c.kb_root;
  co.module_checked = c.checked;
  if (module_k) {
    auto k = plan::ParseModuleK(*module_k, &diags);
    if (!k) return Finish(action, c.dir, diags, kStatusFindings, {});
    co.module_k = k;
  }
  if (!mode.empty()) {
    auto m = plan::ParseModeName(mode);
    if (!m)
      return StepResult::Error("unknown --mode '" + mode +
                               "' (L0, L1-module, L1-finalize, L1-finalize-retry)");
    co.mode = *m;
  } else {
    Diagnostics mid;
    auto mi = contract::LoadModuleInterfaces(
        (std::filesystem::path(c.dir) / "module_interfaces.yaml").string(), &mid);
    bool fusion = mi.ok() && mi->is_fusion.value_or(false);
    co.mode = !fusion ? plan::Mode::kL0 : co.module_k ? plan::Mode::kL1Module : plan::Mode::kL1Finalize;
  }
  auto sum = kbusage::CheckKbUsage(c.dir, co, &diags);
  boost::json::object extra;
  extra["mode"] = std::string(plan::ModeName(co.mode));
  std::ostringstream out;
  if (sum.ok()) {
    extra["summary"] = sum->ToJson();
    out << "checked " << sum->classes << " usage file(s), " << sum->records << " record(s) ("
        << sum->final_records << " final, " << sum->staged_records << " staged) in mode "
        << plan::ModeName(co.mode) << ": " << (diags.HasErrors() ? "FAIL" : "PASS") << "\n";
  }
  int status = !sum.ok() ? kStatusError : diags.HasErrors() ? kStatusFindings : kStatusOk;
  return Finish(action, c.dir, diags, status, std::move(extra), out.str());
}

}  // namespace opdev::steps
