// SVG memory map of a budget report: lanes per memory, slots as labelled blocks, high-water
// and capacity markers.
#include "opdev/budget/memory_map_svg.h"

#include "absl/strings/str_format.h"

#include <algorithm>
#include <vector>

namespace opdev::budget {
namespace {

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// A small fixed palette; slots of one group share a colour.
const char* kPalette[] = {"#8ecae6", "#ffb703", "#90be6d", "#f28482", "#b8b8ff",
                          "#f6bd60", "#84a59d", "#cdb4db"};

}  // namespace

std::string RenderMemoryMapSvg(const BudgetReport& r) {
  constexpr int kLeft = 90, kWidth = 900, kLaneHeight = 70, kTop = 50, kGap = 50;
  const int lanes = static_cast<int>(r.spaces.size());
  const int height = kTop + lanes * (kLaneHeight + kGap) + 20;
  std::string svg = absl::StrFormat(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
      "viewBox=\"0 0 %d %d\" font-family=\"monospace\" font-size=\"11\">\n"
      "<title>on-chip memory map (%s)</title>\n"
      "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n"
      "<text x=\"10\" y=\"22\" font-size=\"14\">on-chip memory map, target %s%s</text>\n",
      kLeft + kWidth + 40, height, kLeft + kWidth + 40, height,
      std::string(TargetName(r.model.target)), kLeft + kWidth + 40, height,
      std::string(TargetName(r.model.target)),
      Escape(r.model.file.empty() ? "" : " — " + r.model.file));

  std::vector<std::string> groups;
  auto colour = [&](const Slot& s) {
    std::string key = s.group.empty() ? s.name : s.group;
    for (size_t i = 0; i < groups.size(); ++i)
      if (groups[i] == key) return kPalette[i % 8];
    groups.push_back(key);
    return kPalette[(groups.size() - 1) % 8];
  };

  int lane = 0;
  for (const SpaceUsage& u : r.spaces) {
    const int y = kTop + lane * (kLaneHeight + kGap);
    const double scale = static_cast<double>(kWidth) / static_cast<double>(u.capacity);
    const MemSpaceInfo* info = FindSpace(r.model.target, u.space);
    svg += absl::StrFormat(
        "<g id=\"lane-%s\">\n"
        "<text x=\"10\" y=\"%d\" font-size=\"13\">%s</text>\n"
        "<text x=\"10\" y=\"%d\">%s</text>\n"
        "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f4f4f4\" stroke=\"#333\"/>\n",
        std::string(MemSpaceName(u.space)), y + 30, std::string(MemSpaceName(u.space)), y + 46,
        info ? std::string(info->hardware) : "", kLeft, y, kWidth, kLaneHeight);
    int label_row = 0;
    for (const Slot& s : r.model.slots) {
      if (s.space != u.space) continue;
      const double x = kLeft + static_cast<double>(s.address) * scale;
      const double w = std::max(1.0, static_cast<double>(s.bytes) * scale);
      svg += absl::StrFormat(
          "<g><title>%s %s [%s, %s) %d B</title>"
          "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
          "fill-opacity=\"0.85\" stroke=\"#222\"/>"
          "<text x=\"%.2f\" y=\"%d\">%s</text>"
          "<text x=\"%.2f\" y=\"%d\" font-size=\"9\">%s</text></g>\n",
          Escape(s.name), std::string(MemSpaceName(s.space)), HexAddress(s.address),
          HexAddress(s.end()), s.bytes, x, y + 4, w, kLaneHeight - 8, colour(s), x + 3,
          y + 22 + 14 * (label_row % 2), Escape(s.name), x + 3, y + kLaneHeight - 10,
          HexAddress(s.address));
      ++label_row;
    }
    const double hw = kLeft + static_cast<double>(u.high_water) * scale;
    svg += absl::StrFormat(
        "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"#d00000\" "
        "stroke-width=\"2\" stroke-dasharray=\"6,3\"/>\n"
        "<text x=\"%.2f\" y=\"%d\" fill=\"#d00000\">high-water %s (%.1f%%)</text>\n"
        "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">capacity %s (%d B)</text>\n"
        "<text x=\"%d\" y=\"%d\">0x00000</text>\n</g>\n",
        hw, y - 6, hw, y + kLaneHeight + 6, std::min(hw, double(kLeft + kWidth - 200)), y - 8,
        HexAddress(u.high_water), u.percent(), kLeft + kWidth, y + kLaneHeight + 18,
        HexAddress(u.capacity), u.capacity, kLeft, y + kLaneHeight + 18);
    ++lane;
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace opdev::budget
