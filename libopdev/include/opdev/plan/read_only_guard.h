// The read-only guard of a round: content hashes of every read-only file taken at plan time
// and compared at the end of the round. Frozen contracts and goldens that changed are
// design_violation (RO-CONTRACT-CHANGED / RO-GOLDEN-CHANGED); changed or newly created
// history (staged) files are RO-HISTORY-CHANGED / RO-HISTORY-CREATED (implementation_error:
// the round touched files it does not own). The snapshot serialises to JSON so the check may
// run in another process.
#pragma once

#include "opdev/plan/round_plan.h"
#include "opdev/support/diagnostic.h"

#include "absl/status/statusor.h"

#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace opdev::plan {

struct GuardedFile {
  std::string rel;
  ReadOnlyKind kind = ReadOnlyKind::kFrozenContract;
  std::string sha256;  // lowercase hex of the bytes
};

struct ReadOnlySnapshot {
  std::string op_dir;
  std::string op;
  std::string product_rel;  // the round's own file (never guarded)
  std::vector<GuardedFile> files;

  boost::json::object ToJson() const;
  static absl::StatusOr<ReadOnlySnapshot> FromJson(const boost::json::value& v);
};

namespace code {
inline constexpr const char* kRoContractChanged = "RO-CONTRACT-CHANGED";
inline constexpr const char* kRoGoldenChanged = "RO-GOLDEN-CHANGED";
inline constexpr const char* kRoHistoryChanged = "RO-HISTORY-CHANGED";
inline constexpr const char* kRoHistoryCreated = "RO-HISTORY-CREATED";
inline constexpr const char* kRoUnreadable = "RO-UNREADABLE";
}  // namespace code

// Hashes every file of plan.read_only. A file that cannot be read is an error status.
absl::StatusOr<ReadOnlySnapshot> TakeReadOnlySnapshot(const RoundPlan& plan);

// Re-hashes the snapshot's files: changed or deleted files are reported, and so are staged
// files (modules/test_<op>_module*.py) that appeared and are not the round's product.
Diagnostics CheckReadOnlySnapshot(const ReadOnlySnapshot& snapshot);

}  // namespace opdev::plan
