// The interface between the composer and the codegen backends. A backend turns one Module of
// the frozen DESIGN (its §1 code, or the API sequence and parameters §1 freezes, completed
// from the §2/§3 tables) into the code of that Module's section plus its launch policy; it
// never writes the kernel's signature, the wrapper or the tests. The composer
// (composer.h) puts the §5 launch contract around the Modules' code: one @pl.jit kernel whose
// body is Module 1..k's statements in order, the module-level functions they call, and a
// block_dim from the Modules' launch policies. L0 composes one Module; L1 composes 1..k with
// the same pieces.
//
//   vector_vf/    section_vector Modules: DESIGN §1 VF code transcribed, or a pure-vec
//                 pattern skeleton built from vector_selection chains
//   cube_matmul/  section_cube Modules: DESIGN §1 Cube code transcribed, or the dynamic
//                 two-level-K matmul structure built from the frozen (TM, TK1, TK0, TN)
#pragma once

#include "design_code.h"
#include "gen_context.h"

#include "opdev/pyfront/ast.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opdev::codegen {

// Which cores a Module's section needs (DESIGN §5: a Vector-only kernel launches at most
// vector_core_num blocks; a kernel with any Cube section at most core_num, 1 AIC + 2 AIV each).
enum class CoreKind { kVector, kCube };

struct LaunchPolicy {
  CoreKind cores = CoreKind::kVector;
  // "vector_core_num" / "core_num": the get_platform_info() attribute block_dim is capped by.
  std::string_view CoresAttr() const {
    return cores == CoreKind::kVector ? "vector_core_num" : "core_num";
  }
};

// An argument check a Module's structure needs in the wrapper beyond the SPEC ones (e.g. the
// ASW schedule's M-tile count must be a multiple of its window): the wrapper raises ValueError
// unless `count` (a DESIGN-style host formula over SPEC symbols and §2.1 constants, e.g.
// "ceil(M / TILE_M)") is a multiple of the §2.1 constant `multiple_of`.
struct WrapperCheck {
  std::string count;
  std::string multiple_of;
  std::string message;
};

struct ModuleCode {
  int module = 1;                        // DESIGN §0 Module index
  std::string backend;                   // "vector_vf" / "cube_matmul"
  std::vector<py::StmtPtr> functions;    // module-level defs the body calls (@pl.vector_function)
  std::vector<std::string> function_names;
  std::vector<py::StmtPtr> body;         // statements this Module contributes to the kernel body
  std::string kernel_decorator;          // as DESIGN writes it ("pl.jit(auto_mutex=True)"), "" = default
  const CodeRegion* kernel_region = nullptr;  // the §1 region the body came from
  LaunchPolicy launch;
  std::vector<WrapperCheck> wrapper_checks;
  std::string kind_text;                 // "pure Vector" / "pure Cube", for the file header
  std::string provenance;                // header lines saying where the code came from
};

// The kernel's name and parameters from the §5 launch contract, typed from SPEC
// (composer.h reads it before any backend transcribes code that reads the parameters).
struct KernelSignature {
  std::string name;
  std::vector<std::string> params;       // launch argument names, §5 order
  std::vector<std::string> param_decls;  // "x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16]"
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view Name() const = 0;
  // When §1 gives no kernel code, builds the kernel (and helper) regions from what §1 freezes
  // instead (the vector_selection chains, the Cube API sequence and parameters). Returns false
  // when nothing can be built (findings recorded). A §1 with kernel code is left as written.
  virtual bool PrepareRegions(DesignCode& code, GenContext& ctx) = 0;
  // Transcribes the Module's regions into its section's code. nullopt when any error finding
  // was recorded: nothing may be written.
  virtual std::optional<ModuleCode> BuildModule(DesignCode& code, const KernelSignature& sig,
                                                GenContext& ctx) = 0;
};

std::unique_ptr<Backend> MakeVectorVfBackend();
std::unique_ptr<Backend> MakeCubeMatmulBackend();

}  // namespace opdev::codegen
