// topology-map.json at the KB root: the routing table and, under `contract`, the vocabulary
// shared by the pipeline — above all `contract.contract_version`, the integer every
// KB_SELECTION/KB_USAGE `schema_version` must carry (read from the file, never hard-coded).
#pragma once

#include "opdev/support/diagnostic.h"

#include "absl/status/statusor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opdev::contract {

struct TopologyMap {
  std::string path;
  std::optional<std::int64_t> schema_version;
  // Present only when `contract.contract_version` is a JSON integer (true, 1.0, "3" rejected).
  std::optional<std::int64_t> contract_version;
  int contract_version_line = 0;
  std::vector<std::string> topologies;               // keys of `topologies`, sorted
  std::vector<std::string> property_keys;            // contract.property_keys
  std::vector<std::string> implementation_statuses;  // contract.implementation_statuses
  std::string selection_filename;                    // contract.selection_filename
  std::string usage_filename;                        // contract.usage_filename
};

// Loads `<kb_root>/topology-map.json` (or any path). A missing or non-integer
// contract_version is reported as TOPOLOGY-CONTRACT-VERSION (kb_selection_invalid) and
// leaves contract_version empty.
absl::StatusOr<TopologyMap> LoadTopologyMap(const std::string& path, Diagnostics* diags);
absl::StatusOr<TopologyMap> ParseTopologyMap(std::string_view text, const std::string& path,
                                             Diagnostics* diags);

}  // namespace opdev::contract
