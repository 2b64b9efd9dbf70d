// Tests of `opdev compare` on .npy/.bin files written by NumPy (and torch for bfloat16):
// exit codes, the reference summary, diagnostics, JSON, placeholders and unusable inputs.
#include <catch2/catch.hpp>

#include <boost/json/parse.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

struct Run {
  int code = -1;
  std::string out;
};

Run Exec(const std::string& cmd) {
  Run r;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  REQUIRE(p);
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int st = ::pclose(p);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

struct Fixture {
  fs::path dir;
  std::string bin;
  Fixture() {
    const char* b = std::getenv("OPDEV_BIN");
    bin = b ? b : std::string(OPDEV_BINARY_DIR) + "/bin/opdev";
    REQUIRE(fs::exists(bin));
    dir = fs::temp_directory_path() / ("opdev_precision_cli_" + std::to_string(::getpid()));
    std::string script = std::string(OPDEV_SOURCE_DIR) + "/tests/data/precision/make_cli_cases.py";
    Run r = Exec(std::string(OPDEV_PYTHON) + " " + script + " " + dir.string());
    REQUIRE(r.code == 0);
  }
  ~Fixture() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string F(const std::string& name) const { return (dir / name).string(); }
  Run Compare(const std::string& args) const { return Exec(bin + " compare " + args); }
};

}  // namespace

TEST_CASE("opdev compare: PASS, FAIL and the reference summary") {
  Fixture f;
  Run pass = f.Compare(f.F("good.npy") + " " + f.F("golden.npy"));
  INFO(pass.out);
  CHECK(pass.code == 0);
  CHECK(pass.out.rfind("precision PASS\n    atol            : ", 0) == 0);
  CHECK(pass.out.find("cosine similarity") != std::string::npos);

  // --summary-only prints exactly what the Python reference prints for the same files.
  Run ours = f.Compare(f.F("tail.npy") + " " + f.F("golden.npy") + " --summary-only");
  Run ref = Exec(std::string(OPDEV_PYTHON) + " " + OPDEV_SOURCE_DIR +
                 "/tests/data/precision/reference_compare.py check " + f.F("tail.npy") + " " +
                 f.F("golden.npy"));
  CHECK(ours.code == 1);
  CHECK(ref.code == 1);
  CHECK(ours.out == ref.out);
  CHECK(ours.out.find("[CHECK_FAILED]") != std::string::npos);
}

TEST_CASE("opdev compare: tile findings and JSON") {
  Fixture f;
  Run tail = f.Compare(f.F("tail.npy") + " " + f.F("golden.npy") + " --tile 16,32");
  INFO(tail.out);
  CHECK(tail.code == 1);
  CHECK(tail.out.find("finding[PRECISION-TAIL-TILES]: all failures are in tail tiles") !=
        std::string::npos);
  CHECK(tail.out.find("tile (2, 2): 6/6 fail  (tail tile)") != std::string::npos);

  Run rows = f.Compare(f.F("rows.npy") + " " + f.F("golden.npy") + " --tile 16,32 --json");
  INFO(rows.out);
  CHECK(rows.code == 1);
  auto j = boost::json::parse(rows.out).as_object();
  CHECK(j.at("verdict").as_string() == "FAIL");
  const auto& d = j.at("outputs").as_array().at(0).as_object().at("diagnostics").as_object();
  CHECK(d.at("first_failing_row").as_int64() == 16);
  bool found = false;
  for (const auto& x : d.at("findings").as_array())
    if (x.as_object().at("code").as_string() == "PRECISION-ROWS-FROM") found = true;
  CHECK(found);
  CHECK(j.at("files").as_array().at(0).as_object().at("golden").as_string() == f.F("golden.npy"));
}

TEST_CASE("opdev compare: layouts, bfloat16, .bin, integers and placeholders") {
  Fixture f;
  // Fortran-ordered actual against a big-endian golden: same values, PASS.
  CHECK(f.Compare(f.F("good_fortran.npy") + " " + f.F("golden_big.npy")).code == 0);
  // bfloat16 as 2-byte raw needs --dtype bfloat16.
  Run raw = f.Compare(f.F("bf16.npy") + " " + f.F("golden.npy"));
  CHECK(raw.code == 2);
  CHECK(raw.out.find("pass dtype bfloat16 (--dtype bfloat16)") != std::string::npos);
  Run bf = f.Compare(f.F("bf16.npy") + " " + f.F("golden.npy") + " --dtype bfloat16");
  INFO(bf.out);
  CHECK(bf.code == 0);
  CHECK(bf.out.find("thresh=1.562e-02") != std::string::npos);
  // Raw .bin golden with its element type and shape.
  CHECK(f.Compare(f.F("good.npy") + " " + f.F("golden.bin") +
                  " --golden-dtype float32 --shape 33,70")
            .code == 0);
  Run wrong_shape = f.Compare(f.F("good.npy") + " " + f.F("golden.bin") +
                              " --golden-dtype float32 --shape 33,71");
  CHECK(wrong_shape.code == 2);
  CHECK(wrong_shape.out.find("size mismatch: file has 9240 bytes but float32 (33, 71) needs 9372") !=
        std::string::npos);
  // Integers: exact path.
  CHECK(f.Compare(f.F("idx.npy") + " " + f.F("idx.npy")).code == 0);
  Run im = f.Compare(f.F("idx_bad.npy") + " " + f.F("idx.npy") + " --summary-only");
  CHECK(im.code == 1);
  CHECK(im.out == "integer mismatch: 1/10 elements differ\n");
  // Several pairs with None placeholders.
  Run multi = f.Compare(f.F("good.npy") + " " + f.F("golden.npy") + " none none " +
                        f.F("idx.npy") + " " + f.F("idx.npy") + " --summary-only");
  CHECK(multi.code == 0);
  CHECK(multi.out.rfind("output[0]: precision PASS", 0) == 0);
  CHECK(multi.out.find("; output[2]: exact match (integer)") != std::string::npos);
  Run one_side = f.Compare(f.F("good.npy") + " none --summary-only");
  CHECK(one_side.code == 1);
  CHECK(one_side.out == "output[0]: one side is None; no tensor output was compared\n");
}

TEST_CASE("opdev compare: unusable input exits 2 with a clear message") {
  Fixture f;
  Run odd = f.Compare(f.F("good.npy"));
  CHECK(odd.code == 2);
  CHECK(odd.out.find("odd number (1) of files") != std::string::npos);
  Run missing = f.Compare(f.F("absent.npy") + " " + f.F("golden.npy"));
  CHECK(missing.code == 2);
  CHECK(missing.out.find(f.F("absent.npy") + ": no such file") != std::string::npos);
  Run corrupt = f.Compare(f.F("corrupt.npy") + " " + f.F("golden.npy"));
  CHECK(corrupt.code == 2);
  CHECK(corrupt.out.find(f.F("corrupt.npy") + ": truncated .npy") != std::string::npos);
  Run dtype = f.Compare(f.F("good.npy") + " " + f.F("golden.npy") + " --dtype fp16");
  CHECK(dtype.code == 2);
  CHECK(dtype.out.find("unsupported dtype: fp16") != std::string::npos);
  Run tile = f.Compare(f.F("good.npy") + " " + f.F("golden.npy") + " --tile 16");
  CHECK(tile.code == 2);
  CHECK(tile.out.find("--tile: expected two positive integers") != std::string::npos);
  Run json = f.Compare(f.F("absent.npy") + " " + f.F("golden.npy") + " --json");
  CHECK(json.code == 2);
  CHECK(boost::json::parse(json.out).as_object().contains("error"));
  Run help = f.Compare("--help");
  CHECK(help.code == 0);
  CHECK(help.out.find("usage: opdev compare ACTUAL GOLDEN") != std::string::npos);
}
