// Tensor files: NumPy .npy (format 1.0/2.0/3.0; C or Fortran order; little or big endian;
// bool, int8/16/32/64, uint8/16/32/64, float16/32/64, and bfloat16 stored as 2-byte raw) and
// raw .bin (element type and shape given by the caller). Large little-endian C-order files
// are memory-mapped read-only instead of copied. Every malformed, truncated or lying header is
// an InvalidArgument/DataLoss status naming the file and the broken rule, never a crash.
#pragma once

#include "opdev/precision/tensor.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <optional>
#include <string>
#include <string_view>

namespace opdev::precision {

struct TensorReadOptions {
  // Element type override. For .npy: reinterprets a 2-byte payload ('<V2', '|V2', '<u2',
  // '<i2') as bfloat16 when set to kBFloat16; otherwise must equal the file's dtype.
  // Required for .bin.
  std::optional<DType> dtype;
  // Read a 2-byte raw ('V2') .npy payload as bfloat16 even when `dtype` is unset (what
  // `opdev compare --dtype bfloat16` asks for); other element types are unaffected.
  bool raw2_is_bfloat16 = false;
  // Shape for .bin files (required there; the file size must equal numel * itemsize).
  // For .npy, when set, must equal the header's shape.
  std::optional<Shape> shape;
  // Files at least this large (and stored little-endian, C-order, aligned) are mapped
  // instead of read. 0 maps every eligible file; SIZE_MAX disables mapping.
  size_t mmap_threshold_bytes = size_t{1} << 20;
};

// Parses an .npy image held in memory. `name` is used in error messages.
absl::StatusOr<Tensor> ParseNpy(std::string_view bytes, std::string_view name,
                                const TensorReadOptions& opts = {});

// Reads an .npy file (mapping it when large).
absl::StatusOr<Tensor> ReadNpy(const std::string& path, const TensorReadOptions& opts = {});

// Reads a raw .bin file: opts.dtype and opts.shape are required; little-endian, C-order.
absl::StatusOr<Tensor> ReadBin(const std::string& path, const TensorReadOptions& opts);

// Dispatches on the content: files starting with the .npy magic are .npy, every other file is
// raw (.bin) and needs opts.dtype and opts.shape.
absl::StatusOr<Tensor> ReadTensorFile(const std::string& path,
                                      const TensorReadOptions& opts = {});

// Serialises a tensor as .npy version 1.0 (2.0 when the header needs it), little-endian,
// C-order, header padded to 64 bytes. bfloat16 is written as descr '<V2' (2-byte raw, what
// numpy writes for ml_dtypes.bfloat16), so reading it back needs dtype = kBFloat16.
std::string EncodeNpy(const Tensor& t);

// Writes EncodeNpy(t) atomically (temp file + rename).
absl::Status WriteNpy(const std::string& path, const Tensor& t);

// Writes the raw element bytes (little-endian, C-order) atomically.
absl::Status WriteBin(const std::string& path, const Tensor& t);

// The .npy descr string of a dtype ('<f2', '|b1', '<V2' for bfloat16, ...).
std::string NpyDescr(DType dtype);

// Parses "2,3,4", "2x3x4" or "(2, 3, 4)" ("" or "()" = 0-d) into a shape.
absl::StatusOr<Shape> ParseShape(std::string_view text);

}  // namespace opdev::precision
