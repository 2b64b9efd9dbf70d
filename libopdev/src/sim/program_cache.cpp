// The lowered-program cache (program_cache.h).
#include "program_cache.h"

#include "opdev/api/catalog.h"
#include "opdev/api/checker.h"
#include "opdev/pyfront/parser.h"

#include <list>

namespace opdev::sim {

namespace {

// Enough for a stage round (one file), a test file's kernels and the CPU device's files of one
// test session; the least recently used entry goes first.
constexpr size_t kCacheEntries = 16;

std::mutex g_mu;
std::list<std::shared_ptr<LoweredProgram>>& Entries() {  // most recently used first
  static auto* entries = new std::list<std::shared_ptr<LoweredProgram>>();
  return *entries;
}

}  // namespace

const Diagnostics& LoweredProgram::Api() {
  std::call_once(api_once_, [this] {
    api::CheckOptions copts;
    api_ = api::CheckModule(prog->module, api::Catalog::Builtin(), copts);
  });
  return api_;
}

absl::StatusOr<std::shared_ptr<LoweredProgram>> LowerSource(const std::string& file, std::string_view text) {
  Diagnostics parse_diags;
  auto mod = py::ParseModule(text, file, &parse_diags);
  if (!mod.ok()) return mod.status();
  auto lp = std::make_shared<LoweredProgram>();
  lp->file = file;
  lp->text = std::string(text);
  lp->lowering = HazardSink(file);
  lp->prog = LowerProgram(std::move(*mod), file, lp->lowering);
  lp->initial_globals = lp->prog->globals;
  return lp;
}

absl::StatusOr<std::shared_ptr<LoweredProgram>> GetLoweredProgram(const std::string& file, std::string_view text,
                                                                  bool* hit) {
  {
    std::lock_guard<std::mutex> lock(g_mu);
    auto& entries = Entries();
    for (auto it = entries.begin(); it != entries.end(); ++it) {
      if ((*it)->file != file || (*it)->text != text) continue;
      entries.splice(entries.begin(), entries, it);
      *hit = true;
      return entries.front();
    }
  }
  *hit = false;
  auto lp = LowerSource(file, text);
  if (!lp.ok()) return lp.status();
  std::lock_guard<std::mutex> lock(g_mu);
  auto& entries = Entries();
  entries.remove_if([&](const std::shared_ptr<LoweredProgram>& e) { return e->file == file; });
  entries.push_front(*lp);
  while (entries.size() > kCacheEntries) entries.pop_back();
  return *lp;
}

void ClearProgramCache() {
  std::lock_guard<std::mutex> lock(g_mu);
  Entries().clear();
}

}  // namespace opdev::sim
