// Loading every contract of an op dir and locating the KB root (see op_dir.h).
#include "opdev/contract/op_dir.h"

#include "opdev/contract/source.h"
#include "opdev/support/file_io.h"

#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;

namespace opdev::contract {

std::vector<const KbReference*> OpDir::AllReferences() const {
  std::vector<const KbReference*> out;
  for (const auto& s : selections)
    for (const auto* r : s.AllReferences()) out.push_back(r);
  return out;
}

bool OpDir::IsSplit() const {
  for (const auto& s : selections)
    if (s.class_dir != ".") return true;
  return false;
}

std::string ResolveKbRoot(const std::string& op_dir, const std::string& explicit_root) {
  if (!explicit_root.empty()) return explicit_root;
  if (const char* env = std::getenv("OPDEV_KB_ROOT"); env && *env) return env;
  std::error_code ec;
  fs::path p = fs::absolute(op_dir, ec);
  if (ec) return {};
  p = p.lexically_normal();
  while (true) {
    for (const fs::path& cand : {p / ".." / "shared" / "fixtures" / "kb", p / "kb"}) {
      if (fs::is_regular_file(cand / "topology-map.json", ec))
        return cand.lexically_normal().string();
    }
    if (!p.has_parent_path() || p.parent_path() == p) break;
    p = p.parent_path();
  }
  return {};
}

namespace {

// True when the file may be read: it exists and, if reached through a symlink, stays inside
// the op dir. Adds CONTRACT-SYMLINK-ESCAPE otherwise.
bool SafeToRead(const fs::path& file, const std::string& dir, Diagnostics* diags) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(file, ec))) return true;  // the reader reports "missing"
  if (!IsInsideDirectory(file.string(), dir)) {
    fs::path target = fs::weakly_canonical(file, ec);
    diags->Error(code::kSymlinkEscape, category::kInputError, file.string(), 0,
                 "refusing to read: the path leads outside the op dir (to " + target.string() + ")");
    return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<OpDir> LoadOpDir(const std::string& dir, const LoadOptions& opts,
                                Diagnostics* diags) {
  Diagnostics local;
  if (!diags) diags = &local;
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    diags->Error(code::kFileMissing, category::kMissingFile, dir, 0, "op dir does not exist");
    return absl::NotFoundError(dir + ": op dir does not exist");
  }
  if (!fs::is_directory(dir, ec)) {
    diags->Error(code::kFileUnreadable, category::kInputError, dir, 0,
                 "op dir is not a directory");
    return absl::FailedPreconditionError(dir + ": not a directory");
  }
  OpDir od;
  od.dir = dir;
  fs::path d(dir);

  auto path_of = [&](const char* name) { return (d / name).string(); };

  if (SafeToRead(d / "DESIGN.md", dir, diags)) {
    if (auto v = LoadDesignDoc(path_of("DESIGN.md"), diags); v.ok()) od.design = std::move(*v);
  }
  if (SafeToRead(d / "DESIGN_BINDINGS.json", dir, diags)) {
    if (auto v = LoadDesignBindings(path_of("DESIGN_BINDINGS.json"), diags); v.ok())
      od.bindings = std::move(*v);
  }
  if (SafeToRead(d / "module_interfaces.yaml", dir, diags)) {
    if (auto v = LoadModuleInterfaces(path_of("module_interfaces.yaml"), diags); v.ok())
      od.modules = std::move(*v);
  }
  auto sel_files = FindKbSelectionFiles(dir);
  if (sel_files.empty()) {
    diags->Error(code::kFileMissing, category::kMissingFile, path_of("KB_SELECTION.json"), 0,
                 "no KB_SELECTION.json: neither flat (<op_dir>/KB_SELECTION.json) nor split "
                 "(<op_dir>/<class>/KB_SELECTION.json)");
  }
  for (const auto& [file, cls] : sel_files) {
    if (!SafeToRead(file, dir, diags)) continue;
    if (auto v = LoadKbSelection(file, cls, diags); v.ok()) od.selections.push_back(std::move(*v));
  }

  if (od.modules && !od.modules->op.empty()) od.op = od.modules->op;
  else if (!od.selections.empty() && !od.selections.front().op.empty()) od.op = od.selections.front().op;
  else if (od.design) od.op = od.design->OpName();

  od.kb_root = ResolveKbRoot(dir, opts.kb_root);
  if (od.kb_root.empty()) {
    diags->Error(code::kKbRootMissing, category::kInputError, dir, 0,
                 "no KB root: pass --kb-root DIR, set OPDEV_KB_ROOT, or place the KB at "
                 "<ancestor>/../shared/fixtures/kb");
  } else if (!fs::is_directory(od.kb_root, ec)) {
    diags->Error(code::kKbRootMissing, category::kInputError, od.kb_root, 0,
                 "KB root does not exist or is not a directory");
    if (!opts.kb_root.empty())
      return absl::NotFoundError(od.kb_root + ": KB root does not exist or is not a directory");
    od.kb_root.clear();
  } else {
    fs::path tm = fs::path(od.kb_root) / "topology-map.json";
    if (auto v = LoadTopologyMap(tm.string(), diags); v.ok()) od.topology = std::move(*v);
  }
  return od;
}

}  // namespace opdev::contract
