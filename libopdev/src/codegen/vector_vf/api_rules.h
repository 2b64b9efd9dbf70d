// API-level rules the VF backend applies to DESIGN code: which pl.* calls are MTE operations
// (never inside a VF body) and which pl.* helpers a VF body may use. The resolution of every
// call against the API catalog runs on the assembled module (generate.cpp, api::CheckModule).
#pragma once

#include "../gen_context.h"

#include "opdev/pyfront/ast.h"

#include <string>
#include <vector>

namespace opdev::codegen::vector_vf {

bool IsMteOp(const std::string& dotted);          // pl.load, pl.store, pl.move, pl.fillpad, ...
bool IsAllowedPlInVf(const std::string& dotted);  // pl.range, pl.min, pl.max, pl.const

}  // namespace opdev::codegen::vector_vf
