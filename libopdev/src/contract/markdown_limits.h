// Explicit input bounds checked on Markdown contract text (DESIGN.md, SPEC.md) before it is
// handed to cmark-gfm, whose inline and table parsers are super-linear on pathological input
// (thousands of nested brackets in one paragraph, tables with thousands of columns). Text
// over a bound is not parsed; the caller reports CONTRACT-INPUT-LIMIT at the offending line.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace opdev::contract {

// The bounds (docs/contract.md, "Input limits"). The published contracts stay far below them
// (the softmax DESIGN.md: 42 KB, longest line 793 bytes, 13 '|' per line, 10 '[' per paragraph).
inline constexpr size_t kMaxMarkdownBytes = 4u << 20;       // whole file
inline constexpr size_t kMaxMarkdownLineBytes = 64u << 10;  // one line
inline constexpr size_t kMaxTableCells = 128;               // '|' on one line outside code
inline constexpr size_t kMaxParagraphBrackets = 4096;       // '[' in one paragraph outside code
inline constexpr size_t kMaxBlockNesting = 32;              // leading '>' / list markers

struct MarkdownLimitViolation {
  int line = 0;         // 1-based line where the bound was crossed
  std::string message;  // names the bound and its value
};

// The first bound `text` crosses, or nullopt.
std::optional<MarkdownLimitViolation> CheckMarkdownLimits(std::string_view text);

}  // namespace opdev::contract
