// Cross-checks of the transcribed kernel against DESIGN's tables: every make_tile_group /
// make_tile slot against the §3 address map (start byte, bytes, space) and the §2 TileGroup
// table (mutex ids, depth), §3's own arithmetic (end = start + bytes × slots) and the budget
// of the §3 map on the target (alignment, capacity, overlap, mutex ids).
#pragma once

#include "gen_context.h"

#include "opdev/budget/budget_check.h"
#include "opdev/pyfront/ast.h"

namespace opdev::codegen {

// `assembled`: a module holding the §2.1 constants and the kernel def (DESIGN line spans).
// Returns the budget report of the §3 map.
budget::BudgetReport CheckSlotsAgainstTables(const py::Module& assembled, GenContext& ctx);

// The §3 map's slots this round's file must declare: all of them for L0 and finalize, in an L1
// Module round only those of the tile variables Modules 1..k declare (ctx.slot_scope).
budget::SlotModel ScopedDesignSlots(const GenContext& ctx);

}  // namespace opdev::codegen
