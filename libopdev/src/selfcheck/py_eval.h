// A small evaluator of host-side Python expressions for the semantic self-check rules: the
// wrapper's argument guards against a probe tensor (⑦) and the tests' data constructors
// (⑧). Values are ints, floats, bools, strings, None, tuples/lists, torch dtypes and probe
// tensors (shape + dtype, no data). Python semantics for // and % (floor) and short-circuit
// and/or; anything else (unknown names, calls that are not metadata, overflow) is Unknown,
// never a guess.
#pragma once

#include "opdev/pyfront/ast.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace opdev::selfcheck {

struct PyVal {
  enum class Kind { kUnknown, kNone, kInt, kFloat, kBool, kStr, kSeq, kDtype, kTensor };
  Kind kind = Kind::kUnknown;
  std::int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string s;                   // kStr text; kDtype canonical name ("float16")
  std::vector<PyVal> items;        // kSeq
  std::vector<std::int64_t> shape; // kTensor
  std::string dtype;               // kTensor canonical dtype ("float16"), may be empty

  static PyVal Int(std::int64_t v) { PyVal x; x.kind = Kind::kInt; x.i = v; return x; }
  static PyVal Bool(bool v) { PyVal x; x.kind = Kind::kBool; x.b = v; return x; }
  static PyVal Dtype(std::string n) { PyVal x; x.kind = Kind::kDtype; x.s = std::move(n); return x; }
  static PyVal Tensor(std::vector<std::int64_t> shape, std::string dtype) {
    PyVal x; x.kind = Kind::kTensor; x.shape = std::move(shape); x.dtype = std::move(dtype); return x;
  }
  bool known() const { return kind != Kind::kUnknown; }
  std::optional<bool> Truth() const;                 // Python truthiness, nullopt if unknown
  std::optional<std::vector<std::int64_t>> Ints() const;  // a sequence of ints (a shape)
  std::string ToText() const;
};

using PyEnv = std::map<std::string, PyVal>;

// The canonical dtype name of `torch.float16`, `torch.half`, `pl.DT_FP16`-free spellings
// ("float16", "fp16", "half") or "" when not a dtype.
std::string CanonicalDtype(const std::string& spelled);

// Evaluates `e` under `env` (names not in env are Unknown).
PyVal EvalPy(const py::Expr& e, const PyEnv& env);

// Executes simple assignments (`a = e`, `a, b = e`) in order into `env`; other statements
// are ignored. Used to bind the locals a guard refers to (`B, N = x.shape`).
void ExecAssign(const py::Stmt& s, PyEnv* env);

// Module-level integer constants of a file as PyVals.
PyEnv ModuleConstants(const py::Module& m);

}  // namespace opdev::selfcheck
