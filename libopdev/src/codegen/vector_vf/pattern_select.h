// Which pure-vec skeleton a chain-only DESIGN uses: Pattern A (elementwise), B (row reduce +
// broadcast), B+ (B with per-column parameters such as gamma/beta) or C (a reduction axis that
// may exceed one tile, UB accumulators across tiles). Chosen explicitly and auditably: the
// vector_selection `pattern` field, else the selected KB template named in
// kb_template_evidence (vec-row-reduce-broadcast = B, online-softmax-tail = C), else inferred
// from the chain (no reduction → A; reduction → B; reduction + parameter inputs → B+;
// DESIGN §0 "归约轴容量结论" says the axis may exceed one tile → C) with a note saying so.
// A choice the chain contradicts is a design_violation (CODEGEN-CHAIN-PATTERN).
#pragma once

#include "../gen_context.h"
#include "vf_chain.h"

#include <optional>
#include <set>
#include <string>

namespace opdev::codegen::vector_vf {

enum class Pattern { kA, kB, kBPlus, kC };
std::string PatternName(Pattern p);  // "A", "B", "B+", "C"

struct PatternChoice {
  Pattern pattern = Pattern::kA;
  bool inferred = false;
  int line = 0;            // DESIGN line the choice rests on
  std::string source;      // "pattern field", "kb_template_evidence", "inferred"
};

// `params`: SPEC inputs the chain reads as per-column parameter rows (gamma/beta).
std::optional<PatternChoice> SelectPattern(const Chain& chain, const std::set<std::string>& params,
                                           GenContext& ctx);

// DESIGN §0 归约轴容量结论: true when it says the reduction axis may exceed one tile,
// false when it says it may not, nullopt when §0 does not say. `line` receives the line.
std::optional<bool> AxisMayExceedTile(const contract::DesignDoc& d, int* line);

}  // namespace opdev::codegen::vector_vf
