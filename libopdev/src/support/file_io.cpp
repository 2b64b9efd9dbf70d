// Bounded, UTF-8-checked file reads, atomic writes and a SHA-256 for content hashes.
#include "opdev/support/file_io.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <system_error>
#include <unistd.h>

namespace fs = std::filesystem;

namespace opdev {

std::int64_t FindInvalidUtf8(std::string_view s) {
  size_t i = 0, n = s.size();
  while (i < n) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) { ++i; continue; }
    int len;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; }
    else return static_cast<std::int64_t>(i);
    if (i + len > n) return static_cast<std::int64_t>(i);
    for (int k = 1; k < len; ++k) {
      unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return static_cast<std::int64_t>(i);
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return static_cast<std::int64_t>(i);
    i += len;
  }
  return -1;
}

int LineOfOffset(std::string_view text, size_t offset) {
  int line = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i)
    if (text[i] == '\n') ++line;
  return line;
}

absl::StatusOr<std::string> ReadTextFile(const std::string& path, const ReadOptions& opts) {
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) return absl::NotFoundError(absl::StrCat(path, ": no such file"));
  if (fs::is_directory(st))
    return absl::FailedPreconditionError(absl::StrCat(path, ": is a directory, expected a file"));
  if (!fs::is_regular_file(st))
    return absl::FailedPreconditionError(absl::StrCat(path, ": not a regular file"));
  std::uintmax_t size = fs::file_size(path, ec);
  if (ec) return absl::UnavailableError(absl::StrCat(path, ": cannot stat: ", ec.message()));
  if (size > opts.max_bytes)
    return absl::ResourceExhaustedError(absl::StrFormat(
        "%s: file is %u bytes, over the %u-byte limit", path, size, opts.max_bytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::PermissionDeniedError(absl::StrCat(path, ": cannot open for reading"));
  std::string data(static_cast<size_t>(size), '\0');
  in.read(data.data(), static_cast<std::streamsize>(size));
  data.resize(static_cast<size_t>(in.gcount()));
  if (opts.require_utf8) {
    std::int64_t bad = FindInvalidUtf8(data);
    if (bad >= 0)
      return absl::DataLossError(absl::StrFormat("%s:%d: invalid UTF-8 at byte offset %d", path,
                                                 LineOfOffset(data, bad), bad));
  }
  return data;
}

absl::Status RefuseReadOnlyTarget(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return absl::OkStatus();
  if (fs::is_directory(path, ec)) return absl::FailedPreconditionError(path + " is a directory");
  const fs::perms p = fs::status(path, ec).permissions();
  const bool no_write_bits = (p & (fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write)) == fs::perms::none;
  if (no_write_bits || ::access(path.c_str(), W_OK) != 0)
    return absl::FailedPreconditionError(path + " exists and is read-only: not overwritten");
  return absl::OkStatus();
}

absl::Status WriteFileAtomic(const std::string& path, std::string_view content) {
  std::error_code ec;
  fs::path p(path);
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  if (fs::is_directory(p, ec))
    return absl::FailedPreconditionError(absl::StrCat(path, ": is a directory"));
  std::random_device rd;
  std::string tmp = absl::StrFormat("%s.tmp.%d.%08x", path, static_cast<int>(getpid()), rd());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return absl::PermissionDeniedError(absl::StrCat(path, ": cannot create ", tmp));
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      out.close();
      fs::remove(tmp, ec);
      return absl::DataLossError(absl::StrCat(path, ": write failed"));
    }
  }
  fs::rename(tmp, p, ec);
  if (ec) {
    std::error_code ec2;
    fs::remove(tmp, ec2);
    return absl::PermissionDeniedError(absl::StrCat(path, ": rename failed: ", ec.message()));
  }
  return absl::OkStatus();
}

bool IsInsideDirectory(const std::string& path, const std::string& root) {
  std::error_code ec;
  fs::path rp = fs::weakly_canonical(path, ec);
  if (ec) return false;
  fs::path rr = fs::weakly_canonical(root, ec);
  if (ec) return false;
  auto [ri, pi] = std::mismatch(rr.begin(), rr.end(), rp.begin(), rp.end());
  // Trailing empty element ("dir/") counts as inside.
  return ri == rr.end() || (std::next(ri) == rr.end() && ri->empty());
}

// --- SHA-256 (FIPS 180-4) -----------------------------------------------------------------
namespace {
constexpr std::array<uint32_t, 64> kK = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
inline uint32_t Rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
}  // namespace

std::string Sha256Hex(std::string_view bytes) {
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::string msg(bytes);
  uint64_t bitlen = static_cast<uint64_t>(bytes.size()) * 8;
  msg.push_back(static_cast<char>(0x80));
  while (msg.size() % 64 != 56) msg.push_back('\0');
  for (int i = 7; i >= 0; --i) msg.push_back(static_cast<char>((bitlen >> (i * 8)) & 0xff));
  for (size_t off = 0; off < msg.size(); off += 64) {
    uint32_t w[64];
    for (int i = 0; i < 16; ++i) {
      const auto* b = reinterpret_cast<const unsigned char*>(msg.data() + off + i * 4);
      w[i] = (uint32_t(b[0]) << 24) | (uint32_t(b[1]) << 16) | (uint32_t(b[2]) << 8) | b[3];
    }
    for (int i = 16; i < 64; ++i) {
      uint32_t s0 = Rotr(w[i - 15], 7) ^ Rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      uint32_t s1 = Rotr(w[i - 2], 17) ^ Rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; ++i) {
      uint32_t S1 = Rotr(e, 6) ^ Rotr(e, 11) ^ Rotr(e, 25);
      uint32_t ch = (e & f) ^ (~e & g);
      uint32_t t1 = hh + S1 + ch + kK[i] + w[i];
      uint32_t S0 = Rotr(a, 2) ^ Rotr(a, 13) ^ Rotr(a, 22);
      uint32_t mj = (a & b) ^ (a & c) ^ (b & c);
      uint32_t t2 = S0 + mj;
      hh = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
  }
  std::string out;
  for (uint32_t v : h) out += absl::StrFormat("%08x", v);
  return out;
}

}  // namespace opdev
