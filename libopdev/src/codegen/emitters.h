// Shared emitters of a Stage 4 kernel file, common to every backend: the module header and
// imports, the seeded-input and `_assert_precision` helpers (dev-only imports inside the
// body), the wrapper per DESIGN §5 (argument checks, output allocation, block_dim, exactly one
// launch), one test per DESIGN §8 row, and the `__main__` runner. Each emitter writes Python
// through pyfront (parsed, so malformed output is impossible) and returns statements.
#pragma once

#include "backend.h"
#include "gen_context.h"

#include "opdev/pyfront/ast.h"

#include <optional>
#include <string>
#include <vector>

namespace opdev::codegen {

// Python string literal (double quotes, escapes) for `s`.
std::string PyStr(const std::string& s);

// `kind`: "pure Vector" / "pure Cube"; `provenance`: the docstring lines saying where the
// kernel code came from (each ending in a newline).
std::vector<py::StmtPtr> EmitHeader(const GenContext& ctx, const std::string& design_sha256,
                                    const std::string& kind, const std::string& provenance);
std::vector<py::StmtPtr> EmitHelpers(const GenContext& ctx);
// nullopt (with findings) when §5/SPEC do not determine the wrapper. `launch` decides the
// get_platform_info() attribute block_dim is capped by (§5 must name the same one);
// `checks` are the backend's extra argument checks.
std::optional<std::vector<py::StmtPtr>> EmitWrapper(GenContext& ctx, const std::string& kernel,
                                                    const LaunchPolicy& launch,
                                                    const std::vector<WrapperCheck>& checks);
struct EmittedTests {
  std::vector<py::StmtPtr> defs;
  std::vector<std::string> names;
};
std::optional<EmittedTests> EmitTests(GenContext& ctx);
std::vector<py::StmtPtr> EmitMain(const GenContext& ctx, const std::vector<std::string>& tests);

// Parses §5 into ctx.launch and ctx.block_dim (findings when absent or contradictory).
void ReadCoreSplit(GenContext& ctx);

}  // namespace opdev::codegen
