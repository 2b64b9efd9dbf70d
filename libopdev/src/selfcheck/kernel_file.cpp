// Indexing of a kernel file's AST for the self-check items.
#include "kernel_file.h"

#include "opdev/pyfront/parser.h"
#include "opdev/support/file_io.h"

#include <sstream>

namespace opdev::selfcheck {
namespace {

// Records imports and calls with their enclosing top-level function and loop depth.
class Indexer : public py::AstVisitor {
 public:
  explicit Indexer(KernelFile* f) : f_(f) {}

  bool EnterStmt(const py::Stmt& s) override {
    if (s.Is(py::StmtKind::kFunctionDef) || s.Is(py::StmtKind::kClassDef)) {
      if (def_depth_ == 0) function_ = s.name;
      ++def_depth_;
      // A nested def's body runs later and elsewhere; loops do not carry into it.
      loop_stack_.push_back(loop_depth_);
      loop_depth_ = 0;
    } else if (s.Is(py::StmtKind::kFor) || s.Is(py::StmtKind::kWhile)) {
      ++loop_depth_;
    } else if (s.Is(py::StmtKind::kImport) || s.Is(py::StmtKind::kImportFrom)) {
      if (s.Is(py::StmtKind::kImport)) {
        for (const auto& a : s.names) {
          ImportInfo i;
          i.module = a.name;
          i.names = {a.name};
          i.asname = a.asname;
          Fill(&i, s);
          f_->imports.push_back(i);
        }
      } else {
        ImportInfo i;
        i.module = std::string(static_cast<size_t>(s.level), '.') + s.module;
        i.is_from = true;
        for (const auto& a : s.names) i.names.push_back(a.name);
        Fill(&i, s);
        f_->imports.push_back(i);
      }
    }
    return true;
  }
  void LeaveStmt(const py::Stmt& s) override {
    if (s.Is(py::StmtKind::kFunctionDef) || s.Is(py::StmtKind::kClassDef)) {
      --def_depth_;
      if (def_depth_ == 0) function_.clear();
      loop_depth_ = loop_stack_.back();
      loop_stack_.pop_back();
    } else if (s.Is(py::StmtKind::kFor) || s.Is(py::StmtKind::kWhile)) {
      --loop_depth_;
    }
  }
  bool EnterExpr(const py::Expr& e) override {
    bool comp = e.Is(py::ExprKind::kListComp) || e.Is(py::ExprKind::kSetComp) ||
                e.Is(py::ExprKind::kDictComp) || e.Is(py::ExprKind::kGeneratorExp);
    if (comp) ++loop_depth_;
    if (e.Is(py::ExprKind::kCall)) {
      CallSite c;
      c.call = &e;
      c.name = py::CallName(e);
      if (e.func && e.func->Is(py::ExprKind::kSubscript) && e.func->value_expr) {
        if (auto n = py::DottedName(*e.func->value_expr)) c.launched = *n;
      }
      c.function = function_;
      c.loop_depth = loop_depth_;
      c.line = e.span.line;
      f_->calls.push_back(c);
    }
    return true;
  }
  void LeaveExpr(const py::Expr& e) override {
    if (e.Is(py::ExprKind::kListComp) || e.Is(py::ExprKind::kSetComp) ||
        e.Is(py::ExprKind::kDictComp) || e.Is(py::ExprKind::kGeneratorExp))
      --loop_depth_;
  }

 private:
  void Fill(ImportInfo* i, const py::Stmt& s) {
    i->module_level = def_depth_ == 0;
    i->function = function_;
    i->line = s.span.line;
  }
  KernelFile* f_;
  std::string function_;
  int def_depth_ = 0;
  int loop_depth_ = 0;
  std::vector<int> loop_stack_;
};

}  // namespace

const FunctionInfo* KernelFile::Find(const std::string& name) const {
  for (const auto& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

std::vector<const FunctionInfo*> KernelFile::Jits() const {
  std::vector<const FunctionInfo*> v;
  for (const auto& f : functions)
    if (f.is_jit) v.push_back(&f);
  return v;
}

std::vector<const FunctionInfo*> KernelFile::Vfs() const {
  std::vector<const FunctionInfo*> v;
  for (const auto& f : functions)
    if (f.is_vf) v.push_back(&f);
  return v;
}

std::vector<const FunctionInfo*> KernelFile::Tests() const {
  std::vector<const FunctionInfo*> v;
  for (const auto& f : functions)
    if (f.is_test) v.push_back(&f);
  return v;
}

std::vector<const CallSite*> KernelFile::CallsIn(const std::string& function) const {
  std::vector<const CallSite*> v;
  for (const auto& c : calls)
    if (c.function == function) v.push_back(&c);
  return v;
}

absl::StatusOr<KernelFile> LoadKernelFile(const std::string& path, const std::string& rel,
                                          Diagnostics* diags) {
  KernelFile f;
  f.path = path;
  f.rel = rel;
  auto text = ReadTextFile(path);
  if (!text.ok()) return text.status();
  f.source = *text;
  auto mod = py::ParseModule(f.source, rel, diags);
  if (!mod.ok()) return mod.status();
  f.module = std::move(*mod);
  for (const auto& d : py::TopLevelDefs(f.module)) {
    if (d.is_class) continue;
    FunctionInfo fi;
    fi.def = d.stmt;
    fi.name = d.name;
    fi.decorators = d.decorators;
    fi.line = d.stmt->span.line;
    fi.is_jit = d.HasDecorator("pl.jit");
    fi.is_vf = d.HasDecorator("pl.vector_function");
    fi.is_test = d.name.rfind("test_", 0) == 0;
    for (const auto& dec : d.stmt->decorator_list) {
      if (py::DecoratorName(*dec) != "pl.jit" || !dec->Is(py::ExprKind::kCall)) continue;
      if (const py::Expr* am = py::FindKeyword(*dec, "auto_mutex"))
        fi.auto_mutex = py::BoolValue(*am).value_or(false);
    }
    f.functions.push_back(fi);
  }
  Indexer idx(&f);
  py::Walk(f.module, idx);
  return f;
}

Diagnostic& AddFinding(Diagnostics* d, const KernelFile& f, std::string code,
                       std::string_view category, int line, std::string message,
                       std::string evidence) {
  Diagnostic& x = d->Error(std::move(code), category, f.rel, line, std::move(message));
  x.evidence = evidence.empty() && line > 0 ? LineText(f, line) : std::move(evidence);
  return x;
}

std::string LineText(const KernelFile& f, int line) {
  if (line <= 0) return "";
  std::istringstream in(f.source);
  std::string l;
  for (int i = 1; std::getline(in, l); ++i) {
    if (i == line) {
      size_t b = l.find_first_not_of(" \t");
      return b == std::string::npos ? "" : l.substr(b);
    }
  }
  return "";
}

}  // namespace opdev::selfcheck
