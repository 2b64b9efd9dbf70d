// Tuple and list displays (`[r, 0]`, `(a, b)`): every evaluation is a new object as in Python,
// although the interpreter refills the sequence of a display's last evaluation when nothing
// else holds it (program.h, XNode::sequence). A sequence kept by a local, another list or a
// returned value must keep its items when the display runs again; a mutated one must not leak
// into the next evaluation; and a kernel whose offsets are such displays gives the same bytes
// run after run.
#include "sim_test_util.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <string>

using namespace opdev;

namespace {

const char* kHeader =
    "import pypto_pro.language as pl\n"
    "import torch\n";

// A vector kernel whose section body is `inner` (indented 8 spaces), a helper `ident`, and a
// wrapper launching the kernel: y = x ([1, 64]) through the offsets the body leaves in `src`.
std::string Kernel(const std::string& inner) {
  return std::string(kHeader) +
         "def ident(v):\n"
         "    return v\n"
         "@pl.jit\n"
         "def k(x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],\n"
         "      y: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32]):\n"
         "    t = pl.TileType(shape=[1, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)\n"
         "    a = pl.make_tile(t, addr=0)\n"
         "    with pl.section_vector():\n" +
         inner +
         "        pl.load(a, x, src)\n"
         "        pl.store(y, a, [0, 0])\n"
         "def w(x):\n"
         "    y = torch.empty_like(x)\n"
         "    k[None, 1](x, y)\n"
         "    return y\n";
}

void RunClean(const std::string& inner) {
  const auto x = simtest::Random(DType::kFloat32, {1, 64}, -1.0, 1.0);
  sim::SimOptions o;
  o.entry = "w";
  o.pipe_sync = false;  // the load and store have no sync between them: not what is tested here
  auto r = sim::RunKernelSource(Kernel(inner), "sequences.py", {x}, o);
  INFO(r.status().message());
  REQUIRE(r.ok());
  INFO(r->hazards.ToText());
  CHECK(r->completed);
  CHECK_FALSE(r->hazards.HasErrors());
  REQUIRE(r->outputs.size() == 1);
  CHECK(std::memcmp(r->outputs[0].tensor.data(), x.data(), 64 * 4) == 0);
}

}  // namespace

TEST_CASE("a list display evaluated again does not change a list an earlier evaluation handed out") {
  // `ident([i, 0])` hands the display's list through a call and keeps it: the later
  // evaluations must build other lists, so `first` still reads [0, 0] and `cur` [2, 0].
  RunClean(
      "        first = None\n"
      "        cur = None\n"
      "        for i in pl.range(0, 3):\n"
      "            cur = ident([i, 0])\n"
      "            if i == 0:\n"
      "                first = cur\n"
      "        assert first[0] == 0 and first[1] == 0, 'first changed'\n"
      "        assert cur[0] == 2, 'last wrong'\n"
      "        pair = ident((1, 2))\n"
      "        again = ident((3, 4))\n"
      "        assert pair[0] == 1 and again[0] == 3, 'tuple changed'\n"
      "        src = first\n");
}

TEST_CASE("a list display after its last list was mutated and dropped gives its own items") {
  // Each pass mutates the display's list and drops it; the next pass must see [0, 0] again.
  RunClean(
      "        src = None\n"
      "        for i in pl.range(0, 3):\n"
      "            l = [0, 0]\n"
      "            assert l[0] == 0 and l[1] == 0, 'stale items'\n"
      "            l[0] = 5 + i\n"
      "            l = None\n"
      "        src = [0, 0]\n");
}

TEST_CASE("a kernel whose load and store offsets are list displays gives the same bytes on every run") {
  // The fp16 VF softmax passes [row_off, 0] to pl.load and pl.store once per tile: the runs of
  // one process (the second and third reuse the lowered program and its display sequences)
  // must give the first run's bytes.
  const auto x = simtest::Random(DType::kFloat16, {77, 300}, -4.0, 4.0, 3);
  sim::SimOptions o;
  o.entry = "softmax_wrapper";
  std::string first;
  for (int run = 0; run < 3; ++run) {
    auto r = sim::RunKernelFile(simtest::DataPath("softmax_vf_fp16.py"), {x}, o);
    REQUIRE(r.ok());
    REQUIRE(r->completed);
    REQUIRE(r->outputs.size() == 1);
    const auto& t = r->outputs[0].tensor;
    const std::string bytes(reinterpret_cast<const char*>(t.data()), t.nbytes());
    if (run == 0) first = bytes;
    else CHECK(bytes == first);
  }
  CHECK(first.size() == 77u * 300u * 2u);
}
