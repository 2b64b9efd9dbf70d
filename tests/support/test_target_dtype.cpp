// Tests of target capacities and dtype spellings.
#include <catch2/catch.hpp>

#include "opdev/support/dtype.h"
#include "opdev/support/target.h"

using namespace opdev;

TEST_CASE("A5 and A3 capacities and alignments") {
  CHECK(FindSpace(Target::kA5, MemSpace::kVec)->capacity == 253952);
  CHECK(FindSpace(Target::kA5, MemSpace::kMat)->capacity == 524288);
  CHECK(FindSpace(Target::kA5, MemSpace::kLeft)->capacity == 65536);
  CHECK(FindSpace(Target::kA5, MemSpace::kRight)->capacity == 65536);
  CHECK(FindSpace(Target::kA5, MemSpace::kAcc)->capacity == 262144);
  CHECK(FindSpace(Target::kA3, MemSpace::kVec)->capacity == 196608);
  CHECK(FindSpace(Target::kA3, MemSpace::kAcc)->capacity == 131072);
  CHECK(FindSpace(Target::kA5, MemSpace::kVec)->alignment == 32);
  CHECK(FindSpace(Target::kA5, MemSpace::kLeft)->alignment == 512);
  CHECK(FindSpace(Target::kA5, MemSpace::kAcc)->alignment == 64);
  CHECK(FindSpace(Target::kA5, MemSpace::kGM) == nullptr);
  CHECK(ParseTarget("A5") == Target::kA5);
  CHECK(!ParseTarget("a9").has_value());
  CHECK(ParseMemSpace("pl.MemorySpace.Vec") == MemSpace::kVec);
  CHECK(ParseMemSpace("L0C") == MemSpace::kAcc);
  CHECK(!ParseMemSpace("L2").has_value());
}

TEST_CASE("dtype spellings from every source") {
  CHECK(ParseDType("FP16") == DType::kFloat16);
  CHECK(ParseDType("pl.DT_FP32") == DType::kFloat32);
  CHECK(ParseDType("torch.bfloat16") == DType::kBFloat16);
  CHECK(ParseDType("half") == DType::kFloat16);
  CHECK(ParseDType("double") == DType::kFloat64);
  CHECK(!ParseDType("complex64").has_value());
  CHECK(DTypeSize(DType::kBFloat16) == 2);
  CHECK(DTypeSize(DType::kInt64) == 8);
  CHECK(DTypePlName(DType::kFloat16) == "DT_FP16");
  CHECK(IsFloating(DType::kBFloat16));
  CHECK_FALSE(IsFloating(DType::kInt32));
}
