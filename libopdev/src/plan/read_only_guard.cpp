// The read-only guard (see read_only_guard.h): hash at plan time, compare at round end.
#include "opdev/plan/read_only_guard.h"

#include "opdev/plan/naming.h"
#include "opdev/support/file_io.h"

#include <boost/json.hpp>

#include <algorithm>
#include <filesystem>
#include <regex>

namespace fs = std::filesystem;

namespace opdev::plan {

namespace {
absl::StatusOr<std::string> HashFile(const std::string& path) {
  ReadOptions opts;
  opts.require_utf8 = false;
  auto text = ReadTextFile(path, opts);
  if (!text.ok()) return text.status();
  return Sha256Hex(*text);
}
}  // namespace

boost::json::object ReadOnlySnapshot::ToJson() const {
  boost::json::object o;
  o["op_dir"] = op_dir;
  o["op"] = op;
  o["product"] = product_rel;
  boost::json::array arr;
  for (const auto& f : files) {
    boost::json::object e;
    e["rel"] = f.rel;
    e["kind"] = std::string(ReadOnlyKindName(f.kind));
    e["sha256"] = f.sha256;
    arr.push_back(std::move(e));
  }
  o["files"] = std::move(arr);
  return o;
}

absl::StatusOr<ReadOnlySnapshot> ReadOnlySnapshot::FromJson(const boost::json::value& v) {
  auto bad = [](const std::string& m) {
    return absl::InvalidArgumentError("read-only snapshot: " + m);
  };
  if (!v.is_object()) return bad("not a JSON object");
  const auto& o = v.get_object();
  auto str = [&](const char* k) -> const boost::json::string* {
    auto* x = o.if_contains(k);
    return x && x->is_string() ? &x->get_string() : nullptr;
  };
  ReadOnlySnapshot s;
  if (!str("op_dir") || !str("op") || !str("product")) return bad("op_dir, op, product must be strings");
  s.op_dir = std::string(*str("op_dir"));
  s.op = std::string(*str("op"));
  s.product_rel = std::string(*str("product"));
  auto* files = o.if_contains("files");
  if (!files || !files->is_array()) return bad("files must be an array");
  for (const auto& e : files->get_array()) {
    if (!e.is_object()) return bad("files entries must be objects");
    const auto& eo = e.get_object();
    auto* rel = eo.if_contains("rel");
    auto* kind = eo.if_contains("kind");
    auto* sha = eo.if_contains("sha256");
    if (!rel || !rel->is_string() || !kind || !kind->is_string() || !sha || !sha->is_string())
      return bad("files entries need string rel, kind, sha256");
    GuardedFile g;
    g.rel = std::string(rel->get_string());
    g.sha256 = std::string(sha->get_string());
    std::string k(kind->get_string());
    if (k == "frozen_contract") g.kind = ReadOnlyKind::kFrozenContract;
    else if (k == "golden") g.kind = ReadOnlyKind::kGolden;
    else if (k == "history") g.kind = ReadOnlyKind::kHistory;
    else return bad("unknown kind '" + k + "'");
    s.files.push_back(std::move(g));
  }
  return s;
}

absl::StatusOr<ReadOnlySnapshot> TakeReadOnlySnapshot(const RoundPlan& plan) {
  ReadOnlySnapshot s;
  s.op_dir = plan.op_dir;
  s.op = plan.op;
  s.product_rel = plan.product.rel;
  for (const auto& f : plan.read_only) {
    auto h = HashFile(f.path);
    if (!h.ok()) return h.status();
    s.files.push_back(GuardedFile{f.rel, f.kind, *h});
  }
  return s;
}

Diagnostics CheckReadOnlySnapshot(const ReadOnlySnapshot& snap) {
  Diagnostics d;
  for (const auto& f : snap.files) {
    std::string path = (fs::path(snap.op_dir) / f.rel).string();
    const char* c = f.kind == ReadOnlyKind::kFrozenContract ? code::kRoContractChanged
                    : f.kind == ReadOnlyKind::kGolden       ? code::kRoGoldenChanged
                                                            : code::kRoHistoryChanged;
    std::string_view cat = f.kind == ReadOnlyKind::kHistory ? category::kImplementationError
                                                            : category::kDesignViolation;
    std::string what = f.kind == ReadOnlyKind::kFrozenContract ? "frozen contract"
                       : f.kind == ReadOnlyKind::kGolden       ? "golden"
                                                               : "historical staged file";
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      d.Error(c, cat, path, 0, what + " was deleted during the round (read-only)");
      continue;
    }
    auto h = HashFile(path);
    if (!h.ok()) {
      d.Error(code::kRoUnreadable, cat, path, 0,
              what + " can no longer be read: " + std::string(h.status().message()));
      continue;
    }
    if (*h != f.sha256) {
      d.Error(c, cat, path, 0, what + " was modified during the round (read-only)").evidence =
          "sha256 " + f.sha256 + " -> " + *h;
    }
  }
  // New staged files that are not the round's product.
  std::error_code ec;
  std::regex re("test_.*_module[0-9]+\\.py");
  for (fs::directory_iterator it(fs::path(snap.op_dir) / "modules", ec), end; !ec && it != end;
       it.increment(ec)) {
    std::string rel = "modules/" + it->path().filename().string();
    if (!std::regex_match(it->path().filename().string(), re) || rel == snap.product_rel) continue;
    bool known = std::any_of(snap.files.begin(), snap.files.end(),
                             [&](const GuardedFile& g) { return g.rel == rel; });
    if (!known) {
      d.Error(code::kRoHistoryCreated, category::kImplementationError, it->path().string(), 0,
              "staged file created during the round, which may write only " + snap.product_rel);
    }
  }
  d.Sort();
  return d;
}

}  // namespace opdev::plan
