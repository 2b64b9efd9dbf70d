// Tokenizer for Python 3.11 source (see tokenizer.h): produces NAME/NUMBER/STRING/OP tokens
// plus the NEWLINE/INDENT/DEDENT structure, following the CPython tokenizer's rules for
// indentation (tabs to multiples of 8, consistency checked against tab size 1), implicit
// line joining inside brackets, explicit joining with a backslash, and string prefixes.
#include "opdev/pyfront/tokenizer.h"

#include "pyfront/literals.h"

#include <absl/strings/str_format.h>

#include <cctype>
#include <cstring>

namespace opdev::py {
namespace {

bool IsIdStart(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
bool IsIdChar(unsigned char c) { return IsIdStart(c) || (c >= '0' && c <= '9'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHex(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

class Lexer {
 public:
  explicit Lexer(std::string_view src) : src_(src) {}
  void SkipBom() { pos_ = line_start_ = 3; }

  TokenizeResult Run() {
    indents_.push_back(0);
    alt_indents_.push_back(0);
    bool at_line_start = true;
    while (true) {
      if (at_line_start && depth_ == 0) {
        if (!HandleIndentation()) break;
        at_line_start = false;
        if (pos_ >= src_.size()) break;
      }
      if (pos_ >= src_.size()) break;
      char c = src_[pos_];
      if (c == ' ' || c == '\t' || c == '\f') {
        Advance(1);
        continue;
      }
      if (c == '#') {
        while (pos_ < src_.size() && src_[pos_] != '\n' && src_[pos_] != '\r') Advance(1);
        continue;
      }
      if (c == '\\') {
        size_t p = pos_ + 1;
        if (p < src_.size() && (src_[p] == '\n' || src_[p] == '\r')) {
          Advance(1);
          ConsumeNewline();
          if (pos_ >= src_.size()) {
            Fail("unexpected EOF while parsing", line_, Col());
            break;
          }
          continue;
        }
        Fail("unexpected character after line continuation character", line_, Col());
        break;
      }
      if (c == '\n' || c == '\r') {
        if (depth_ == 0 && line_has_tokens_) {
          Emit(TokenKind::kNewline, pos_, pos_ + 1, line_, Col(), line_, Col() + 1);
        }
        ConsumeNewline();
        if (depth_ == 0) {
          line_has_tokens_ = false;
          at_line_start = true;
        }
        continue;
      }
      if (!LexToken()) break;
      line_has_tokens_ = true;
    }
    if (result_.error.empty()) {
      if (depth_ > 0) {
        Fail("'" + std::string(1, open_stack_.back().ch) + "' was never closed",
             open_stack_.back().line, open_stack_.back().col);
      } else {
        if (line_has_tokens_) {
          Emit(TokenKind::kNewline, pos_, pos_, line_, Col(), line_, Col() + 1);
        }
        while (indents_.size() > 1) {
          indents_.pop_back();
          Emit(TokenKind::kDedent, pos_, pos_, line_, Col(), line_, Col());
        }
        Emit(TokenKind::kEndMarker, pos_, pos_, line_, Col(), line_, Col());
      }
    }
    return std::move(result_);
  }

 private:
  struct Open {
    char ch;
    int line, col;
  };

  int Col() const { return static_cast<int>(pos_ - line_start_) + 1; }

  void Advance(size_t n) { pos_ += n; }

  void ConsumeNewline() {
    if (src_[pos_] == '\r' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '\n') ++pos_;
    ++pos_;
    ++line_;
    line_start_ = pos_;
  }

  void Emit(TokenKind k, size_t b, size_t e, int l, int c, int el, int ec) {
    Token t;
    t.kind = k;
    t.text = src_.substr(b, e - b);
    t.line = l;
    t.col = c;
    t.end_line = el;
    t.end_col = ec;
    result_.tokens.push_back(t);
  }

  void Fail(std::string msg, int line, int col) {
    if (!result_.error.empty()) return;
    result_.error = std::move(msg);
    result_.error_line = line;
    result_.error_col = col;
    Token t;
    t.kind = TokenKind::kError;
    t.line = t.end_line = line;
    t.col = t.end_col = col;
    result_.tokens.push_back(t);
  }

  // At the start of a logical line: measures indentation, skips blank/comment lines and
  // emits INDENT/DEDENT. Returns false on error.
  bool HandleIndentation() {
    while (true) {
      int col = 0, alt = 0;
      while (pos_ < src_.size()) {
        char c = src_[pos_];
        if (c == ' ') {
          ++col;
          ++alt;
        } else if (c == '\t') {
          col = (col / 8 + 1) * 8;
          ++alt;
        } else if (c == '\f') {
          col = alt = 0;
        } else {
          break;
        }
        ++pos_;
      }
      if (pos_ >= src_.size()) return true;
      char c = src_[pos_];
      if (c == '#') {
        while (pos_ < src_.size() && src_[pos_] != '\n' && src_[pos_] != '\r') ++pos_;
        if (pos_ >= src_.size()) return true;
        ConsumeNewline();
        continue;
      }
      if (c == '\n' || c == '\r') {
        ConsumeNewline();
        continue;
      }
      if (col == indents_.back()) {
        if (alt != alt_indents_.back()) {
          Fail("inconsistent use of tabs and spaces in indentation", line_, Col());
          return false;
        }
      } else if (col > indents_.back()) {
        if (alt <= alt_indents_.back()) {
          Fail("inconsistent use of tabs and spaces in indentation", line_, Col());
          return false;
        }
        if (indents_.size() >= 100) {
          Fail("too many levels of indentation", line_, Col());
          return false;
        }
        indents_.push_back(col);
        alt_indents_.push_back(alt);
        Emit(TokenKind::kIndent, pos_, pos_, line_, Col(), line_, Col());
      } else {
        while (indents_.size() > 1 && col < indents_.back()) {
          indents_.pop_back();
          alt_indents_.pop_back();
          Emit(TokenKind::kDedent, pos_, pos_, line_, Col(), line_, Col());
        }
        if (col != indents_.back()) {
          Fail("unindent does not match any outer indentation level", line_, Col());
          return false;
        }
        if (alt != alt_indents_.back()) {
          Fail("inconsistent use of tabs and spaces in indentation", line_, Col());
          return false;
        }
      }
      return true;
    }
  }

  // Non-ASCII characters of the name at [pos_, end): one that is not printable (a space,
  // format or control character such as U+FEFF or U+200B) cannot be part of a name, as in
  // CPython ("invalid non-printable character U+FEFF"). Other non-ASCII characters are taken
  // as name characters without the Unicode XID tables (docs/pyfront.md).
  bool CheckIdentifierChars(size_t end) {
    for (size_t i = pos_; i < end;) {
      const size_t at = i;
      if (static_cast<unsigned char>(src_[i]) < 0x80) {
        ++i;
        continue;
      }
      const unsigned cp = lit::NextCodePoint(src_, &i);
      if (!lit::PrintableNonAscii(cp)) {
        Fail(absl::StrFormat("invalid non-printable character U+%04X", cp), line_,
             static_cast<int>(at - line_start_) + 1);
        return false;
      }
    }
    return true;
  }

  bool LexToken() {
    size_t start = pos_;
    int line = line_, col = Col();
    unsigned char c = static_cast<unsigned char>(src_[pos_]);
    // String prefixes.
    if (IsIdStart(c)) {
      size_t p = pos_;
      while (p < src_.size() && IsIdChar(static_cast<unsigned char>(src_[p]))) ++p;
      if (!CheckIdentifierChars(p)) return false;
      size_t len = p - pos_;
      if (len <= 2 && p < src_.size() && (src_[p] == '\'' || src_[p] == '"')) {
        std::string pre;
        for (size_t i = pos_; i < p; ++i) pre += static_cast<char>(std::tolower(src_[i]));
        static const char* kPrefixes[] = {"r", "u", "b", "br", "rb", "f", "fr", "rf"};
        for (const char* k : kPrefixes) {
          if (pre == k) return LexString(start, p, line, col);
        }
      }
      pos_ = p;
      Emit(TokenKind::kName, start, pos_, line, col, line_, Col());
      return true;
    }
    if (c == '\'' || c == '"') return LexString(start, pos_, line, col);
    if (IsDigit(static_cast<char>(c)) ||
        (c == '.' && pos_ + 1 < src_.size() && IsDigit(src_[pos_ + 1]))) {
      return LexNumber(start, line, col);
    }
    return LexOp(start, line, col);
  }

  bool LexOp(size_t start, int line, int col) {
    static const char* kOps3[] = {"**=", "//=", ">>=", "<<=", "...", nullptr};
    static const char* kOps2[] = {"!=", "%=", "&=", "**", "*=", "+=", "-=", "->", "//",
                                  "/=", ":=", "<<", "<=", "==", ">=", ">>", "@=", "^=",
                                  "|=", nullptr};
    std::string_view rest = src_.substr(pos_);
    size_t n = 0;
    for (const char** o = kOps3; *o; ++o) {
      if (rest.substr(0, 3) == *o) n = 3;
    }
    if (!n) {
      for (const char** o = kOps2; *o; ++o) {
        if (rest.substr(0, 2) == *o) n = 2;
      }
    }
    char c = src_[pos_];
    if (!n) {
      if (std::strchr("()[]{},:;.+-*/%&|^~<>=@", c) != nullptr && c != '\0') {
        n = 1;
      } else {
        std::string shown = (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
                                ? "U+00" + std::string(1, "0123456789ABCDEF"[(c >> 4) & 15]) +
                                      std::string(1, "0123456789ABCDEF"[c & 15])
                                : "'" + std::string(1, c) + "'";
        Fail("invalid character " + shown + " in source", line, col);
        return false;
      }
    }
    if (n == 1) {
      if (c == '(' || c == '[' || c == '{') {
        if (depth_ >= 200) {
          Fail("too many nested parentheses", line, col);
          return false;
        }
        open_stack_.push_back(Open{c, line, col});
        ++depth_;
      } else if (c == ')' || c == ']' || c == '}') {
        if (depth_ == 0) {
          Fail(std::string("unmatched '") + c + "'", line, col);
          return false;
        }
        char open = open_stack_.back().ch;
        char want = open == '(' ? ')' : open == '[' ? ']' : '}';
        if (c != want) {
          Fail(std::string("closing parenthesis '") + c +
                   "' does not match opening parenthesis '" + open + "'",
               line, col);
          return false;
        }
        open_stack_.pop_back();
        --depth_;
      }
    }
    pos_ += n;
    Emit(TokenKind::kOp, start, pos_, line, col, line_, Col());
    return true;
  }

  // Digits with single underscores between them. Returns false on a misplaced underscore.
  bool Digits(bool (*is_digit)(char)) {
    bool any = false;
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      if (is_digit(c)) {
        any = true;
        ++pos_;
      } else if (c == '_' && any && pos_ + 1 < src_.size() && is_digit(src_[pos_ + 1])) {
        ++pos_;
      } else {
        break;
      }
    }
    return any;
  }

  bool LexNumber(size_t start, int line, int col) {
    auto dec = [](char c) { return IsDigit(c); };
    auto hex = [](char c) { return IsHex(c); };
    auto oct = [](char c) { return c >= '0' && c <= '7'; };
    auto bin = [](char c) { return c == '0' || c == '1'; };
    char c = src_[pos_];
    auto after_underscore_prefix = [&]() {
      if (pos_ < src_.size() && src_[pos_] == '_') ++pos_;
    };
    if (c == '0' && pos_ + 1 < src_.size() &&
        std::strchr("xXoObB", src_[pos_ + 1]) != nullptr && src_[pos_ + 1] != '\0') {
      char k = static_cast<char>(std::tolower(src_[pos_ + 1]));
      pos_ += 2;
      after_underscore_prefix();
      bool ok = k == 'x' ? Digits(hex) : k == 'o' ? Digits(oct) : Digits(bin);
      if (!ok || (pos_ < src_.size() && (IsIdChar(static_cast<unsigned char>(src_[pos_]))))) {
        const char* what = k == 'x' ? "hexadecimal" : k == 'o' ? "octal" : "binary";
        Fail(std::string("invalid ") + what + " literal", line, col);
        return false;
      }
      Emit(TokenKind::kNumber, start, pos_, line, col, line_, Col());
      return true;
    }
    bool is_float = false;
    if (c != '.') {
      Digits(dec);
      if (pos_ < src_.size() && src_[pos_] == '_') {
        Fail("invalid decimal literal", line, col);
        return false;
      }
    }
    if (pos_ < src_.size() && src_[pos_] == '.') {
      is_float = true;
      ++pos_;
      if (pos_ < src_.size() && IsDigit(src_[pos_])) Digits(dec);
    }
    if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
      size_t save = pos_;
      ++pos_;
      if (pos_ < src_.size() && (src_[pos_] == '+' || src_[pos_] == '-')) ++pos_;
      if (pos_ < src_.size() && IsDigit(src_[pos_])) {
        Digits(dec);
        is_float = true;
      } else {
        pos_ = save;
        Fail("invalid decimal literal", line, col);
        return false;
      }
    }
    if (pos_ < src_.size() && (src_[pos_] == 'j' || src_[pos_] == 'J')) {
      ++pos_;
    } else if (!is_float) {
      // Leading zeros in a non-zero decimal integer are not allowed.
      std::string_view digits = src_.substr(start, pos_ - start);
      if (digits.size() > 1 && digits[0] == '0' &&
          digits.find_first_not_of("0_") != std::string_view::npos) {
        Fail("leading zeros in decimal integer literals are not permitted; use an 0o prefix "
             "for octal integers",
             line, col);
        return false;
      }
    }
    if (pos_ < src_.size() && IsIdChar(static_cast<unsigned char>(src_[pos_]))) {
      Fail("invalid decimal literal", line, col);
      return false;
    }
    Emit(TokenKind::kNumber, start, pos_, line, col, line_, Col());
    return true;
  }

  bool LexString(size_t start, size_t quote_pos, int line, int col) {
    bool raw = false;
    for (size_t i = start; i < quote_pos; ++i) raw |= (src_[i] == 'r' || src_[i] == 'R');
    char q = src_[quote_pos];
    bool triple = quote_pos + 2 < src_.size() && src_[quote_pos + 1] == q &&
                  src_[quote_pos + 2] == q;
    pos_ = quote_pos + (triple ? 3 : 1);
    while (true) {
      if (pos_ >= src_.size()) {
        if (triple) {
          Fail("unterminated triple-quoted string literal (detected at line " +
                   std::to_string(line_) + ")",
               line, col);
        } else {
          Fail("unterminated string literal (detected at line " + std::to_string(line_) + ")",
               line, col);
        }
        return false;
      }
      char c = src_[pos_];
      if (c == '\\') {
        // Raw strings still cannot end in an odd backslash before the quote.
        if (pos_ + 1 < src_.size()) {
          char n = src_[pos_ + 1];
          if (n == '\n' || n == '\r') {
            ++pos_;
            ConsumeNewline();
            continue;
          }
          pos_ += 2;
          continue;
        }
        ++pos_;
        continue;
      }
      if (c == '\n' || c == '\r') {
        if (!triple) {
          Fail("unterminated string literal (detected at line " + std::to_string(line_) + ")",
               line, col);
          return false;
        }
        ConsumeNewline();
        continue;
      }
      if (c == q) {
        if (!triple) {
          ++pos_;
          break;
        }
        if (pos_ + 2 < src_.size() && src_[pos_ + 1] == q && src_[pos_ + 2] == q) {
          pos_ += 3;
          break;
        }
      }
      ++pos_;
    }
    (void)raw;
    Emit(TokenKind::kString, start, pos_, line, col, line_, Col());
    return true;
  }

  std::string_view src_;
  size_t pos_ = 0;
  size_t line_start_ = 0;
  int line_ = 1;
  int depth_ = 0;
  bool line_has_tokens_ = false;
  std::vector<int> indents_, alt_indents_;
  std::vector<Open> open_stack_;
  TokenizeResult result_;
};

}  // namespace

TokenizeResult Tokenize(std::string_view source) {
  // A UTF-8 byte order mark at the start is skipped, as CPython does.
  Lexer lexer(source);
  if (source.size() >= 3 && source.substr(0, 3) == "\xEF\xBB\xBF") lexer.SkipBom();
  return lexer.Run();
}

}  // namespace opdev::py
