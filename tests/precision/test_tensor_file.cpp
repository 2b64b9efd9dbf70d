// Tests of the tensor type and of .npy/.bin files: every format version, C and Fortran
// order, both byte orders, every dtype, bfloat16 as 2-byte raw, mapping of large files, and
// truncated, corrupt or lying files (which must give a clear error, never a crash).
#include <catch2/catch.hpp>

#include "opdev/precision/tensor.h"
#include "opdev/precision/tensor_file.h"
#include "opdev/support/half.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

using namespace opdev::precision;
using opdev::DType;
namespace fs = std::filesystem;

namespace {

// Builds an .npy image by hand: magic, version, header length, dict text padded to 64.
std::string Npy(int major, const std::string& dict, const std::string& payload,
                bool pad = true) {
  size_t pre = major == 1 ? 10 : 12;
  std::string header = dict;
  if (pad) {
    size_t total = pre + header.size() + 1;
    header += std::string((64 - total % 64) % 64, ' ');
  }
  header += "\n";
  std::string out = std::string("\x93NUMPY", 6);
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  size_t n = header.size();
  for (size_t i = 0; i < pre - 8; ++i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xFF));
  return out + header + payload;
}

std::string Dict(const std::string& descr, bool fortran, const std::string& shape) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
         ", 'shape': " + shape + ", }";
}

template <typename T>
std::string Bytes(const std::vector<T>& v, bool big_endian = false) {
  std::string s(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  if (big_endian)
    for (size_t i = 0; i < v.size(); ++i) std::reverse(s.begin() + i * sizeof(T), s.begin() + (i + 1) * sizeof(T));
  return s;
}

std::vector<double> Values(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.GetDouble(i));
  return v;
}

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("opdev_precision_file_" + std::to_string(::getpid()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string Write(const std::string& name, const std::string& bytes) const {
    std::string p = (path / name).string();
    std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return p;
  }
};

}  // namespace

TEST_CASE("shapes: numel, Python spelling, parsing") {
  CHECK(ShapeNumel({}) == 1);
  CHECK(ShapeNumel({2, 0, 3}) == 0);
  CHECK(ShapeNumel({-1}) == -1);
  CHECK(ShapeNumel({int64_t{1} << 40, int64_t{1} << 40}) == -1);
  CHECK(ShapeToString({}) == "()");
  CHECK(ShapeToString({5}) == "(5,)");
  CHECK(ShapeToString({2, 3}) == "(2, 3)");
  CHECK(ParseShape("2,3").value() == Shape{2, 3});
  CHECK(ParseShape("4x128").value() == Shape{4, 128});
  CHECK(ParseShape("(5,)").value() == Shape{5});
  CHECK(ParseShape("()").value().empty());
  CHECK_FALSE(ParseShape("2,-3").ok());
  CHECK_FALSE(ParseShape("a").ok());
  CHECK_FALSE(ParseShape("99999999999,99999999999").ok());
}

TEST_CASE("tensor element conversion") {
  auto t = Tensor::FromDoubles(DType::kFloat16, {4}, {1.0, 65504.0, 1e6, 1.0 + 0x1p-11});
  REQUIRE(t.ok());
  CHECK(t->GetDouble(0) == 1.0);
  CHECK(t->GetDouble(1) == 65504.0);
  CHECK(std::isinf(t->GetDouble(2)));  // overflow rounds to Inf
  CHECK(t->GetDouble(3) == 1.0);       // tie rounds to even
  // double -> bfloat16 is rounded once: 1 + 2^-8 + 2^-30 lies just above the tie.
  auto b = Tensor::FromDoubles(DType::kBFloat16, {2}, {1.0 + 0x1p-8 + 0x1p-30, 1.0 + 0x1p-8});
  REQUIRE(b.ok());
  CHECK(b->GetDouble(0) == 1.0 + 0x1p-7);
  CHECK(b->GetDouble(1) == 1.0);
  auto i = Tensor::FromDoubles(DType::kInt8, {3}, {300, -300, 2.9});
  REQUIRE(i.ok());
  CHECK(Values(*i) == std::vector<double>{127, -128, 2});
  CHECK_FALSE(Tensor::FromDoubles(DType::kInt8, {2}, {1}).ok());
  CHECK(i->Unravel(2) == std::vector<int64_t>{2});
  auto m = Tensor::Zeros(DType::kFloat32, {2, 3, 4});
  REQUIRE(m.ok());
  CHECK(m->Unravel(23) == std::vector<int64_t>{1, 2, 3});
  CHECK(m->Unravel(5) == std::vector<int64_t>{0, 1, 1});
  CHECK_FALSE(Tensor::Zeros(DType::kFloat32, {-2}).ok());
}

TEST_CASE(".npy versions 1.0, 2.0 and 3.0") {
  std::vector<float> v{0, 1, 2, 3, 4, 5};
  for (int major : {1, 2, 3}) {
    auto t = ParseNpy(Npy(major, Dict("<f4", false, "(2, 3)"), Bytes(v)), "x.npy");
    REQUIRE(t.ok());
    CHECK(t->dtype() == DType::kFloat32);
    CHECK(t->shape() == Shape{2, 3});
    CHECK(Values(*t) == std::vector<double>{0, 1, 2, 3, 4, 5});
  }
  // Version 3.0 allows UTF-8 in the header; 1.0 does not.
  std::string utf8 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } \xC3\xA9";
  CHECK_FALSE(ParseNpy(Npy(1, utf8, Bytes(v)), "x.npy").ok());
  auto bad = ParseNpy(Npy(4, Dict("<f4", false, "(2, 3)"), Bytes(v)), "x.npy");
  REQUIRE_FALSE(bad.ok());
  CHECK(std::string(bad.status().message()) == "x.npy: unsupported .npy format version 4.0");
}

TEST_CASE(".npy Fortran order and big-endian payloads") {
  // (2, 3) in Fortran order: columns first.
  std::vector<int32_t> f{0, 3, 1, 4, 2, 5};
  auto t = ParseNpy(Npy(1, Dict("<i4", true, "(2, 3)"), Bytes(f)), "f.npy");
  REQUIRE(t.ok());
  CHECK(Values(*t) == std::vector<double>{0, 1, 2, 3, 4, 5});
  // (2, 3, 2) Fortran: element (i, j, k) at i + 2j + 6k.
  std::vector<double> f3(12);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k) f3[static_cast<size_t>(i + 2 * j + 6 * k)] = 100 * i + 10 * j + k;
  auto t3 = ParseNpy(Npy(1, Dict("<f8", true, "(2, 3, 2)"), Bytes(f3)), "f3.npy");
  REQUIRE(t3.ok());
  CHECK(t3->GetDouble(0) == 0);
  CHECK(t3->GetDouble(1) == 1);     // (0, 0, 1)
  CHECK(t3->GetDouble(2) == 10);    // (0, 1, 0)
  CHECK(t3->GetDouble(6) == 100);   // (1, 0, 0)
  CHECK(t3->GetDouble(11) == 121);  // (1, 2, 1)
  // Big-endian, several widths, and Fortran + big-endian together.
  auto be = ParseNpy(Npy(1, Dict(">f4", false, "(3,)"), Bytes(std::vector<float>{1.5f, -2, 3}, true)), "be.npy");
  REQUIRE(be.ok());
  CHECK(Values(*be) == std::vector<double>{1.5, -2, 3});
  auto be2 = ParseNpy(Npy(1, Dict(">i2", false, "(2,)"), Bytes(std::vector<int16_t>{-2, 300}, true)), "be.npy");
  REQUIRE(be2.ok());
  CHECK(Values(*be2) == std::vector<double>{-2, 300});
  auto be8 = ParseNpy(Npy(1, Dict(">f8", true, "(2, 2)"), Bytes(std::vector<double>{1, 3, 2, 4}, true)), "be.npy");
  REQUIRE(be8.ok());
  CHECK(Values(*be8) == std::vector<double>{1, 2, 3, 4});
  auto beh = ParseNpy(Npy(1, Dict(">f2", false, "(1,)"), Bytes(std::vector<uint16_t>{0x3C00}, true)), "be.npy");
  REQUIRE(beh.ok());
  CHECK(beh->GetDouble(0) == 1.0);
}

TEST_CASE(".npy every supported dtype") {
  struct D { const char* descr; DType dtype; std::string payload; double second; };
  std::vector<D> ds = {
      {"|b1", DType::kBool, std::string("\x00\x01", 2), 1},
      {"|i1", DType::kInt8, Bytes(std::vector<int8_t>{0, -5}), -5},
      {"<i2", DType::kInt16, Bytes(std::vector<int16_t>{0, -300}), -300},
      {"<i4", DType::kInt32, Bytes(std::vector<int32_t>{0, -70000}), -70000},
      {"<i8", DType::kInt64, Bytes(std::vector<int64_t>{0, -(int64_t{1} << 40)}), -std::ldexp(1.0, 40)},
      {"|u1", DType::kUInt8, Bytes(std::vector<uint8_t>{0, 200}), 200},
      {"<u2", DType::kUInt16, Bytes(std::vector<uint16_t>{0, 60000}), 60000},
      {"<u4", DType::kUInt32, Bytes(std::vector<uint32_t>{0, 4000000000u}), 4e9},
      {"<u8", DType::kUInt64, Bytes(std::vector<uint64_t>{0, uint64_t{1} << 50}), std::ldexp(1.0, 50)},
      {"<f2", DType::kFloat16, Bytes(std::vector<uint16_t>{0, 0xC000}), -2},
      {"<f4", DType::kFloat32, Bytes(std::vector<float>{0, 0.25f}), 0.25},
      {"<f8", DType::kFloat64, Bytes(std::vector<double>{0, 1e300}), 1e300},
  };
  for (const D& d : ds) {
    INFO(d.descr);
    auto t = ParseNpy(Npy(1, Dict(d.descr, false, "(2,)"), d.payload), "d.npy");
    REQUIRE(t.ok());
    CHECK(t->dtype() == d.dtype);
    CHECK(t->GetDouble(1) == d.second);
    // Our writer produces what we read back, byte for byte.
    auto back = ParseNpy(EncodeNpy(*t), "again.npy");
    REQUIRE(back.ok());
    CHECK(back->dtype() == d.dtype);
    CHECK(std::memcmp(back->data(), t->data(), t->nbytes()) == 0);
  }
}

TEST_CASE("bfloat16 as 2-byte raw needs an explicit dtype") {
  std::string file = Npy(1, Dict("|V2", false, "(2,)"), Bytes(std::vector<uint16_t>{0x3F80, 0xC040}));
  auto plain = ParseNpy(file, "b.npy");
  REQUIRE_FALSE(plain.ok());
  CHECK(std::string(plain.status().message()).find("--dtype bfloat16") != std::string::npos);
  TensorReadOptions o;
  o.dtype = DType::kBFloat16;
  auto t = ParseNpy(file, "b.npy", o);
  REQUIRE(t.ok());
  CHECK(t->dtype() == DType::kBFloat16);
  CHECK(Values(*t) == std::vector<double>{1.0, -3.0});
  TensorReadOptions raw;
  raw.raw2_is_bfloat16 = true;
  CHECK(ParseNpy(file, "b.npy", raw).ok());
  // bfloat16 bits stored as uint16 / int16 can be reinterpreted, not converted floats.
  auto u = ParseNpy(Npy(1, Dict("<u2", false, "(1,)"), Bytes(std::vector<uint16_t>{0x4000})), "u.npy", o);
  REQUIRE(u.ok());
  CHECK(u->GetDouble(0) == 2.0);
  auto f = ParseNpy(Npy(1, Dict("<f2", false, "(1,)"), Bytes(std::vector<uint16_t>{0x4000})), "f.npy", o);
  REQUIRE_FALSE(f.ok());
  CHECK(std::string(f.status().message()).find("element type is float16 but bfloat16 was requested") != std::string::npos);
  // Writing bfloat16 uses '<V2' and reads back with the override.
  auto w = ParseNpy(EncodeNpy(*t), "w.npy", o);
  REQUIRE(w.ok());
  CHECK(Values(*w) == std::vector<double>{1.0, -3.0});
  CHECK(EncodeNpy(*t).find("'descr': '<V2'") != std::string::npos);
}

TEST_CASE(".npy header written by EncodeNpy is NumPy's layout") {
  auto t = Tensor::FromDoubles(DType::kFloat32, {2, 3}, {0, 1, 2, 3, 4, 5});
  REQUIRE(t.ok());
  std::string s = EncodeNpy(*t);
  CHECK(s.substr(0, 8) == std::string("\x93NUMPY\x01\x00", 8));
  size_t hl = static_cast<unsigned char>(s[8]) | (static_cast<unsigned char>(s[9]) << 8);
  CHECK((10 + hl) % 64 == 0);
  CHECK(s.substr(10, 60).rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 0) == 0);
  CHECK(s[10 + hl - 1] == '\n');
  CHECK(s.size() == 10 + hl + 24);
  auto scalar = Tensor::FromDoubles(DType::kFloat64, {}, {2.5});
  REQUIRE(scalar.ok());
  auto back = ParseNpy(EncodeNpy(*scalar), "s.npy");
  REQUIRE(back.ok());
  CHECK(back->shape().empty());
  CHECK(back->GetDouble(0) == 2.5);
  auto empty = Tensor::Zeros(DType::kInt64, {0, 7});
  REQUIRE(empty.ok());
  auto eback = ParseNpy(EncodeNpy(*empty), "e.npy");
  REQUIRE(eback.ok());
  CHECK(eback->shape() == Shape{0, 7});
}

TEST_CASE("truncated, corrupt and lying .npy files give clear errors") {
  std::vector<float> v{0, 1, 2, 3, 4, 5};
  std::string good = Npy(1, Dict("<f4", false, "(2, 3)"), Bytes(v));
  struct Bad { const char* what; std::string bytes; const char* message_part; };
  std::vector<Bad> bads = {
      {"empty", "", "truncated .npy: 0 bytes"},
      {"magic only", good.substr(0, 7), "truncated .npy: 7 bytes"},
      {"bad magic", "\x93NUMPX" + good.substr(6), "missing the \\x93NUMPY magic"},
      {"header cut", good.substr(0, 40), "header claims 118 bytes but only 30 follow"},
      {"payload cut", good.substr(0, good.size() - 1),
       "header says float32 (2, 3) (24 bytes of data) but only 23 follow"},
      {"trailing bytes", good + "xyz", "but 27 bytes follow the header"},
      {"shape lies (too big)", Npy(1, Dict("<f4", false, "(2, 4)"), Bytes(v)), "only 24 follow"},
      {"huge shape", Npy(1, Dict("<f4", false, "(4611686018427387904, 4)"), Bytes(v)), "overflows"},
      {"negative dim", Npy(1, Dict("<f4", false, "(-2, 3)"), Bytes(v)), "non-negative integer"},
      {"complex", Npy(1, Dict("<c8", false, "(3,)"), Bytes(v)), "complex tensors are not supported"},
      {"object", Npy(1, Dict("|O", false, "(3,)"), Bytes(v)), "unsupported .npy descr '|O'"},
      {"float128", Npy(1, Dict("<f16", false, "(3,)"), Bytes(v)), "only float16/32/64"},
      {"structured", Npy(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (6,), }", Bytes(v)),
       "structured dtypes"},
      {"missing shape", Npy(1, "{'descr': '<f4', 'fortran_order': False, }", Bytes(v)), "lacks a tuple 'shape'"},
      {"extra key", Npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'x': 1, }", Bytes(v)),
       "unsupported value"},
      {"extra key with string", Npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'x': 'y', }", Bytes(v)),
       "unexpected key 'x'"},
      {"fortran not bool", Npy(1, "{'descr': '<f4', 'fortran_order': 0, 'shape': (6,), }", Bytes(v)),
       "unsupported value"},
      {"unterminated string", Npy(1, "{'descr': '<f4", Bytes(v)), "unterminated string"},
      {"not a dict", Npy(1, "['descr']", Bytes(v)), "expected '{'"},
      {"duplicate key", Npy(1, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", Bytes(v)),
       "duplicate key 'descr'"},
      {"version 2 preamble cut", std::string("\x93NUMPY\x02\x00\x10\x00", 10), "truncated .npy version 2"},
  };
  for (const Bad& b : bads) {
    INFO(b.what);
    auto t = ParseNpy(b.bytes, "bad.npy");
    REQUIRE_FALSE(t.ok());
    std::string msg(t.status().message());
    INFO(msg);
    CHECK(msg.rfind("bad.npy: ", 0) == 0);
    CHECK(msg.find(b.message_part) != std::string::npos);
  }
}

TEST_CASE("random corruption of .npy headers never crashes") {
  std::vector<float> v(64, 1.0f);
  std::string good = Npy(1, Dict("<f4", false, "(8, 8)"), Bytes(v));
  std::mt19937 rng(7);
  int ok = 0, rejected = 0;
  for (int i = 0; i < 4000; ++i) {
    std::string s = good;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % std::min<size_t>(s.size(), 140);
      switch (rng() % 3) {
        case 0: s[pos] = static_cast<char>(rng() & 0xFF); break;
        case 1: s.erase(pos, 1 + rng() % 8); break;
        default: s.insert(pos, 1, "0123456789(),' :TF<>|fiub"[rng() % 25]); break;
      }
    }
    if (rng() % 4 == 0) s.resize(rng() % (s.size() + 1));
    auto t = ParseNpy(s, "fuzz.npy");
    if (t.ok()) {
      ++ok;
      // Whatever parsed must be fully readable.
      double sum = 0;
      for (int64_t k = 0; k < t->numel(); ++k) sum += t->GetDouble(k);
      (void)sum;
    } else {
      ++rejected;
    }
  }
  CHECK(rejected > 3000);
  CHECK(ok + rejected == 4000);
}

TEST_CASE("reading files: mapping, copies, .bin") {
  TempDir dir;
  std::vector<float> big(1 << 19);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(i);
  auto t = Tensor::FromBytes(DType::kFloat32, {512, 1024}, big.data(), big.size() * 4);
  REQUIRE(t.ok());
  std::string p = (dir.path / "big.npy").string();
  REQUIRE(WriteNpy(p, *t).ok());
  auto mapped = ReadNpy(p);
  REQUIRE(mapped.ok());
  CHECK(mapped->is_mapped());
  CHECK_FALSE(mapped->is_writable());
  CHECK(mapped->mutable_data() == nullptr);
  CHECK(mapped->GetDouble(1000) == 1000);
  TensorReadOptions nomap;
  nomap.mmap_threshold_bytes = SIZE_MAX;
  auto copied = ReadNpy(p, nomap);
  REQUIRE(copied.ok());
  CHECK_FALSE(copied->is_mapped());
  CHECK(std::memcmp(copied->data(), mapped->data(), mapped->nbytes()) == 0);
  // Clone of a mapped tensor is writable.
  Tensor c = mapped->Clone();
  CHECK(c.is_writable());
  c.SetDouble(0, 7);
  CHECK(c.GetDouble(0) == 7);
  CHECK(mapped->GetDouble(0) == 0);

  // Raw .bin.
  std::string bin = dir.Write("x.bin", Bytes(std::vector<float>{1, 2, 3, 4, 5, 6}));
  TensorReadOptions ro;
  ro.dtype = DType::kFloat32;
  ro.shape = Shape{2, 3};
  auto b = ReadBin(bin, ro);
  REQUIRE(b.ok());
  CHECK(Values(*b) == std::vector<double>{1, 2, 3, 4, 5, 6});
  auto b2 = ReadTensorFile(bin, ro);
  REQUIRE(b2.ok());
  ro.shape = Shape{4, 2};
  auto wrong = ReadBin(bin, ro);
  REQUIRE_FALSE(wrong.ok());
  CHECK(std::string(wrong.status().message()) ==
        bin + ": size mismatch: file has 24 bytes but float32 (4, 2) needs 32");
  TensorReadOptions nodtype;
  nodtype.shape = Shape{6};
  CHECK(std::string(ReadBin(bin, nodtype).status().message()).find("needs an element type") != std::string::npos);
  TensorReadOptions noshape;
  noshape.dtype = DType::kFloat32;
  CHECK(std::string(ReadBin(bin, noshape).status().message()).find("needs a shape") != std::string::npos);
  // .npy name but not .npy content; missing file; directory.
  std::string fake = dir.Write("fake.npy", "hello");
  CHECK(std::string(ReadTensorFile(fake).status().message()).find("missing the") != std::string::npos);
  CHECK(ReadNpy((dir.path / "absent.npy").string()).status().code() == absl::StatusCode::kNotFound);
  CHECK_FALSE(ReadNpy(dir.path.string()).ok());
  // Shape override must agree for .npy.
  TensorReadOptions shape_o;
  shape_o.shape = Shape{1024, 512};
  CHECK_FALSE(ReadNpy(p, shape_o).ok());
  // WriteBin round trip.
  std::string wb = (dir.path / "w.bin").string();
  REQUIRE(WriteBin(wb, *b).ok());
  ro.shape = Shape{6};
  auto rb = ReadBin(wb, ro);
  REQUIRE(rb.ok());
  CHECK(Values(*rb) == std::vector<double>{1, 2, 3, 4, 5, 6});
}
