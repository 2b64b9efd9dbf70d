// The PyPTO-Pro API catalog: every pl.*, pl.system.* and vf.* callable a kernel may use,
// with its parameters (positional-only / positional-or-keyword / keyword-only, defaults,
// tile roles and memory spaces), where it is legal (VF function, vector section, cube
// section, kernel body), whether it is an MTE (data-movement) op, plus the enums,
// constants (pl.DT_*, layouts) and legacy spellings, and the op facts the simulator, codegen
// and self-check share: the data paths of each data-movement / compute op (source space,
// destination space, pipe) and the documented matmul operand dtypes. The data is the reviewed file
// libopdev/data/pypto_pro_api.json, embedded into the library at build time; every entry
// cites its source path in hicann/pypto.
//
//   const opdev::api::Catalog& cat = opdev::api::Catalog::Builtin();
//   if (const auto* f = cat.FindFunction("pl.make_tile_group")) { f->params[0].name; }
#pragma once

#include "absl/status/statusor.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace opdev::api {

enum class ParamKind { kPositionalOnly, kPositionalOrKeyword, kKeywordOnly };
std::string_view ParamKindName(ParamKind k);  // "positional_only", ...

struct Param {
  std::string name;
  ParamKind kind = ParamKind::kPositionalOrKeyword;
  std::optional<std::string> default_value;  // Python spelling; nullopt = required
  // "tile", "tensor", "tile_or_group", "tile_or_scalar", "tile_type", "reg", "mask",
  // "scalar", "scalar_or_reg", "list", "int", "bool", "str", "dtype", "attr", "enum:<Name>"
  std::string role;
  std::vector<std::string> memory;            // allowed MemorySpace members for tiles
  std::optional<std::pair<int, int>> range;   // inclusive value range (ids)
  // How the op uses a tile / tensor operand: "" (reads it), "write" (writes it: out=, dst=,
  // tmp=), "none" (descriptor only: set_validshape, set_stride). The simulator's pipe model
  // (docs/simulator.md, "Pipes of one core") records the accesses from it.
  std::string access;
  bool required() const { return !default_value.has_value(); }
};

// Where a call may appear. `kernel` = a @pl.jit body outside any section.
struct Legality {
  bool vector_function = false;
  bool section_vector = false;
  bool section_cube = false;
  bool kernel = false;
  bool host = false;       // module level / ordinary Python code
  bool decorator = false;  // used as a decorator
};

struct Function {
  std::string name;               // canonical dotted name: "pl.load", "vf.add", "pl.system.bar_all"
  std::vector<Param> params;
  std::string varargs;            // name of *args, empty when none
  std::string kwargs;             // name of **kwargs, empty when none
  Legality legal;
  bool mte = false;               // data movement op (load/store/move/insert)
  std::string pipe;               // e.g. "MTE2", "MTE3|FIX", "V" (tile ops), "M", "S"
  std::string dtypes;             // dtype constraints, free text with the doc page
  // vf ops: the register dtypes the doc page supports ("DT_FP16", ...), empty when the page
  // lists none; the simulator refuses other dtypes (SIM-OP-DTYPE) citing `source`.
  std::vector<std::string> reg_dtypes;
  bool SupportsRegDtype(std::string_view dt_name) const;  // true when reg_dtypes is empty
  std::string returns;            // "context", "decorator", "group", "tile", ... or empty
  int results = -1;               // vf ops: number of destination registers (0 = statement)
  bool internal = false;          // internal block-op spelling (pl.row_max, ...)
  std::string note;
  std::string source;             // "python/pypto_pro/language/_api.py:80; docs/...md"

  const Param* FindParam(std::string_view n) const;
  size_t MaxPositional() const;    // positional-capable parameters (ignores *args)
  size_t RequiredPositional() const;
};

struct Enum {
  std::string name;  // "pl.MaskPattern"
  std::vector<std::string> members;
  std::string source;
  bool HasMember(std::string_view m) const;
};

struct Constant {
  std::string name;  // "pl.DT_FP16", "pl.DN", "pl.DYNAMIC"
  std::string kind;  // "dtype", "layout", "dim", "type"
  std::string source;
};

struct Legacy {
  std::string name;         // "pl.fillpad_inplace"
  std::string form;         // "pl.fillpad_inplace(out, src)"
  std::string replacement;  // "pl.fillpad(out, src, mode=pl.FillPadMode.INPLACE)"
  std::string changed_in;   // commit/date and what changed
  std::string status;       // "removed", "deprecated", "changed_signature"
  std::string source;
};

// One data path of an op: with operands in `src` (MemorySpace names, "GM" for tensors,
// comma-separated for several inputs such as "Left,Right") and result in `dst`, the op runs
// on `pipe` (MTE1, MTE2, MTE3, FIX, M, V, S).
struct DataPath {
  std::string op;    // "pl.move"
  std::string src;   // "Mat"
  std::string dst;   // "Left"
  std::string pipe;  // "MTE1"
  std::string note;
  std::string source;
};

// A documented operand-dtype combination of a compute op (DESIGN spellings: FP16, BF16,
// FP32, INT8, INT32, HF8, FP8E4M3FN, FP8E5M2).
struct OperandDtypes {
  std::string op;   // "pl.matmul_acc"
  std::string lhs;  // "FP16"
  std::string rhs;  // "FP16"
  std::string dst;  // "FP32"
  std::string note;
  std::string source;
};

class Catalog {
 public:
  // Parses the JSON document (schema opdev.pypto_pro_api/1). Errors name the entry.
  static absl::StatusOr<Catalog> FromJson(std::string_view json);
  // Reads and parses a catalog file.
  static absl::StatusOr<Catalog> FromFile(const std::string& path);
  // The catalog embedded at build time (always available, also in installed binaries).
  static const Catalog& Builtin();
  // The catalog named by the environment variable OPDEV_API_CATALOG when set, otherwise
  // the builtin one.
  static absl::StatusOr<Catalog> Default();

  const Function* FindFunction(std::string_view name) const;
  const Enum* FindEnum(std::string_view name) const;
  const Constant* FindConstant(std::string_view name) const;
  // Legacy entries for a name (several forms may share one name, e.g. set_validshape).
  std::vector<const Legacy*> FindLegacy(std::string_view name) const;
  // The data path of `op` from `src` to `dst` (space names as in DataPath), or nullptr.
  const DataPath* FindDataPath(std::string_view op, std::string_view src,
                               std::string_view dst) const;
  // Every data path of `op`, in catalog order.
  std::vector<const DataPath*> DataPathsOf(std::string_view op) const;
  // The documented operand dtypes of `op`, in catalog order.
  std::vector<const OperandDtypes*> OperandDtypesOf(std::string_view op) const;
  // True when (lhs, rhs, dst) is a documented combination of `op`.
  bool HasOperandDtypes(std::string_view op, std::string_view lhs, std::string_view rhs,
                        std::string_view dst) const;
  // True when `prefix` is a namespace ("pl", "vf", "pl.system", ...).
  bool IsNamespace(std::string_view prefix) const;

  const std::vector<Function>& functions() const { return functions_; }
  const std::vector<Enum>& enums() const { return enums_; }
  const std::vector<Constant>& constants() const { return constants_; }
  const std::vector<Legacy>& legacy() const { return legacy_; }
  const std::vector<DataPath>& data_paths() const { return data_paths_; }
  const std::vector<OperandDtypes>& operand_dtypes() const { return operand_dtypes_; }
  const std::string& source_repo() const { return source_repo_; }
  const std::string& source_commit() const { return source_commit_; }

 private:
  void Index();
  std::vector<Function> functions_;
  std::vector<Enum> enums_;
  std::vector<Constant> constants_;
  std::vector<Legacy> legacy_;
  std::vector<DataPath> data_paths_;
  std::vector<OperandDtypes> operand_dtypes_;
  std::vector<std::string> namespaces_;
  std::string source_repo_, source_commit_;
  std::map<std::string, size_t, std::less<>> fn_index_, enum_index_, const_index_;
};

// The embedded JSON text (for `opdev lint --catalog-json` style dumps and tests).
std::string_view BuiltinCatalogJson();

}  // namespace opdev::api
