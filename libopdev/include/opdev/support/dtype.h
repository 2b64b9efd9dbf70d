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
size_t DTypeSize(DType t);                  // bytes per element
bool IsFloating(DType t);                   // HF8 included
bool IsSigned(DType t);

// Accepts canonical names, torch aliases (half, float, double, torch.float16, ...),
// PyPTO-Pro names (pl.DT_FP16, DT_FP32, ...) and DESIGN spellings (FP16, fp32, BF16, INT32),
// case-insensitively.
std::optional<DType> ParseDType(std::string_view name);

}  // namespace opdev
