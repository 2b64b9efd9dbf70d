// The "lint" step: parse Python kernel files and check every pl.* / pl.system.* / vf.*
// reference against the PyPTO-Pro API catalog; or, with "show", one catalog entry.
// Request: {"file": ["k.py", ...], "allow_warnings"?: bool, "no_context"?: bool,
// "no_syntax"?: bool, "catalog"?: "PATH"} or {"show": "NAME", "catalog"?: "PATH"}.
// Status 0 clean, 1 findings (warnings count unless allow_warnings), 2 unusable input.
#include "opdev/api/catalog.h"
#include "opdev/api/checker.h"
#include "opdev/pyfront/parser.h"
#include "opdev/steps/step.h"
#include "steps/step_util.h"

#include <sstream>

namespace opdev::steps {
namespace {

boost::json::object FunctionJson(const api::Function& f) {
  boost::json::object o;
  o["name"] = f.name;
  boost::json::array ps;
  for (const auto& p : f.params) {
    boost::json::object q;
    q["name"] = p.name;
    q["kind"] = std::string(api::ParamKindName(p.kind));
    if (p.default_value) q["default"] = *p.default_value;
    if (!p.role.empty()) q["role"] = p.role;
    if (!p.memory.empty()) {
      boost::json::array m;
      for (const auto& s : p.memory) m.push_back(boost::json::string(s));
      q["memory"] = m;
    }
    ps.push_back(q);
  }
  o["params"] = ps;
  if (!f.varargs.empty()) o["varargs"] = f.varargs;
  if (!f.kwargs.empty()) o["kwargs"] = f.kwargs;
  o["legal"] = boost::json::object{{"vector_function", f.legal.vector_function},
                                   {"section_vector", f.legal.section_vector},
                                   {"section_cube", f.legal.section_cube},
                                   {"kernel", f.legal.kernel}};
  o["mte"] = f.mte;
  if (!f.pipe.empty()) o["pipe"] = f.pipe;
  if (!f.dtypes.empty()) o["dtypes"] = f.dtypes;
  if (!f.note.empty()) o["note"] = f.note;
  o["source"] = f.source;
  return o;
}

std::string FunctionText(const api::Function& f) {
  std::ostringstream os;
  os << f.name << "(";
  for (size_t i = 0; i < f.params.size(); ++i) {
    const auto& p = f.params[i];
    os << (i ? ", " : "") << p.name;
    if (p.default_value) os << "=" << *p.default_value;
  }
  os << ")\n";
  for (const auto& p : f.params) {
    os << "  " << p.name << ": " << api::ParamKindName(p.kind);
    if (!p.role.empty()) os << ", " << p.role;
    if (!p.memory.empty()) {
      os << " in";
      for (const auto& m : p.memory) os << " " << m;
    }
    os << "\n";
  }
  os << "  legal in:" << (f.legal.vector_function ? " @pl.vector_function" : "")
     << (f.legal.section_vector ? " section_vector" : "")
     << (f.legal.section_cube ? " section_cube" : "") << (f.legal.kernel ? " kernel-body" : "")
     << "\n";
  if (f.mte) os << "  MTE op, pipe " << f.pipe << "\n";
  if (!f.dtypes.empty()) os << "  dtypes: " << f.dtypes << "\n";
  if (!f.note.empty()) os << "  note: " << f.note << "\n";
  os << "  source: " << f.source << "\n";
  return os.str();
}

// One catalog entry: a function, an enum or the legacy spellings of a name.
StepResult Show(const api::Catalog& cat, const std::string& name) {
  StepResult r;
  if (const api::Function* f = cat.FindFunction(name)) {
    r.document = FunctionJson(*f);
    r.text = FunctionText(*f);
    return r;
  }
  if (const api::Enum* e = cat.FindEnum(name)) {
    boost::json::array m;
    std::ostringstream os;
    os << e->name << ":";
    for (const auto& s : e->members) {
      m.push_back(boost::json::string(s));
      os << " " << s;
    }
    os << "\n  source: " << e->source << "\n";
    r.document = boost::json::object{{"name", e->name}, {"members", m}, {"source", e->source}};
    r.text = os.str();
    return r;
  }
  auto legacy = cat.FindLegacy(name);
  if (legacy.empty()) return StepResult::Error("no catalog entry named '" + name + "'");
  boost::json::array a;
  std::ostringstream os;
  for (const auto* l : legacy) {
    a.push_back(boost::json::object{{"name", l->name}, {"form", l->form},
                                    {"replacement", l->replacement},
                                    {"changed_in", l->changed_in}, {"status", l->status},
                                    {"source", l->source}});
    os << l->form << "  ->  " << l->replacement << "\n  " << l->status << ": " << l->changed_in
       << "\n  source: " << l->source << "\n";
  }
  r.document = std::move(a);
  r.text = os.str();
  return r;
}

}  // namespace

StepResult RunLintStep(const StepContext&, const boost::json::object& request) {
  RequestReader rr(request);
  std::vector<std::string> files = rr.Strings("file");
  const std::string show = rr.String("show");
  const std::string catalog_path = rr.String("catalog");
  const bool allow_warnings = rr.Bool("allow_warnings");
  api::CheckOptions check;
  check.check_context = !rr.Bool("no_context");
  check.check_syntax = !rr.Bool("no_syntax");
  if (!rr.Ok()) return StepResult::Error(rr.error);

  absl::StatusOr<api::Catalog> cat =
      catalog_path.empty() ? api::Catalog::Default() : api::Catalog::FromFile(catalog_path);
  if (!cat.ok()) return StepResult::Error(std::string(cat.status().message()));
  if (!show.empty()) return Show(*cat, show);
  if (files.empty()) return StepResult::Error("missing FILE (see --help)");

  Diagnostics all;
  boost::json::array per_file;
  for (const auto& path : files) {
    Diagnostics diags;
    auto mod = py::ParseFile(path, &diags);
    if (!mod.ok() && diags.empty()) return StepResult::Error(std::string(mod.status().message()));
    if (mod.ok()) diags = api::CheckModule(*mod, *cat, check);
    per_file.push_back(boost::json::object{{"file", path},
                                           {"errors", diags.ErrorCount()},
                                           {"warnings", diags.WarningCount()}});
    all.Append(diags);
  }
  const bool findings = all.HasErrors() || (!allow_warnings && !all.empty());
  StepResult r;
  r.status = findings ? kStatusFindings : kStatusOk;
  boost::json::object o;
  o["status"] = findings ? "findings" : "clean";
  o["files"] = std::move(per_file);
  o["errors"] = all.ErrorCount();
  o["warnings"] = all.WarningCount();
  o["catalog"] = boost::json::object{{"source_repo", cat->source_repo()},
                                     {"source_commit", cat->source_commit()},
                                     {"functions", cat->functions().size()}};
  o["diagnostics"] = all.ToJson();
  r.document = std::move(o);
  std::ostringstream os;
  if (!all.empty()) WriteDiagnosticsText(all, os);
  if (!findings) os << "clean: no unresolved or illegal calls\n";
  r.text = os.str();
  return r;
}

}  // namespace opdev::steps
