// Where the stage and run steps may write their reports and logs: never inside a protected
// reference tree (the shared KB and fixtures, as gen --out refuses), and a default report
// directory under the op dir must stay inside it (a `reports/` symlink leading elsewhere is
// not written through).
#pragma once

#include "absl/status/status.h"

#include <string>
#include <vector>

namespace opdev::stage {

// FailedPrecondition naming the directory and the rule when `report_dir` may not be written.
// `inside_op_dir`: the directory is the op dir's default one and must resolve inside it.
absl::Status CheckReportDir(const std::string& op_dir, const std::string& report_dir,
                            const std::vector<std::string>& protected_roots, bool inside_op_dir);

}  // namespace opdev::stage
