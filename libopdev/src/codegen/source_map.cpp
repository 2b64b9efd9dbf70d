// Source map sidecars of generated files (see opdev/codegen/source_map.h).
#include "opdev/codegen/source_map.h"

#include "opdev/support/file_io.h"
#include "opdev/support/json_print.h"

#include <boost/json/parse.hpp>

#include <algorithm>

namespace opdev::codegen {
namespace {

constexpr const char* kSchema = "opdev.source-map/1";

std::optional<OriginKind> KindFromName(std::string_view n) {
  for (OriginKind k : {OriginKind::kDesignVerbatim, OriginKind::kDesignDerived, OriginKind::kSkeleton,
                       OriginKind::kEmitter})
    if (OriginKindName(k) == n) return k;
  return std::nullopt;
}

}  // namespace

std::string_view OriginKindName(OriginKind k) {
  switch (k) {
    case OriginKind::kDesignVerbatim: return "design";
    case OriginKind::kDesignDerived: return "design_derived";
    case OriginKind::kSkeleton: return "skeleton";
    case OriginKind::kEmitter: return "emitter";
  }
  return "emitter";
}

const LineOrigin* SourceMap::Find(int line) const {
  auto it = std::lower_bound(lines.begin(), lines.end(), line,
                             [](const LineOrigin& o, int l) { return o.line < l; });
  return it != lines.end() && it->line == line ? &*it : nullptr;
}

boost::json::object SourceMap::ToJson() const {
  boost::json::object o;
  o["schema"] = kSchema;
  o["file"] = file;
  o["sha256"] = sha256;
  o["design"] = design;
  o["design_sha256"] = design_sha256;
  boost::json::array ls;
  // Fold runs: same kind, section and rule, consecutive file lines, design lines consecutive
  // (or both zero).
  for (size_t i = 0; i < lines.size();) {
    size_t j = i + 1;
    while (j < lines.size() && lines[j].line == lines[j - 1].line + 1 && lines[j].kind == lines[i].kind &&
           lines[j].rule == lines[i].rule && lines[j].section == lines[i].section &&
           ((lines[i].design_line == 0 && lines[j].design_line == 0) ||
            (lines[i].design_line != 0 && lines[j].design_line == lines[j - 1].design_line + 1)))
      ++j;
    boost::json::object e;
    e["line"] = lines[i].line;
    e["count"] = static_cast<std::int64_t>(j - i);
    e["origin"] = std::string(OriginKindName(lines[i].kind));
    if (lines[i].design_line) e["design_line"] = lines[i].design_line;
    if (!lines[i].section.empty()) e["section"] = lines[i].section;
    if (!lines[i].rule.empty()) e["rule"] = lines[i].rule;
    ls.push_back(std::move(e));
    i = j;
  }
  o["lines"] = std::move(ls);
  return o;
}

absl::StatusOr<SourceMap> SourceMap::FromJson(const boost::json::value& v) {
  const auto* o = v.if_object();
  if (!o) return absl::InvalidArgumentError("source map: not a JSON object");
  auto str = [&](const char* k) -> std::string {
    const auto* x = o->if_contains(k);
    return x && x->is_string() ? std::string(x->as_string()) : std::string();
  };
  if (str("schema") != kSchema) return absl::InvalidArgumentError("source map: schema is not " + std::string(kSchema));
  SourceMap m;
  m.file = str("file");
  m.sha256 = str("sha256");
  m.design = str("design");
  m.design_sha256 = str("design_sha256");
  const auto* ls = o->if_contains("lines");
  if (!ls || !ls->is_array()) return absl::InvalidArgumentError("source map: no lines array");
  for (const auto& e : ls->as_array()) {
    const auto* eo = e.if_object();
    if (!eo) return absl::InvalidArgumentError("source map: a lines entry is not an object");
    auto num = [&](const char* k) -> std::int64_t {
      const auto* x = eo->if_contains(k);
      return x && x->is_int64() ? x->as_int64() : 0;
    };
    auto s = [&](const char* k) -> std::string {
      const auto* x = eo->if_contains(k);
      return x && x->is_string() ? std::string(x->as_string()) : std::string();
    };
    auto kind = KindFromName(s("origin"));
    const std::int64_t line = num("line"), count = num("count"), dl = num("design_line");
    if (!kind || line <= 0 || count <= 0 || count > 1000000)
      return absl::InvalidArgumentError("source map: a lines entry has no valid origin, line or count");
    for (std::int64_t k = 0; k < count; ++k)
      m.lines.push_back({static_cast<int>(line + k), *kind, dl ? static_cast<int>(dl + k) : 0, s("section"), s("rule")});
  }
  std::sort(m.lines.begin(), m.lines.end(), [](const LineOrigin& a, const LineOrigin& b) { return a.line < b.line; });
  return m;
}

std::string SidecarPath(const std::string& kernel_path) { return kernel_path + ".srcmap.json"; }

std::optional<SourceMap> LoadMatchingSourceMap(const std::string& kernel_path) {
  auto text = ReadTextFile(SidecarPath(kernel_path), {kMaxInputFileBytes, false});
  if (!text.ok()) return std::nullopt;
  auto file = ReadTextFile(kernel_path, {kMaxInputFileBytes, false});
  if (!file.ok()) return std::nullopt;
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(*text, ec);
  if (ec) return std::nullopt;
  auto m = SourceMap::FromJson(v);
  if (!m.ok() || m->sha256 != Sha256Hex(*file)) return std::nullopt;
  return *m;
}

absl::Status WriteSourceMap(const std::string& kernel_path, const SourceMap& map) {
  return WriteFileAtomic(SidecarPath(kernel_path), PrettyJson(map.ToJson()));
}

}  // namespace opdev::codegen
