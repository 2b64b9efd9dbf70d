// Tests of bounded reads, UTF-8 checks, atomic writes and SHA-256.
#include "workspace.h"
#include <catch2/catch.hpp>

#include "opdev/support/file_io.h"
#include "opdev/support/half.h"

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace {
fs::path TempDir(const char* name) {
  fs::path p = opdev_test::ScratchDir(std::string(name));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}
}  // namespace

TEST_CASE("ReadTextFile rejects missing files, directories, oversize and bad UTF-8") {
  fs::path dir = TempDir("read");
  auto missing = opdev::ReadTextFile((dir / "nope.md").string());
  CHECK(missing.status().code() == absl::StatusCode::kNotFound);
  CHECK(std::string(missing.status().message()).find("nope.md") != std::string::npos);

  auto isdir = opdev::ReadTextFile(dir.string());
  CHECK(isdir.status().code() == absl::StatusCode::kFailedPrecondition);

  { std::ofstream(dir / "big.txt") << std::string(100, 'x'); }
  opdev::ReadOptions small;
  small.max_bytes = 10;
  CHECK(opdev::ReadTextFile((dir / "big.txt").string(), small).status().code() ==
        absl::StatusCode::kResourceExhausted);

  { std::ofstream(dir / "bad.txt", std::ios::binary) << "ok\nline2 \xff\xfe"; }
  auto bad = opdev::ReadTextFile((dir / "bad.txt").string());
  CHECK(bad.status().code() == absl::StatusCode::kDataLoss);
  CHECK(std::string(bad.status().message()).find(":2:") != std::string::npos);

  { std::ofstream(dir / "good.txt") << "你好 §3\n"; }
  auto good = opdev::ReadTextFile((dir / "good.txt").string());
  REQUIRE(good.ok());
  CHECK(*good == "你好 §3\n");
}

TEST_CASE("FindInvalidUtf8 catches overlong, surrogate and truncated sequences") {
  CHECK(opdev::FindInvalidUtf8("abc") == -1);
  CHECK(opdev::FindInvalidUtf8("\xC0\xAF") == 0);          // overlong '/'
  CHECK(opdev::FindInvalidUtf8("a\xED\xA0\x80") == 1);     // surrogate
  CHECK(opdev::FindInvalidUtf8("ab\xE4\xBD") == 2);        // truncated
  CHECK(opdev::FindInvalidUtf8("\xF0\x9F\x98\x80") == -1);  // emoji
}

TEST_CASE("WriteFileAtomic writes whole files and creates parents") {
  fs::path dir = TempDir("write");
  std::string target = (dir / "a" / "b.json").string();
  REQUIRE(opdev::WriteFileAtomic(target, "{}\n").ok());
  REQUIRE(opdev::WriteFileAtomic(target, "[1]\n").ok());
  auto back = opdev::ReadTextFile(target);
  REQUIRE(back.ok());
  CHECK(*back == "[1]\n");
  int n = 0;
  for (auto& e : fs::directory_iterator(dir / "a")) { (void)e; ++n; }
  CHECK(n == 1);  // no temp file left behind
  CHECK_FALSE(opdev::WriteFileAtomic((dir / "a").string(), "x").ok());
}

TEST_CASE("IsInsideDirectory resolves symlinks") {
  fs::path dir = TempDir("inside");
  fs::create_directories(dir / "op");
  { std::ofstream(dir / "outside.txt") << "x"; }
  fs::create_symlink(dir / "outside.txt", dir / "op" / "link.txt");
  CHECK(opdev::IsInsideDirectory((dir / "op" / "x.md").string(), (dir / "op").string()));
  CHECK_FALSE(opdev::IsInsideDirectory((dir / "op" / "link.txt").string(), (dir / "op").string()));
}

TEST_CASE("Sha256Hex matches FIPS 180-4 vectors") {
  CHECK(opdev::Sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(opdev::Sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(opdev::Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("half and bfloat16 conversions are exact and round to nearest even") {
  CHECK(opdev::FloatToHalf(1.0f) == 0x3C00);
  CHECK(opdev::HalfToFloat(0x3C00) == 1.0f);
  CHECK(opdev::FloatToHalf(65504.0f) == 0x7BFF);
  CHECK(opdev::FloatToHalf(65520.0f) == 0x7C00);   // rounds to Inf
  CHECK(opdev::FloatToHalf(65519.0f) == 0x7BFF);
  CHECK(opdev::HalfToFloat(0x0001) == 5.9604644775390625e-08f);
  CHECK(opdev::FloatToHalf(5.9604644775390625e-08f) == 0x0001);
  CHECK(opdev::FloatToHalf(2.98023223876953125e-08f) == 0x0000);  // tie to even -> 0
  CHECK(opdev::FloatToHalf(1.0f + 1.0f / 2048) == 0x3C00);         // tie -> even
  CHECK(opdev::FloatToHalf(1.0f + 3.0f / 2048) == 0x3C02);         // tie -> even (up)
  CHECK(opdev::FloatToHalf(-2.0f) == 0xC000);
  // Every half round-trips.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    uint16_t v = static_cast<uint16_t>(h);
    if ((v & 0x7C00) == 0x7C00 && (v & 0x3FF)) continue;  // NaN payloads
    REQUIRE(opdev::FloatToHalf(opdev::HalfToFloat(v)) == v);
  }
  CHECK(opdev::FloatToBFloat16(1.0f) == 0x3F80);
  CHECK(opdev::BFloat16ToFloat(0x3F80) == 1.0f);
  CHECK(opdev::FloatToBFloat16(opdev::BitsToFloat(0x3F808000u)) == 0x3F80);  // tie -> even
  CHECK(opdev::FloatToBFloat16(opdev::BitsToFloat(0x3F818000u)) == 0x3F82);  // tie -> even up
  CHECK(opdev::FloatToBFloat16(opdev::BitsToFloat(0x3F808001u)) == 0x3F81);
}
