// The Cube matmul backend (behind codegen/backend.h) for a section_cube Module. A DESIGN whose
// §1 gives the Module's kernel code is transcribed verbatim (names resolved, TileTypes completed
// from §2, legacy spellings rewritten, the Cube rules of cube_rules.h checked); a DESIGN whose
// §1 freezes only the API sequence and the (TM, TK1, TK0, TN) parameters first gets the
// official dynamic two-level-K matmul structure built from them (matmul_plan.h,
// matmul_skeleton.h). The launch policy is core_num (a Cube kernel launches at most core_num
// blocks); the ASW order adds its M-tile multiple as a wrapper argument check.
// The backend is created with codegen::MakeCubeMatmulBackend().
#pragma once

#include "../backend.h"
