// The call checker: resolves every pl.* / pl.system.* / vf.* reference in a pyfront AST
// against the API catalog and reports, as Diagnostics with line and column:
//   API-UNKNOWN          unknown function, enum, enum member or constant
//   API-LEGACY           a legacy spelling (removed -> error, deprecated -> warning), with
//                        the current form and the version that changed it
//   API-ARITY            too many / too few positional arguments
//   API-UNKNOWN-KEYWORD  a keyword the function does not take
//   API-POSITIONAL-ONLY  an operand passed by keyword
//   API-DUPLICATE-ARG    one parameter given twice
//   API-MTE-IN-VF        a data-movement op inside a @pl.vector_function
//   API-CONTEXT          a call illegal where it stands (pl.* tile op in a VF body, vf.* in
//                        a section, a cube op in section_vector, ...)
//   API-VF-RESULT-UNUSED a result-producing vf op used as a statement
//   API-VF-CALL-CONTEXT  a @pl.vector_function called outside section_vector
//   API-KERNEL-SYNTAX    Python syntax a kernel body cannot use (try, lambda, yield, ...)
// Module aliases come from the file's imports (`import pypto_pro.language as pl`,
// `from pypto_pro.language import Vf as vf`); without such imports `pl` and `vf` are
// assumed, and `vf` is always the VF namespace inside a VF body.
#pragma once

#include "opdev/api/catalog.h"
#include "opdev/pyfront/ast.h"
#include "opdev/support/diagnostic.h"

namespace opdev::api {

inline constexpr std::string_view kUnknown = "API-UNKNOWN";
inline constexpr std::string_view kLegacy = "API-LEGACY";
inline constexpr std::string_view kArity = "API-ARITY";
inline constexpr std::string_view kUnknownKeyword = "API-UNKNOWN-KEYWORD";
inline constexpr std::string_view kPositionalOnly = "API-POSITIONAL-ONLY";
inline constexpr std::string_view kDuplicateArg = "API-DUPLICATE-ARG";
inline constexpr std::string_view kMteInVf = "API-MTE-IN-VF";
inline constexpr std::string_view kContext = "API-CONTEXT";
inline constexpr std::string_view kVfResultUnused = "API-VF-RESULT-UNUSED";
inline constexpr std::string_view kVfCallContext = "API-VF-CALL-CONTEXT";
inline constexpr std::string_view kKernelSyntax = "API-KERNEL-SYNTAX";
// pl.store / pl.store_tile with a literal descending order= (store.md, store_tile.md: only
// ascending orders; the frontend rejects [1, 0] while parsing).
inline constexpr std::string_view kStoreOrder = "API-STORE-ORDER";

struct CheckOptions {
  bool check_context = true;  // API-CONTEXT / API-MTE-IN-VF / API-VF-CALL-CONTEXT
  bool check_syntax = true;   // API-KERNEL-SYNTAX
};


// Checks every call and attribute reference of the module. Findings use the module's
// filename. Sorted by position.
Diagnostics CheckModule(const py::Module& module, const Catalog& catalog,
                        const CheckOptions& opts = {});

// Canonical catalog name of a call's function ("pl.load", "vf.add"), using the module's
// import aliases; empty when the callee is not a PyPTO-Pro API reference.
class AliasResolver {
 public:
  explicit AliasResolver(const py::Module& module);
  std::string Canonical(const py::Expr& func_or_attr) const;
  std::string CanonicalDotted(const std::string& dotted) const;

 private:
  std::vector<std::pair<std::string, std::string>> aliases_;  // local name -> canonical
};

}  // namespace opdev::api
