// The slot model of a kernel file: every `pl.make_tile_group(type=..., addrs=..., mutex_ids=...,
// depth=...)` and `pl.make_tile(type, addr=..., size=...)` of the file, with TileType shapes,
// dtypes and memory spaces resolved through the module-level integer constants. A scalar
// `addrs` is the first slot's base and later slots follow contiguously by tile bytes.
#pragma once

#include "opdev/budget/slot_model.h"
#include "opdev/pyfront/ast.h"
#include "opdev/support/diagnostic.h"

#include <string>

namespace opdev::budget {

// Never fails as a call: declarations it cannot resolve are reported as BUDGET-UNRESOLVED
// errors (category implementation_error) with their line, and left out of the model.
SlotModel SlotsFromKernel(const py::Module& m, const std::string& file, Target target,
                          Diagnostics* diags);

}  // namespace opdev::budget
