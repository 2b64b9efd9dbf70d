// def/class name extraction from a Python file through the pyfront AST.
#include "opdev/kbusage/python_symbols.h"

#include "opdev/pyfront/parser.h"

namespace opdev::kbusage {

namespace {
void Collect(const std::vector<py::StmtPtr>& body, const std::string& prefix,
             std::set<std::string>* names) {
  for (const auto& s : body) {
    if (!s) continue;
    if (s->Is(py::StmtKind::kFunctionDef) || s->Is(py::StmtKind::kClassDef)) {
      std::string q = prefix.empty() ? s->name : prefix + "." + s->name;
      names->insert(q);
      Collect(s->body, q, names);
    } else {
      // defs inside if/try/with/for blocks keep the enclosing prefix.
      Collect(s->body, prefix, names);
      Collect(s->orelse, prefix, names);
      Collect(s->finalbody, prefix, names);
      for (const auto& h : s->handlers) Collect(h.body, prefix, names);
    }
  }
}
}  // namespace

absl::StatusOr<PythonSymbols> LoadPythonSymbols(const std::string& path, Diagnostics* diags) {
  auto mod = py::ParseFile(path, diags);
  if (!mod.ok()) return mod.status();
  PythonSymbols out;
  out.path = path;
  Collect(mod->body, "", &out.names);
  for (const auto& def : py::TopLevelDefs(*mod)) {
    if (!def.is_class && def.HasDecorator("pl.jit")) out.kernels.push_back(def.name);
  }
  return out;
}

std::vector<std::string> SplitSymbolList(const std::string& symbol) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t p = symbol.find(" / ", start);
    std::string part = symbol.substr(start, p == std::string::npos ? std::string::npos : p - start);
    size_t b = part.find_first_not_of(" \t");
    size_t e = part.find_last_not_of(" \t");
    out.push_back(b == std::string::npos ? std::string() : part.substr(b, e - b + 1));
    if (p == std::string::npos) break;
    start = p + 3;
  }
  return out;
}

}  // namespace opdev::kbusage
