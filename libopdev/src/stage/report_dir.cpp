// The report-directory rules of report_dir.h.
#include "stage/report_dir.h"

#include "opdev/support/file_io.h"

#include <filesystem>

namespace opdev::stage {

absl::Status CheckReportDir(const std::string& op_dir, const std::string& report_dir,
                            const std::vector<std::string>& protected_roots, bool inside_op_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const auto& root : protected_roots) {
    if (root.empty() || !fs::exists(root, ec)) continue;
    if (IsInsideDirectory(report_dir, root))
      return absl::FailedPreconditionError("refusing to write reports to " + report_dir + ": it is inside " +
                                           root + " (read-only reference tree); choose a directory outside it");
  }
  if (inside_op_dir && !IsInsideDirectory(report_dir, op_dir)) {
    // weakly_canonical follows every existing symlink on the way (reports/, reports/opdev).
    return absl::FailedPreconditionError(
        "refusing to write reports to " + report_dir + ": it resolves to " +
        fs::weakly_canonical(report_dir, ec).string() +
        ", outside the op dir (a symlink under reports/ leads elsewhere); not written through");
  }
  return absl::OkStatus();
}

}  // namespace opdev::stage
