// Deterministic pretty-printing of boost::json values for `--json` output and reports
// (two-space indent, keys in insertion order, a trailing newline).
#pragma once

#include <boost/json/value.hpp>

#include <string>

namespace opdev {

std::string PrettyJson(const boost::json::value& v);

}  // namespace opdev
