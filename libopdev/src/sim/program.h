// The interpreter's program form: the pyfront AST of a kernel file lowered once into nodes
// with resolved variable slots, resolved `pl.*`/`vf.*`/torch builtins and enum/dtype
// constants, so the hot loops of a kernel evaluate without name lookups. Lowering also runs
// the static VF-body checks (MTE ops inside VF, runtime `if`, stale loop values) and marks
// wrapper statements outside the wrapper boundary.
#pragma once

#include "core_context.h"
#include "value.h"

#include "opdev/pyfront/ast.h"
#include "opdev/sim/hazards.h"

#include <array>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

namespace opdev::sim {

struct PipeOpSpec;  // builtins_pipe.cpp

enum class XK {
  kConst, kLocal, kGlobal, kBuiltinRef, kAttr, kSubscript, kCall, kBin, kUnary, kCompare,
  kBoolOp, kIfExp, kTuple, kList, kSlice, kDict, kUnsupported,
};

inline constexpr size_t kMaxBoundOperands = 4;  // positional operands of a bound form

// A bound call's constant keywords as its bound form reads them, decoded once at lowering by
// the form's decoder (BoundBuiltin::decode): one code per keyword the form reads, -1 when the
// call does not give it (or gives None).
using BoundKeys = std::array<int32_t, 4>;
// Fills `keys` from a call's constant keywords; false when one is not of a kind the form
// reads, so the form reads them through Args at the call (which reports it as before).
using BoundDecodeFn = bool (*)(const std::vector<std::pair<std::string, Value>>& kwargs, BoundKeys* keys);

struct XNode {
  XK kind = XK::kConst;
  int line = 0;
  Value constant;               // kConst; kUnsupported: a Str with the hazard code when not SIM-UNSUPPORTED
  int slot = -1;                // kLocal
  std::string name;             // kGlobal name, kAttr attribute, builtin / unsupported text
  Text name_text;               // kAttr: the attribute, shared by the bound methods it makes
  mutable Value* global = nullptr;  // kGlobal cache
  BuiltinFn fn = nullptr;       // kBuiltinRef
  const PipeOpSpec* pipe_spec = nullptr;  // kBuiltinRef: its pipe-model operands (null: none)
  // kCall of a builtin with a bound form (FindBoundBuiltin) whose positional count it takes and
  // whose keywords are all constants of names it takes: the bound form and those keywords.
  BoundFn bound = nullptr;
  mutable std::vector<std::pair<std::string, Value>> bound_kwargs;
  // kCall with `bound` whose form has a decoder that accepted its keywords: them, decoded.
  bool bound_keys_valid = false;
  BoundKeys bound_keys{};
  // kCall with `bound`: where each positional operand is read — a local's slot (slot >= 0), a
  // constant (value), or neither (evaluated); `bound_inline` when every operand is read in
  // place, so the call evaluates nothing before its bound form runs.
  struct InPlaceOperand {
    int slot = -1;
    const Value* value = nullptr;
  };
  std::array<InPlaceOperand, kMaxBoundOperands> bound_ops{};
  bool bound_inline = false;
  // kCall with `bound`, not bound_inline, whose every operand is a local, a constant, integer
  // arithmetic of locals, constants and module names (kInt: read by PeekInt, else evaluated),
  // or a call with a direct bound form itself (kCall): evaluating them runs no general call
  // (nothing that could switch cores or run this node again), so the operands that are not
  // read in place are evaluated into `direct_values`, which keep their registers from one
  // evaluation to the next (a nested result is built in place, PutReg).
  enum class OperandForm : uint8_t { kSlot, kConst, kInt, kCall };
  bool bound_direct = false;
  std::array<OperandForm, kMaxBoundOperands> direct_forms{};
  mutable std::unique_ptr<std::array<Value, kMaxBoundOperands>> direct_values;
  py::Op op = py::Op::kAdd;     // kBin/kUnary/kBoolOp
  std::vector<py::Op> ops;      // kCompare
  std::unique_ptr<XNode> a, b, c;
  std::vector<std::unique_ptr<XNode>> items;  // call args, elts, comparators, dict values
  std::vector<std::unique_ptr<XNode>> keys;   // dict keys
  std::vector<std::pair<std::string, std::unique_ptr<XNode>>> kwargs;
  // kTuple / kList of numbers: the sequence its last evaluation built. The next evaluation
  // fills it again instead of allocating one when nothing else holds it (a `[row, 0]` offset
  // handed to a call and dropped after it), so nobody can observe that it is the same object.
  mutable std::shared_ptr<std::vector<Value>> sequence;
};

enum class SK {
  kAssign, kAugAssign, kExpr, kIf, kFor, kWhile, kBreak, kContinue, kReturn, kWith, kPass,
  kAssert, kRaise, kSkip,
};

struct SNode {
  SK kind = SK::kPass;
  int line = 0;
  std::vector<std::unique_ptr<XNode>> targets;
  std::unique_ptr<XNode> value, test, iter, target, msg;
  py::Op op = py::Op::kAdd;
  std::vector<SNode> body, orelse;
  std::string note;  // kSkip: why
  Section section = Section::kNone;  // kWith: `with pl.section_vector()` / `pl.section_cube()`
};

enum class FuncKind { kHelper, kVector, kJit, kHost, kSimt };

// `@pl.jit(tiling_key=Schema)` (tiling_key.md): the schema class's TilingKeyField attributes in
// class order. A launch names a value of every field (`kernel[stream, block_dim, {...}]`, or
// `opdev sim --tiling-key NAME=V` for a kernel entry), and the kernel reads each field as a
// constant name.
struct TilingKeyFieldInfo {
  std::string name;
  std::vector<int64_t> values;  // the candidates
};
struct TilingKeySchema {
  std::string cls;
  int line = 0;
  std::vector<TilingKeyFieldInfo> fields;
  std::string problem;  // non-empty: why the schema cannot be used (reported at launch)
};

// `@pl.jit(datatype={"x": "data_dtype", ...})` (offline_binary_compilation.md, kernel_function.md):
// each named kernel parameter's dtype becomes the named constant of a launch, which gives the
// dtypes as `kernel[stream, block_dim, {"x": pl.DT_FP16, ...}]` (after the tiling key when the
// kernel has one). Parameters mapped to one name must be launched with one dtype.
struct DatatypeSchema {
  int line = 0;
  std::vector<std::pair<std::string, std::string>> params;  // parameter -> constant name, in order
  std::string problem;  // non-empty: why the decorator's dict is refused (reported at launch)
};

struct ParamInfo {
  std::string name;
  const py::Expr* annotation = nullptr;
};

struct FuncIR {
  std::string name;  // module-level: the def's name; nested: its __qualname__ (`f.<locals>.k`)
  FuncKind kind = FuncKind::kHelper;
  int line = 0;
  std::vector<ParamInfo> params;
  std::vector<std::unique_ptr<XNode>> defaults;  // for the last defaults.size() params
  std::vector<std::string> slot_names;
  std::vector<SNode> body;
  const py::Stmt* def = nullptr;
  bool auto_mutex = true;
  // @pl.pipeline.stage: a stage of the pipeline transform (pipeline_stage.h); a plain helper
  // unless its kernel enables the transform.
  bool pipeline_stage = false;
  // @pl.jit(pipeline=pl.pipeline.PipelineConfig(...)): the transform is on for this kernel;
  // `pipeline_preload` is its preload= when given as a literal (-1 otherwise).
  bool pipeline = false;
  int64_t pipeline_preload = -1;
  // @pl.simt.function(max_threads=N) is a launchable SIMT function: N's expression (module
  // names, like a default value), evaluated at the launch; a bare @pl.simt.function is a SIMT
  // helper that SIMT functions call.
  const py::Expr* simt_max_threads_src = nullptr;
  std::unique_ptr<XNode> simt_max_threads;
  std::shared_ptr<const TilingKeySchema> tiling_key;  // @pl.jit(tiling_key=...), else null
  std::shared_ptr<const DatatypeSchema> datatype;     // @pl.jit(datatype=...), else null
  // The execution domains of a @pl.jit kernel: from the `with pl.section_*()` blocks of its
  // body (helpers it calls are not searched); no section at all is a Vector-only kernel.
  LaunchKind launch = LaunchKind::kVectorOnly;
  // A function defined inside another function (a kernel factory): the names it reads from
  // the enclosing functions. Nested defs of those scopes resolve to their FuncIR (key in
  // Program::funcs); any other enclosing name is a closure variable, read from the global
  // `<qualname>:<name>` that the host sets per launch from the function's closure cells.
  bool nested = false;
  std::map<std::string, std::string> lexical_defs;  // name -> Program::funcs key
  std::map<std::string, std::string> closure;       // name -> global key
};

struct Program {
  std::string file;
  py::Module module;
  std::map<std::string, Value> globals;
  std::map<std::string, std::unique_ptr<FuncIR>> funcs;  // module-level by name, nested by qualname
                                                          // (a second def of one qualname: `q@line`)
  std::vector<SNode> module_body;  // top-level statements to run (constants, imports)
  std::vector<const XNode*> global_refs;  // every kGlobal node (each caches its lookup)
};

// Puts the module values back to `initial` (the globals lowering left) and drops every name
// lookup a run cached, so a program used again starts its run as a freshly lowered one does.
void RestoreModuleState(Program& prog, const std::map<std::string, Value>& initial);

// The closure key of a nested function's free variable (see FuncIR::closure).
std::string ClosureKey(const std::string& qualname, const std::string& name);
// The function a launch names: `name` (module-level or a nested qualname) whose definition
// spans `line` (its first decorator or def line; 0: any). nullptr when there is none.
const FuncIR* FindFunction(const Program& prog, const std::string& name, int line);
// The function a call by `name` inside `caller` resolves to (nested defs first), or nullptr.
const FuncIR* ResolveCallee(const Program& prog, const FuncIR& caller, const std::string& name);

// Lowers a parsed module. Static hazards go to `sink`.
std::unique_ptr<Program> LowerProgram(py::Module module, const std::string& file, HazardSink& sink);

// The builtin registry (filled by the builtins_*.cpp files).
BuiltinFn FindBuiltin(const std::string& qualified);  // "pl.add", "vf.exp_sub", "torch.empty"
// The pipe model's view of a builtin (its pipe and tile operands, from the API catalog;
// builtins_pipe.cpp), resolved once at lowering; nullptr for one without tile operands.
const PipeOpSpec* FindPipeOpSpec(const std::string& qualified);
// Whether a builtin with this pipe-model view may take a bound form: a vf.* register access on
// a fixed pipe, whose PipeOpBefore only opens its epoch (PipeVfRegisterOpBegin).
bool BindsOnPipe(const PipeOpSpec& spec);
// The bound form of a builtin (value.h, BoundFn): how many positional operands it takes and
// the keyword names it understands; fn is nullptr for a builtin without one.
struct BoundBuiltin {
  BoundFn fn = nullptr;
  size_t operands = 0;
  std::vector<std::string_view> keywords;
  BoundDecodeFn decode = nullptr;  // decodes `keywords` once at lowering (null: read per call)
};
BoundBuiltin FindBoundBuiltin(const std::string& qualified);
// Constants named by a qualified name: dtypes, enum members, layouts ("pl.DT_FP32",
// "pl.MaskPattern.ALL", "torch.float16", "pl.DN").
bool FindConstant(const std::string& qualified, Value* out);

// Static checks of a @pl.vector_function body.
// `module_names` are the module-level names (constants, imports, functions): compile-time.
void CheckVectorFunction(const py::Stmt& def, const std::set<std::string>& module_names,
                         HazardSink& sink);

}  // namespace opdev::sim
