// State shared by the codegen passes of one generation: the frozen inputs (DESIGN model,
// SPEC contract, planned names), the folded §2.1 constants, the §5 launch contract, and the
// helper that records design_violation findings at a DESIGN line.
#pragma once

#include "opdev/budget/const_eval.h"
#include "opdev/contract/design_doc.h"
#include "opdev/contract/spec_contract.h"
#include "opdev/support/diagnostic.h"
#include "opdev/support/target.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace opdev::codegen {

using contract::SpecContract;
using contract::SpecTensor;

struct LaunchContract {        // §5 "交付 launch 合同": `kernel[None, block_dim](x, y)`
  std::string kernel;
  std::vector<std::string> args;
  int line = 0;
};

struct BlockDimContract {      // §5 host block_dim
  std::string cores_attr;      // "vector_core_num" or "core_num"
  std::string tasks_var;       // "num_tiles"
  std::string tasks_formula;   // as written: "ceil(B / TILE_ROWS)"
  int line = 0;
};

struct GenContext {
  const contract::DesignDoc* design = nullptr;
  const SpecContract* spec = nullptr;
  std::string op;
  std::string product_rel;     // "test_softmax.py"
  std::string wrapper;         // "softmax_wrapper"
  std::string golden_cpu;      // "softmax_golden_cpu" (module and function)
  std::string device_golden;   // "softmax_golden" (module exporting _get_device)
  Target target = Target::kA5;
  Diagnostics* diags = nullptr;

  budget::ConstEnv constants;            // folded §2.1 integer constants
  std::vector<std::string> constant_names;  // §2.1 names in order (all, folded or not)
  std::set<std::string> literal_int_constants;  // names bound to a plain integer literal
  std::optional<LaunchContract> launch;
  std::optional<BlockDimContract> block_dim;

  // L1 rounds (empty / unset for L0, whose file follows SPEC alone).
  std::string round_text = "L0";         // header: "L0", "L1 Module 2 of 2, staged", ...
  std::string golden_fn;                 // function of golden_cpu to call ("" = golden_cpu)
  bool staged = false;                   // the file lives in modules/: the op dir goes on sys.path
  std::vector<SpecTensor> workspaces;    // Module outputs that are no SPEC tensor (GM workspaces)
  std::vector<std::string> round_args;   // the round kernel's launch arguments ("" = §5's)
  std::vector<std::string> returns;      // what the wrapper returns (empty = the SPEC outputs)
  std::optional<std::set<std::string>> slot_scope;  // tile variables of the round's Modules
  const SpecTensor* FindTensor(const std::string& name) const;  // SPEC inputs/outputs, workspaces

  const std::string& file() const { return design->path; }
  // The §2.1 names bound to a plain integer literal equal to `v`, in §2.1 order.
  std::vector<std::string> LiteralConstantsEqualTo(std::int64_t v) const;
  // Records an error finding (category design_violation) at DESIGN `line`; the evidence
  // defaults to the trimmed DESIGN line.
  Diagnostic& Violation(const std::string& code, int line, const std::string& section,
                        const std::string& message, const std::string& evidence = {});
  Diagnostic& Warn(const std::string& code, int line, const std::string& section,
                   const std::string& message, const std::string& evidence = {});
  std::string DesignLine(int line) const;
};

}  // namespace opdev::codegen
