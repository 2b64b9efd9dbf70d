// Python literal helpers (see literals.h): escape decoding, number canonicalisation and
// CPython-compatible repr() of constants.
#include "pyfront/literals.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace opdev::py::lit {

StringPrefix ParsePrefix(std::string_view token, std::string_view* body) {
  StringPrefix p;
  size_t i = 0;
  while (i < token.size() && token[i] != '\'' && token[i] != '"') {
    char c = static_cast<char>(token[i] | 0x20);
    if (c == 'r') p.raw = true;
    if (c == 'b') p.bytes = true;
    if (c == 'f') p.fstring = true;
    if (c == 'u') p.unicode = true;
    ++i;
  }
  p.prefix_len = i;
  char q = i < token.size() ? token[i] : '"';
  p.quote_len = (token.size() >= i + 6 && token[i + 1] == q && token[i + 2] == q) ? 3 : 1;
  size_t begin = i + p.quote_len;
  size_t end = token.size() >= p.quote_len ? token.size() - p.quote_len : begin;
  if (end < begin) end = begin;
  *body = token.substr(begin, end - begin);
  return p;
}

void AppendUtf8(std::string* out, unsigned cp) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

namespace {
int HexVal(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::optional<std::string> DecodeBody(std::string_view body, bool raw, bool bytes,
                                      std::string* error, size_t* error_offset) {
  std::string out;
  out.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(body[i]);
    if (bytes && c >= 0x80) {
      *error = "bytes can only contain ASCII literal characters";
      *error_offset = i;
      return std::nullopt;
    }
    if (c == '\r') {
      // Newlines inside literals are normalised to \n, as CPython reads source text.
      out.push_back('\n');
      if (i + 1 < body.size() && body[i + 1] == '\n') ++i;
      continue;
    }
    if (c != '\\' || raw) {
      out.push_back(static_cast<char>(c));
      continue;
    }
    if (i + 1 >= body.size()) {
      out.push_back('\\');
      continue;
    }
    char e = body[++i];
    switch (e) {
      case '\n': break;
      case '\r':
        if (i + 1 < body.size() && body[i + 1] == '\n') ++i;
        break;
      case '\\': out.push_back('\\'); break;
      case '\'': out.push_back('\''); break;
      case '"': out.push_back('"'); break;
      case 'a': out.push_back('\a'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'v': out.push_back('\v'); break;
      case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
        unsigned v = static_cast<unsigned>(e - '0');
        for (int k = 0; k < 2 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7';
             ++k) {
          v = v * 8 + static_cast<unsigned>(body[++i] - '0');
        }
        if (bytes) {
          out.push_back(static_cast<char>(v & 0xFF));
        } else {
          AppendUtf8(&out, v);
        }
        break;
      }
      case 'x': {
        if (i + 2 >= body.size() || HexVal(body[i + 1]) < 0 || HexVal(body[i + 2]) < 0) {
          *error = bytes ? "invalid \\x escape" : "(unicode error) truncated \\xXX escape";
          *error_offset = i - 1;
          return std::nullopt;
        }
        unsigned v = static_cast<unsigned>(HexVal(body[i + 1]) * 16 + HexVal(body[i + 2]));
        i += 2;
        if (bytes) {
          out.push_back(static_cast<char>(v));
        } else {
          AppendUtf8(&out, v);
        }
        break;
      }
      case 'u':
      case 'U': {
        if (bytes) {
          out.push_back('\\');
          out.push_back(e);
          break;
        }
        size_t n = e == 'u' ? 4 : 8;
        unsigned v = 0;
        for (size_t k = 1; k <= n; ++k) {
          if (i + k >= body.size() || HexVal(body[i + k]) < 0) {
            *error = std::string("(unicode error) truncated \\") + e + "XXXX escape";
            *error_offset = i - 1;
            return std::nullopt;
          }
          v = v * 16 + static_cast<unsigned>(HexVal(body[i + k]));
        }
        if (v > 0x10FFFF) {
          *error = "(unicode error) illegal Unicode character";
          *error_offset = i - 1;
          return std::nullopt;
        }
        i += n;
        AppendUtf8(&out, v);
        break;
      }
      case 'N':
        if (!bytes) {
          *error = "\\N{...} escapes are not supported (no Unicode name database)";
          *error_offset = i - 1;
          return std::nullopt;
        }
        [[fallthrough]];
      default:
        out.push_back('\\');
        out.push_back(e);
        break;
    }
  }
  return out;
}

std::string IntToDecimal(std::string_view text) {
  int base = 10;
  size_t i = 0;
  if (text.size() > 1 && text[0] == '0') {
    char k = static_cast<char>(text[1] | 0x20);
    if (k == 'x') base = 16, i = 2;
    if (k == 'o') base = 8, i = 2;
    if (k == 'b') base = 2, i = 2;
  }
  // Little-endian base 1e9 big number.
  std::vector<uint32_t> limbs{0};
  for (; i < text.size(); ++i) {
    int d = HexVal(text[i]);
    if (d < 0 || d >= base) continue;  // underscores
    uint64_t carry = static_cast<uint64_t>(d);
    for (auto& l : limbs) {
      uint64_t v = static_cast<uint64_t>(l) * static_cast<uint64_t>(base) + carry;
      l = static_cast<uint32_t>(v % 1000000000u);
      carry = v / 1000000000u;
    }
    if (carry) limbs.push_back(static_cast<uint32_t>(carry));
  }
  std::string out = std::to_string(limbs.back());
  for (size_t k = limbs.size() - 1; k-- > 0;) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%09u", limbs[k]);
    out += buf;
  }
  return out;
}

double ParseFloat(std::string_view text) {
  std::string clean;
  for (char c : text) {
    if (c != '_' && c != 'j' && c != 'J') clean.push_back(c);
  }
  return std::strtod(clean.c_str(), nullptr);
}

namespace {
// Shortest round-trip digits and decimal exponent: v = 0.d1d2d3... * 10^exp10 style
// converted to Python's repr rules.
std::string ReprCore(double v, bool* has_point_or_exp) {
  if (std::isnan(v)) {
    *has_point_or_exp = true;
    return "nan";
  }
  if (std::isinf(v)) {
    *has_point_or_exp = true;
    return v < 0 ? "-inf" : "inf";
  }
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string s(buf, r.ptr);  // e.g. "-1.2345e+02"
  bool neg = false;
  if (!s.empty() && s[0] == '-') {
    neg = true;
    s.erase(0, 1);
  }
  size_t epos = s.find('e');
  std::string mant = s.substr(0, epos);
  int exp = std::atoi(s.c_str() + epos + 1);
  std::string digits;
  for (char c : mant) {
    if (c != '.') digits.push_back(c);
  }
  // value = 0.digits * 10^(exp+1)
  int decpt = exp + 1;
  std::string out;
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      out = "0." + std::string(static_cast<size_t>(-decpt), '0') + digits;
    } else if (static_cast<size_t>(decpt) >= digits.size()) {
      out = digits + std::string(static_cast<size_t>(decpt) - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, static_cast<size_t>(decpt)) + "." +
            digits.substr(static_cast<size_t>(decpt));
    }
  } else {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    int e = decpt - 1;
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
    out += eb;
  }
  *has_point_or_exp = true;
  return (neg ? "-" : "") + out;
}
}  // namespace

std::string FloatRepr(double v) {
  bool dummy;
  return ReprCore(v, &dummy);
}

std::string ImagRepr(double v) {
  bool dummy;
  std::string s = ReprCore(v, &dummy);
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s + "j";
}

// Invalid bytes decode as themselves.
unsigned NextCodePoint(std::string_view s, size_t* i) {
  unsigned char c = static_cast<unsigned char>(s[*i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
  if (*i + n > s.size()) n = 1;
  unsigned cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[*i + k]) & 0x3F);
  *i += n;
  return cp;
}

bool PrintableNonAscii(unsigned cp) {
  if (cp < 0xA1) return false;  // C1 controls and NBSP
  if (cp == 0xAD) return false;
  if (cp >= 0x2000 && cp <= 0x200F) return false;
  if (cp >= 0x2028 && cp <= 0x202F) return false;
  if (cp >= 0x205F && cp <= 0x206F) return false;
  if (cp == 0x3000 || cp == 0xFEFF || cp == 0x1680 || cp == 0x180E) return false;
  if (cp >= 0xD800 && cp <= 0xF8FF) return false;
  if (cp >= 0xFFF0 && cp <= 0xFFFB) return false;  // unassigned and Cf; FFFC/FFFD print
  if (cp >= 0xFFFE && cp <= 0xFFFF) return false;
  if (cp >= 0xE0000) return false;
  if ((cp & 0xFFFE) == 0xFFFE) return false;
  return true;
}

namespace {
void AppendEscaped(std::string* out, unsigned cp) {
  char buf[16];
  if (cp < 0x100) {
    std::snprintf(buf, sizeof buf, "\\x%02x", cp);
  } else if (cp < 0x10000) {
    std::snprintf(buf, sizeof buf, "\\u%04x", cp);
  } else {
    std::snprintf(buf, sizeof buf, "\\U%08x", cp);
  }
  *out += buf;
}

std::string EscapeStr(std::string_view s, char quote) {
  std::string out;
  out.reserve(s.size() + 2);
  size_t i = 0;
  while (i < s.size()) {
    unsigned cp = NextCodePoint(s, &i);
    if (cp == static_cast<unsigned char>(quote) || cp == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(cp));
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp < 0x20 || cp == 0x7F) {
      AppendEscaped(&out, cp);
    } else if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (PrintableNonAscii(cp)) {
      AppendUtf8(&out, cp);
    } else {
      AppendEscaped(&out, cp);
    }
  }
  return out;
}

std::string EscapeBytes(std::string_view s, char quote) {
  std::string out;
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c == static_cast<unsigned char>(quote) || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c >= 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

char ReprQuote(std::string_view s) {
  bool has_single = s.find('\'') != std::string_view::npos;
  bool has_double = s.find('"') != std::string_view::npos;
  return (has_single && !has_double) ? '"' : '\'';
}
}  // namespace

std::string StrRepr(std::string_view utf8) {
  char q = ReprQuote(utf8);
  return std::string(1, q) + EscapeStr(utf8, q) + q;
}

std::string BytesRepr(std::string_view bytes) {
  char q = ReprQuote(bytes);
  return "b" + std::string(1, q) + EscapeBytes(bytes, q) + q;
}

std::string QuoteStr(std::string_view utf8, char quote) {
  return std::string(1, quote) + EscapeStr(utf8, quote) + quote;
}

std::string QuoteBytes(std::string_view bytes, char quote) {
  return "b" + std::string(1, quote) + EscapeBytes(bytes, quote) + quote;
}

}  // namespace opdev::py::lit
