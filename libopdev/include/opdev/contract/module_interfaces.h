// module_interfaces.yaml: per-Module inputs, outputs, golden steps and section type, and
// `is_fusion`, which decides the L0/L1 path (reference/pypto-pro-contracts.md §3.3).
// Loaded with yaml-cpp; every element keeps its source line.
#pragma once

#include "opdev/contract/source.h"
#include "opdev/support/diagnostic.h"

#include "absl/status/statusor.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opdev::contract {

struct TensorDecl {   // primary_inputs[] / modules[].outputs[]
  std::string name;
  std::string shape;  // shape expression as written, e.g. "[B, N]"
  std::string dtype;  // as written, e.g. "float16"
  int line = 0;
};

struct WireRef {      // modules[].inputs[] / final_outputs[]
  std::string name;
  std::string source;  // "primary" or "module_<j>" (legacy "phase_<j>")
  int line = 0;
  // j of "module_<j>"/"phase_<j>", nullopt for "primary" or an unparsable source.
  std::optional<int> SourceModule() const;
  bool IsPrimary() const { return source == "primary"; }
};

struct ModuleDecl {
  std::int64_t id = 0;
  std::string name;
  std::string description;
  std::string section;  // "vector" | "cube" (also accepts "section_vector"/"section_cube")
  std::vector<std::string> golden_steps;
  std::vector<WireRef> inputs;
  std::vector<TensorDecl> outputs;
  std::string golden_stage_fn;  // "<op>_golden_stage<suffix>"
  int line = 0;
  std::map<std::string, int> field_lines;
  int FieldLine(const std::string& field) const;
};

struct CompositionVerification {
  std::optional<double> atol, rtol;
  std::vector<std::int64_t> seeds;
  std::vector<std::map<std::string, std::string>> shapes;  // [{x: "[1, 128]"}, ...]
  int line = 0;
};

struct ModuleInterfaces {
  std::string path;
  std::optional<std::int64_t> schema_version;
  std::string op;
  std::optional<std::int64_t> module_count;
  std::optional<bool> has_cross_core;
  std::optional<bool> is_fusion;
  std::vector<TensorDecl> primary_inputs;
  std::vector<ModuleDecl> modules;
  std::vector<WireRef> final_outputs;
  std::optional<CompositionVerification> composition_verification;
  std::vector<UnknownField> unknown_fields;
  std::map<std::string, int> field_lines;  // top-level key -> line
  int FieldLine(const std::string& field) const;  // 1 when absent

  const ModuleDecl* FindModule(std::int64_t id) const;
};

// Section name normalised: "vector"/"section_vector" -> "vector", "cube"/"section_cube" ->
// "cube", anything else unchanged.
std::string NormalizeSection(std::string_view section);

// Reads and parses the YAML. Errors as for LoadDesignBindings (YAML-SYNTAX with the line of
// the parser mark); missing keys and wrong types become MODIF-FIELD diagnostics.
absl::StatusOr<ModuleInterfaces> LoadModuleInterfaces(const std::string& path, Diagnostics* diags);
absl::StatusOr<ModuleInterfaces> ParseModuleInterfaces(std::string_view text,
                                                       const std::string& path,
                                                       Diagnostics* diags);

}  // namespace opdev::contract
