// Building the source map of a generated file in the composer: the printed top-level
// statements, each tagged with the part of the composer that produced it, are walked in
// parallel with the re-parsed file (the printer guarantees the two trees are equal), so every
// statement line of the file gets its origin. A statement of a DESIGN region whose span points
// at a DESIGN line that reads the same (spaces ignored, one `;`-separated piece of it) is a
// verbatim transcription; one whose span points at DESIGN but reads differently was derived
// from that line (a legacy spelling rewritten, a declaration completed from a table row);
// one without a DESIGN span was written by opdev (the backend or the pattern skeleton).
#pragma once

#include "opdev/codegen/source_map.h"
#include "opdev/contract/design_doc.h"
#include "opdev/pyfront/ast.h"

#include <string>
#include <vector>

namespace opdev::codegen {

struct PrintedPart {
  const py::Stmt* stmt = nullptr;  // as printed (spans of its source)
  bool from_design = false;        // a region transcribed from DESIGN (constants, VF, kernel)
  bool skeleton = false;           // built by the pattern skeleton (chain-only DESIGN)
  std::string rule;                // the emitter / backend rule for lines opdev wrote
};

// `reparsed` is the file parsed back; its top-level statements correspond one to one to
// `parts`. Lines whose statements do not correspond (should not happen) get no entry.
SourceMap BuildSourceMap(const std::string& file_rel, const std::string& content, const py::Module& reparsed,
                         const std::vector<PrintedPart>& parts, const contract::DesignDoc& design);

}  // namespace opdev::codegen
