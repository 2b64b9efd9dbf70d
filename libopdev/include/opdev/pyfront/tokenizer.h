// Tokenizing Python 3.11 source: the full lexical grammar (INDENT/DEDENT from tabs and
// spaces, implicit joining inside brackets, explicit joining with backslash, every string
// prefix incl. triple-quoted, raw, bytes and f-strings, all number forms, comments).
// Used by the parser; exposed for tools and tests.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace opdev::py {

enum class TokenKind {
  kName, kNumber, kString, kOp, kNewline, kIndent, kDedent, kEndMarker, kError,
};

struct Token {
  TokenKind kind = TokenKind::kError;
  std::string_view text;  // a view into the source (empty for INDENT/DEDENT/ENDMARKER)
  int line = 0;           // 1-based
  int col = 0;            // 1-based byte column
  int end_line = 0;
  int end_col = 0;        // one past the last byte
};

struct TokenizeResult {
  std::vector<Token> tokens;  // ends with kEndMarker unless an error occurred
  // First lexical error; empty when none. The token list then ends with a kError token at
  // the error position.
  std::string error;
  int error_line = 0;
  int error_col = 0;
};

// Tokenizes a whole module. Comments and non-logical newlines are skipped. The source must
// outlive the returned token views.
TokenizeResult Tokenize(std::string_view source);

}  // namespace opdev::py
