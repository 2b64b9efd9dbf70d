// Safe file access for opdev: bounded, UTF-8-checked reads of input files and atomic
// (temp file + rename) writes that refuse to replace files the caller marks read-only.
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace opdev {

inline constexpr std::uintmax_t kMaxInputFileBytes = 16u * 1024u * 1024u;

struct ReadOptions {
  std::uintmax_t max_bytes = kMaxInputFileBytes;
  bool require_utf8 = true;
};

// Reads a whole regular file. Errors (as absl::Status, message naming the path):
// NotFound (missing), FailedPrecondition (a directory or not a regular file),
// ResourceExhausted (over max_bytes), DataLoss (invalid UTF-8, with the byte offset and line).
absl::StatusOr<std::string> ReadTextFile(const std::string& path, const ReadOptions& opts = {});

// Returns the 1-based line and the byte offset of the first invalid UTF-8 sequence, or -1.
std::int64_t FindInvalidUtf8(std::string_view text);

// Writes `content` to `path` through a temporary file in the same directory and a rename,
// creating parent directories. Never leaves a partial file behind.
absl::Status WriteFileAtomic(const std::string& path, std::string_view content);

// FailedPrecondition when `path` exists and must not be replaced: a directory, or a file that
// is read-only by its mode bits (also for a superuser, whom access(2) would let write) or not
// writable by this process. OK when it is absent or writable. Writers of generated files
// (the kernel file, KB_USAGE.json) call it before WriteFileAtomic.
absl::Status RefuseReadOnlyTarget(const std::string& path);

// True when `path` (after resolving symlinks) lies inside `root` (after resolving symlinks).
bool IsInsideDirectory(const std::string& path, const std::string& root);

// 1-based line number of byte offset `offset` in `text`.
int LineOfOffset(std::string_view text, size_t offset);

// Lowercase hex SHA-256 of bytes (used for KB references and the read-only guard).
std::string Sha256Hex(std::string_view bytes);

}  // namespace opdev
