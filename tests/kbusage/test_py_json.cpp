// Tests of the Python-compatible JSON encoder: hand-computed cases for every escaping and
// float-formatting rule, and a differential test that pushes >= 10,000 generated values
// through CPython's json.dumps in one batch process and compares bytes.
#include "workspace.h"
#include <catch2/catch.hpp>

#include "opdev/kbusage/py_json.h"

#include <boost/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

namespace fs = std::filesystem;
namespace json = boost::json;
using opdev::kbusage::PyFloatRepr;
using opdev::kbusage::PyJsonDumps;
using opdev::kbusage::PyJsonString;

namespace {
std::string Dumps(const json::value& v, int indent = -1) {
  auto r = PyJsonDumps(v, indent);
  REQUIRE(r.ok());
  return *r;
}
std::string Repr(double d) {
  auto r = PyFloatRepr(d);
  REQUIRE(r.ok());
  return *r;
}
}  // namespace

TEST_CASE("float repr follows Python's shortest round-trip rules") {
  CHECK(Repr(1.0) == "1.0");
  CHECK(Repr(0.0) == "0.0");
  CHECK(Repr(-0.0) == "-0.0");
  CHECK(Repr(1e-05) == "1e-05");
  CHECK(Repr(0.0001) == "0.0001");
  CHECK(Repr(0.00012) == "0.00012");
  CHECK(Repr(1e16) == "1e+16");
  CHECK(Repr(1e15) == "1000000000000000.0");
  CHECK(Repr(1234567890123456.0) == "1234567890123456.0");
  CHECK(Repr(12345678901234567.0) == "1.2345678901234568e+16");
  CHECK(Repr(0.1) == "0.1");
  CHECK(Repr(0.1 + 0.2) == "0.30000000000000004");
  CHECK(Repr(1.5e300) == "1.5e+300");
  CHECK(Repr(-2.5e-7) == "-2.5e-07");
  CHECK(Repr(5e-324) == "5e-324");
  CHECK(Repr(1.7976931348623157e308) == "1.7976931348623157e+308");
  CHECK(Repr(123.456) == "123.456");
  CHECK_FALSE(PyFloatRepr(std::numeric_limits<double>::infinity()).ok());
  CHECK_FALSE(PyFloatRepr(-std::numeric_limits<double>::infinity()).ok());
  CHECK_FALSE(PyFloatRepr(std::nan("")).ok());
}

TEST_CASE("strings escape only quotes, backslashes and C0 controls") {
  CHECK(*PyJsonString("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(*PyJsonString("\n\r\t\b\f") == "\"\\n\\r\\t\\b\\f\"");
  CHECK(*PyJsonString(std::string("\x00\x01\x1f", 3)) == "\"\\u0000\\u0001\\u001f\"");
  CHECK(*PyJsonString("\x7f") == "\"\x7f\"");                    // DEL raw
  CHECK(*PyJsonString("\xc2\x85") == "\"\xc2\x85\"");            // C1 raw
  CHECK(*PyJsonString("\xe2\x80\xa8") == "\"\xe2\x80\xa8\"");    // U+2028 raw
  CHECK(*PyJsonString("归约轴容量结论") == "\"归约轴容量结论\"");
  CHECK(*PyJsonString("\xf0\x9f\x98\x80") == "\"\xf0\x9f\x98\x80\"");  // non-BMP raw
  CHECK(*PyJsonString("/") == "\"/\"");                          // no solidus escape
  CHECK_FALSE(PyJsonString("bad \xff byte").ok());
  CHECK_FALSE(PyJsonString("\xed\xa0\x80").ok());                // encoded surrogate
}

TEST_CASE("containers use Python's separators and keep insertion order") {
  json::value v = json::parse(R"({"z": [1, "R01", [], {}], "a": {"k": null, "t": true}})");
  CHECK(Dumps(v) == R"({"z": [1, "R01", [], {}], "a": {"k": null, "t": true}})");
  CHECK(Dumps(json::array{"x > y", "归约"}) == "[\"x > y\", \"归约\"]");
  CHECK(Dumps(v, 2) ==
        "{\n  \"z\": [\n    1,\n    \"R01\",\n    [],\n    {}\n  ],\n  \"a\": {\n"
        "    \"k\": null,\n    \"t\": true\n  }\n}");
  CHECK(Dumps(json::value(std::uint64_t{18446744073709551615u})) == "18446744073709551615");
  CHECK(Dumps(json::value(std::int64_t{-9223372036854775807 - 1})) == "-9223372036854775808");
  CHECK(Dumps(json::array{}, 2) == "[]");
  CHECK(Dumps(json::array{1.0, 2.5e-6}) == "[1.0, 2.5e-06]");
  CHECK_FALSE(PyJsonDumps(json::array{1.0, std::numeric_limits<double>::infinity()}).ok());
}

namespace {

// Appends one code point as UTF-8.
void PutUtf8(std::string& s, std::uint32_t cp) {
  if (cp < 0x80) {
    s.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    s.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    s.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    s.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    s.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    s.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    s.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

class Generator {
 public:
  explicit Generator(std::uint64_t seed) : rng_(seed) {}

  std::string String() {
    std::string s;
    int n = Int(0, 12);
    for (int i = 0; i < n; ++i) {
      switch (Int(0, 9)) {
        case 0: PutUtf8(s, static_cast<std::uint32_t>(Int(0, 0x1f))); break;  // C0
        case 1: PutUtf8(s, "\"\\/'"[Int(0, 3)]); break;
        case 2: PutUtf8(s, 0x7f); break;                                       // DEL
        case 3: PutUtf8(s, static_cast<std::uint32_t>(Int(0x80, 0x7ff))); break;
        case 4: PutUtf8(s, static_cast<std::uint32_t>(Int(0x4e00, 0x9fff))); break;  // CJK
        case 5: PutUtf8(s, static_cast<std::uint32_t>(Int(0x10000, 0x10ffff))); break;
        case 6: PutUtf8(s, static_cast<std::uint32_t>(Int(0, 1) ? 0x2028 : 0xfeff)); break;
        case 7: {
          std::uint32_t cp = static_cast<std::uint32_t>(Int(0xe000, 0xfffd));
          PutUtf8(s, cp);
          break;
        }
        default: PutUtf8(s, static_cast<std::uint32_t>(Int(0x20, 0x7e))); break;
      }
    }
    return s;
  }

  double Double() {
    switch (Int(0, 5)) {
      case 0: {  // any finite bit pattern
        for (;;) {
          std::uint64_t bits = rng_();
          double d;
          std::memcpy(&d, &bits, sizeof d);
          if (std::isfinite(d)) return d;
        }
      }
      case 1:  // around the fixed/scientific boundaries
        return (Int(0, 1) ? 1 : -1) * static_cast<double>(Int(1, 99999)) *
               std::pow(10.0, Int(-22, 22));
      case 2: return static_cast<double>(Int(-1000000, 1000000));
      case 3: return static_cast<double>(Int(-1000, 1000)) / 64.0;
      case 4: return std::ldexp(static_cast<double>(Int(1, 1 << 20)), Int(-1074, 1000));
      default: return std::uniform_real_distribution<double>(-1e6, 1e6)(rng_);
    }
  }

  json::value Value(int depth) {
    int pick = Int(0, depth >= 3 ? 5 : 7);
    switch (pick) {
      case 0: return nullptr;
      case 1: return Int(0, 1) == 1;
      case 2: return Int(0, 1) ? json::value(static_cast<std::int64_t>(rng_()))
                               : json::value(static_cast<std::int64_t>(Int(-1000, 1000)));
      case 3: return Double();
      case 4:
      case 5: return json::value(String());
      case 6: {
        json::array a;
        int n = Int(0, 4);
        for (int i = 0; i < n; ++i) a.push_back(Value(depth + 1));
        return a;
      }
      default: {
        json::object o;
        int n = Int(0, 4);
        for (int i = 0; i < n; ++i) o[String()] = Value(depth + 1);
        return o;
      }
    }
  }

  int Int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

 private:
  std::mt19937_64 rng_;
};

}  // namespace

TEST_CASE("differential: 12,000 generated values encode byte-identically to CPython") {
  constexpr int kCount = 12000;
  Generator gen(20260531);
  std::vector<json::value> values;
  values.reserve(kCount);
  // Fixed strings from the real fixtures' anchors first, then generated values.
  values.push_back(json::array{"Applies when > Each row independently reduces",
                               "Dataflow > reduce each row to row_max / broadcast"});
  values.push_back(json::value("R01"));
  while (values.size() < static_cast<size_t>(kCount)) values.push_back(gen.Value(0));

  fs::path dir = opdev_test::ScratchDir("py_json_diff");
  fs::remove_all(dir);
  fs::create_directories(dir);
  {
    // Transport to Python with Boost's own serializer (a different encoder than ours).
    std::ofstream in(dir / "in.jsonl", std::ios::binary);
    for (const auto& v : values) in << json::serialize(v) << "\n";
  }
  std::string script =
      "import json,sys\n"
      "out=sys.stdout.buffer\n"
      "for line in sys.stdin.buffer:\n"
      "  v=json.loads(line.decode('utf-8'))\n"
      "  out.write(json.dumps(v,ensure_ascii=False).encode('utf-8')+b'\\0')\n"
      "  out.write(json.dumps(v,ensure_ascii=False,indent=2).encode('utf-8')+b'\\0')\n";
  { std::ofstream(dir / "enc.py") << script; }
  std::string cmd = std::string(OPDEV_PYTHON) + " " + (dir / "enc.py").string() + " < " +
                    (dir / "in.jsonl").string() + " > " + (dir / "out.bin").string();
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream out(dir / "out.bin", std::ios::binary);
  std::stringstream ss;
  ss << out.rdbuf();
  std::string all = ss.str();

  size_t pos = 0, compared = 0, mismatches = 0;
  for (const auto& v : values) {
    for (int indent : {-1, 2}) {
      size_t end = all.find('\0', pos);
      REQUIRE(end != std::string::npos);
      std::string expected = all.substr(pos, end - pos);
      pos = end + 1;
      std::string got = Dumps(v, indent);
      if (got != expected && ++mismatches <= 5) {
        INFO("python: " << expected << "\nopdev:  " << got);
        CHECK(got == expected);
      }
      ++compared;
    }
  }
  CHECK(mismatches == 0);
  CHECK(compared == 2 * static_cast<size_t>(kCount));
  CHECK(pos == all.size());
  fs::remove_all(dir);
}
