// One linear pass over Markdown text checking the bounds of markdown_limits.h.
#include "contract/markdown_limits.h"

#include <string>

namespace opdev::contract {

namespace {

bool IsFence(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && i < 3 && line[i] == ' ') ++i;
  return line.substr(i, 3) == "```" || line.substr(i, 3) == "~~~";
}

bool IsBlank(std::string_view line) {
  for (char c : line)
    if (c != ' ' && c != '\t' && c != '\r') return false;
  return true;
}

// Leading container markers of a line: '>' (block quote) and list bullets / ordinals.
size_t BlockNesting(std::string_view line) {
  size_t depth = 0, i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= line.size()) break;
    char c = line[i];
    if (c == '>') { ++depth; ++i; continue; }
    if ((c == '-' || c == '*' || c == '+') && i + 1 < line.size() && line[i + 1] == ' ') {
      ++depth; i += 2; continue;
    }
    size_t j = i;
    while (j < line.size() && j - i < 9 && line[j] >= '0' && line[j] <= '9') ++j;
    if (j > i && j + 1 < line.size() && (line[j] == '.' || line[j] == ')') && line[j + 1] == ' ') {
      ++depth; i = j + 2; continue;
    }
    break;
  }
  return depth;
}

}  // namespace

std::optional<MarkdownLimitViolation> CheckMarkdownLimits(std::string_view text) {
  if (text.size() > kMaxMarkdownBytes)
    return MarkdownLimitViolation{1, "the file has " + std::to_string(text.size()) + " bytes; opdev's limit for Markdown contracts is " +
                                         std::to_string(kMaxMarkdownBytes) + " bytes"};
  bool in_fence = false;
  size_t brackets = 0;
  int paragraph_line = 0;
  int line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    ++line_no;
    if (line.size() > kMaxMarkdownLineBytes)
      return MarkdownLimitViolation{line_no, "line of " + std::to_string(line.size()) + " bytes; the limit is " +
                                                 std::to_string(kMaxMarkdownLineBytes) + " bytes per line"};
    if (IsFence(line)) {
      in_fence = !in_fence;
      brackets = 0;
    } else if (!in_fence) {
      if (IsBlank(line)) {
        brackets = 0;
      } else {
        size_t pipes = 0, open = 0;
        for (char c : line) {
          pipes += c == '|';
          open += c == '[';
        }
        if (pipes > kMaxTableCells)
          return MarkdownLimitViolation{line_no, std::to_string(pipes) + " '|' cell separators on one line; the limit is " +
                                                     std::to_string(kMaxTableCells) + " table cells per row"};
        // Table cells are parsed one by one: a row's brackets count on their own.
        const bool table_row = line.find_first_not_of(" \t") != std::string_view::npos &&
                               line[line.find_first_not_of(" \t")] == '|';
        if (brackets == 0 || table_row) paragraph_line = line_no;
        brackets = table_row ? open : brackets + open;
        if (brackets > kMaxParagraphBrackets)
          return MarkdownLimitViolation{paragraph_line, "over " + std::to_string(kMaxParagraphBrackets) +
                                                            " '[' in the paragraph starting here (link/image nesting); that is the limit per paragraph"};
        size_t nest = BlockNesting(line);
        if (nest > kMaxBlockNesting)
          return MarkdownLimitViolation{line_no, "block quotes / lists nested " + std::to_string(nest) +
                                                     " deep; the limit is " + std::to_string(kMaxBlockNesting)};
        if (table_row) brackets = 0;
      }
    }
    if (end == text.size()) break;
    pos = end + 1;
  }
  return std::nullopt;
}

}  // namespace opdev::contract
