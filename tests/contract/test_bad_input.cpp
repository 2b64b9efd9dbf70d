// Hostile and broken op dirs: non-UTF-8 bytes, oversized files, directories and escaping
// symlinks where contract files belong, missing files, a missing KB root. Each must give a
// clear diagnostic naming the file (and line where there is one), never crash, and write
// nothing.
#include "contract_test_util.h"

#include "opdev/contract/check.h"

#include <chrono>
#include <map>

using namespace opdev;
using namespace opdev::contract;
using namespace contract_test;

namespace {

// Path -> (size, mtime) of every entry below `root`, to prove nothing was written.
std::map<std::string, std::pair<std::uintmax_t, long long>> Snapshot(const std::string& root) {
  std::map<std::string, std::pair<std::uintmax_t, long long>> out;
  for (const auto& e : fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied)) {
    std::error_code ec;
    auto size = e.is_regular_file(ec) ? e.file_size(ec) : 0;
    auto t = fs::last_write_time(e.path(), ec).time_since_epoch().count();
    out[e.path().string()] = {size, static_cast<long long>(t)};
  }
  return out;
}

Diagnostics Check(const std::string& dir, const std::string& kb = kKbRoot, absl::Status* st = nullptr) {
  Diagnostics diags;
  LoadOptions load;
  load.kb_root = kb;
  absl::Status s = CheckOpDirPath(dir, load, CheckOptions{}, &diags);
  if (st) *st = s;
  return diags;
}

}  // namespace

TEST_CASE("non-UTF-8 bytes in DESIGN.md: unreadable with the line, other files still checked") {
  ScratchOpDir s;
  s.Mutate("DESIGN.md", "- **设计时间**: 2026-08-31", "- **设计时间**: 2026-08-31 \xff\xfe");
  auto before = Snapshot(s.root());
  Diagnostics d = Check(s.dir());
  const Diagnostic* u = d.Find("CONTRACT-FILE-UNREADABLE");
  REQUIRE(u);
  CHECK(u->file == s.path("DESIGN.md"));
  CHECK(u->line == 4);
  CHECK(u->category == "input_error");
  CHECK(u->message.find("UTF-8") != std::string::npos);
  CHECK(HasInputErrors(d));
  CHECK(Snapshot(s.root()) == before);
}

TEST_CASE("a contract file over 16 MiB is refused without being read") {
  ScratchOpDir s;
  {
    std::ofstream out(s.path("DESIGN_BINDINGS.json"), std::ios::binary | std::ios::trunc);
    std::string chunk(1 << 20, ' ');
    for (int i = 0; i < 17; ++i) out << chunk;
  }
  Diagnostics d = Check(s.dir());
  const Diagnostic* u = d.Find("CONTRACT-FILE-UNREADABLE");
  REQUIRE(u);
  CHECK(u->file == s.path("DESIGN_BINDINGS.json"));
  CHECK(u->message.find("limit") != std::string::npos);
}

TEST_CASE("a directory where DESIGN.md should be") {
  ScratchOpDir s;
  fs::remove(s.path("DESIGN.md"));
  fs::create_directory(s.path("DESIGN.md"));
  Diagnostics d = Check(s.dir());
  const Diagnostic* u = d.Find("CONTRACT-FILE-UNREADABLE");
  REQUIRE(u);
  CHECK(u->file == s.path("DESIGN.md"));
  CHECK(u->message.find("directory") != std::string::npos);
}

TEST_CASE("a symlink leading outside the op dir is refused, one inside is followed") {
  ScratchOpDir s;
  fs::remove(s.path("module_interfaces.yaml"));
  fs::create_symlink(kFixtureDir + "/module_interfaces.yaml", s.path("module_interfaces.yaml"));
  Diagnostics d = Check(s.dir());
  const Diagnostic* e = d.Find("CONTRACT-SYMLINK-ESCAPE");
  REQUIRE(e);
  CHECK(e->file == s.path("module_interfaces.yaml"));
  CHECK(e->category == "input_error");
  // Not read: nothing else about module_interfaces.yaml is reported.
  for (const auto& x : d.items()) CHECK(x.code.rfind("MODIF-", 0) == std::string::npos);

  fs::remove(s.path("module_interfaces.yaml"));
  fs::copy_file(kFixtureDir + "/module_interfaces.yaml", s.dir() + "/mi_real.yaml");
  fs::create_symlink("mi_real.yaml", s.path("module_interfaces.yaml"));
  Diagnostics ok = Check(s.dir());
  CHECK_FALSE(ok.HasCode("CONTRACT-SYMLINK-ESCAPE"));
  CHECK(ok.ErrorCount() == 0);
}

TEST_CASE("missing contract files are missing_file findings") {
  ScratchOpDir s;
  fs::remove(s.path("DESIGN_BINDINGS.json"));
  fs::remove(s.path("KB_SELECTION.json"));
  fs::remove(s.path("SPEC.md"));
  Diagnostics d = Check(s.dir());
  int missing = 0;
  for (const auto& x : d.items())
    if (x.code == "CONTRACT-FILE-MISSING") {
      ++missing;
      CHECK(x.category == "missing_file");
    }
  CHECK(missing == 2);
  const Diagnostic* w = d.Find("CONTRACT-OPTIONAL-MISSING");
  REQUIRE(w);
  CHECK(w->severity == Severity::kWarning);
  CHECK_FALSE(HasInputErrors(d));
}

TEST_CASE("an empty op dir and a missing op dir") {
  ScratchOpDir s;
  for (const char* f : kContractFiles) fs::remove(s.path(f));
  Diagnostics d = Check(s.dir());
  CHECK(d.HasErrors());
  CHECK(d.HasCode("CONTRACT-FILE-MISSING"));

  absl::Status st;
  Diagnostics m = Check(s.dir() + "/nope", kKbRoot, &st);
  CHECK(absl::IsNotFound(st));
  CHECK(m.HasCode("CONTRACT-FILE-MISSING"));
}

TEST_CASE("a missing KB root: explicit path fails the call, none found is an input error") {
  ScratchOpDir s;
  absl::Status st;
  Diagnostics d = Check(s.dir(), s.root() + "/no-kb", &st);
  CHECK(absl::IsNotFound(st));
  const Diagnostic* k = d.Find("KB-ROOT-MISSING");
  REQUIRE(k);
  CHECK(k->file == s.root() + "/no-kb");
  // Without --kb-root and without OPDEV_KB_ROOT, a scratch dir under /tmp has no KB above it.
  WithoutKbRootEnv no_env;
  CHECK(ResolveKbRoot(s.dir(), "").empty());
  Diagnostics none;
  REQUIRE(CheckOpDirPath(s.dir(), LoadOptions{}, CheckOptions{}, &none).ok());
  CHECK(none.HasCode("KB-ROOT-MISSING"));
  CHECK(HasInputErrors(none));
}

TEST_CASE("the KB root is found from the example's ancestors") {
  WithoutKbRootEnv no_env;  // the environment would take precedence by design
  std::string root = ResolveKbRoot(std::string(OPDEV_SOURCE_DIR) + "/examples/softmax", "");
  REQUIRE_FALSE(root.empty());
  CHECK(fs::equivalent(root, kKbRoot));
  CHECK(ResolveKbRoot("/anything", "/explicit") == "/explicit");
}

TEST_CASE("truncated and garbage contracts never crash") {
  const std::string files[] = {"DESIGN.md", "DESIGN_BINDINGS.json", "KB_SELECTION.json",
                               "module_interfaces.yaml"};
  for (const auto& f : files) {
    std::string text = ReadAll(kFixtureDir + "/" + f);
    for (size_t cut : {size_t{0}, size_t{1}, text.size() / 3, text.size() / 2}) {
      ScratchOpDir s;
      // Cut at a UTF-8 boundary so the read itself succeeds.
      size_t c = cut;
      while (c > 0 && (static_cast<unsigned char>(text[c]) & 0xC0) == 0x80) --c;
      WriteAll(s.path(f), text.substr(0, c));
      Diagnostics d = Check(s.dir());
      INFO(f << " cut at " << c);
      CHECK(d.HasErrors());
    }
    // Without its final newline the file is still complete and still clean.
    if (text.empty() || text.back() != '\n') continue;
    ScratchOpDir s;
    WriteAll(s.path(f), text.substr(0, text.size() - 1));
    CHECK(Check(s.dir()).ErrorCount() == 0);
  }
}
