// The composer: everything of the kernel file that is not one Module's section code. It reads
// the kernel signature from the §5 launch contract (name, parameters typed from SPEC), selects
// the backend of each DESIGN §0 Module, and assembles the Modules' code into the one @pl.jit
// kernel (Module 1..k's statements in order, their module-level functions before it) with the
// launch policy of the whole kernel: vector_core_num when every Module is Vector, core_num as
// soon as one is Cube (DESIGN §5). The shared emitters (emitters.h) add constants, helpers,
// wrapper, tests and runner around it.
#pragma once

#include "backend.h"
#include "design_code.h"
#include "gen_context.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace opdev::codegen {

// The backend for the DESIGN §0 Modules of an L0 round: vector_vf when every Module is a
// section_vector (or §0 names none), cube_matmul when every Module is a section_cube. A mix
// needs an L1 round (CODEGEN-MODE-UNSUPPORTED, capability_gap); an unknown section is
// CODEGEN-MODULE-SECTION. nullptr after a finding.
std::unique_ptr<Backend> SelectBackend(GenContext& ctx);

// The §5 launch contract as the kernel's signature. nullopt (CODEGEN-LAUNCH-MISSING) when §5
// gives none; a §1 def whose name or parameters differ (CODEGEN-LAUNCH-MISMATCH) and launch
// arguments that are not SPEC tensors (CODEGEN-LAUNCH-ARG) are findings, the signature is still
// returned so the Module code can be checked too.
std::optional<KernelSignature> ReadKernelSignature(const CodeRegion* kernel, GenContext& ctx);

struct ComposedKernel {
  std::vector<py::StmtPtr> functions;  // module-level defs, Module order then DESIGN order
  std::vector<std::string> function_names;
  py::StmtPtr kernel;                  // the single @pl.jit def
  std::string kernel_name;
  LaunchPolicy launch;
  std::vector<WrapperCheck> wrapper_checks;
  std::string kind_text;
  std::string provenance;
};

// nullopt when the kernel def cannot be written (CODEGEN-KERNEL-SIGNATURE) or the Modules ask
// for different decorators (CODEGEN-DECORATOR-CONFLICT).
std::optional<ComposedKernel> ComposeKernel(const KernelSignature& sig,
                                            std::vector<ModuleCode> modules, GenContext& ctx);

}  // namespace opdev::codegen
