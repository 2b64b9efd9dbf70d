// Shared pieces of the contract models: where a value came from, and fields a loader did not
// expect (kept so a validator can report them instead of silently dropping them).
#pragma once

#include <string>
#include <vector>

namespace opdev::contract {

// A member present in the input that the model does not know.
struct UnknownField {
  std::string name;   // member / key name
  std::string where;  // JSON Pointer or YAML path of the containing object
  int line = 0;
};

// Diagnostic codes of the loaders (syntax and I/O). Validation codes are in check.h.
namespace code {
inline constexpr const char* kFileMissing = "CONTRACT-FILE-MISSING";        // missing_file
inline constexpr const char* kFileUnreadable = "CONTRACT-FILE-UNREADABLE";  // input_error
inline constexpr const char* kSymlinkEscape = "CONTRACT-SYMLINK-ESCAPE";    // input_error
inline constexpr const char* kJsonSyntax = "JSON-SYNTAX";                   // input_error
inline constexpr const char* kJsonDuplicateKey = "JSON-DUPLICATE-KEY";      // per contract
inline constexpr const char* kYamlSyntax = "YAML-SYNTAX";                   // input_error
// A file over one of opdev's explicit input bounds (JSON nesting, DESIGN.md size, line
// length, table columns, bracket and block nesting); the message names the limit.
inline constexpr const char* kInputLimit = "CONTRACT-INPUT-LIMIT";          // input_error
inline constexpr const char* kKbRootMissing = "KB-ROOT-MISSING";            // input_error
}  // namespace code

}  // namespace opdev::contract
