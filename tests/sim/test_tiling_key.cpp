// Tiling keys (tiling_key.md): a @pl.jit(tiling_key=Schema) kernel reads each TilingKeyField of
// the schema class as a constant name bound by its launch, kernel[stream, block_dim, {...}]
// from a wrapper or SimOptions::tiling_key for a kernel entry; the key must name every field
// with one of its values, and a key the schema or the kernel does not take is refused.
#include "sim_test_util.h"

#include "opdev/sim/hazards.h"
#include "opdev/sim/simulator.h"

#include <catch2/catch.hpp>

using namespace opdev;
using namespace opdev::sim;
using simtest::HasAt;
using simtest::LineOf;
using simtest::Mutate;

namespace {

const char* kKey = R"(import pypto_pro.language as pl
import torch
from pypto_pro.runtime.tilingkey import TilingKeyField


class ScaleKey:
    Twice = TilingKeyField(bits=1, values=[0, 1])
    Bias = TilingKeyField(bits=3, values=[0, 5])


@pl.jit(tiling_key=ScaleKey)
def k(x: pl.Tensor[[8, 64], pl.DT_FP32], out: pl.Tensor[[8, 64], pl.DT_FP32]):
    with pl.section_vector():
        t = pl.make_tile(pl.TileType(shape=[8, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x0, size=2048)
        pl.load(t, x, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        if Twice == 1:
            pl.mul(t, t, 2.0)
        pl.add(t, t, Bias * 1.0)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, t, [0, 0])


def run(x):
    out = torch.empty_like(x)
    k[None, 1, {"Twice": 1, "Bias": 5}](x, out)
    return out
)";

struct Run {
  SimResult r;
  precision::Tensor x;
};

Run RunKey(const std::string& src, const std::string& entry, std::vector<std::pair<std::string, int64_t>> key) {
  auto x = simtest::Random(DType::kFloat32, {8, 64}, -1, 1, 9);
  auto out = simtest::Random(DType::kFloat32, {8, 64}, 0, 0, 1);
  SimOptions o;
  o.entry = entry;
  o.tiling_key = std::move(key);
  std::vector<precision::Tensor> in = {x};
  if (entry == "k") in.push_back(out);
  auto r = RunKernelSource(src, "key.py", in, o);
  REQUIRE(r.ok());
  return {*r, x};
}

double Out(const SimResult& r, int64_t i) {
  REQUIRE(!r.outputs.empty());
  return r.outputs[0].tensor.GetDouble(i);
}

}  // namespace

TEST_CASE("a tiling key binds its fields for the launch: kernel entry and wrapper launch") {
  for (auto [twice, bias] : {std::pair<int64_t, int64_t>{1, 5}, {0, 0}, {0, 5}}) {
    Run r = RunKey(kKey, "k", {{"Twice", twice}, {"Bias", bias}});
    INFO(r.r.hazards.ToText());
    REQUIRE(r.r.hazards.ErrorCount() == 0);
    for (int64_t i = 0; i < 8 * 64; ++i)
      REQUIRE(Out(r.r, i) == static_cast<float>(static_cast<float>(r.x.GetDouble(i)) * (twice ? 2.0f : 1.0f) + bias));
  }
  Run w = RunKey(kKey, "run", {});
  INFO(w.r.hazards.ToText());
  REQUIRE(w.r.hazards.ErrorCount() == 0);
  for (int64_t i = 0; i < 8 * 64; ++i)
    REQUIRE(Out(w.r, i) == static_cast<float>(static_cast<float>(w.x.GetDouble(i)) * 2.0f + 5.0f));
}

TEST_CASE("a tiling key must name every field with one of its values, and only for a keyed kernel") {
  const int launch = LineOf(kKey, "k[None, 1, {");
  auto refused = [&](const std::string& src, const std::string& entry,
                     std::vector<std::pair<std::string, int64_t>> key, int line) {
    Run r = RunKey(src, entry, std::move(key));
    INFO(r.r.hazards.ToText());
    CHECK_FALSE(r.r.completed);
    CHECK(HasAt(r.r.hazards, hazard::kRuntimeError, line));
  };
  const int def = LineOf(kKey, "def k(");
  refused(kKey, "k", {}, def);                                  // no key at all
  refused(kKey, "k", {{"Twice", 1}}, def);                      // a field missing
  refused(kKey, "k", {{"Twice", 2}, {"Bias", 0}}, def);         // not a candidate value
  refused(kKey, "k", {{"Twice", 1}, {"Bias", 0}, {"X", 1}}, def);  // a field the schema lacks
  refused(Mutate(kKey, "{\"Twice\": 1, \"Bias\": 5}", "{\"Twice\": 1, \"Bias\": 4}"), "run", {}, launch);
  // A key for a kernel without tiling_key=, and a keyed kernel launched without one.
  refused(Mutate(kKey, "@pl.jit(tiling_key=ScaleKey)", "@pl.jit()"), "run", {}, launch);
  refused(Mutate(kKey, "k[None, 1, {\"Twice\": 1, \"Bias\": 5}]", "k[None, 1]"), "run", {}, launch);
  // The field is a name of that launch only: after it, the wrapper cannot read it.
  std::string after = Mutate(kKey, "    return out\n", "    return out if Twice == 1 else x\n");
  refused(after, "run", {}, LineOf(after, "return out if Twice"));
}
