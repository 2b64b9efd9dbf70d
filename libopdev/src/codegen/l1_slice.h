// The Module slices of a Vector/Cube fusion kernel for the L1 rounds. DESIGN §1 gives the one
// fused @pl.jit kernel; its body is one top-level `with pl.section_cube()` /
// `with pl.section_vector()` block per DESIGN §0 Module, in Module order. A Module k round
// keeps Modules 1..k: for each, a DesignCode whose kernel region holds only that Module's
// section block and whose vector functions are the ones that block calls, ready for the
// Module's backend. The connection between sections is DESIGN's own: a
// set_cross_core / wait_cross_core call stays exactly as §1 writes it when every Module that
// uses its event (event_id and sync_mode) is in the round, and is left out (a note names its
// line) while a partner Module is still to come; the event ids §1 uses must be the ones the §6
// event table lists. Nothing is added that DESIGN does not write.
#pragma once

#include "design_code.h"
#include "gen_context.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace opdev::codegen {

struct ModuleSlice {
  int module = 0;           // DESIGN §0 Module index (1-based)
  std::string section;      // "cube" / "vector"
  DesignCode code;          // kernel region = this Module's section block only
  int section_line = 0;     // DESIGN line of the `with` block
};

struct FusedSlices {
  std::vector<ModuleSlice> modules;  // Modules 1..k
  // Tile variables the round's Modules declare in §1 (the §2/§3 rows of later Modules are
  // not checked against this round's file).
  std::set<std::string> declared;
  // Kernel parameters the round's Modules read, in §5 launch order.
  std::vector<std::string> used_params;
  int dropped_sync = 0;     // cross-core calls left for a later round
};

// Findings (design_violation, nothing sliced): CODEGEN-L1-NEEDS-KERNEL-CODE (§1 has no fused
// kernel code), CODEGEN-L1-MODULE-SECTIONS (the kernel's section blocks do not match the §0
// Modules one to one, or a statement lies outside every section), CODEGEN-L1-EVENT (an event
// of §1 is missing from the §6 event table, or §6 lists an id §1 never uses),
// CODEGEN-L1-EMPTY-BODY (leaving out a call would empty a block).
std::optional<FusedSlices> SliceFusedKernel(const contract::DesignDoc& design, int k,
                                            const std::vector<std::string>& launch_args,
                                            GenContext& ctx);

}  // namespace opdev::codegen
