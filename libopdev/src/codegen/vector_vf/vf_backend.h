// The Vector VF backend: transcribes DESIGN §1's kernel and @pl.vector_function code into
// function definitions for the L0 file of a pure-Vector operator. Declarations the code leaves
// to the tables are completed from them (TileType from §2 Tile 属性表, kernel parameters from
// the §5 launch contract and SPEC), VF parameters are matched to the call site, legacy API
// spellings are rewritten, and every rule a transcription cannot honour faithfully (an
// undefined name, an unmatched VF parameter, an MTE op inside a VF body, a load before its
// set_validshape, ...) is a design_violation finding at the DESIGN line instead of a repair.
#pragma once

#include "../design_code.h"
#include "../gen_context.h"

#include "opdev/pyfront/ast.h"

#include <optional>
#include <string>
#include <vector>

namespace opdev::codegen::vector_vf {

struct KernelDefs {
  std::vector<py::StmtPtr> vector_functions;  // @pl.vector_function defs, DESIGN order
  py::StmtPtr kernel;                         // the single @pl.jit def
  std::string kernel_name;
  std::vector<std::string> vf_names;
};

// nullopt when any error finding was recorded (the file must not be written).
std::optional<KernelDefs> BuildKernelDefs(DesignCode& code, GenContext& ctx);

}  // namespace opdev::codegen::vector_vf
