// Tests of `npu-smi info` parsing and idle-chip discovery against recorded tables
// (tests/data/runtime/npu-smi) and a stand-in npu-smi program.
#include <catch2/catch.hpp>

#include "opdev/runtime/npu_smi.h"
#include "opdev/support/file_io.h"

#include <cstdlib>
#include <string>

namespace {
const std::string kData = std::string(OPDEV_SOURCE_DIR) + "/tests/data/runtime/npu-smi/";
std::string Fixture(const std::string& name) {
  auto text = opdev::ReadTextFile(kData + name);
  REQUIRE(text.ok());
  return *text;
}
}  // namespace

using namespace opdev::runtime;

TEST_CASE("npu-smi info of an 8-card 910B host: busy, unhealthy and idle chips") {
  auto info = ParseNpuSmiInfo(Fixture("info_910b.txt"));
  REQUIRE(info.ok());
  CHECK(info->version == "npu-smi 23.0.rc3");
  REQUIRE(info->chips.size() == 8);
  CHECK(info->chips_per_npu == 1);
  const NpuChip& c0 = info->chips[0];
  CHECK(c0.npu_id == 0);
  CHECK(c0.chip_id == 0);
  CHECK(c0.name == "910B3");
  CHECK(c0.bus_id == "0000:C1:00.0");
  REQUIRE(c0.aicore_percent);
  CHECK(*c0.aicore_percent == 87);
  REQUIRE(c0.hbm_used_mb);
  CHECK(*c0.hbm_used_mb == 41250);  // "41250/ 65536": no space before the slash
  CHECK(*c0.hbm_total_mb == 65536);
  CHECK(c0.process_ids == std::vector<long>{2817463});
  CHECK_FALSE(IsIdle(c0));
  CHECK(info->chips[2].health == "Critical");
  CHECK_FALSE(IsIdle(info->chips[2]));
  CHECK(info->chips[3].process_ids == std::vector<long>{2820157});  // busy by process only
  CHECK(IsIdle(info->chips[1]));
  // 0 busy (87% + process), 2 Critical, 3 has a process: idle = 1, 4, 5, 6, 7.
  CHECK(IdleDeviceIds(*info) == std::vector<int>{1, 4, 5, 6, 7});
}

TEST_CASE("npu-smi info of an A3 host with two chips per card, with and without -m") {
  auto info = ParseNpuSmiInfo(Fixture("info_a3.txt"));
  REQUIRE(info.ok());
  REQUIRE(info->chips.size() == 4);
  CHECK(info->chips_per_npu == 2);
  CHECK(info->chips[1].npu_id == 0);
  CHECK(info->chips[1].chip_id == 1);
  CHECK(info->chips[1].DeviceId(2) == 1);
  CHECK(info->chips[2].DeviceId(2) == 2);
  // npu0/chip1: 34% AICore and a process; npu1/chip0: a process. Idle: devices 0 and 3.
  CHECK(IdleDeviceIds(*info) == std::vector<int>{0, 3});
  CHECK(ApplyNpuSmiMapping(Fixture("map_a3.txt"), &*info) == 4);  // the two Mcu rows skipped
  REQUIRE(info->chips[3].logic_id);
  CHECK(*info->chips[3].logic_id == 3);
  CHECK(IdleDeviceIds(*info) == std::vector<int>{0, 3});
}

TEST_CASE("npu-smi output without a chip table is an error naming the first line") {
  auto bad = ParseNpuSmiInfo(Fixture("error_dcmi.txt"));
  REQUIRE_FALSE(bad.ok());
  CHECK(std::string(bad.status().message()).find("DrvMngGetConsoleLogLevel") != std::string::npos);
  auto empty = ParseNpuSmiInfo("\n\n");
  REQUIRE_FALSE(empty.ok());
  CHECK(std::string(empty.status().message()).find("printed nothing") != std::string::npos);
}

TEST_CASE("DiscoverIdleDevice runs npu-smi and maps failures to distinct codes") {
  const std::string fake = kData + "fake-npu-smi";
  ::setenv("FAKE_NPU_SMI_INFO", (kData + "info_910b.txt").c_str(), 1);
  ::unsetenv("FAKE_NPU_SMI_MAP");
  auto ok = DiscoverIdleDevice(fake, 20);
  REQUIRE(ok.ok());
  CHECK(ok->device_id == 1);
  CHECK(ok->commands.front().find("fake-npu-smi info") != std::string::npos);
  CHECK(ok->evidence.find("npu 0 chip 0 -> device 0 (OK, AICore 87%, 1 process(es), busy)") !=
        std::string::npos);

  ::setenv("FAKE_NPU_SMI_INFO", (kData + "info_a3.txt").c_str(), 1);
  ::setenv("FAKE_NPU_SMI_MAP", (kData + "map_a3.txt").c_str(), 1);
  auto a3 = DiscoverIdleDevice(fake, 20);
  REQUIRE(a3.ok());
  CHECK(a3->device_id == 0);
  CHECK(a3->commands.size() == 2);

  ::setenv("FAKE_NPU_SMI_INFO", (kData + "info_all_busy.txt").c_str(), 1);
  ::unsetenv("FAKE_NPU_SMI_MAP");
  auto busy = DiscoverIdleDevice(fake, 20);
  CHECK(busy.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(std::string(busy.status().message()).find("npu 1 chip 0 -> device 1 (Warning") !=
        std::string::npos);

  ::setenv("FAKE_NPU_SMI_INFO", "/nonexistent", 1);  // prints nothing: silent
  auto silent = DiscoverIdleDevice(fake, 20);
  CHECK(silent.status().code() == absl::StatusCode::kUnavailable);
  CHECK(std::string(silent.status().message()).find("printed nothing") != std::string::npos);

  ::setenv("FAKE_NPU_SMI_INFO", (kData + "error_dcmi.txt").c_str(), 1);
  CHECK(DiscoverIdleDevice(fake, 20).status().code() == absl::StatusCode::kUnavailable);

  auto missing = DiscoverIdleDevice("/nonexistent/npu-smi", 20);
  CHECK(missing.status().code() == absl::StatusCode::kNotFound);
  CHECK(std::string(missing.status().message()).find("npu-smi is not available") != std::string::npos);
  ::unsetenv("FAKE_NPU_SMI_INFO");
  ::unsetenv("FAKE_NPU_SMI_MAP");
}
