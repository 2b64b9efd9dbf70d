// Small string helpers of the contract module (trimming, line splitting, comparisons that
// ignore spacing) — kept here because DESIGN.md mixes Chinese and ASCII spacing freely.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace opdev::contract {

std::string Trim(std::string_view s);
std::vector<std::string> SplitLines(std::string_view text);  // without the '\n'
std::string RemoveSpaces(std::string_view s);                // drops ASCII whitespace and backticks
std::string StripBackticks(std::string_view s);
std::vector<std::string> Split(std::string_view s, char sep);
bool Contains(std::string_view hay, std::string_view needle);

}  // namespace opdev::contract
