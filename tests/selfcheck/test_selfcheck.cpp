// Tests of the static self-check: the reference op dir (tests/data/selfcheck/softmax) passes
// every item; each entry of tests/data/selfcheck/violations.json breaks exactly the item it
// names; module-check mode and the read-only rule on staged files.
#include <catch2/catch.hpp>

#include "opdev/plan/round_plan.h"
#include "opdev/selfcheck/selfcheck.h"
#include "opdev/support/file_io.h"

#include <boost/json/parse.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace opdev::selfcheck;

namespace {
const fs::path kData = fs::path(OPDEV_SOURCE_DIR) / "tests/data/selfcheck";

fs::path CopyOpDir(const std::string& tag) {
  fs::path dir = fs::temp_directory_path() / ("opdev_test_selfcheck_" + tag) / "softmax";
  fs::remove_all(dir.parent_path());
  fs::create_directories(dir);
  for (const auto& e : fs::directory_iterator(kData / "softmax")) fs::copy(e.path(), dir / e.path().filename());
  return dir;
}

void Replace(const fs::path& file, const std::string& find, const std::string& replace) {
  auto text = opdev::ReadTextFile(file.string());
  REQUIRE(text.ok());
  size_t p = text->find(find);
  REQUIRE(p != std::string::npos);
  text->replace(p, find.size(), replace);
  REQUIRE(opdev::WriteFileAtomic(file.string(), *text).ok());
}

const ItemResult* Item(const SelfCheckReport& r, const std::string& id) {
  for (const auto& i : r.items)
    if (i.id == id) return &i;
  return nullptr;
}

// The import probe (S4-13) starts Python with torch: only the tests about it use it.
SelfCheckReport Check(const fs::path& dir, SelfCheckOptions o = {}, bool probe = false) {
  o.op_dir = dir.string();
  o.python = probe ? OPDEV_PYTHON : "";
  auto r = RunSelfCheck(o);
  REQUIRE(r.ok());
  return *r;
}
}  // namespace

TEST_CASE("the reference softmax op dir passes every static stage4-check item") {
  SelfCheckReport r = Check(CopyOpDir("good"), {}, true);
  CHECK(r.mode == "stage4");
  CHECK(r.file == "test_softmax.py");
  for (const auto& i : r.items) {
    INFO(i.id << " " << i.title << ": " << i.evidence << "\n" << i.findings.ToText());
    if (i.id == "S4-14") {
      CHECK(i.status == ItemStatus::kNotAvailable);  // no KB usage checker wired in
    } else {
      CHECK(i.status == ItemStatus::kPass);
    }
  }
  CHECK(r.failed == 0);
  CHECK(r.failure_category.empty());
  const ItemResult* probe = Item(r, "S4-13");
  REQUIRE(probe);
  CHECK(probe->evidence.find("imports cleanly alone") != std::string::npos);
  const ItemResult* chain = Item(r, "S4-15");
  CHECK(chain->evidence.find("host chain: softmax_wrapper, _num_tiles") != std::string::npos);
  CHECK(chain->evidence.find("1 torch.empty") != std::string::npos);
  CHECK(Item(r, "S4-10")->evidence == "8 test(s) in the file, 8 in DESIGN §8");
}

TEST_CASE("each recorded violation fails exactly the item it targets") {
  auto text = opdev::ReadTextFile((kData / "violations.json").string());
  REQUIRE(text.ok());
  auto doc = boost::json::parse(*text).as_object();
  int n = 0;
  for (const auto& v : doc.at("violations").as_array()) {
    const auto& o = v.as_object();
    std::string item(o.at("item").as_string()), code(o.at("code").as_string());
    std::string why(o.at("violation").as_string());
    INFO(item << ": " << why);
    fs::path dir = CopyOpDir("violation");
    fs::path file = dir / std::string(o.at("file").as_string());
    Replace(file, std::string(o.at("find").as_string()), std::string(o.at("replace").as_string()));
    if (o.contains("extra")) {
      const auto& x = o.at("extra").as_object();
      Replace(file, std::string(x.at("find").as_string()), std::string(x.at("replace").as_string()));
    }
    SelfCheckReport r = Check(dir, {}, item == "S4-13");
    const ItemResult* it = Item(r, item);
    REQUIRE(it);
    INFO(it->findings.ToText());
    CHECK(it->status == ItemStatus::kFail);
    CHECK(it->findings.HasCode(code));
    CHECK_FALSE(it->category.empty());
    bool worst_ok = r.failure_category == it->category ||
                    CategoryPriority(r.failure_category) <= CategoryPriority(it->category);
    CHECK(worst_ok);
    ++n;
  }
  CHECK(n >= 25);
}

TEST_CASE("findings name the file, line and rule") {
  fs::path dir = CopyOpDir("location");
  Replace(dir / "test_softmax.py", "    softmax_kernel[None, block_dim](x, y)\n",
          "    softmax_kernel[None, block_dim](x.contiguous(), y)\n");
  SelfCheckReport r = Check(dir);
  const ItemResult* b = Item(r, "S4-15");
  REQUIRE(b->findings.size() == 1);
  const auto& d = b->findings.items()[0];
  CHECK(d.file == "test_softmax.py");
  CHECK(d.line == 119);  // the launch line of tests/data/selfcheck/softmax/test_softmax.py
  CHECK(d.code == "SC-WRAPPER-BOUNDARY");
  CHECK(d.category == "wrapper_boundary_violation");
  CHECK(d.message.find(".contiguous()") != std::string::npos);
  CHECK(d.evidence == "softmax_kernel[None, block_dim](x.contiguous(), y)");
}

TEST_CASE("a missing file blocks the items that read it and fails S4-2") {
  fs::path dir = CopyOpDir("missing");
  fs::remove(dir / "test_softmax.py");
  SelfCheckReport r = Check(dir);
  CHECK(Item(r, "S4-2")->status == ItemStatus::kFail);
  CHECK(Item(r, "S4-2")->category == "missing_file");
  CHECK(Item(r, "S4-5")->status == ItemStatus::kBlocked);
  CHECK(r.failure_category == "missing_file");
}

TEST_CASE("a syntax error is reported with its line and blocks the rest") {
  fs::path dir = CopyOpDir("syntax");
  Replace(dir / "test_softmax.py", "def _num_tiles(rows):", "def _num_tiles(rows:");
  SelfCheckReport r = Check(dir);
  const ItemResult* e = Item(r, "S4-2");
  CHECK(e->status == ItemStatus::kFail);
  REQUIRE_FALSE(e->findings.empty());
  CHECK(e->findings.items()[0].code == "PY-SYNTAX");
  CHECK(e->findings.items()[0].line > 0);
}

TEST_CASE("without golden_cpu the signature item is blocked, not passed") {
  fs::path dir = CopyOpDir("noguard");
  fs::remove(dir / "softmax_golden_cpu.py");
  SelfCheckReport r = Check(dir);
  CHECK(Item(r, "S4-12")->status == ItemStatus::kBlocked);
}

TEST_CASE("module-check on a staged file, its staged golden and the read-only rule") {
  fs::path dir = CopyOpDir("module");
  fs::create_directories(dir / "modules");
  auto text = opdev::ReadTextFile((dir / "test_softmax.py").string());
  REQUIRE(text.ok());
  std::string staged = *text;
  for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"softmax_wrapper", "softmax_wrapper_module1"},
           {"from softmax_golden_cpu import softmax_golden_cpu", "from softmax_golden_stage1 import softmax_golden_stage1"},
           {"golden = softmax_golden_cpu(", "golden = softmax_golden_stage1("}}) {
    for (size_t p = 0; (p = staged.find(from, p)) != std::string::npos; p += to.size())
      staged.replace(p, from.size(), to);
  }
  REQUIRE(opdev::WriteFileAtomic((dir / "modules/test_softmax_module1.py").string(), staged).ok());
  REQUIRE(opdev::WriteFileAtomic((dir / "modules/softmax_golden_stage1.py").string(),
                                 "import torch\n\n\ndef softmax_golden_stage1(x):\n"
                                 "    return torch.softmax(x.float(), dim=-1)\n").ok());
  SelfCheckOptions o;
  o.module_k = 1;
  SelfCheckReport r = Check(dir, o);
  CHECK(r.mode == "module");
  CHECK(r.file == "modules/test_softmax_module1.py");
  for (const char* id : {"MC-1", "MC-2", "MC-5", "MC-6"}) {
    INFO(id << ": " << Item(r, id)->findings.ToText());
    CHECK(Item(r, id)->status == ItemStatus::kPass);
  }
  CHECK(Item(r, "MC-7")->status == ItemStatus::kNotAvailable);
  CHECK(Item(r, "L1-RO")->status == ItemStatus::kSkipped);

  // The staged golden importing the staged implementation fails MC-6.
  REQUIRE(opdev::WriteFileAtomic((dir / "modules/softmax_golden_stage1.py").string(),
                                 "from test_softmax_module1 import softmax_wrapper_module1\n").ok());
  r = Check(dir, o);
  CHECK(Item(r, "MC-6")->status == ItemStatus::kFail);
  CHECK(Item(r, "MC-6")->findings.HasCode("SC-STAGED-GOLDEN-IMPORT"));

  // A launch in a loop fails MC-5; a KB usage checker's findings fail MC-7.
  Replace(dir / "modules/test_softmax_module1.py", "    softmax_kernel[None, block_dim](x, y)\n",
          "    while True:\n        softmax_kernel[None, block_dim](x, y)\n        break\n");
  o.kb_usage_check = [](const std::string&) {
    opdev::Diagnostics d;
    d.Error("USAGE-RECORD-MISSING", "kb_usage_invalid", "KB_USAGE.json", 3, "no record");
    return std::optional<opdev::Diagnostics>(d);
  };
  r = Check(dir, o);
  CHECK(Item(r, "MC-5")->findings.HasCode("SC-LAUNCH-IN-LOOP"));
  CHECK(Item(r, "MC-7")->status == ItemStatus::kFail);
  CHECK(r.failure_category == "cheating");  // cheating outranks kb_usage_invalid
}
