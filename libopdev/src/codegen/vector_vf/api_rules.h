// API-level rules the VF backend applies to DESIGN code: which pl.* calls are MTE operations
// (never inside a VF body), which pl.* helpers a VF body may use, and the resolution of every
// pl.* / vf.* call against the PyPTO-Pro API catalog (unknown names are design_violation).
#pragma once

#include "../gen_context.h"

#include "opdev/pyfront/ast.h"

#include <string>
#include <vector>

namespace opdev::codegen::vector_vf {

bool IsMteOp(const std::string& dotted);          // pl.load, pl.store, pl.move, pl.fillpad, ...
bool IsAllowedPlInVf(const std::string& dotted);  // pl.range, pl.min, pl.max, pl.const

// Reports CODEGEN-UNKNOWN-API for each pl.*/vf.* call the catalog does not know.
void CheckApiNames(const std::vector<py::StmtPtr>& body, GenContext& ctx, bool in_vf);

}  // namespace opdev::codegen::vector_vf
