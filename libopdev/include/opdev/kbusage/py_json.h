// Python-compatible JSON encoding: byte-for-byte what CPython's
// `json.dumps(v, ensure_ascii=False)` prints (default separators ", " and ": ") and the
// `json.dumps(v, ensure_ascii=False, indent=2)` form used for files. KB_USAGE.json's
// invariant prefix is defined by this encoding, so it must match exactly.
#pragma once

#include "absl/status/statusor.h"

#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace opdev::kbusage {

// `indent` < 0: one line with separators ", " / ": ". `indent` >= 0: Python's indent=N
// form (item separator "," + newline, key separator ": "; empty containers stay "[]"/"{}").
// Errors (InvalidArgument): a string that is not valid UTF-8, a non-finite double (Python
// would print the non-JSON tokens Infinity/NaN, which KB files must never contain).
absl::StatusOr<std::string> PyJsonDumps(const boost::json::value& v, int indent = -1);

// One JSON string literal exactly as json.dumps(s, ensure_ascii=False) prints it: escapes
// only `"`, `\`, and U+0000..U+001F (\n \r \t \b \f by name, others as lowercase \u00xx);
// DEL, C1 controls, U+2028/9, CJK and non-BMP characters are written raw.
absl::StatusOr<std::string> PyJsonString(std::string_view utf8);

// Python's float repr: the shortest string that round-trips, in fixed notation when the
// decimal exponent is in [-4, 16) ("1.0", "0.0001", "1234567890123456.0") and otherwise
// scientific with a signed two-digit-minimum exponent ("1e-05", "1e+16", "1.5e+300").
absl::StatusOr<std::string> PyFloatRepr(double d);

}  // namespace opdev::kbusage
