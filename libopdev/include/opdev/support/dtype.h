// Element types shared by every module (contract tables, tensor files, precision, codegen,
// the simulator): canonical names, sizes, and the spellings each source uses
// (torch/numpy names, PyPTO-Pro `pl.DT_*`, DESIGN table names such as FP16).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace opdev {

enum class DType {
  kFloat16, kBFloat16, kFloat32, kFloat64,
  kInt8, kInt16, kInt32, kInt64, kUInt8, kUInt16, kUInt32, kUInt64, kBool,
  kHiFloat8,  // pl.DT_HF8: 1-byte storage-only float of the Cube (opdev/support/hifloat8.h)
};

std::string_view DTypeName(DType t);        // canonical torch-style: "float16", "bfloat16", ...
std::string_view DTypePlName(DType t);      // PyPTO-Pro enum: "DT_FP16", "DT_BF16", "DT_FP32", ...
// Bytes per element (inline: every simulated element access asks it).
inline size_t DTypeSize(DType t) {
  switch (t) {
    case DType::kInt8: case DType::kUInt8: case DType::kBool: case DType::kHiFloat8: return 1;
    case DType::kFloat16: case DType::kBFloat16: case DType::kInt16: case DType::kUInt16: return 2;
    case DType::kFloat32: case DType::kInt32: case DType::kUInt32: return 4;
    case DType::kFloat64: case DType::kInt64: case DType::kUInt64: return 8;
  }
  return 4;
}
bool IsFloating(DType t);                   // HF8 included
bool IsSigned(DType t);

// Accepts canonical names, torch aliases (half, float, double, torch.float16, ...),
// PyPTO-Pro names (pl.DT_FP16, DT_FP32, ...) and DESIGN spellings (FP16, fp32, BF16, INT32),
// case-insensitively.
std::optional<DType> ParseDType(std::string_view name);

}  // namespace opdev
