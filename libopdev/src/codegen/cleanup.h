// The L1 delivery cleanup: from the last staged file modules/test_<op>_module<suffix_N>.py to
// the delivery file test_<op>.py, the step the pipeline's cleanup script performs. The staged
// chain is never written. The text transformation renames the staged wrapper
// (<op>_wrapper_module<suffix_N> → <op>_wrapper) and the staged golden
// ([modules.]<op>_golden_stage<suffix_N> → <op>_golden_cpu) as whole identifiers, moves the op
// dir walk-up one level (Path(__file__).resolve().parent.parent / .parents[1] → .parent, the
// delivery file lives in the op dir) and puts a three-line delivery header first. Before the
// result counts, an arity guard compares what <op>_golden_cpu returns with how the delivery
// binds the call's result, and a proofread checks the delivery shape. Unknowable returns are
// never guessed: the guard then stays silent.
#pragma once

#include "opdev/pyfront/ast.h"
#include "opdev/support/diagnostic.h"

#include <optional>
#include <string>
#include <vector>

namespace opdev::codegen {

// The delivery text from the staged file's text (see above). `staged_rel` is the staged
// file's op-dir-relative path, named in the header. Idempotent on a delivery text except for
// the header, which is added only when absent.
std::string CleanupStagedText(const std::string& text, const std::string& op,
                              const std::string& suffix, const std::string& staged_rel);

// What `fn` in `golden_source` returns: arity and whether it returns several values (a tuple
// or list literal). nullopt when it cannot be told statically: no such function, no return
// with a value, returns that disagree, a starred element, or a return of a call, name,
// attribute or conditional (any arity). Only the function's own returns count, not those of
// functions, lambdas or classes nested in it.
struct ReturnShape {
  int arity = 1;
  bool multi = false;
};
std::optional<ReturnShape> GoldenReturnShape(const py::Module& golden, const std::string& fn);

// Every `<target> = fn(...)` (fn called by name or as an attribute) in `delivery`: the
// target's width, whether it is a tuple/list target and its line. A starred target is
// elastic and never listed; a single name is listed with width 1 unless the delivery indexes
// it, unpacks it into a tuple target or iterates over it. `converted`: a single name the
// delivery passes to list() or tuple() (the generated _assert_precision does so when the
// kernel output is a tuple).
struct GoldenBinding {
  int width = 1;
  bool tuple = false;
  int line = 0;
  bool converted = false;
};
std::vector<GoldenBinding> GoldenBindings(const py::Module& delivery, const std::string& fn);

// CLEANUP-ARITY findings (category `category`) at `file` for every binding that disagrees
// with `shape`: a multi-value return bound to a bare name never used as a tuple, a bare return
// unpacked into targets, or unpack widths that differ. `outputs` is what the delivery's
// wrapper returns (GoldenReturnShape of <op>_wrapper): a multi-value golden bound to a name
// that is converted with list()/tuple() is accepted when the wrapper returns a tuple of the
// same width (a multi-output op: the outputs and the golden values are compared pairwise).
void CheckGoldenArity(const ReturnShape& shape, const std::vector<GoldenBinding>& bindings,
                      const std::string& fn, const std::string& file,
                      std::string_view category, Diagnostics* diags,
                      const std::optional<ReturnShape>& outputs = std::nullopt);

// The delivery shape of a final file (CLEANUP-PROOFREAD, implementation_error): it parses,
// has exactly one @pl.jit kernel, defines <op>_wrapper, keeps no staged wrapper or staged
// golden name and no two-level op-dir walk-up, imports precision_compare and <op>_golden_cpu
// only inside function bodies.
void ProofreadFinal(const std::string& text, const std::string& op, const std::string& file,
                    Diagnostics* diags);

}  // namespace opdev::codegen
