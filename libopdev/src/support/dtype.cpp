// Names, sizes and spellings of element types.
#include "opdev/support/dtype.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

#include <string>
#include <utility>

namespace opdev {

std::string_view DTypeName(DType t) {
  switch (t) {
    case DType::kFloat16: return "float16";
    case DType::kBFloat16: return "bfloat16";
    case DType::kFloat32: return "float32";
    case DType::kFloat64: return "float64";
    case DType::kInt8: return "int8";
    case DType::kInt16: return "int16";
    case DType::kInt32: return "int32";
    case DType::kInt64: return "int64";
    case DType::kUInt8: return "uint8";
    case DType::kUInt16: return "uint16";
    case DType::kUInt32: return "uint32";
    case DType::kUInt64: return "uint64";
    case DType::kBool: return "bool";
    case DType::kHiFloat8: return "hifloat8";
  }
  return "float32";
}

std::string_view DTypePlName(DType t) {
  switch (t) {
    case DType::kFloat16: return "DT_FP16";
    case DType::kBFloat16: return "DT_BF16";
    case DType::kFloat32: return "DT_FP32";
    case DType::kFloat64: return "DT_FP64";
    case DType::kInt8: return "DT_INT8";
    case DType::kInt16: return "DT_INT16";
    case DType::kInt32: return "DT_INT32";
    case DType::kInt64: return "DT_INT64";
    case DType::kUInt8: return "DT_UINT8";
    case DType::kUInt16: return "DT_UINT16";
    case DType::kUInt32: return "DT_UINT32";
    case DType::kUInt64: return "DT_UINT64";
    case DType::kBool: return "DT_BOOL";
    case DType::kHiFloat8: return "DT_HF8";
  }
  return "DT_FP32";
}

bool IsFloating(DType t) {
  return t == DType::kFloat16 || t == DType::kBFloat16 || t == DType::kFloat32 ||
         t == DType::kFloat64 || t == DType::kHiFloat8;
}

bool IsSigned(DType t) {
  return IsFloating(t) || t == DType::kInt8 || t == DType::kInt16 || t == DType::kInt32 ||
         t == DType::kInt64;
}

std::optional<DType> ParseDType(std::string_view name) {
  std::string n = absl::AsciiStrToLower(std::string(name));
  for (const char* prefix : {"torch.", "np.", "numpy.", "pl.", "pypto_pro.language."})
    if (absl::StartsWith(n, prefix)) n = n.substr(std::string_view(prefix).size());
  if (absl::StartsWith(n, "dt_")) n = n.substr(3);
  static const std::pair<std::string_view, DType> kNames[] = {
      {"float16", DType::kFloat16}, {"half", DType::kFloat16}, {"fp16", DType::kFloat16},
      {"bfloat16", DType::kBFloat16}, {"bf16", DType::kBFloat16},
      {"float32", DType::kFloat32}, {"float", DType::kFloat32}, {"fp32", DType::kFloat32},
      {"float64", DType::kFloat64}, {"double", DType::kFloat64}, {"fp64", DType::kFloat64},
      {"int8", DType::kInt8}, {"int16", DType::kInt16}, {"short", DType::kInt16},
      {"int32", DType::kInt32}, {"int", DType::kInt32}, {"int64", DType::kInt64},
      {"long", DType::kInt64}, {"uint8", DType::kUInt8}, {"uint16", DType::kUInt16},
      {"uint32", DType::kUInt32}, {"uint64", DType::kUInt64}, {"bool", DType::kBool},
      {"hf8", DType::kHiFloat8}, {"hifloat8", DType::kHiFloat8},
  };
  for (const auto& [k, v] : kNames)
    if (n == k) return v;
  return std::nullopt;
}

}  // namespace opdev
