// The Vector VF backend (behind codegen/backend.h): transcribes DESIGN §1's kernel and
// @pl.vector_function code of a section_vector Module into its section code and VF defs, or,
// when §1 freezes only vector_selection chains, first builds those regions with the pure-vec
// pattern skeleton. Declarations the code leaves to the tables are completed from them
// (TileType from §2 Tile 属性表), VF parameters are matched to the call site, legacy API
// spellings are rewritten, and every rule a transcription cannot honour faithfully (an
// undefined name, an unmatched VF parameter, an MTE op inside a VF body, a load before its
// set_validshape, ...) is a design_violation finding at the DESIGN line instead of a repair.
// The backend is created with codegen::MakeVectorVfBackend().
#pragma once

#include "../backend.h"
