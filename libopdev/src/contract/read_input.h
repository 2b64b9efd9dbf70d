// Reading a contract file for the loaders: bounded, UTF-8-checked (support/file_io.h), with
// every failure turned into both an absl::Status for the caller and a Diagnostic naming the
// file (CONTRACT-FILE-MISSING / CONTRACT-FILE-UNREADABLE).
#pragma once

#include "opdev/support/diagnostic.h"

#include "absl/status/statusor.h"

#include <string>

namespace opdev::contract {

absl::StatusOr<std::string> ReadContractText(const std::string& path, Diagnostics* diags);

// Adds the diagnostic for a failed read `st` of `path` (used by ReadContractText).
void AddReadFailure(const std::string& path, const absl::Status& st, Diagnostics* diags);

}  // namespace opdev::contract
