// The outputs a run hands back: a wrapper's returned tensors (written, never written, or the
// same tensor twice), their bytes moved or copied out of the run, and their provenance; and
// the inputs a run only reads, which keep no writer record.
#include "opdev/sim/hazards.h"
#include "opdev/sim/simulator.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

using namespace opdev;
using namespace opdev::sim;

namespace {

// `scale` writes y = 2 * x on one core; the wrappers return y, an untouched empty_like, or y
// twice.
const char* kSource = R"(import pypto_pro.language as pl
import torch


@pl.jit()
def scale(x: pl.Tensor[[8, 64], pl.DT_FP32], y: pl.Tensor[[8, 64], pl.DT_FP32]):
    t = pl.make_tile(pl.TileType(shape=[8, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x0, size=2048)
    with pl.section_vector():
        pl.load(t, x, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.muls(t, t, 2.0)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=1)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=1)
        pl.store(y, t, [0, 0])


def written(x):
    y = torch.empty_like(x)
    scale[None, 1](x, y)
    return y


def with_unwritten(x):
    y = torch.empty_like(x)
    z = torch.empty_like(x)
    scale[None, 1](x, y)
    return y, z


def twice(x):
    y = torch.empty_like(x)
    scale[None, 1](x, y)
    return y, y
)";

precision::Tensor Input() {
  std::vector<double> v(8 * 64);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.25 * static_cast<double>(i) - 7.0;
  return *precision::Tensor::FromDoubles(DType::kFloat32, {8, 64}, v);
}

SimResult Run(const std::string& entry, bool provenance = false) {
  SimOptions o;
  o.entry = entry;
  o.record_provenance = provenance;
  auto r = RunKernelSource(kSource, "outputs.py", {Input()}, o);
  REQUIRE(r.ok());
  return *r;
}

void CheckDoubled(const precision::Tensor& y) {
  const precision::Tensor x = Input();
  REQUIRE(y.numel() == x.numel());
  for (int64_t i = 0; i < x.numel(); ++i) CHECK(y.GetDouble(i) == 2 * x.GetDouble(i));
}

}  // namespace

TEST_CASE("a written output is handed back whole and writable") {
  SimResult r = Run("written", true);
  INFO(r.hazards.ToText());
  CHECK_FALSE(r.hazards.HasErrors());
  CHECK_FALSE(r.hazards.HasCode("SIM-OUT-UNWRITTEN"));
  REQUIRE(r.outputs.size() == 1);
  precision::Tensor& y = r.outputs[0].tensor;
  CheckDoubled(y);
  REQUIRE(y.is_writable());
  y.SetDouble(0, 5.0);
  CHECK(y.GetDouble(0) == 5.0);
  REQUIRE(r.outputs[0].origin.size() == 512);
  for (const ElementOrigin& e : r.outputs[0].origin) CHECK(e.core == 0);
}

TEST_CASE("an output no kernel wrote is reported whole, with no writer in its provenance") {
  SimResult r = Run("with_unwritten", true);
  INFO(r.hazards.ToText());
  REQUIRE(r.outputs.size() == 2);
  CheckDoubled(r.outputs[0].tensor);
  bool found = false;
  for (const Diagnostic& d : r.hazards.items())
    if (d.code == "SIM-OUT-UNWRITTEN") {
      found = true;
      CHECK(d.message.find("512 of 512 elements") != std::string::npos);
      CHECK(d.message.find("first at [0, 0]") != std::string::npos);
    }
  CHECK(found);
  REQUIRE(r.outputs[1].origin.size() == 512);
  for (const ElementOrigin& e : r.outputs[1].origin) CHECK(e.core == -1);
}

TEST_CASE("one tensor returned twice gives two equal outputs") {
  SimResult r = Run("twice");
  INFO(r.hazards.ToText());
  CHECK_FALSE(r.hazards.HasErrors());
  REQUIRE(r.outputs.size() == 2);
  CheckDoubled(r.outputs[0].tensor);
  CheckDoubled(r.outputs[1].tensor);
  // Two tensors, not one storage: writing one leaves the other as it was.
  r.outputs[0].tensor.SetDouble(1, 9.0);
  CHECK(r.outputs[1].tensor.GetDouble(1) == 2 * Input().GetDouble(1));
}

TEST_CASE("a byte vector taken over by a tensor") {
  std::vector<uint8_t> bytes(4 * 3 * sizeof(float));
  const float v[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  std::memcpy(bytes.data(), v, sizeof v);
  auto t = precision::Tensor::FromByteVector(DType::kFloat32, {4, 3}, std::move(bytes));
  REQUIRE(t.ok());
  CHECK(bytes.empty());
  CHECK(t->GetDouble(11) == 12.0);
  CHECK(t->is_writable());
  std::vector<uint8_t> wrong(10);
  auto bad = precision::Tensor::FromByteVector(DType::kFloat32, {4, 3}, std::move(wrong));
  REQUIRE_FALSE(bad.ok());
  CHECK(std::string(bad.status().message()).find("byte count 10") != std::string::npos);
  auto empty = precision::Tensor::FromByteVector(DType::kFloat16, {0, 5}, {});
  REQUIRE(empty.ok());
  CHECK(empty->numel() == 0);
  CHECK(empty->data() != nullptr);
}
