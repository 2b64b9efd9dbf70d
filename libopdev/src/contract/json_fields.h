// Typed, diagnosed access to the members of one JSON object of a contract file: each getter
// reports a missing member (<PREFIX>-FIELD-MISSING) or a wrong type (<PREFIX>-FIELD-TYPE)
// with the member's line, so every loader reports shape problems the same way.
#pragma once

#include "contract/json_locator.h"
#include "opdev/contract/source.h"
#include "opdev/support/diagnostic.h"

#include "absl/status/statusor.h"

#include <boost/json/object.hpp>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace opdev::contract {

class JsonFields {
 public:
  JsonFields(const boost::json::object& obj, std::string pointer, const JsonLocator& loc,
             std::string file, Diagnostics* diags, std::string code_prefix,
             std::string_view category)
      : obj_(obj), ptr_(std::move(pointer)), loc_(loc), file_(std::move(file)), diags_(diags),
        prefix_(std::move(code_prefix)), category_(category) {}

  int ObjectLine() const { return loc_.Line(ptr_); }
  int Line(const std::string& key) const { return loc_.Line(ptr_ + "/" + JsonPointerToken(key)); }
  std::string Pointer(const std::string& key) const { return ptr_ + "/" + JsonPointerToken(key); }
  bool Has(const char* key) const { return obj_.contains(key); }

  std::string Str(const char* key, bool required = true);
  std::optional<std::int64_t> Int(const char* key, bool required = true);
  std::optional<bool> Bool(const char* key, bool required = true);
  std::vector<std::string> StrList(const char* key, bool required = true);
  const boost::json::array* Array(const char* key, bool required = true);
  const boost::json::object* Object(const char* key, bool required = true);

  // Members in input order, and those not in `known` (each reported at `unknown_severity`
  // as <PREFIX>-FIELD-UNKNOWN unless `report` is false).
  std::vector<std::string> Present() const;
  std::map<std::string, int> Lines() const;
  std::vector<UnknownField> Unknown(std::initializer_list<const char*> known, bool report,
                                    Severity unknown_severity = Severity::kError);

  void Missing(const char* key);
  void WrongType(const char* key, const char* expected);

 private:
  const boost::json::object& obj_;
  std::string ptr_;
  const JsonLocator& loc_;
  std::string file_;
  Diagnostics* diags_;
  std::string prefix_;
  std::string category_;
};

}  // namespace opdev::contract

namespace opdev::contract {

// Parses a JSON contract: JSON-SYNTAX (input_error, line of the error) as diagnostic and
// InvalidArgument status on bad syntax; JSON-DUPLICATE-KEY (at `dup_category`) for every
// repeated member. Requires a top-level object (else <prefix>-FIELD-TYPE).
absl::StatusOr<boost::json::value> ParseJsonContract(std::string_view text, const std::string& path,
                                                     const JsonLocator& loc,
                                                     std::string_view dup_category,
                                                     const std::string& prefix,
                                                     Diagnostics* diags);

}  // namespace opdev::contract
