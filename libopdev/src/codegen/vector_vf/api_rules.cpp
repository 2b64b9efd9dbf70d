// MTE / VF placement rules and catalog resolution of DESIGN calls.
#include "api_rules.h"

#include "../ast_util.h"

#include <set>

namespace opdev::codegen::vector_vf {

bool IsMteOp(const std::string& n) {
  static const std::set<std::string> k = {
      "pl.load",        "pl.load_tile",       "pl.store",           "pl.store_tile",
      "pl.move",        "pl.insert",          "pl.fillpad",         "pl.fillpad_inplace",
      "pl.fillpad_expand"};
  return k.count(n) > 0;
}

bool IsAllowedPlInVf(const std::string& n) {
  return n == "pl.range" || n == "pl.min" || n == "pl.max" || n == "pl.const";
}


}  // namespace opdev::codegen::vector_vf
