// Parsing of `npu-smi info` / `npu-smi info -m` text tables and idle-device selection.
#include "opdev/runtime/npu_smi.h"

#include "opdev/runtime/process.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <regex>
#include <sstream>

namespace opdev::runtime {
namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> Cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string t = Trim(line);
  if (t.size() < 2 || t.front() != '|') return cells;
  std::string cur;
  for (size_t i = 1; i < t.size(); ++i) {
    if (t[i] == '|') {
      cells.push_back(Trim(cur));
      cur.clear();
    } else {
      cur += t[i];
    }
  }
  if (!Trim(cur).empty()) cells.push_back(Trim(cur));
  return cells;
}

std::vector<std::string> Words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool IsInt(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::optional<double> Number(const std::string& s) {
  if (s.empty() || s == "-" || s == "NA") return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str()) return std::nullopt;
  return v;
}

}  // namespace

int NpuChip::DeviceId(int chips_per_npu) const {
  if (logic_id) return *logic_id;
  return npu_id * std::max(chips_per_npu, 1) + chip_id;
}

absl::StatusOr<NpuSmiInfo> ParseNpuSmiInfo(const std::string& text) {
  NpuSmiInfo info;
  enum class Mode { kNone, kChips, kProcs } mode = Mode::kNone;
  std::optional<NpuChip> pending;  // first row of a chip seen, waiting for the second
  static const std::regex kPair(R"((\d+)\s*/\s*(\d+))");
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::string t = Trim(line);
    if (t.empty() || t.front() == '+') continue;
    auto cells = Cells(t);
    if (cells.empty()) continue;
    std::string joined = absl::StrJoin(cells, " ");
    if (info.version.empty() && joined.find("npu-smi") != std::string::npos) {
      auto w = Words(cells[0]);
      info.version = w.size() >= 2 ? w[0] + " " + w[1] : cells[0];
      continue;
    }
    if (joined.find("Health") != std::string::npos) { mode = Mode::kChips; continue; }
    if (joined.find("Process id") != std::string::npos ||
        joined.find("Process ID") != std::string::npos) {
      mode = Mode::kProcs;
      pending.reset();
      continue;
    }
    if (mode == Mode::kChips && cells.size() >= 3) {
      auto w0 = Words(cells[0]);
      if (w0.empty() || !IsInt(w0[0])) continue;  // header continuation rows
      bool second_row = cells[1].find(':') != std::string::npos || cells[1].empty();
      if (!second_row) {
        NpuChip chip;
        chip.npu_id = std::atoi(w0[0].c_str());
        for (size_t i = 1; i < w0.size(); ++i) chip.name += (i > 1 ? " " : "") + w0[i];
        chip.health = cells[1];
        pending = chip;
      } else if (pending) {
        NpuChip chip = *pending;
        pending.reset();
        chip.chip_id = std::atoi(w0[0].c_str());
        chip.bus_id = cells[1];
        auto w2 = Words(cells[2]);
        if (!w2.empty()) chip.aicore_percent = Number(w2[0]);
        std::smatch m;
        std::string rest = cells[2];
        std::vector<std::pair<long, long>> pairs;
        while (std::regex_search(rest, m, kPair)) {
          pairs.emplace_back(std::atol(m[1].str().c_str()), std::atol(m[2].str().c_str()));
          rest = m.suffix();
        }
        if (!pairs.empty()) {
          chip.hbm_used_mb = pairs.back().first;
          chip.hbm_total_mb = pairs.back().second;
        }
        info.chips.push_back(chip);
      }
    } else if (mode == Mode::kProcs && cells.size() >= 2) {
      auto w0 = Words(cells[0]);
      if (w0.size() < 2 || !IsInt(w0[0]) || !IsInt(w0[1]) || !IsInt(cells[1])) continue;
      int npu = std::atoi(w0[0].c_str()), chip_id = std::atoi(w0[1].c_str());
      for (auto& c : info.chips)
        if (c.npu_id == npu && c.chip_id == chip_id) c.process_ids.push_back(std::atol(cells[1].c_str()));
    }
  }
  if (info.chips.empty())
    return absl::InvalidArgumentError(
        Trim(text).empty() ? "npu-smi printed nothing (no chip table)"
                           : absl::StrCat("npu-smi output has no chip table; first line: ",
                                          Trim(text.substr(0, text.find('\n')))));
  std::map<int, int> per_npu;
  for (const auto& c : info.chips) per_npu[c.npu_id] = std::max(per_npu[c.npu_id], c.chip_id + 1);
  for (const auto& [npu, n] : per_npu) info.chips_per_npu = std::max(info.chips_per_npu, n);
  return info;
}

int ApplyNpuSmiMapping(const std::string& mapping_text, NpuSmiInfo* info) {
  int mapped = 0;
  std::istringstream in(mapping_text);
  for (std::string line; std::getline(in, line);) {
    auto w = Words(line);
    if (w.size() < 3 || !IsInt(w[0]) || !IsInt(w[1]) || !IsInt(w[2])) continue;  // header, MCU
    int npu = std::atoi(w[0].c_str()), chip = std::atoi(w[1].c_str());
    for (auto& c : info->chips) {
      if (c.npu_id == npu && c.chip_id == chip) {
        c.logic_id = std::atoi(w[2].c_str());
        ++mapped;
      }
    }
  }
  return mapped;
}

bool IsIdle(const NpuChip& chip) {
  if (chip.health != "OK") return false;
  if (!chip.process_ids.empty()) return false;
  if (chip.aicore_percent && *chip.aicore_percent > 1.0) return false;
  return true;
}

std::vector<int> IdleDeviceIds(const NpuSmiInfo& info) {
  std::vector<int> ids;
  for (const auto& c : info.chips)
    if (IsIdle(c)) ids.push_back(c.DeviceId(info.chips_per_npu));
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

absl::StatusOr<DeviceChoice> DiscoverIdleDevice(const std::string& npu_smi,
                                                double timeout_seconds) {
  DeviceChoice choice;
  choice.source = "npu-smi idle chip";
  ProcessSpec spec;
  spec.argv = {npu_smi, "info"};
  spec.timeout_seconds = timeout_seconds;
  choice.commands.push_back(RenderCommand(spec.argv));
  auto run = RunProcess(spec);
  if (!run.ok()) return run.status();
  if (run->termination == Termination::kSpawnFailed)
    return absl::NotFoundError(absl::StrCat("npu-smi is not available: ", run->spawn_error));
  if (run->termination == Termination::kTimedOut)
    return absl::DeadlineExceededError(
        absl::StrCat("`", choice.commands.back(), "` did not finish within ", timeout_seconds, " s"));
  if (Trim(run->stdout_text).empty())
    return absl::UnavailableError(absl::StrCat(
        "`", choice.commands.back(), "` printed nothing (exit ", run->exit_code, ")",
        Trim(run->stderr_text).empty() ? "" : absl::StrCat("; stderr: ", Trim(run->stderr_text))));
  auto info = ParseNpuSmiInfo(run->stdout_text);
  if (!info.ok()) return absl::UnavailableError(info.status().message());

  ProcessSpec map_spec;
  map_spec.argv = {npu_smi, "info", "-m"};
  map_spec.timeout_seconds = timeout_seconds;
  auto map_run = RunProcess(map_spec);
  if (map_run.ok() && map_run->ok()) {
    choice.commands.push_back(RenderCommand(map_spec.argv));
    ApplyNpuSmiMapping(map_run->stdout_text, &*info);
  }

  std::vector<std::string> seen;
  for (const auto& c : info->chips) {
    seen.push_back(absl::StrCat("npu ", c.npu_id, " chip ", c.chip_id, " -> device ",
                                c.DeviceId(info->chips_per_npu), " (", c.health,
                                c.aicore_percent ? absl::StrCat(", AICore ", *c.aicore_percent, "%") : "",
                                c.process_ids.empty() ? "" : absl::StrCat(", ", c.process_ids.size(), " process(es)"),
                                IsIdle(c) ? ", idle)" : ", busy)"));
  }
  choice.evidence = absl::StrJoin(seen, "; ");
  auto idle = IdleDeviceIds(*info);
  if (idle.empty())
    return absl::ResourceExhaustedError(absl::StrCat("no idle NPU chip: ", choice.evidence));
  choice.device_id = idle.front();
  return choice;
}

}  // namespace opdev::runtime
