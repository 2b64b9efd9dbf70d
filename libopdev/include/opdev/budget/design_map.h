// The DESIGN §3 on-chip address map as a slot model (rows expanded per slot, mutex ids taken
// from the §2 TileGroup table) and the comparison of a kernel's slots with it: same slot
// names, spaces, start bytes, bytes per slot and mutex ids.
#pragma once

#include "opdev/budget/slot_model.h"
#include "opdev/contract/design_doc.h"
#include "opdev/support/diagnostic.h"

namespace opdev::budget {

SlotModel SlotsFromDesignMap(const contract::DesignDoc& design, Target target);

// Findings (code BUDGET-MAP-MISMATCH, category `category`) for every slot that differs, is
// missing from the kernel, or is absent from the map. Reported at the kernel's line when the
// slot exists there, else at the DESIGN row.
Diagnostics CompareWithDesignMap(const SlotModel& kernel, const SlotModel& design,
                                 std::string_view category);

}  // namespace opdev::budget
