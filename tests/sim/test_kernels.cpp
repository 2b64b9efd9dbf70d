// End-to-end simulator tests: kernels written for these tests (a VF softmax following the
// official tile-group VF structure, an elementwise tile-op kernel) run through their wrapper
// and kernel entries and are compared with double-precision references.
#include "sim_test_util.h"

#include <catch2/catch.hpp>

using namespace opdev;

TEST_CASE("VF softmax (fp32, row and column tails) matches a double reference") {
  auto shape = GENERATE(std::vector<int64_t>{777, 300}, std::vector<int64_t>{2049, 100},
                        std::vector<int64_t>{16, 64}, std::vector<int64_t>{1, 1},
                        std::vector<int64_t>{100, 512}, std::vector<int64_t>{33, 65});
  CAPTURE(shape);
  auto x = simtest::Random(DType::kFloat32, shape, -4.0, 4.0, 7);
  sim::SimOptions opts;
  opts.entry = "softmax_wrapper";
  auto r = sim::RunKernelFile(simtest::DataPath("softmax_vf_fp32.py"), {x}, opts);
  REQUIRE(r.ok());
  INFO(r->hazards.ToText());
  CHECK(r->completed);
  CHECK(r->hazards.empty());
  REQUIRE(r->outputs.size() == 1);
  const auto& y = r->outputs[0].tensor;
  CHECK(y.shape() == x.shape());
  CHECK(simtest::MaxAbsDiff(y, simtest::SoftmaxRef(x)) < 1e-6);
  int64_t blocks = (shape[0] + 15) / 16;
  CHECK(r->stats.block_dim == std::min<int64_t>(48, blocks));
  CHECK(r->stats.lane_ops > 0);
}
