// S4-13: delivery import safety. The verifier copies only test_<op>.py and <op>_golden.py
// to an empty directory and imports the test with importlib (spec_from_file_location +
// exec_module); any failure is delivery_import_unsafe. We do the same with a real Python
// when one is configured. Runtime packages this machine lacks (torch_npu, pypto_pro, and
// torch if absent) are replaced by inert stub modules so the probe still sees which
// *dev-only* import breaks the delivered unit; the AST rule "no dev-only import at module
// level" runs in every case.
#include "check_context.h"

#include "opdev/runtime/process.h"
#include "opdev/support/file_io.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include <boost/json/parse.hpp>

#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;

namespace opdev::selfcheck {
namespace {

constexpr const char* kProbeScript = R"PY(
import importlib.abc, importlib.machinery, importlib.util, json, os, sys, types
test_path, stub_candidates = sys.argv[1], sys.argv[2].split(",")
stubbed = [m for m in stub_candidates if m and importlib.util.find_spec(m) is None]

class _Any:
    def __call__(self, *a, **k):
        if len(a) == 1 and not k and callable(a[0]) and not isinstance(a[0], _Any):
            return a[0]
        return _Any()
    def __getattr__(self, n):
        if n.startswith("__"):
            raise AttributeError(n)
        return _Any()
    def __getitem__(self, k): return _Any()
    def __iter__(self): return iter(())
    def __int__(self): return 1
    def __index__(self): return 1
    def __float__(self): return 1.0
    def __bool__(self): return True
    def __mro_entries__(self, bases): return (object,)
for _op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "lshift", "rshift"):
    setattr(_Any, "__%s__" % _op, lambda self, o: _Any())
    setattr(_Any, "__r%s__" % _op, lambda self, o: _Any())

class _Stub(types.ModuleType):
    def __getattr__(self, n):
        if n.startswith("__"):
            raise AttributeError(n)
        return _Any()

class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in stubbed:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None
    def create_module(self, spec):
        m = _Stub(spec.name)
        m.__path__ = []
        return m
    def exec_module(self, module):
        pass

sys.meta_path.insert(0, _Finder())
here = os.path.dirname(os.path.abspath(test_path))
sys.path = [here] + [p for p in sys.path[1:] if p and os.path.abspath(p) != os.getcwd()]
result = {"ok": True, "stubbed": stubbed}
try:
    spec = importlib.util.spec_from_file_location("delivered_test_module", test_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
except BaseException as e:
    result.update(ok=False, error_type=type(e).__name__, error=str(e)[:500],
                  missing_module=getattr(e, "name", None) if isinstance(e, ImportError) else None)
    tb = e.__traceback__
    line = None
    while tb is not None:
        if os.path.abspath(tb.tb_frame.f_code.co_filename) == os.path.abspath(test_path):
            line = tb.tb_lineno
        tb = tb.tb_next
    result["line"] = line
print("OPDEV_IMPORT_PROBE " + json.dumps(result, sort_keys=True))
)PY";

bool IsDevOnly(const std::string& module, const CheckContext& c) {
  std::string root = module.substr(0, module.find('.'));
  return root == "precision_compare" || root == c.op + "_golden_cpu" ||
         root.rfind(c.op + "_golden_stage", 0) == 0 || root == "modules" ||
         root.rfind("test_" + c.op + "_module", 0) == 0;
}

}  // namespace

ItemResult CheckDeliveryImport(const CheckContext& c) {
  ItemResult r;
  const KernelFile& f = *c.file;
  // The AST rule: dev-only imports must sit inside function bodies.
  for (const auto& i : f.imports) {
    if (!i.module_level) continue;
    std::vector<std::string> mods{i.module};
    if (i.is_from)
      for (const auto& n : i.names) mods.push_back(i.module + "." + n);
    for (const auto& m : mods) {
      if (!IsDevOnly(m, c)) continue;
      AddFinding(&r.findings, f, "SC-DELIVERY-IMPORT", cat::kDeliveryImportUnsafe, i.line,
                 absl::StrCat("dev-only `", m, "` is imported at module level: the delivered unit (",
                              f.rel, " + ", c.op, "_golden.py) cannot import without it; import it "
                              "inside the function that uses it"));
      break;
    }
  }
  std::string evidence = "AST rule: dev-only imports only inside functions";
  if (c.opts->python.empty() || c.module_mode) {
    r.evidence = evidence + (c.module_mode ? " (staged files are not delivered)" : "; no interpreter configured");
    Conclude(&r);
    return r;
  }
  // The dynamic probe.
  std::error_code ec;
  char tmpl[] = "/tmp/opdev-import-probe-XXXXXX";
  char* dir = ::mkdtemp(tmpl);
  if (!dir) {
    r.evidence = evidence + "; probe skipped: cannot create a temporary directory";
    Conclude(&r);
    return r;
  }
  fs::path tmp(dir);
  fs::copy_file(c.file_path, tmp / fs::path(c.file_rel).filename(), ec);
  fs::path golden = fs::path(c.op_dir) / (c.op + "_golden.py");
  bool golden_copied = false;
  if (fs::exists(golden)) golden_copied = fs::copy_file(golden, tmp / golden.filename(), ec);
  (void)WriteFileAtomic((tmp / "opdev_import_probe.py").string(), kProbeScript);
  runtime::ProcessSpec spec;
  spec.argv = {c.opts->python, (tmp / "opdev_import_probe.py").string(),
               (tmp / fs::path(c.file_rel).filename()).string(), "torch,torch_npu,pypto_pro"};
  spec.cwd = tmp.string();
  spec.timeout_seconds = c.opts->probe_timeout_seconds;
  spec.unset_env = {"PYTHONPATH"};
  auto run = runtime::RunProcess(spec);
  fs::remove_all(tmp, ec);
  std::string probe_cmd = absl::StrCat(c.opts->python, " <importlib probe> ", fs::path(c.file_rel).filename().string());
  if (!run.ok() || run->termination != runtime::Termination::kExited) {
    r.evidence = absl::StrCat(evidence, "; import probe did not run (",
                              run.ok() ? std::string(runtime::TerminationName(run->termination)) +
                                             (run->spawn_error.empty() ? "" : ": " + run->spawn_error)
                                       : std::string(run.status().message()),
                              ")");
    Conclude(&r);
    return r;
  }
  size_t p = run->stdout_text.rfind("OPDEV_IMPORT_PROBE ");
  if (p == std::string::npos) {
    r.evidence = absl::StrCat(evidence, "; import probe printed no result (exit ", run->exit_code, ")");
    Conclude(&r);
    return r;
  }
  std::string json = run->stdout_text.substr(p + 19);
  json = json.substr(0, json.find('\n'));
  boost::system::error_code jec;
  auto v = boost::json::parse(json, jec);
  if (jec || !v.is_object()) {
    r.evidence = evidence + "; import probe output unreadable";
    Conclude(&r);
    return r;
  }
  const auto& o = v.as_object();
  std::vector<std::string> stubbed;
  for (const auto& s : o.at("stubbed").as_array()) stubbed.push_back(std::string(s.as_string()));
  std::string stub_note = stubbed.empty() ? "" : absl::StrCat(" (stubbed: ", absl::StrJoin(stubbed, ", "), ")");
  if (o.at("ok").as_bool()) {
    r.evidence = absl::StrCat(evidence, "; the delivered unit imports cleanly alone", stub_note,
                              golden_copied ? "" : "; no golden was present to copy");
  } else {
    std::string type(o.at("error_type").as_string());
    std::string err(o.at("error").as_string());
    int line = o.at("line").is_int64() ? static_cast<int>(o.at("line").as_int64()) : 1;
    std::string missing = o.at("missing_module").is_string() ? std::string(o.at("missing_module").as_string()) : "";
    bool import_error = type == "ModuleNotFoundError" || type == "ImportError";
    if (import_error || stubbed.empty()) {
      AddFinding(&r.findings, f, "SC-DELIVERY-IMPORT", cat::kDeliveryImportUnsafe, line,
                 absl::StrCat("importing the delivered unit alone fails: ", type, ": ", err,
                              missing.empty() ? "" : absl::StrCat(" (", missing, " is not part of the delivery)")));
    } else {
      r.findings.Warning("SC-DELIVERY-IMPORT-INCONCLUSIVE", cat::kDeliveryImportUnsafe, f.rel, line,
                         absl::StrCat("import under stub runtime packages raised ", type, ": ", err,
                                      "; not conclusive without the real packages"));
    }
    r.evidence = absl::StrCat(evidence, "; probe: ", type, stub_note);
  }
  r.evidence += "; command: " + probe_cmd;
  Conclude(&r);
  return r;
}

}  // namespace opdev::selfcheck
