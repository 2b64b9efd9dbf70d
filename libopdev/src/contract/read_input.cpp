// Contract file reads with diagnostics (see read_input.h).
#include "contract/read_input.h"

#include "opdev/contract/source.h"
#include "opdev/support/file_io.h"

#include <string_view>

namespace opdev::contract {

void AddReadFailure(const std::string& path, const absl::Status& st, Diagnostics* diags) {
  if (!diags) return;
  std::string msg(st.message());
  // ReadTextFile messages start with the path; keep only the reason.
  if (msg.rfind(path + ": ", 0) == 0) msg = msg.substr(path.size() + 2);
  if (absl::IsNotFound(st)) {
    diags->Error(code::kFileMissing, category::kMissingFile, path, 0, "required file is missing");
    return;
  }
  int line = 0;
  if (absl::IsDataLoss(st) && msg.rfind(path + ":", 0) == 0) {
    // "<path>:<line>: invalid UTF-8 ..."
    std::string rest = msg.substr(path.size() + 1);
    line = std::atoi(rest.c_str());
    size_t colon = rest.find(": ");
    msg = colon == std::string::npos ? rest : rest.substr(colon + 2);
  }
  diags->Error(code::kFileUnreadable, category::kInputError, path, line,
               "cannot read contract file: " + msg);
}

absl::StatusOr<std::string> ReadContractText(const std::string& path, Diagnostics* diags) {
  auto text = ReadTextFile(path);
  if (!text.ok()) AddReadFailure(path, text.status(), diags);
  return text;
}

}  // namespace opdev::contract
