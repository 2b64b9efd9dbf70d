// The API chain of a chain-only DESIGN §1: every frozen `vector_selection` step with
// `implementation: vf` whose `api_sequence` computes (not only moves data) is parsed into typed
// vf.* operations, in DESIGN order, each with the DESIGN line of its step. The chain says the
// math (which ops, in which order, on which operands); the pattern skeleton supplies only the
// structure around it. Grammar of one api_sequence (elements separated by `→` or `->`):
//
//   element   := [NAME '='] op
//   op        := 'vf.' API [ '(' operands [',' 'init=' operand] ')' ]
//   operand   := '_' (the previous result) | NAME (SPEC input, bound name, §2.1 constant, the
//                reduction-axis symbol) | number
//
// Unary ops may omit their operand (`vf.exp` = `vf.exp(_)`), scalar ops their register
// (`vf.adds(1.0)` = `vf.adds(_, 1.0)`), reductions both (`vf.reduce_sum`). Binary ops must
// name both operands. `vf.load_align` / `vf.store_align` / bare `vf.full` are structure
// markers the skeleton supplies. A step's optional `pattern` field (block key or table column)
// names the skeleton (A, B, B+, C).
#pragma once

#include "../gen_context.h"

#include <optional>
#include <string>
#include <vector>

namespace opdev::codegen::vector_vf {

enum class OpClass { kUnary, kBinary, kScalar, kReduce };

struct ChainOp {
  std::string api;                // "vf.exp"
  OpClass cls = OpClass::kUnary;
  std::vector<std::string> args;  // operands as written, normalised ("_" for the implicit one)
  std::string init;               // reductions: `init=` operand ("" = none)
  std::string bind;               // NAME of `NAME = op` ("" = none)
  std::string text;               // the element as written
  int line = 0;                   // DESIGN line of its step
};

struct ChainStep {
  std::string step;
  int line = 0;
  std::vector<ChainOp> ops;       // compute ops, markers dropped
  std::string pattern;            // explicit pattern field as written ("" = none)
  int pattern_line = 0;
  std::string kb_evidence;
};

struct Chain {
  std::vector<ChainStep> steps;
  int line = 0;                   // line of the first compute step
  const ChainOp* FirstReduce() const;
};

// nullopt with no finding when §1 freezes no vf compute step (then the DESIGN simply has no
// code); nullopt with findings when a step cannot be parsed. Findings (design_violation):
// CODEGEN-CHAIN-SYNTAX, CODEGEN-UNKNOWN-API, CODEGEN-CHAIN-UNSUPPORTED, CODEGEN-CHAIN-AMBIGUOUS.
std::optional<Chain> ParseChain(GenContext& ctx);

}  // namespace opdev::codegen::vector_vf
