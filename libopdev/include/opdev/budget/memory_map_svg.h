// SVG rendering of a checked budget: one lane per on-chip memory holding slots, each slot a
// labelled block at its address range, a dashed high-water line and the capacity marker.
// Self-contained SVG 1.1 (no scripts, no external fonts), deterministic byte for byte.
#pragma once

#include "opdev/budget/budget_check.h"

#include <string>

namespace opdev::budget {

std::string RenderMemoryMapSvg(const BudgetReport& report);

}  // namespace opdev::budget
