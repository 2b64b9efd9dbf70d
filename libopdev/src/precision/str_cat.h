// Cat: string concatenation over std::ostream for the precision module (std::string_view
// friendly, unlike this platform's absl::StrCat whose string_view is not std's).
#pragma once

#include <sstream>
#include <string>

namespace opdev::precision {

template <typename... Args>
std::string Cat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

}  // namespace opdev::precision
