// The `opdev gen` and `opdev budget` commands end to end on temporary copies of the examples.
#include "codegen_test_util.h"

#include <catch2/catch.hpp>

#include <boost/json.hpp>

namespace fs = std::filesystem;

namespace {

std::string Bin() {
  const char* b = std::getenv("OPDEV_BIN");
  return b ? b : "";
}

int Run(const std::string& args, std::string* out) {
  fs::path tmp = fs::temp_directory_path() / ("opdev_cli_out_" + std::to_string(::getpid()));
  int rc = cgtest::RunShell(Bin() + " " + args + " > " + tmp.string() + " 2>&1");
  *out = cgtest::ReadAll(tmp);
  fs::remove(tmp);
  return rc;
}

}  // namespace

TEST_CASE("opdev gen writes the planned file / a read-only product is never overwritten") {
  REQUIRE_FALSE(Bin().empty());  // OPDEV_BIN (set by CTest): the opdev command under test
  REQUIRE(fs::exists(Bin()));
  fs::path dir = cgtest::CopyExample("softmax", "cli");
  std::string out;
  CHECK(Run("gen " + dir.string(), &out) == 0);
  INFO(out);
  CHECK(out.find("wrote " + (dir / "test_softmax.py").string()) != std::string::npos);
  CHECK(out.find("budget Vec: 0x30000 (196608 B) of 253952 B") != std::string::npos);
  REQUIRE(fs::exists(dir / "test_softmax.py"));
  std::string first = cgtest::ReadAll(dir / "test_softmax.py");

  fs::permissions(dir / "test_softmax.py", fs::perms::owner_read);
  CHECK(Run("gen " + dir.string(), &out) == 2);
  CHECK(out.find("read-only") != std::string::npos);
  fs::permissions(dir / "test_softmax.py", fs::perms::owner_all);
  CHECK(cgtest::ReadAll(dir / "test_softmax.py") == first);

  CHECK(Run("gen " + dir.string() + " --json --out " + (dir / "other.py").string(), &out) == 0);
  auto j = boost::json::parse(out.substr(out.find('{')));
  CHECK(j.at("ok").as_bool());
  CHECK(j.at("file").at("tests").as_array().size() == 8);
  CHECK(cgtest::ReadAll(dir / "other.py") == first);

  // A defect: exit 1, nothing written.
  fs::remove(dir / "test_softmax.py");
  REQUIRE(cgtest::MutateDesign(dir, "mutex_ids=[2,3])", "mutex_ids=[3,2])") > 0);
  CHECK(Run("gen " + dir.string(), &out) == 1);
  CHECK(out.find("CODEGEN-MUTEX-MISMATCH") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "test_softmax.py"));
  CHECK(Run("gen", &out) == 2);
}

TEST_CASE("opdev budget on an op dir and on a generated kernel, with the SVG map") {
  REQUIRE_FALSE(Bin().empty());  // OPDEV_BIN (set by CTest): the opdev command under test
  REQUIRE(fs::exists(Bin()));
  fs::path dir = cgtest::CopyExample("softmax", "cli_budget");
  std::string out;
  CHECK(Run("budget " + dir.string() + " --svg " + (dir / "map.svg").string(), &out) == 0);
  INFO(out);
  CHECK(out.find("Vec: high-water 0x30000 (196608 B) of 253952 B = 77.4%") != std::string::npos);
  CHECK(cgtest::ReadAll(dir / "map.svg").find("<svg") != std::string::npos);
  REQUIRE(Run("gen " + dir.string(), &out) == 0);
  CHECK(Run("budget " + (dir / "test_softmax.py").string() + " --json", &out) == 0);
  auto j = boost::json::parse(out);
  CHECK(j.at("ok").as_bool());
  CHECK(j.at("kernel").at("spaces").as_array()[0].at("high_water").as_int64() == 196608);
  CHECK(j.at("comparison").as_array().empty());
  // A3 has 192 KiB of UB: the same layout exactly fits.
  CHECK(Run("budget " + (dir / "test_softmax.py").string() + " --target a3", &out) == 0);
  CHECK(Run("budget " + (dir / "nothing.py").string(), &out) == 2);
}
