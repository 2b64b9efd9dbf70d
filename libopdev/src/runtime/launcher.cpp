// The NPU launch path: command planning, device choice, the run, and output parsing.
#include "opdev/runtime/launcher.h"

#include "absl/strings/str_cat.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace opdev::runtime {

absl::StatusOr<CommandPlan> PlanCommand(const LaunchOptions& opts) {
  std::error_code ec;
  if (opts.op_dir.empty()) return absl::InvalidArgumentError("no op dir given");
  fs::path dir = fs::absolute(opts.op_dir, ec).lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();
  if (!fs::is_directory(dir, ec))
    return absl::NotFoundError(absl::StrCat(opts.op_dir, ": not a directory"));
  std::string op = opts.op.empty() ? dir.filename().string() : opts.op;
  std::string file = opts.test_file.empty() ? absl::StrCat("test_", op, ".py") : opts.test_file;
  CommandPlan plan;
  fs::path parent = dir.parent_path();
  fs::path rel;
  if (parent.filename() == "custom" && !parent.parent_path().empty()) {
    plan.cwd = parent.parent_path().string();
    rel = fs::path("custom") / dir.filename() / file;
  } else {
    plan.cwd = parent.string();
    rel = dir.filename() / file;
  }
  plan.script = rel.generic_string();
  // A relative interpreter path means the caller's directory, not the run's.
  std::string interpreter = opts.interpreter;
  if (interpreter.find('/') != std::string::npos && fs::path(interpreter).is_relative())
    interpreter = fs::absolute(interpreter, ec).lexically_normal().string();
  plan.argv = {interpreter};
  if (opts.case_name.empty()) {
    plan.argv.push_back(plan.script);
  } else {
    // One test function alone, loaded exactly as `python <file>` would see it (the file's
    // directory first on sys.path, __name__ not "__main__").
    std::string code = absl::StrCat(
        "import importlib.util, os, sys\n"
        "p = sys.argv[1]\n"
        "sys.path.insert(0, os.path.dirname(os.path.abspath(p)))\n"
        "s = importlib.util.spec_from_file_location('opdev_case_module', p)\n"
        "m = importlib.util.module_from_spec(s)\n"
        "s.loader.exec_module(m)\n"
        "getattr(m, sys.argv[2])()\n");
    plan.argv.insert(plan.argv.end(), {"-c", code, plan.script, opts.case_name});
  }
  return plan;
}

boost::json::object LaunchResult::ToJson() const {
  boost::json::object o;
  o["command"] = command;
  o["cwd"] = cwd;
  boost::json::array a;
  for (const auto& s : argv) a.emplace_back(s);
  o["argv"] = std::move(a);
  boost::json::object env;
  for (const auto& [k, v] : env_set) env[k] = v;
  o["env"] = std::move(env);
  if (device) {
    boost::json::object d;
    d["device_id"] = device->device_id;
    d["source"] = device->source;
    if (!device->evidence.empty()) d["evidence"] = device->evidence;
    o["device"] = std::move(d);
  }
  boost::json::array pc;
  for (const auto& c : preflight_commands) pc.emplace_back(c);
  o["preflight_commands"] = std::move(pc);
  if (!preflight_error.empty()) {
    o["preflight_error"] = preflight_error;
    o["preflight_kind"] = preflight_kind;
  }
  o["launched"] = launched();
  if (process) {
    boost::json::object p;
    p["termination"] = std::string(TerminationName(process->termination));
    p["exit_code"] = process->exit_code;
    if (process->signal) p["signal"] = process->signal;
    if (!process->spawn_error.empty()) p["spawn_error"] = process->spawn_error;
    p["wall_seconds"] = process->wall_seconds;
    o["process"] = std::move(p);
  }
  boost::json::array cs;
  for (const auto& c : cases) cs.push_back(c.ToJson());
  o["cases"] = std::move(cs);
  boost::json::object logs;
  if (!stdout_path.empty()) logs["stdout"] = stdout_path;
  if (!stderr_path.empty()) logs["stderr"] = stderr_path;
  if (!combined_path.empty()) logs["combined"] = combined_path;
  o["logs"] = std::move(logs);
  return o;
}

absl::StatusOr<LaunchResult> Launch(const LaunchOptions& opts) {
  auto plan = PlanCommand(opts);
  if (!plan.ok()) return plan.status();
  LaunchResult r;
  r.argv = plan->argv;
  r.cwd = plan->cwd;
  // Report the one-case form compactly; the argv is recorded in full.
  r.command = opts.case_name.empty()
                  ? RenderCommand(plan->argv)
                  : absl::StrCat(opts.interpreter, " -c <run ", opts.case_name, " from ",
                                 plan->script, ">");

  std::error_code ec;
  if (!fs::is_regular_file(fs::path(plan->cwd) / plan->script, ec)) {
    r.preflight_kind = "missing_file";
    r.preflight_error = absl::StrCat(plan->script, ": no such file (from ", plan->cwd, ")");
    return r;
  }

  if (opts.device) {
    DeviceChoice d;
    d.device_id = *opts.device;
    d.source = "--device";
    r.device = d;
  } else if (opts.discover_device) {
    auto d = DiscoverIdleDevice(opts.npu_smi);
    r.preflight_commands = {RenderCommand({opts.npu_smi, "info"})};
    if (!d.ok()) {
      switch (d.status().code()) {
        case absl::StatusCode::kNotFound: r.preflight_kind = "npu_smi_missing"; break;
        case absl::StatusCode::kResourceExhausted: r.preflight_kind = "no_idle_chip"; break;
        case absl::StatusCode::kDeadlineExceeded: r.preflight_kind = "npu_smi_timeout"; break;
        default: r.preflight_kind = "npu_smi_silent"; break;
      }
      r.preflight_error = std::string(d.status().message());
      return r;
    }
    r.preflight_commands = d->commands;
    r.device = *d;
  }
  if (r.device) r.env_set["TILE_FWK_DEVICE_ID"] = std::to_string(r.device->device_id);
  for (const auto& [k, v] : opts.env) r.env_set[k] = v;

  ProcessSpec spec;
  spec.argv = plan->argv;
  spec.cwd = plan->cwd;
  spec.env = r.env_set;
  spec.env["PYTHONUNBUFFERED"] = "1";  // output arrives as printed: the watchdog needs it
  spec.timeout_seconds = opts.timeout_seconds;
  spec.idle_timeout_seconds = opts.idle_timeout_seconds;
  if (!opts.log_dir.empty()) {
    fs::create_directories(opts.log_dir, ec);
    if (ec) return absl::PermissionDeniedError(absl::StrCat(opts.log_dir, ": ", ec.message()));
    std::string stem = opts.case_name.empty() ? "run" : absl::StrCat("run.", opts.case_name);
    r.stdout_path = (fs::path(opts.log_dir) / (stem + ".stdout.log")).string();
    r.stderr_path = (fs::path(opts.log_dir) / (stem + ".stderr.log")).string();
    r.combined_path = (fs::path(opts.log_dir) / (stem + ".log")).string();
    spec.stdout_path = r.stdout_path;
    spec.stderr_path = r.stderr_path;
    spec.combined_path = r.combined_path;
  }
  std::string pending;
  if (opts.on_line) {
    spec.on_output = [&](bool, std::string_view chunk) {
      pending.append(chunk);
      size_t nl;
      while ((nl = pending.find('\n')) != std::string::npos) {
        opts.on_line(pending.substr(0, nl));
        pending.erase(0, nl + 1);
      }
    };
  }
  auto proc = RunProcess(spec);
  if (!proc.ok()) return proc.status();
  r.process = *proc;
  r.parsed = ParseRunOutput(proc->combined_text);
  std::vector<std::string> expected = opts.expected_cases;
  if (!opts.case_name.empty()) expected = {opts.case_name};
  std::string op = opts.op.empty() ? fs::absolute(opts.op_dir).lexically_normal().filename().string()
                                   : opts.op;
  r.cases = AssignCases(r.parsed, expected, op);
  // The CPU device's SimulatorWarning lines name the kernel file as Python resolved it (an
  // absolute path); the DESIGN-case runner names it op dir / file. One file, one name, so that
  // a hazard seen in the run and in a rerun is one group of the report.
  const fs::path script = fs::path(plan->cwd) / plan->script;
  for (auto& c : r.cases)
    for (auto& d : c.hazards.items()) {
      std::error_code eq;
      if (!d.file.empty() && fs::equivalent(d.file, script, eq) && !eq)
        d.file = (fs::path(opts.op_dir) / fs::path(plan->script).filename()).string();
    }
  return r;
}

}  // namespace opdev::runtime
