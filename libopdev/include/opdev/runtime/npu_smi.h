// Idle-chip discovery for NPU runs: parses the text tables printed by `npu-smi info` (the
// chip table and the process table) and `npu-smi info -m` (the NPU/chip → logic-id map),
// decides which chips are idle, and picks the device id exported as TILE_FWK_DEVICE_ID.
#pragma once

#include "absl/status/statusor.h"

#include <optional>
#include <string>
#include <vector>

namespace opdev::runtime {

struct NpuChip {
  int npu_id = -1;            // the card ("NPU" column)
  int chip_id = -1;           // the chip on that card ("Chip" column)
  std::optional<int> logic_id;  // from `npu-smi info -m` when known, else derived
  std::string name;           // e.g. "910B3", "Ascend910", "Ascend950PR"
  std::string health;         // "OK", "Warning", "Alarm", "Critical", ...
  std::string bus_id;
  std::optional<double> aicore_percent;
  std::optional<long> hbm_used_mb, hbm_total_mb;
  std::vector<long> process_ids;  // processes npu-smi lists on this chip

  // The device id a program passes to torch.npu.set_device / TILE_FWK_DEVICE_ID.
  int DeviceId(int chips_per_npu) const;
};

struct NpuSmiInfo {
  std::string version;        // "npu-smi 23.0.rc3" header, when present
  std::vector<NpuChip> chips; // in listing order
  int chips_per_npu = 1;      // max chips seen on one card
};

// Parses the output of `npu-smi info`. Errors (InvalidArgument) when the text has no chip
// table at all (e.g. an error message, or nothing): the caller treats that as env_error.
absl::StatusOr<NpuSmiInfo> ParseNpuSmiInfo(const std::string& text);

// Parses `npu-smi info -m` ("NPU ID  Chip ID  Chip Logic ID  Chip Name") and fills each
// chip's logic_id; MCU rows (logic id "-") are skipped. Returns how many chips were mapped.
int ApplyNpuSmiMapping(const std::string& mapping_text, NpuSmiInfo* info);

// A chip is idle when its health is OK, no process runs on it and its AICore usage is at
// most 1% (the rule of the pipeline's list_idle_chip_ids script). HBM "used" is not a busy
// signal: idle chips show a firmware reservation of a few GB.
bool IsIdle(const NpuChip& chip);

// Device ids of idle chips, ascending.
std::vector<int> IdleDeviceIds(const NpuSmiInfo& info);

struct DeviceChoice {
  int device_id = -1;
  std::string source;                 // "--device", "npu-smi idle chip", ...
  std::vector<std::string> commands;  // commands run to decide
  std::string evidence;               // what the tables said
};

// Runs `<npu_smi> info` (and `<npu_smi> info -m`) and returns the lowest idle device id.
// Errors, all meaning env_error to the caller: npu-smi missing (NotFound), silent or
// unparsable (Unavailable), no idle chip (ResourceExhausted), timed out (DeadlineExceeded).
absl::StatusOr<DeviceChoice> DiscoverIdleDevice(const std::string& npu_smi = "npu-smi",
                                                double timeout_seconds = 60);

}  // namespace opdev::runtime
