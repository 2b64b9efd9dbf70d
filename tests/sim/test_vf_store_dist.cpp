// vf.store_align's single-register distributions (store_align.md table 1, StoreDist.md):
// PACK stores the low half of each active lane, PACK4 the low 8 bits of each active 32-bit
// lane, both contiguously; FIRST_ELEMENT stores lane 0 whatever the mask. A mask whose active
// lanes are not lanes 0..k-1 is refused (the pages do not say where its parts go), and so are
// the widths a distribution is not defined for.
#include "sim_test_util.h"

#include "opdev/sim/hazards.h"
#include "opdev/sim/simulator.h"

#include <catch2/catch.hpp>

#include "absl/strings/str_replace.h"

#include <cstring>
#include <vector>

using namespace opdev;
using namespace opdev::sim;
using simtest::HasAt;
using simtest::LineOf;
using simtest::Mutate;

namespace {

// x: 64 int32 values; out: the destination row, loaded into the tile first so that bytes the
// store leaves alone keep out's values. STORE is replaced by each case's store.
const char* kKernel = R"(import pypto_pro.language as pl
from pypto_pro.language import Vf as vf


@pl.vector_function
def pack_row(src, dst):
    reg = vf.load_align(src, 0)
    m = vf.update_mask(40, dtype=pl.DT_INT32)
    STORE


@pl.jit()
def k(x: pl.Tensor[[1, 64], pl.DT_INT32], out: pl.Tensor[[1, OUT_N], OUT_T]):
    with pl.section_vector():
        src = pl.make_tile(pl.TileType(shape=[1, 64], dtype=pl.DT_INT32, target_memory=pl.MemorySpace.Vec), addr=0x0, size=256)
        dst = pl.make_tile(pl.TileType(shape=[1, OUT_N], dtype=OUT_T, target_memory=pl.MemorySpace.Vec), addr=0x100, size=256)
        pl.load(src, x, [0, 0])
        pl.load(dst, out, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pack_row(src, dst)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, dst, [0, 0])
)";

struct Case {
  std::string src;
  precision::Tensor x;
  absl::StatusOr<SimResult> result;
};

// Runs the kernel with `store` into an OUT_T row of out_n elements (all -1 before the store).
Case Run(const std::string& store, const char* out_t, DType out_dtype, int out_n) {
  const std::string src =
      absl::StrReplaceAll(Mutate(kKernel, "STORE", store), {{"OUT_N", std::to_string(out_n)}, {"OUT_T", out_t}});
  std::vector<double> xv(64);
  for (int i = 0; i < 64; ++i) xv[i] = (i % 2 ? -1.0 : 1.0) * (70000.0 * i + 300.0 * i + 7);  // high and low bits set
  auto x = *precision::Tensor::FromDoubles(DType::kInt32, {1, 64}, xv);
  auto out = *precision::Tensor::FromDoubles(out_dtype, {1, out_n}, std::vector<double>(out_n, -1.0));
  SimOptions o;
  o.entry = "k";
  auto r = RunKernelSource(src, "store_dist.py", {x, out}, o);
  return Case{src, x, std::move(r)};
}

const precision::Tensor& Out(const Case& c) {
  REQUIRE(c.result.ok());
  INFO(c.result->hazards.ToText());
  REQUIRE(c.result->hazards.ErrorCount() == 0);
  for (const auto& o : c.result->outputs)
    if (o.name == "out") return o.tensor;
  FAIL("no output 'out'");
  throw 0;
}

}  // namespace

TEST_CASE("store_align dist=PACK stores the low 16 bits of each active 32-bit lane contiguously") {
  const Case c = Run("vf.store_align(dst, reg, m, dist=pl.StoreDist.PACK)", "pl.DT_INT16", DType::kInt16, 128);
  const precision::Tensor& out = Out(c);
  const int32_t* x = c.x.data_as<int32_t>();
  const int16_t* y = out.data_as<int16_t>();
  for (int i = 0; i < 40; ++i) {
    INFO("lane " << i);
    CHECK(static_cast<uint16_t>(y[i]) == static_cast<uint16_t>(static_cast<uint32_t>(x[i]) & 0xFFFFu));
  }
  for (int i = 40; i < 128; ++i) CHECK(y[i] == -1);  // the parts of inactive lanes are not written
}

TEST_CASE("store_align dist=PACK4 stores the low 8 bits of each active 32-bit lane contiguously") {
  const Case c = Run("vf.store_align(dst, reg, m, dist=pl.StoreDist.PACK4)", "pl.DT_INT8", DType::kInt8, 256);
  const precision::Tensor& out = Out(c);
  const int32_t* x = c.x.data_as<int32_t>();
  const int8_t* y = out.data_as<int8_t>();
  for (int i = 0; i < 40; ++i) CHECK(static_cast<uint8_t>(y[i]) == (static_cast<uint32_t>(x[i]) & 0xFFu));
  for (int i = 40; i < 256; ++i) CHECK(y[i] == -1);
}

TEST_CASE("store_align dist=FIRST_ELEMENT stores lane 0 whatever the mask, at an element offset") {
  // The mask admits no lane at all: FIRST_ELEMENT ignores it.
  const Case c = Run(
      "m0 = vf.update_mask(0, dtype=pl.DT_INT32)\n    vf.store_align(dst + 5, reg, m0, dist=pl.StoreDist.FIRST_ELEMENT)",
      "pl.DT_INT32", DType::kInt32, 64);
  const precision::Tensor& out = Out(c);
  const int32_t* y = out.data_as<int32_t>();
  CHECK(y[5] == c.x.data_as<int32_t>()[0]);
  for (int i = 0; i < 64; ++i)
    if (i != 5) CHECK(y[i] == -1);
}

TEST_CASE("store_align dist=PACK post_update advances the cursor by its step") {
  // Two packed stores of 40 lanes through one cursor stepping 40 int16 elements.
  const Case c = Run(
      "for i in pl.range(0, 2):\n        vf.store_align(dst, reg, m, 40, dist=pl.StoreDist.PACK, post_update=True)",
      "pl.DT_INT16", DType::kInt16, 128);
  // The second store starts at byte 80, not 32-byte aligned: refused with the line.
  REQUIRE(c.result.ok());
  CHECK(HasAt(c.result->hazards, hazard::kRegisterRange, LineOf(c.src, "post_update=True")));
  const Case ok = Run(
      "for i in pl.range(0, 2):\n        vf.store_align(dst, reg, m, 48, dist=pl.StoreDist.PACK, post_update=True)",
      "pl.DT_INT16", DType::kInt16, 128);
  const precision::Tensor& out = Out(ok);
  const int32_t* x = ok.x.data_as<int32_t>();
  const int16_t* y = out.data_as<int16_t>();
  for (int i = 0; i < 40; ++i) {
    CHECK(static_cast<uint16_t>(y[i]) == (static_cast<uint32_t>(x[i]) & 0xFFFFu));
    CHECK(static_cast<uint16_t>(y[48 + i]) == (static_cast<uint32_t>(x[i]) & 0xFFFFu));
  }
  CHECK(y[40] == -1);
  CHECK(y[47] == -1);
  CHECK(y[88] == -1);
}

TEST_CASE("store_align packed distributions refuse masks with gaps and widths they are not defined for") {
  // A compare mask: lanes with positive values (every other lane) are active.
  const Case gaps = Run(
      "z = vf.full(0, dtype=pl.DT_INT32)\n    g = vf.gt(reg, z, m)\n    vf.store_align(dst, reg, g, dist=pl.StoreDist.PACK)",
      "pl.DT_INT16", DType::kInt16, 128);
  REQUIRE(gaps.result.ok());
  CHECK(HasAt(gaps.result->hazards, hazard::kUnsupported, LineOf(gaps.src, "dist=pl.StoreDist.PACK")));
  CHECK(gaps.result->hazards.ToText().find("not lanes 0..k-1") != std::string::npos);
  // PACK4 of a 16-bit register.
  const Case narrow = Run(
      "h = vf.astype(reg, m, dtype=pl.DT_INT16, layout=pl.CastLayout.ZERO)\n    "
      "m16 = vf.update_mask(40, dtype=pl.DT_INT16)\n    vf.store_align(dst, h, m16, dist=pl.StoreDist.PACK4)",
      "pl.DT_INT8", DType::kInt8, 256);
  REQUIRE(narrow.result.ok());
  CHECK(narrow.result->hazards.ErrorCount() > 0);
  CHECK(narrow.result->hazards.ToText().find("defined for 32-bit registers") != std::string::npos);
  // A packed store with DataBlock copying.
  const Case block = Run(
      "vf.store_align(dst, reg, m, dist=pl.StoreDist.PACK, data_copy_mode=pl.DataCopyMode.DATA_BLOCK_COPY)",
      "pl.DT_INT16", DType::kInt16, 128);
  REQUIRE(block.result.ok());
  CHECK(block.result->hazards.ToText().find("DATA_BLOCK_COPY") != std::string::npos);
  CHECK(block.result->hazards.ErrorCount() > 0);
}
