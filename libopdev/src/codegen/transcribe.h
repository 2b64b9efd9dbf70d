// The backend-independent half of transcribing a DESIGN §1 kernel region: legacy API spellings
// rewritten to the current API, the region's names resolved in source order (an undefined name
// is a design_violation; a TileType variable that only `make_tile_group(type=...)` /
// `make_tile(...)` uses is completed from the §2 Tile 属性表 row of its group), the
// set_validshape-before-load rule, and the placement of completed declarations before their
// first use. Every backend (vector_vf, cube_matmul) transcribes its kernel region with these,
// so one Module's code is read the same way whatever its section.
#pragma once

#include "design_code.h"
#include "gen_context.h"

#include "opdev/pyfront/ast.h"

#include <set>
#include <string>
#include <vector>

namespace opdev::codegen {

// Legacy spellings emitted in the current API (CODEGEN-LEGACY-API notes):
// set_validshape(t, r, c) → set_validshape(t, [r, c]); fillpad_inplace/expand → fillpad(mode=).
void RewriteLegacy(std::vector<py::StmtPtr>& body, GenContext& ctx);

// Names visible in every region: Python builtins, `pl`, `vf`, the §2.1 constants and `extra`
// (VF names, the kernel name).
std::set<std::string> GlobalNames(const GenContext& ctx, const std::vector<std::string>& extra);

// Resolves the kernel region's names against `globals` and `params` (the §5 launch arguments):
// undefined names are CODEGEN-UNDEFINED-NAME, loop-scoped reads CODEGEN-LOOP-SCOPED-NAME
// warnings; returns the TileType declarations completed from §2 for free type variables
// (CODEGEN-TILE-UNDECLARED / -TILE-ATTR / -TILE-SIZE-MISMATCH / -TILE-TABLE-CONFLICT when §2
// cannot complete them).
std::vector<py::StmtPtr> ResolveKernelNames(const CodeRegion& kernel,
                                            const std::set<std::string>& globals,
                                            const std::set<std::string>& params, GenContext& ctx);

// set_validshape must precede the load of the same slot (§7): CODEGEN-VALIDSHAPE-ORDER.
void CheckValidShapeOrder(const std::vector<py::StmtPtr>& body, GenContext& ctx);

// `body` with each declaration of `decls` (assignments `T = ...`) placed right before the first
// statement that reads T.
std::vector<py::StmtPtr> InsertBeforeFirstUse(std::vector<py::StmtPtr> body,
                                              std::vector<py::StmtPtr> decls);

// A §2.1 constant name for the value `v` when exactly one literal constant has it, else the
// decimal number.
std::string ShapeDim(std::int64_t v, const GenContext& ctx);

}  // namespace opdev::codegen
