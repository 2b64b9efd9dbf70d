// Property test over random damage to the real contracts (deterministic seed): deleting,
// duplicating or swapping lines and overwriting ASCII bytes must never crash the loaders or
// the validator, and every finding must carry a known rule code, a category and a file.
#include "contract_test_util.h"

#include "opdev/contract/check.h"

#include <random>

using namespace opdev;
using namespace opdev::contract;
using namespace contract_test;

namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string l;
  while (std::getline(ss, l)) out.push_back(l);
  return out;
}

std::string Join(const std::vector<std::string>& ls) {
  std::string out;
  for (const auto& l : ls) out += l + "\n";
  return out;
}

}  // namespace

TEST_CASE("random damage to the contracts: no crash, every finding is a known rule") {
  const char* files[] = {"DESIGN.md", "DESIGN_BINDINGS.json", "KB_SELECTION.json",
                         "module_interfaces.yaml"};
  std::mt19937 rng(20260831);
  ScratchOpDir s;
  int with_errors = 0;
  const int kRounds = 120;
  for (int round = 0; round < kRounds; ++round) {
    const std::string f = files[round % 4];
    std::string original = ReadAll(kFixtureDir + "/" + f);
    auto ls = Lines(original);
    int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !ls.empty(); ++e) {
      size_t i = rng() % ls.size();
      switch (rng() % 4) {
        case 0: ls.erase(ls.begin() + static_cast<long>(i)); break;
        case 1: ls.insert(ls.begin() + static_cast<long>(i), ls[i]); break;
        case 2: std::swap(ls[i], ls[rng() % ls.size()]); break;
        default: {
          std::string& l = ls[i];
          for (size_t k = 0; k < l.size(); ++k)
            if (static_cast<unsigned char>(l[k]) < 0x80 && rng() % 4 == 0)
              l[k] = "{}[]|:,\"-x0 #`"[rng() % 14];
        }
      }
    }
    WriteAll(s.path(f), Join(ls));
    Diagnostics diags;
    LoadOptions load;
    load.kb_root = kKbRoot;
    REQUIRE(CheckOpDirPath(s.dir(), load, CheckOptions{}, &diags).ok());
    if (diags.HasErrors()) ++with_errors;
    for (const auto& d : diags.items()) {
      INFO("round " << round << " file " << f << ": " << d.ToText());
      CHECK(FindRule(d.code) != nullptr);
      CHECK_FALSE(d.category.empty());
      CHECK_FALSE(d.file.empty());
      CHECK(d.line >= 0);
    }
    WriteAll(s.path(f), original);  // restore for the next round
  }
  // Most damage is detected (some edits, e.g. swapping two prose lines, are harmless).
  CHECK(with_errors > kRounds / 2);
}
