// DESIGN code → pyfront ASTs that keep DESIGN line numbers. §1's API call-sequence block is
// split into regions: module constants, the @pl.jit kernel body and each @pl.vector_function
// body (a region starts at a comment line naming it, e.g. `# kernel 主体（@pl.jit(auto_mutex=True)）`
// or `# @pl.vector_function softmax_rows_vf 内部`), or, when the block is complete Python
// with decorated defs, taken as written. §2.1's constants block is parsed the same way.
// Non-Python label lines ("Module 1 — name (section_vector, ...):") are ignored.
#pragma once

#include "opdev/contract/design_doc.h"
#include "opdev/pyfront/ast.h"
#include "opdev/support/diagnostic.h"

#include <optional>
#include <string>
#include <vector>

namespace opdev::codegen {

enum class RegionKind { kConstants, kKernel, kVectorFunction };

struct CodeRegion {
  RegionKind kind = RegionKind::kKernel;
  std::string name;            // VF name; kernel name when a def gave it
  std::string decorator;       // "pl.jit(auto_mutex=True)" as written in the header or def
  int line = 0;                // DESIGN line of the header comment / def
  py::Module ast;              // the region's statements (the def's body when structured)
  bool from_def = false;       // the block gave a complete def
  std::vector<std::string> params;  // parameter names when a def gave them
  std::vector<std::string> param_annotations;  // printed annotations ("" = none)
};

struct DesignCode {
  std::vector<CodeRegion> regions;
  py::Module constants;       // §2.1 constants block
  int constants_line = 0;     // fence line of §2.1's block (0 = none)
  std::string constants_text; // the block's text, dedented
  const CodeRegion* Kernel() const;
  std::vector<const CodeRegion*> VectorFunctions() const;
  const CodeRegion* ConstantsRegion() const;
};

// Findings: CODEGEN-DESIGN-SYNTAX (a region does not parse; the DESIGN line of the error),
// CODEGEN-NO-KERNEL-CODE (§1 has no kernel region, only when `require_kernel`),
// CODEGEN-MULTIPLE-KERNELS, CODEGEN-NO-CONSTANTS (§2.1 has no code block). All
// design_violation. Without `require_kernel` a §1 without kernel code yields a DesignCode with
// no kernel region (the chain-only case the pattern skeleton builds).
std::optional<DesignCode> ExtractDesignCode(const contract::DesignDoc& design, Diagnostics* diags,
                                            bool require_kernel = true);

// The finding for a §1 without kernel code (CODEGEN-NO-KERNEL-CODE).
void ReportNoKernelCode(const contract::DesignDoc& design, Diagnostics* diags);

// Dedents `text` by its common leading whitespace (blank lines ignored).
std::string Dedent(const std::string& text);

}  // namespace opdev::codegen
