// Reading a requirement's planned_location, e.g.
//   "DESIGN.md §0 Module list; §1 Module 1 VF 3-pass; test_softmax.py:
//    softmax_tile_group_kernel / softmax_rows_vf (@pl.vector_function)."
// Clauses are separated by ';'. A clause naming a `.py` file may list symbols after ':'
// separated by " / ". A list item that is a bare identifier (optionally followed by a
// parenthesised note) is a *claimed* symbol: it must exist. Any other item is descriptive
// ("col-tail cases ([3,200])", "assert_close call"); its leading identifier is used only if
// it happens to name a real def/class.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace opdev::kbusage {

struct LocationItem {
  std::string text;   // the item as written (trimmed)
  std::string head;   // leading (dotted) identifier, "" when it starts otherwise
  bool claimed = false;
};

struct LocationFileRef {
  std::string file;   // as written: "test_softmax.py", "modules/test_x_module12.py", ...
  std::string symbol_text;  // text after ':' (trailing '.' removed); "" without ':'
  std::vector<LocationItem> items;
};

struct PlannedLocation {
  std::vector<LocationFileRef> files;  // in order of appearance
  // File refs whose file name (last path component) equals `basename`.
  std::vector<const LocationFileRef*> For(std::string_view basename) const;
};

PlannedLocation ParsePlannedLocation(std::string_view text);

}  // namespace opdev::kbusage
