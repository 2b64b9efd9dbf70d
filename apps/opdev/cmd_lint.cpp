// `opdev lint`: parse Python kernel files with pyfront and check every pl.* / pl.system.* /
// vf.* reference against the PyPTO-Pro API catalog; print each unresolved or illegal call
// with file, line and column. `--show NAME` prints one catalog entry instead.
#include "cli_util.h"
#include "command.h"

#include "opdev/api/catalog.h"
#include "opdev/api/checker.h"
#include "opdev/pyfront/parser.h"

#include <iostream>

namespace opdev::cli {
namespace {

constexpr const char* kUsage =
    "opdev lint FILE... [--json] [--allow-warnings] [--no-context] [--no-syntax]\n"
    "           [--catalog PATH]\n"
    "opdev lint --show NAME [--json]\n\n"
    "Parses each Python file (Python 3.11 grammar) and checks every pl.*, pl.system.* and\n"
    "vf.* call and reference against the PyPTO-Pro API catalog: unknown names, legacy\n"
    "spellings, arity, unknown keywords, operands passed by keyword, MTE ops inside a\n"
    "@pl.vector_function, calls illegal in their section, and Python syntax a kernel body\n"
    "cannot use. Syntax errors are reported as PY-* findings.\n\n"
    "Exit status: 0 clean, 1 findings (warnings count unless --allow-warnings),\n"
    "2 usage error or unreadable file.\n"
    "The catalog is the one built into opdev; --catalog PATH (or the environment variable\n"
    "OPDEV_API_CATALOG) uses another JSON file of the same schema.";

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

int Show(const api::Catalog& cat, const std::string& name, bool json) {
  if (const api::Function* f = cat.FindFunction(name)) {
    if (json) {
      PrintJson(FunctionJson(*f));
      return kExitOk;
    }
    std::cout << f->name << "(";
    for (size_t i = 0; i < f->params.size(); ++i) {
      const auto& p = f->params[i];
      std::cout << (i ? ", " : "") << p.name;
      if (p.default_value) std::cout << "=" << *p.default_value;
    }
    std::cout << ")\n";
    for (const auto& p : f->params) {
      std::cout << "  " << p.name << ": " << api::ParamKindName(p.kind);
      if (!p.role.empty()) std::cout << ", " << p.role;
      if (!p.memory.empty()) {
        std::cout << " in";
        for (const auto& m : p.memory) std::cout << " " << m;
      }
      std::cout << "\n";
    }
    std::cout << "  legal in:" << (f->legal.vector_function ? " @pl.vector_function" : "")
              << (f->legal.section_vector ? " section_vector" : "")
              << (f->legal.section_cube ? " section_cube" : "")
              << (f->legal.kernel ? " kernel-body" : "") << "\n";
    if (f->mte) std::cout << "  MTE op, pipe " << f->pipe << "\n";
    if (!f->dtypes.empty()) std::cout << "  dtypes: " << f->dtypes << "\n";
    if (!f->note.empty()) std::cout << "  note: " << f->note << "\n";
    std::cout << "  source: " << f->source << "\n";
    return kExitOk;
  }
  if (const api::Enum* e = cat.FindEnum(name)) {
    if (json) {
      boost::json::array m;
      for (const auto& s : e->members) m.push_back(boost::json::string(s));
      PrintJson(boost::json::object{{"name", e->name}, {"members", m}, {"source", e->source}});
      return kExitOk;
    }
    std::cout << e->name << ":";
    for (const auto& m : e->members) std::cout << " " << m;
    std::cout << "\n  source: " << e->source << "\n";
    return kExitOk;
  }
  auto legacy = cat.FindLegacy(name);
  if (!legacy.empty()) {
    if (json) {
      boost::json::array a;
      for (const auto* l : legacy) {
        a.push_back(boost::json::object{{"name", l->name}, {"form", l->form},
                                        {"replacement", l->replacement},
                                        {"changed_in", l->changed_in}, {"status", l->status},
                                        {"source", l->source}});
      }
      PrintJson(a);
      return kExitOk;
    }
    for (const auto* l : legacy) {
      std::cout << l->form << "  ->  " << l->replacement << "\n  " << l->status << ": "
                << l->changed_in << "\n  source: " << l->source << "\n";
    }
    return kExitOk;
  }
  return FailUsage("lint", "no catalog entry named '" + name + "'", json);
}

int RunLint(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("file", po::value<std::vector<std::string>>(), "Python files to check")(
      "json", po::bool_switch(), "print a JSON report on stdout")(
      "allow-warnings", po::bool_switch(), "exit 0 when there are only warnings")(
      "no-context", po::bool_switch(), "skip section / VF legality checks")(
      "no-syntax", po::bool_switch(), "skip the kernel-body syntax check")(
      "catalog", po::value<std::string>()->default_value(""), "API catalog JSON to use")(
      "show", po::value<std::string>()->default_value(""),
      "print the catalog entry of a function, enum or legacy name");
  po::positional_options_description pos;
  pos.add("file", -1);
  po::variables_map vm;
  int exit_code = 0;
  if (!ParseArgs(args, kUsage, opts, pos, vm, &exit_code)) return exit_code;
  bool json = vm["json"].as<bool>();

  absl::StatusOr<api::Catalog> cat = vm["catalog"].as<std::string>().empty()
                                         ? api::Catalog::Default()
                                         : api::Catalog::FromFile(vm["catalog"].as<std::string>());
  if (!cat.ok()) return FailUsage("lint", std::string(cat.status().message()), json);
  if (!vm["show"].as<std::string>().empty()) return Show(*cat, vm["show"].as<std::string>(), json);
  if (!vm.count("file")) return FailUsage("lint", "missing FILE (see --help)", json);

  api::CheckOptions check;
  check.check_context = !vm["no-context"].as<bool>();
  check.check_syntax = !vm["no-syntax"].as<bool>();
  Diagnostics all;
  boost::json::array files;
  for (const auto& path : vm["file"].as<std::vector<std::string>>()) {
    Diagnostics diags;
    auto mod = py::ParseFile(path, &diags);
    if (!mod.ok() && diags.empty()) {
      return FailUsage("lint", std::string(mod.status().message()), json);
    }
    if (mod.ok()) diags = api::CheckModule(*mod, *cat, check);
    files.push_back(boost::json::object{{"file", path},
                                        {"errors", diags.ErrorCount()},
                                        {"warnings", diags.WarningCount()}});
    all.Append(diags);
  }
  bool findings = all.HasErrors() || (!vm["allow-warnings"].as<bool>() && !all.empty());
  int code = findings ? kExitFindings : kExitOk;
  if (json) {
    boost::json::object o;
    o["status"] = findings ? "findings" : "clean";
    o["files"] = files;
    o["errors"] = all.ErrorCount();
    o["warnings"] = all.WarningCount();
    o["catalog"] = boost::json::object{{"source_repo", cat->source_repo()},
                                       {"source_commit", cat->source_commit()},
                                       {"functions", cat->functions().size()}};
    o["diagnostics"] = all.ToJson();
    PrintJson(o);
  } else {
    if (!all.empty()) PrintDiagnosticsText(all, std::cout);
    if (!findings) std::cout << "clean: no unresolved or illegal calls\n";
  }
  return code;
}

}  // namespace

OPDEV_COMMAND("lint", "check pl.*/vf.* calls of Python kernel files against the API catalog",
              RunLint);

}  // namespace opdev::cli
