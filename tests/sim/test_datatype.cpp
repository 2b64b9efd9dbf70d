// Datatype specialisation (offline_binary_compilation.md, tiling_key.md): a
// @pl.jit(datatype={"param": "name"}) kernel reads each name as the dtype its launch gives for
// the parameter, kernel[stream, block_dim, {...}] (after the tiling key when it has one) from a
// wrapper or SimOptions::datatype for a kernel entry; the dict must name exactly the schema's
// parameters with pl.DT_* values that agree per name, and a kernel without a schema takes none.
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

const char* kDt = R"(import pypto_pro.language as pl
import torch


@pl.jit(datatype={"x": "io_dtype", "out": "io_dtype"})
def k(x: pl.Ptr[pl.DT_UINT8], out: pl.Ptr[pl.DT_UINT8]):
    with pl.section_vector():
        xt = pl.make_tensor(x, [8, 64], dtype=io_dtype)
        ot = pl.make_tensor(out, [8, 64], dtype=io_dtype)
        t = pl.make_tile(pl.TileType(shape=[8, 64], dtype=io_dtype, target_memory=pl.MemorySpace.Vec), addr=0x0, size=2048)
        pl.load(t, xt, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.add(t, t, t)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(ot, t, [0, 0])


def run(x):
    out = torch.empty_like(x)
    k[None, 1, {"x": pl.DT_FP16, "out": pl.DT_FP16}](x, out)
    return out
)";

SimResult RunDt(const std::string& src, const std::string& entry, DType in_dtype,
                std::vector<std::pair<std::string, DType>> datatype,
                std::vector<std::pair<std::string, int64_t>> key = {}) {
  auto x = simtest::Random(in_dtype, {8, 64}, -1, 1, 9);
  auto out = simtest::Random(in_dtype, {8, 64}, 0, 0, 1);
  SimOptions o;
  o.entry = entry;
  o.datatype = std::move(datatype);
  o.tiling_key = std::move(key);
  std::vector<precision::Tensor> in = {x};
  if (entry == "k") in.push_back(out);
  auto r = RunKernelSource(src, "dt.py", in, o);
  REQUIRE(r.ok());
  if (r->completed && !r->outputs.empty()) {
    REQUIRE(r->outputs[0].tensor.dtype() == in_dtype);
    for (int64_t i = 0; i < 8 * 64; ++i) REQUIRE(r->outputs[0].tensor.GetDouble(i) == 2 * x.GetDouble(i));
  }
  return *r;
}

}  // namespace

TEST_CASE("a datatype dict names the dtype of each specialised parameter: kernel entry and wrapper launch") {
  for (DType d : {DType::kFloat32, DType::kFloat16}) {
    SimResult r = RunDt(kDt, "k", d, {{"x", d}, {"out", d}});
    INFO(r.hazards.ToText());
    REQUIRE(r.completed);
    REQUIRE(r.hazards.ErrorCount() == 0);
    REQUIRE(r.outputs.size() == 1);
  }
  SimResult w = RunDt(kDt, "run", DType::kFloat16, {});
  INFO(w.hazards.ToText());
  REQUIRE(w.completed);
  REQUIRE(w.hazards.ErrorCount() == 0);
  REQUIRE(w.outputs.size() == 1);
  // The variable is the launch's dtype, not a fixed one: an fp16 launch over fp32 buffers makes
  // fp16 views of half of each buffer (a partial view, which the simulator does not model).
  SimResult mixed = RunDt(kDt, "k", DType::kFloat32, {{"x", DType::kFloat16}, {"out", DType::kFloat16}});
  CHECK_FALSE(mixed.completed);
  CHECK(HasAt(mixed.hazards, hazard::kUnsupported, LineOf(kDt, "xt = pl.make_tensor")));
}

TEST_CASE("a datatype dict comes after the tiling key, and a three-item launch of a keyed kernel is its key") {
  std::string src = Mutate(kDt, "import torch\n",
                           "import torch\nfrom pypto_pro.runtime.tilingkey import TilingKeyField\n\n\n"
                           "class TwiceKey:\n    Twice = TilingKeyField(bits=1, values=[0, 1])\n");
  src = Mutate(src, "@pl.jit(datatype=", "@pl.jit(tiling_key=TwiceKey, datatype=");
  src = Mutate(src, "        pl.add(t, t, t)\n", "        if Twice == 1:\n            pl.add(t, t, t)\n");
  src = Mutate(src, "k[None, 1, {\"x\"", "k[None, 1, {\"Twice\": 1}, {\"x\"");
  SimResult e = RunDt(src, "k", DType::kFloat32, {{"x", DType::kFloat32}, {"out", DType::kFloat32}}, {{"Twice", 1}});
  INFO(e.hazards.ToText());
  CHECK(e.completed);
  CHECK(e.hazards.ErrorCount() == 0);
  SimResult w = RunDt(src, "run", DType::kFloat16, {});
  INFO(w.hazards.ToText());
  CHECK(w.completed);
  CHECK(w.hazards.ErrorCount() == 0);
  // The key alone: the kernel still needs its datatype dict.
  const std::string key_only = Mutate(src, "k[None, 1, {\"Twice\": 1}, {\"x\": pl.DT_FP16, \"out\": pl.DT_FP16}]",
                                      "k[None, 1, {\"Twice\": 1}]");
  SimResult r = RunDt(key_only, "run", DType::kFloat16, {});
  CHECK_FALSE(r.completed);
  CHECK(HasAt(r.hazards, hazard::kRuntimeError, LineOf(key_only, "k[None, 1, {")));
}

TEST_CASE("a datatype dict must name exactly the schema's parameters with agreeing pl.DT_* values") {
  const int launch = LineOf(kDt, "k[None, 1, {");
  auto refused = [&](const std::string& src, const std::string& entry,
                     std::vector<std::pair<std::string, DType>> dt, int line) {
    SimResult r = RunDt(src, entry, DType::kFloat16, std::move(dt));
    INFO(r.hazards.ToText());
    CHECK_FALSE(r.completed);
    CHECK(HasAt(r.hazards, hazard::kRuntimeError, line));
  };
  const int def = LineOf(kDt, "def k(");
  const DType h = DType::kFloat16;
  refused(kDt, "k", {}, def);                                            // no dict at all
  refused(kDt, "k", {{"x", h}}, def);                                    // a parameter missing
  refused(kDt, "k", {{"x", h}, {"out", h}, {"y", h}}, def);              // one the schema lacks
  refused(kDt, "k", {{"x", h}, {"out", DType::kFloat32}}, def);          // one name, two dtypes
  const std::string launch_text = "k[None, 1, {\"x\": pl.DT_FP16, \"out\": pl.DT_FP16}]";
  refused(Mutate(kDt, launch_text, "k[None, 1, {\"x\": 16, \"out\": 16}]"), "run", {}, launch);
  refused(Mutate(kDt, launch_text, "k[None, 1, [pl.DT_FP16]]"), "run", {}, launch);
  refused(Mutate(kDt, launch_text, "k[None, 1]"), "run", {}, launch);
  refused(Mutate(kDt, launch_text, "k(x, out)\n    k[None, 1]"), "run", {}, launch);  // a direct call
  // A dict for a kernel without datatype=.
  refused(Mutate(kDt, "@pl.jit(datatype={\"x\": \"io_dtype\", \"out\": \"io_dtype\"})", "@pl.jit()"), "run", {},
          launch);
  // The decorator's dict as the frontend checks it: parameters of the kernel, identifiers that
  // are neither a parameter nor a tiling-key field; reported at the decorator's line.
  const int deco = LineOf(kDt, "@pl.jit(datatype=");
  refused(Mutate(kDt, "\"out\": \"io_dtype\"}", "\"y\": \"io_dtype\"}"), "run", {}, deco);
  refused(Mutate(kDt, "\"out\": \"io_dtype\"}", "\"out\": \"x\"}"), "run", {}, deco);
  refused(Mutate(kDt, "\"out\": \"io_dtype\"}", "\"out\": \"io dtype\"}"), "run", {}, deco);
  refused(Mutate(kDt, "datatype={\"x\": \"io_dtype\", \"out\": \"io_dtype\"}", "datatype={}"), "run", {}, deco);
  // The name belongs to the launch: the wrapper cannot read it after the launch.
  const std::string after = Mutate(kDt, "    return out\n", "    return out if io_dtype == pl.DT_FP16 else x\n");
  refused(after, "run", {}, LineOf(after, "return out if io_dtype"));
}

TEST_CASE("a datatype variable hides a module value of its name for the launch only") {
  const std::string src = Mutate(Mutate(kDt, "import torch\n", "import torch\n\nio_dtype = pl.DT_FP32\n"),
                                 "    return out\n", "    assert io_dtype == pl.DT_FP32\n    return out\n");
  SimResult w = RunDt(src, "run", DType::kFloat16, {});
  INFO(w.hazards.ToText());
  CHECK(w.completed);
  CHECK(w.hazards.ErrorCount() == 0);
}
