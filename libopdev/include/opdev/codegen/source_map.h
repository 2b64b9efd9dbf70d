// The source map of a generated kernel file: for every line codegen wrote, where it came
// from — a DESIGN.md line transcribed verbatim, a DESIGN line or table row it was derived
// from (a legacy spelling rewritten, a declaration completed from §2), or an emitter /
// skeleton of opdev's own with the rule that wrote it. It travels with the file as a sidecar
// `<file>.srcmap.json`, written atomically after the file and keyed by the file's sha256: a
// file that no longer hashes to its map (edited by hand, replaced, `--no-gen` on a foreign
// file) has no map, and findings in it are the file's own.
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opdev::codegen {

enum class OriginKind {
  kDesignVerbatim,  // the line is a DESIGN.md line, transcribed as written
  kDesignDerived,   // derived from a DESIGN line or table row (rewritten, completed)
  kSkeleton,        // opdev's pattern skeleton / backend wrote it (rule says which)
  kEmitter,         // opdev's shared emitters (header, helpers, wrapper, tests, runner)
};
std::string_view OriginKindName(OriginKind k);  // "design", "design_derived", "skeleton", "emitter"

struct LineOrigin {
  int line = 0;             // line of the generated file (1-based)
  OriginKind kind = OriginKind::kEmitter;
  int design_line = 0;      // DESIGN.md line (0 = none)
  std::string section;      // DESIGN section of design_line ("§1"), or ""
  std::string rule;         // emitter/skeleton rule or derivation ("wrapper (§5 launch)")
};

struct SourceMap {
  std::string file;           // generated file, as written (op-dir-relative)
  std::string sha256;         // of the generated file's bytes
  std::string design;         // "DESIGN.md"
  std::string design_sha256;
  std::vector<LineOrigin> lines;  // sorted by line; lines without an entry are blank/comments

  const LineOrigin* Find(int line) const;
  // JSON: {"schema": "opdev.source-map/1", file, sha256, design, design_sha256, lines: [...]}
  // with consecutive lines of one origin folded into ranges.
  boost::json::object ToJson() const;
  static absl::StatusOr<SourceMap> FromJson(const boost::json::value& v);
};

// "<kernel_path>.srcmap.json"
std::string SidecarPath(const std::string& kernel_path);

// The map of the file at `kernel_path`, only when the sidecar exists, parses and its sha256
// equals the file's current bytes; nullopt otherwise (no map: hand-written or edited).
std::optional<SourceMap> LoadMatchingSourceMap(const std::string& kernel_path);

// Writes the sidecar atomically (temp + rename). Written after the kernel file, so a crash in
// between leaves a map whose hash does not match, which reads as "no map".
absl::Status WriteSourceMap(const std::string& kernel_path, const SourceMap& map);

}  // namespace opdev::codegen
