// The lowered-program cache behind RunKernelSource and LaunchKernel: a source run again reuses
// its lowered program, and the run observes exactly what a run of a freshly lowered program
// does (hazards from lowering included, module values from earlier runs gone).
#include "sim_test_util.h"

#include "opdev/sim/hazards.h"
#include "opdev/sim/launch.h"
#include "opdev/support/file_io.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <thread>

using namespace opdev;

namespace {

sim::SimResult RunEntry(const std::string& src, const std::string& entry, const std::vector<precision::Tensor>& in) {
  sim::SimOptions opts;
  opts.entry = entry;
  auto r = sim::RunKernelSource(src, "cached.py", in, opts);
  REQUIRE(r.ok());
  return *r;
}

// Everything a run reports, as text: hazards, output bytes, statistics.
std::string Observed(const sim::SimResult& r) {
  std::string s = r.hazards.ToText();
  s += r.completed ? "completed\n" : "stopped\n";
  for (const auto& o : r.outputs) {
    s += o.name + ":";
    s.append(reinterpret_cast<const char*>(o.tensor.data()), o.tensor.nbytes());
    s += "\n";
  }
  const auto& t = r.stats;
  for (int64_t v : {t.vf_ops, t.lane_ops, t.tile_elems, t.statements, t.cores_run, t.pipe_flags_pending, t.launches,
                    t.block_dim, t.work, t.work_budget})
    s += std::to_string(v) + " ";
  return s;
}

// The fp32 VF softmax with its output loop reusing the previous loop's mask: a finding of
// lowering (SIM-VF-STALE-VALUE) and a wrong output.
std::string StaleMaskKernel() {
  return simtest::MutateNth(*ReadTextFile(simtest::DataPath("softmax_vf_fp32.py")),
                            "            m = vf.update_mask(live, dtype=pl.DT_FP32)\n", "", 2);
}

}  // namespace

TEST_CASE("a source run again reuses its lowered program and observes what its first run did") {
  const std::string src = StaleMaskKernel();
  const auto x = simtest::Random(DType::kFloat32, {77, 300}, -4.0, 4.0, 5);
  sim::ClearLaunchCache();
  const sim::SimResult first = RunEntry(src, "softmax_wrapper", {x});
  const sim::SimResult again = RunEntry(src, "softmax_wrapper", {x});
  sim::ClearLaunchCache();
  const sim::SimResult fresh = RunEntry(src, "softmax_wrapper", {x});
  CHECK_FALSE(first.program_cached);
  CHECK(again.program_cached);
  CHECK_FALSE(fresh.program_cached);
  INFO(first.hazards.ToText());
  CHECK(first.hazards.HasCode("SIM-VF-STALE-VALUE"));  // reported by lowering, replayed on the hit
  CHECK(Observed(again) == Observed(first));
  CHECK(Observed(fresh) == Observed(first));

  // Another text under the same name is lowered anew.
  const std::string other = src + "\n# edited\n";
  CHECK_FALSE(RunEntry(other, "softmax_wrapper", {x}).program_cached);
  CHECK(RunEntry(other, "softmax_wrapper", {x}).program_cached);
}

TEST_CASE("module values a run created are gone when the cached program runs again") {
  const std::string src =
      "import pypto_pro.language as pl\n"
      "import torch\n"
      "\n"
      "\n"
      "def set_flag(x):\n"
      "    global FLAG\n"
      "    FLAG = 1\n"
      "    return None\n"
      "\n"
      "\n"
      "def read_flag(x):\n"
      "    return FLAG + 1\n";
  const auto x = simtest::Random(DType::kFloat32, {2, 2}, -1.0, 1.0);
  sim::ClearLaunchCache();
  const sim::SimResult fresh = RunEntry(src, "read_flag", {x});
  INFO(fresh.hazards.ToText());
  REQUIRE(fresh.hazards.ToText().find("name 'FLAG' is not defined") != std::string::npos);
  const sim::SimResult set = RunEntry(src, "set_flag", {x});
  INFO(set.hazards.ToText());
  CHECK(set.completed);
  const sim::SimResult after = RunEntry(src, "read_flag", {x});
  CHECK(after.program_cached);
  CHECK(Observed(after) == Observed(fresh));
}

TEST_CASE("concurrent runs of one source each get a program of their own") {
  const std::string src = *ReadTextFile(simtest::DataPath("softmax_vf_fp16.py"));
  const auto x = simtest::Random(DType::kFloat16, {33, 200}, -4.0, 4.0, 7);
  sim::ClearLaunchCache();
  const std::string expected = Observed(RunEntry(src, "softmax_wrapper", {x}));
  std::vector<std::string> got(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < got.size(); ++t)
    threads.emplace_back([&, t] {
      sim::SimOptions opts;
      opts.entry = "softmax_wrapper";
      for (int k = 0; k < 3; ++k) {
        auto r = sim::RunKernelSource(src, "cached.py", {x}, opts);
        std::string o = r.ok() ? Observed(*r) : std::string(r.status().message());
        if (k == 0 || got[t] == expected) got[t] = o;
      }
    });
  for (auto& th : threads) th.join();
  for (const auto& g : got) CHECK(g == expected);
}

TEST_CASE("a refused *args, **kwargs or **mapping leaves no lookup of a dropped node behind (run twice)") {
  // Each refused form holds a module-level name before the refused item; its lookup used to
  // stay registered after the lowered call was dropped, and resetting module values between
  // runs wrote through it (heap use after free under ASan, found by fuzz_sim).
  const std::string src = R"(import torch

def helper(*a, **k):
    return a

def wrap(x):
    helper(x, *[x])
    helper(x, **{"a": x})
    d = {"k": helper, **{"b": x}}
    return x
)";
  auto x = simtest::Random(DType::kFloat32, {4, 8}, -1, 1, 3);
  for (int run = 0; run < 2; ++run) {
    const auto r = RunEntry(src, "wrap", {x});
    INFO(r.hazards.ToText());
    CHECK(r.hazards.ToText().find(std::string(sim::hazard::kUnsupported)) != std::string::npos);
  }
}
