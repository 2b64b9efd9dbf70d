// Cube Module rules (DESIGN §1/§2/§3/§5 for a section_cube Module): the §2 Tile 属性表 holds
// the Cube operands in Left, Right and Acc; §1 matmul code reads `lhs` from Left, `rhs` from
// Right and writes `dst` in Acc (matmul.md parameter table); every Acc tile covers at least one
// 1024-byte L0C fractal; Cube tile shapes are whole fractals; §5 caps block_dim by core_num
// for a kernel with a Cube section and by vector_core_num for a Vector-only one.
#include "contract/checks.h"
#include "contract/text_util.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <regex>
#include <set>

namespace opdev::contract {

namespace {

std::string ShapeStr(const std::vector<std::int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

bool IsCubeSpace(MemSpace s) {
  return s == MemSpace::kMat || s == MemSpace::kLeft || s == MemSpace::kRight ||
         s == MemSpace::kAcc;
}

// §1 matmul calls: operand names mapped to their §2 tile's space. A slot variable
// `x = group.next()/current()/previous()` or `group[i]` maps to its group; `group.current()`
// written inline maps to the group.
void CheckOperandSpaces(const DesignDoc& d, const std::map<std::string, const TileAttr*>& tiles,
                        Diagnostics* diags) {
  static const std::regex kSlot(
      R"(([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\.\s*(?:next|current|previous)\s*\(\s*\)|\[[^\]]*\]))");
  static const std::regex kCall(R"(pl\.(matmul_acc|matmul)\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\))");
  std::map<std::string, std::string> slot_group;
  for (const CodeBlock* cb : d.CodeIn(1))
    for (std::sregex_iterator it(cb->text.begin(), cb->text.end(), kSlot), end; it != end; ++it)
      slot_group[(*it)[1]] = (*it)[2];
  auto space_of = [&](std::string arg) -> const TileAttr* {
    arg = Trim(arg);
    for (const char* suf : {".current()", ".next()", ".previous()"})
      if (arg.size() > std::strlen(suf) && arg.compare(arg.size() - std::strlen(suf), std::strlen(suf), suf) == 0)
        arg = Trim(arg.substr(0, arg.size() - std::strlen(suf)));
    auto g = slot_group.find(arg);
    std::string key = g != slot_group.end() ? g->second : arg;
    auto t = tiles.find(key);
    return t == tiles.end() ? nullptr : t->second;
  };
  for (const CodeBlock* cb : d.CodeIn(1)) {
    auto lines = SplitLines(cb->text);
    for (size_t i = 0; i < lines.size(); ++i) {
      const int line = cb->line + 1 + static_cast<int>(i);
      for (std::sregex_iterator it(lines[i].begin(), lines[i].end(), kCall), end; it != end; ++it) {
        const bool acc = (*it)[1] == "matmul_acc";
        std::vector<std::string> args;
        int depth = 0;
        std::string cur;
        for (char c : std::string((*it)[2])) {
          if (c == '(' || c == '[') ++depth;
          if (c == ')' || c == ']') --depth;
          if (c == ',' && depth == 0) {
            args.push_back(cur);
            cur.clear();
          } else {
            cur += c;
          }
        }
        args.push_back(cur);
        std::vector<std::pair<std::string, MemSpace>> want = {{"dst", MemSpace::kAcc}};
        if (acc) want.push_back({"acc", MemSpace::kAcc});
        want.push_back({"lhs", MemSpace::kLeft});
        want.push_back({"rhs", MemSpace::kRight});
        for (size_t k = 0; k < want.size() && k < args.size(); ++k) {
          if (args[k].find('=') != std::string::npos) break;  // keywords follow
          const TileAttr* t = space_of(args[k]);
          if (!t || !t->space || *t->space == want[k].second) continue;
          AddError(diags, "DESIGN-CUBE-OPERAND-SPACE", category::kDesignViolation, d.path, line,
                   "§1",
                   "pl." + std::string((*it)[1]) + " " + want[k].first + " operand " +
                       Trim(args[k]) + " is the §2 tile " + t->var + " in " + t->space_text +
                       "; " + want[k].first + " must be in " +
                       std::string(MemSpaceName(want[k].second)) + " (matmul.md)",
                   Trim(lines[i]));
        }
      }
    }
  }
}

}  // namespace

void CheckCubeModules(const OpDir& od, const CheckOptions&, Diagnostics* diags) {
  if (!od.design) return;
  const DesignDoc& d = *od.design;
  bool cube = false, vector = false;
  int cube_line = 0;
  for (const auto& m : d.Modules()) {
    if (Contains(m.section, "cube")) {
      cube = true;
      if (!cube_line) cube_line = m.line;
    }
    if (Contains(m.section, "vector")) vector = true;
  }
  const auto tiles = d.Tiles();
  std::map<std::string, const TileAttr*> by_name;
  for (const auto& t : tiles) {
    if (!t.group.empty()) by_name[t.group] = &t;
    by_name[t.var] = &t;
  }

  // §5 block_dim: core_num for a kernel with a Cube section, vector_core_num otherwise.
  if (!d.Modules().empty()) {
    CoreSplit cs = d.GetCoreSplit();
    if (!cs.block_dim.empty()) {
      if (cube && !cs.uses_core_num)
        AddError(diags, "DESIGN-CUBE-BLOCK-DIM", category::kDesignViolation, d.path,
                 cs.block_dim_line, "§5",
                 "a kernel with a section_cube Module launches at most core_num blocks (1 AIC + "
                 "2 AIV each): block_dim must be min(get_platform_info().core_num, tasks)",
                 cs.block_dim);
      if (!cube && vector && cs.uses_core_num && !cs.uses_vector_core_num)
        AddError(diags, "DESIGN-CUBE-BLOCK-DIM", category::kDesignViolation, d.path,
                 cs.block_dim_line, "§5",
                 "a Vector-only kernel launches at most vector_core_num blocks (one AIV each): "
                 "block_dim must be min(get_platform_info().vector_core_num, tasks)",
                 cs.block_dim);
    }
  }

  // Cube tiles: whole fractals; Acc at least one 1024-byte fractal.
  for (const auto& t : tiles) {
    if (!t.space || !IsCubeSpace(*t.space) || t.shape.size() != 2 || !t.dtype) continue;
    const std::int64_t bytes = static_cast<std::int64_t>(DTypeSize(*t.dtype));
    const std::int64_t kf = bytes > 0 ? 32 / bytes : 16;  // K fractal in elements
    const std::int64_t r = t.shape[0], c = t.shape[1];
    std::string want;
    switch (*t.space) {
      case MemSpace::kLeft:
        if (r % 16 || c % kf) want = "[16·i, " + std::to_string(kf) + "·j]";
        break;
      case MemSpace::kRight:
        if (r % kf || c % 16) want = "[" + std::to_string(kf) + "·i, 16·j]";
        break;
      case MemSpace::kAcc:
        if (r % 16 || c % 16) want = "[16·i, 16·j]";
        break;
      default: {  // Mat: A [M, K] or B [K, N]
        const std::int64_t q = std::min<std::int64_t>(16, kf);
        if (r % q || c % q) want = "[" + std::to_string(q) + "·i, " + std::to_string(q) + "·j]";
      }
    }
    if (!want.empty())
      AddError(diags, "DESIGN-CUBE-TILE-ALIGN", category::kDesignViolation, d.path, t.line, "§2",
               "Cube tile " + t.var + " " + ShapeStr(t.shape) + " " + t.dtype_text + " in " +
                   t.space_text + " is not a whole number of fractals (shape " + want + ")",
               t.var + " " + t.shape_text);
    if (*t.space == MemSpace::kAcc && r * c * bytes < 1024)
      AddError(diags, "DESIGN-CUBE-ACC-FRACTAL", category::kDesignViolation, d.path, t.line, "§2",
               "Acc tile " + t.var + " " + ShapeStr(t.shape) + " " + t.dtype_text + " is " +
                   std::to_string(r * c * bytes) +
                   " B: the physical Acc tile must cover at least one 1024-byte L0C fractal",
               t.var + " " + t.shape_text);
  }
  if (!cube) return;

  // A Cube Module's operands: Left, Right and Acc tiles in §2.
  std::set<MemSpace> spaces;
  for (const auto& t : tiles)
    if (t.space) spaces.insert(*t.space);
  std::string missing;
  for (MemSpace s : {MemSpace::kLeft, MemSpace::kRight, MemSpace::kAcc})
    if (!spaces.count(s)) missing += (missing.empty() ? "" : ", ") + std::string(MemSpaceName(s));
  if (!missing.empty())
    AddError(diags, "DESIGN-CUBE-SPACE-MISSING", category::kDesignViolation, d.path, cube_line,
             "§2",
             "a section_cube Module computes from Left (lhs) and Right (rhs) into Acc (dst), "
             "but §2 Tile 属性表 has no " + missing + " tile");
  CheckOperandSpaces(d, by_name, diags);
}

}  // namespace opdev::contract
