// Integer constant folding over the pyfront AST: module-level `NAME = expr` constants of a
// kernel file or of DESIGN §2.1 (LANES = 128, SLOT_BYTES = TILE_ROWS * MAX_N * 2,
// VA_IN1 = VA_IN0 + SLOT_BYTES, 0x0C000, ...). Python semantics for // and % (floor), only
// integer arithmetic; anything else (floats, calls, unknown names) does not fold.
#pragma once

#include "opdev/pyfront/ast.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace opdev::budget {

using ConstEnv = std::map<std::string, std::int64_t>;

// Value of `e` under `env`: int literals, names bound in env, unary + - ~, binary
// + - * // % << >> & | ^ and ** with a small non-negative exponent. nullopt when any part
// does not fold or a result overflows 64 bits.
std::optional<std::int64_t> EvalInt(const py::Expr& e, const ConstEnv& env);

// Folds the module-level single-name assignments of `m` in order; later bindings replace
// earlier ones, and a name whose expression does not fold is removed.
ConstEnv FoldModuleConstants(const py::Module& m);

}  // namespace opdev::budget
