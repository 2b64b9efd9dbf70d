// Python literal helpers shared by the parser, the printer and the AST dump: decoding
// string-literal bodies (escape sequences), canonical values of number literals, and
// CPython-compatible repr() of str, bytes, float and complex values.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace opdev::py::lit {

struct StringPrefix {
  bool raw = false, bytes = false, fstring = false, unicode = false;
  size_t prefix_len = 0;  // characters before the opening quote
  size_t quote_len = 0;   // 1 or 3
};

// Splits a STRING token into its prefix flags; body = text between the quotes.
StringPrefix ParsePrefix(std::string_view token, std::string_view* body);

// Decodes escape sequences of a (non-raw) string body into UTF-8 (str) or raw bytes
// (bytes). Returns an error message on an invalid escape (\x without 2 hex digits, an
// out-of-range \U, \N{...} which needs the Unicode name database, non-ASCII in bytes).
// `error_offset` receives the byte offset in `body` of the problem.
std::optional<std::string> DecodeBody(std::string_view body, bool raw, bool bytes,
                                      std::string* error, size_t* error_offset);

// Integer literal bounds: CPython's sys.int_info.default_max_str_digits for decimal literals,
// and the bit size of such a decimal (4300 * log2(10), rounded up) for hex/octal/binary.
inline constexpr size_t kMaxIntDigits = 4300;
inline constexpr size_t kMaxIntBits = 14285;

// Canonical decimal digits of an integer literal (hex/octal/binary/underscores allowed).
std::string IntToDecimal(std::string_view text);
// Value of a float literal text (underscores allowed) or of an imaginary literal without j.
double ParseFloat(std::string_view text);

// CPython repr() of a float (shortest round trip, "1e-30", "0.5", "1e+16", "inf").
std::string FloatRepr(double v);
// CPython repr() of a pure imaginary complex value 0+vj ("1j", "1.5j", "1e+16j").
std::string ImagRepr(double v);
// CPython repr() of a str (UTF-8 input) and of bytes.
std::string StrRepr(std::string_view utf8);
std::string BytesRepr(std::string_view bytes);

// Source literal for a str value, quoted with `quote` (escapes everything needed so that
// the result is valid in a single-line literal). For the printer.
std::string QuoteStr(std::string_view utf8, char quote);
std::string QuoteBytes(std::string_view bytes, char quote);

// Appends the UTF-8 encoding of code point cp.
void AppendUtf8(std::string* out, unsigned cp);
// Decodes the UTF-8 sequence at s[*i], returns its code point and advances *i past it.
unsigned NextCodePoint(std::string_view s, size_t* i);
// Approximation of str.isprintable() for a non-ASCII code point: separators, format and
// control characters, surrogates, private use and non-characters are not printable.
bool PrintableNonAscii(unsigned cp);

}  // namespace opdev::py::lit
