// Bound builtin calls (program.h, XNode::bound): a vf.* register operation written with its
// operands as positional locals runs through its bound form, the same call with an operand
// given by keyword through the general entry. Both must observe exactly the same: outputs,
// hazards with their lines, statistics. A result stored into the register its local held must
// never change a register another name still shares.
#include "sim_test_util.h"

#include "opdev/sim/hazards.h"
#include "opdev/sim/simulator.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

using namespace opdev;
using simtest::HasAt;
using simtest::HasErrorAt;
using simtest::LineOf;

namespace {

// `body` runs inside the VF function with x, y (fp32 registers of the inputs), m (ALL fp32),
// h (the first 40 fp32 lanes) and m16 (ALL fp16); it leaves the results in r (stored to
// out[0, :64]) and s (out[0, 64:], r unless the body sets s).
std::string Kernel(const std::string& body, bool keyword_masks = false) {
  const std::string h = keyword_masks ? "vf.update_mask(scalar=40, dtype=pl.DT_FP32)"
                                      : "vf.update_mask(40, dtype=pl.DT_FP32)";
  return "import pypto_pro.language as pl\n"
         "from pypto_pro.language import Vf as vf\n\n"
         "@pl.vector_function\n"
         "def body(tx, ty, to):\n"
         "    m = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)\n"
         "    m16 = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP16)\n"
         "    h = " + h + "\n"
         "    x = vf.load_align(tx, 0)\n"
         "    y = vf.load_align(ty, 0)\n" +
         body + (body.find("    s = ") == std::string::npos ? "    s = r\n" : "") +
         "    vf.store_align(to, r, m)\n"
         "    vf.store_align(to + 64, s, m)\n\n"
         "@pl.jit(auto_mutex=True)\n"
         "def k(x: pl.Tensor[[1, 64], pl.DT_FP32], y: pl.Tensor[[1, 64], pl.DT_FP32],\n"
         "      out: pl.Tensor[[1, 128], pl.DT_FP32]):\n"
         "    tt = pl.TileType(shape=[1, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)\n"
         "    ot = pl.TileType(shape=[1, 128], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)\n"
         "    gx = pl.make_tile_group(type=tt, addrs=0, mutex_ids=[0])\n"
         "    gy = pl.make_tile_group(type=tt, addrs=256, mutex_ids=[1])\n"
         "    go = pl.make_tile_group(type=ot, addrs=512, mutex_ids=[2])\n"
         "    with pl.section_vector():\n"
         "        tx = gx.current()\n"
         "        ty = gy.current()\n"
         "        to = go.current()\n"
         "        pl.load(tx, x, [0, 0])\n"
         "        pl.load(ty, y, [0, 0])\n"
         "        body(tx, ty, to)\n"
         "        pl.store(out, to, [0, 0])\n";
}

std::vector<precision::Tensor> Inputs() {
  precision::Tensor x = simtest::Random(DType::kFloat32, {1, 64}, -3, 3, 7);
  precision::Tensor y = simtest::Random(DType::kFloat32, {1, 64}, -2, 2, 8);
  const float nan = std::nanf("");
  x.mutable_data_as<float>()[5] = nan;   // a NaN lane
  y.mutable_data_as<float>()[7] = 0.0f;  // a division by zero
  return {x, y, *precision::Tensor::Zeros(DType::kFloat32, {1, 128})};
}

sim::SimResult Run(const std::string& src) {
  sim::SimOptions o;
  o.entry = "k";
  auto r = sim::RunKernelSource(src, "bound.py", Inputs(), o);
  REQUIRE(r.ok());
  return *r;
}

// The observable result of a run: output bytes, hazard text, the statistics.
std::string Observed(const sim::SimResult& r) {
  std::string s = r.completed ? "completed\n" : "stopped\n";
  for (const auto& o : r.outputs) s.append(reinterpret_cast<const char*>(o.tensor.data()), o.tensor.nbytes());
  s += "\n" + r.hazards.ToText();
  s += "\nvf_ops=" + std::to_string(r.stats.vf_ops) + " lane_ops=" + std::to_string(r.stats.lane_ops) +
       " statements=" + std::to_string(r.stats.statements);
  return s;
}

// The run of `src` stops with a `code` finding at the line of `at`; returns its message.
std::string RefusalAt(const std::string& src, std::string_view code, const std::string& at) {
  auto r = Run(src);
  INFO(r.hazards.ToText());
  CHECK_FALSE(r.completed);
  const Diagnostic* d = r.hazards.Find(code);
  REQUIRE(d != nullptr);
  CHECK(d->line == LineOf(src, at));
  return d->message;
}

// Each pair of spellings (bound, general) observes the same run, each body turned into a
// kernel by `make` (Kernel by default).
void CheckSpellingsAgree(const std::vector<std::pair<std::string, std::string>>& pairs,
                         const std::function<std::string(const std::string&)>& make =
                             [](const std::string& body) { return Kernel(body); }) {
  for (const auto& [bound, general] : pairs) {
    INFO(bound);
    auto ra = Run(make(bound));
    auto rb = Run(make(general));
    INFO(ra.hazards.ToText());
    CHECK(Observed(ra) == Observed(rb));
  }
}

}  // namespace

TEST_CASE("sim: a bound vf call observes what the general entry observes") {
  // Each pair: the positional spelling (bound) and the same call with its mask by keyword
  // (general entry); update_mask is spelled both ways through Kernel's keyword_masks.
  const std::vector<std::pair<std::string, std::string>> calls = {
      {"vf.add(x, y, h)", "vf.add(x, y, preg=h)"},
      {"vf.sub(x, y, h)", "vf.sub(x, y, preg=h)"},
      {"vf.mul(x, y, h)", "vf.mul(x, y, preg=h)"},
      {"vf.div(x, y, h)", "vf.div(x, y, preg=h)"},
      {"vf.max(x, y, h)", "vf.max(x, y, preg=h)"},
      {"vf.min(y, x, h)", "vf.min(y, x, preg=h)"},
      {"vf.adds(x, 1.5, h)", "vf.adds(x, 1.5, preg=h)"},
      {"vf.muls(x, -3, h)", "vf.muls(x, -3, preg=h)"},
      {"vf.maxs(x, True, h)", "vf.maxs(x, True, preg=h)"},
      {"vf.mins(x, 0.25, m16)", "vf.mins(x, 0.25, preg=m16)"},
      {"vf.exp(x, h)", "vf.exp(x, preg=h)"},
      {"vf.abs(x, h)", "vf.abs(x, preg=h)"},
      {"vf.relu(x, h)", "vf.relu(x, preg=h)"},
      {"vf.neg(x, h)", "vf.neg(x, preg=h)"},
      {"vf.sqrt(x, h)", "vf.sqrt(x, preg=h)"},
      {"vf.ln(x, h)", "vf.ln(x, preg=h)"},
      {"vf.reduce_sum(y, h)", "vf.reduce_sum(y, preg=h)"},
      {"vf.reduce_max(x, h)", "vf.reduce_max(x, preg=h)"},
      {"vf.reduce_min(y, h)", "vf.reduce_min(y, preg=h)"},
      {"vf.exp_sub(x, y, h)", "vf.exp_sub(x, y, preg=h)"},
      {"vf.astype(vf.astype(x, h, dtype=pl.DT_FP16, layout=pl.CastLayout.ZERO), m16, dtype=pl.DT_FP32)",
       "vf.astype(vf.astype(x, preg=h, dtype=pl.DT_FP16, layout=pl.CastLayout.ZERO), preg=m16, dtype=pl.DT_FP32)"},
      // Hazards: a mask built for fp16 lanes on an fp32 operation, mixed source dtypes.
      {"vf.add(x, y, m16)", "vf.add(x, y, preg=m16)"},
      {"vf.exp_sub(x, vf.astype(y, h, dtype=pl.DT_FP16), h)",
       "vf.exp_sub(x, vf.astype(y, preg=h, dtype=pl.DT_FP16), preg=h)"},
      {"vf.de_interleave(x, y)[1]", "vf.de_interleave(x, src1=y)[1]"},
      {"vf.interleave(y, x)[0]", "vf.interleave(y, src1=x)[0]"},
      {"vf.add(x, y, vf.interleave(h, m)[1])", "vf.add(x, y, vf.interleave(h, src1=m)[1])"},
      {"vf.interleave(x, vf.astype(y, h, dtype=pl.DT_FP16))[0]",
       "vf.interleave(x, src1=vf.astype(y, h, dtype=pl.DT_FP16))[0]"},
      // Nested bound calls, and a loop that keeps assigning one local.
      {"vf.max(vf.reduce_max(x, h), vf.abs(y, m), m)", "vf.max(vf.reduce_max(x, preg=h), vf.abs(y, preg=m), preg=m)"},
  };
  for (const auto& [bound, general] : calls) {
    INFO(bound);
    const std::string a = Kernel("    r = " + bound + "\n");
    const std::string b = Kernel("    r = " + general + "\n", true);
    auto ra = Run(a);
    auto rb = Run(b);
    INFO(ra.hazards.ToText());
    CHECK(ra.completed);
    CHECK(ra.stats.vf_ops > 0);
    CHECK(Observed(ra) == Observed(rb));
  }
  const std::string loop = "    r = x\n    for i in pl.range(0, 5):\n        r = vf.add(r, y, h)\n        r = vf.mul(r, x, h)\n";
  const std::string loop_kw =
      "    r = x\n    for i in pl.range(0, 5):\n        r = vf.add(r, y, preg=h)\n        r = vf.mul(r, x, preg=h)\n";
  CHECK(Observed(Run(Kernel(loop))) == Observed(Run(Kernel(loop_kw, true))));
}

TEST_CASE("sim: bound register loads and broadcasts observe what the general entry observes") {
  // vf.load_align(tile, offset) is bound (Kernel's own loads of x and y are too); the offset
  // by keyword takes the general entry. Misaligned, out-of-UB, a tile + offset address, a load
  // into a mask register, and an unsynchronised kernel whose load races the MTE2 copy. Then
  // vf.full(src, preg) in both modes, with its hazards and refusals.
  const std::vector<std::pair<std::string, std::string>> loads = {
      {"    r = vf.load_align(ty, 0)\n", "    r = vf.load_align(ty, offset=0)\n"},
      {"    r = vf.load_align(tx, 16)\n", "    r = vf.load_align(tx, offset=16)\n"},
      {"    r = vf.load_align(tx + 8, 8)\n", "    r = vf.load_align(tx + 8, offset=8)\n"},
      {"    r = vf.load_align(tx, 3)\n", "    r = vf.load_align(tx, offset=3)\n"},
      {"    r = vf.load_align(tx, 1 << 20)\n", "    r = vf.load_align(tx, offset=1 << 20)\n"},
      {"    r = vf.load_align(tx, -8)\n", "    r = vf.load_align(tx, offset=-8)\n"},
      {"    k = m\n    k = vf.load_align(tx, 0)\n    r = vf.add(x, y, k)\n",
       "    k = m\n    k = vf.load_align(tx, offset=0)\n    r = vf.add(x, y, k)\n"},
      {"    r = x\n    for i in pl.range(0, 3):\n        r = vf.load_align(ty, i * 8)\n",
       "    r = x\n    for i in pl.range(0, 3):\n        r = vf.load_align(ty, offset=i * 8)\n"},

      {"    r = vf.full(vf.reduce_max(x, h), h)\n", "    r = vf.full(vf.reduce_max(x, h), preg=h)\n"},
      {"    r = vf.full(1.5, h)\n", "    r = vf.full(1.5, preg=h)\n"},
      {"    r = vf.full(-2, m, dtype=pl.DT_FP32)\n", "    r = vf.full(-2, preg=m, dtype=pl.DT_FP32)\n"},
      {"    r = vf.full(x, m16)\n", "    r = vf.full(x, preg=m16)\n"},
      {"    r = vf.full(2, m)\n", "    r = vf.full(2, preg=m)\n"},
      {"    r = vf.full(3.0, m, mode=pl.MergeMode.MERGING)\n", "    r = vf.full(3.0, preg=m, mode=pl.MergeMode.MERGING)\n"},
      {"    r = x\n    for i in pl.range(0, 3):\n        r = vf.full(r, h)\n",
       "    r = x\n    for i in pl.range(0, 3):\n        r = vf.full(r, preg=h)\n"},
  };
  CheckSpellingsAgree(loads);
  // The misaligned load fails at its line in both spellings.
  const std::string mis = Kernel("    r = vf.load_align(tx, 3)\n");
  CHECK(HasAt(Run(mis).hazards, sim::hazard::kRegisterRange, LineOf(mis, "vf.load_align(tx, 3)")));
  // Without auto_mutex or a sync, the VF load of tx races the MTE2 copy into it: the same
  // finding at the same line through the bound form.
  auto unsynced = [](const std::string& load) {
    std::string src = Kernel("    r = x\n");
    src.replace(src.find("@pl.jit(auto_mutex=True)"), 24, "@pl.jit(auto_mutex=False)");
    const std::string first = "    x = vf.load_align(tx, 0)\n";
    src.replace(src.find(first), first.size(), load);
    return src;
  };
  const std::string race = unsynced("    x = vf.load_align(tx, 0)\n");
  const std::string race_kw = unsynced("    x = vf.load_align(tx, offset=0)\n");
  auto rr = Run(race);
  INFO(rr.hazards.ToText());
  REQUIRE(rr.hazards.HasErrors());
  CHECK(HasErrorAt(rr.hazards, LineOf(race, "x = vf.load_align(tx, 0)")));
  CHECK(Observed(rr) == Observed(Run(race_kw)));
}

TEST_CASE("sim: bound pl.min and pl.max observe what the general entry observes") {
  // pl.min / pl.max of two ints is bound (the loop-bound case); the same call with its
  // operands by keyword, or of other kinds, takes the general entry. Ints compare exactly, also
  // past 2^53 where doubles tie; of equal values the first is returned.
  const std::vector<std::pair<std::string, std::string>> calls = {
      {"pl.min(40, 70)", "pl.min(lhs=40, rhs=70)"},
      {"pl.max(40, 70)", "pl.max(lhs=40, rhs=70)"},
      {"pl.min(70 - 64, 40)", "pl.min(lhs=70 - 64, rhs=40)"},
      {"pl.max(-3, 2)", "pl.max(-3, rhs=2)"},
      {"pl.min(9007199254740993, 9007199254740992) - 9007199254740992 + 5",
       "pl.min(lhs=9007199254740993, rhs=9007199254740992) - 9007199254740992 + 5"},
      {"pl.max(9007199254740992, 9007199254740993) - 9007199254740992 + 5",
       "pl.max(lhs=9007199254740992, rhs=9007199254740993) - 9007199254740992 + 5"},
      {"pl.min(True, 12)", "pl.min(lhs=True, rhs=12)"},
      {"pl.max(2.5, 7)", "pl.max(lhs=2.5, rhs=7)"},
  };
  for (const auto& [bound, general] : calls) {
    INFO(bound);
    auto body = [](const std::string& n) {
      return "    n = " + n + "\n    r = vf.add(x, y, vf.update_mask(n, dtype=pl.DT_FP32))\n"
             "    s = vf.full(n * 1.0, m)\n";
    };
    auto ra = Run(Kernel(body(bound)));
    auto rb = Run(Kernel(body(general)));
    INFO(ra.hazards.ToText());
    CHECK(ra.completed);
    CHECK(Observed(ra) == Observed(rb));
  }
  // The exact comparison: 2^53 + 1 is the larger, so min picks 2^53 (n = 5), max 2^53 + 1 (n = 6).
  auto lane0 = [](const std::string& n) {
    auto r = Run(Kernel("    n = " + n + "\n    r = x\n    s = vf.full(n * 1.0, m)\n"));
    REQUIRE(r.outputs.size() == 1);
    return r.outputs[0].tensor.data_as<float>()[64];
  };
  CHECK(lane0("pl.min(9007199254740993, 9007199254740992) - 9007199254740992 + 5") == 5.0f);
  CHECK(lane0("pl.max(9007199254740992, 9007199254740993) - 9007199254740992 + 5") == 6.0f);
  CHECK(lane0("pl.min(lhs=9007199254740993, rhs=9007199254740992) - 9007199254740992 + 5") == 5.0f);
  CHECK(lane0("pl.min(7, 7)") == 7.0f);
}

TEST_CASE("sim: a register result never overwrites a register another name shares") {
  // keep, the tuple and the list share x's first register; r's loop must leave them alone.
  const std::string src = Kernel(
      "    keep = x\n"
      "    pair = (x, y)\n"
      "    r = x\n"
      "    for i in pl.range(0, 3):\n"
      "        r = vf.add(r, r, m)\n"
      "        x = vf.add(x, y, m)\n"
      "    s = vf.add(keep, pair[0], m)\n");
  auto run = Run(src);
  INFO(run.hazards.ToText());
  REQUIRE(run.completed);
  const auto in = Inputs();
  const auto& out = run.outputs[0].tensor;
  for (int i = 0; i < 64; ++i) {
    if (i == 5) continue;  // the NaN lane
    const double x = in[0].GetDouble(i);
    CHECK(out.GetDouble(i) == static_cast<float>(static_cast<float>(static_cast<float>(x + x) * 2) * 2));
    CHECK(out.GetDouble(64 + i) == static_cast<float>(x + x));
  }
}

TEST_CASE("sim: a call its bound form declines fails as the general entry says") {
  // A mask where a register belongs: the bound form declines, the general entry names the
  // argument; an integer scalar second operand runs the scalar form.
  const std::string bad = Kernel("    r = vf.add(x, m, m)\n");
  CHECK(RefusalAt(bad, sim::hazard::kRuntimeError, "vf.add(x, m, m)") ==
        "vf binary op: argument 'src1' must be a vector register, got MaskReg");
  auto s = Run(Kernel("    r = vf.add(x, 2, h)\n"));
  INFO(s.hazards.ToText());
  CHECK(s.completed);
  CHECK_FALSE(s.hazards.HasErrors());
  CHECK(s.outputs[0].tensor.GetDouble(0) == static_cast<float>(Inputs()[0].GetDouble(0) + 2));
  // update_mask with a float count: declined, and the general entry's conversion decides.
  const std::string f = Kernel("    r = vf.add(x, y, vf.update_mask(4.5, dtype=pl.DT_FP32))\n");
  auto rf = Run(f);
  const std::string fk = Kernel("    r = vf.add(x, y, vf.update_mask(scalar=4.5, dtype=pl.DT_FP32))\n", true);
  CHECK(Observed(rf) == Observed(Run(fk)));
}

TEST_CASE("sim: keywords decoded at lowering observe what the general entry reads") {
  // vf.exp_sub, vf.astype and vf.update_mask read dtype=, layout= and round_mode= decoded once
  // at lowering (program.h, BoundKeys); the same calls with the mask by keyword take the
  // general entry, which reads them through Args. Every layout, None, a keyword of the wrong
  // kind (the decoder leaves it to Args, which refuses it), a missing dtype, and round modes.
  const std::string halves =
      "    a = vf.astype(x, h, dtype=pl.DT_FP16, layout=pl.CastLayout.ZERO)\n"
      "    b = vf.astype(y, h, dtype=pl.DT_FP16, layout=pl.CastLayout.ZERO)\n";
  std::vector<std::pair<std::string, std::string>> pairs;
  auto both = [&](const std::string& head, const std::string& call, const std::string& call_kw) {
    pairs.emplace_back(head + "    r = " + call + "\n", head + "    r = " + call_kw + "\n");
  };
  for (const char* layout : {"ZERO", "ONE", "TWO", "THREE"}) {
    const std::string l = std::string("layout=pl.CastLayout.") + layout;
    both(halves, "vf.exp_sub(a, b, m16, dtype=pl.DT_FP32, " + l + ")",
         "vf.exp_sub(a, b, preg=m16, dtype=pl.DT_FP32, " + l + ")");
    both("", "vf.astype(x, h, dtype=pl.DT_FP16, " + l + ")", "vf.astype(x, preg=h, dtype=pl.DT_FP16, " + l + ")");
  }
  both(halves, "vf.exp_sub(a, b, m16, dtype=None, layout=None)", "vf.exp_sub(a, b, preg=m16, dtype=None, layout=None)");
  both("", "vf.exp_sub(x, y, h, dtype=3)", "vf.exp_sub(x, y, preg=h, dtype=3)");
  both("", "vf.exp_sub(x, y, h, layout=2)", "vf.exp_sub(x, y, preg=h, layout=2)");
  both("", "vf.astype(x, h)", "vf.astype(x, preg=h)");
  both("", "vf.astype(x, h, dtype=None)", "vf.astype(x, preg=h, dtype=None)");
  both("", "vf.astype(x, h, dtype=pl.DT_INT32, round_mode=pl.RoundMode.CAST_RINT)",
       "vf.astype(x, preg=h, dtype=pl.DT_INT32, round_mode=pl.RoundMode.CAST_RINT)");
  both("", "vf.astype(x, h, dtype=pl.DT_INT32, round_mode=pl.RoundMode.CAST_TRUNC)",
       "vf.astype(x, preg=h, dtype=pl.DT_INT32, round_mode=pl.RoundMode.CAST_TRUNC)");
  both("", "vf.astype(x, h, dtype=pl.DT_FP16, round_mode=1)", "vf.astype(x, preg=h, dtype=pl.DT_FP16, round_mode=1)");
  both("", "vf.add(x, y, vf.update_mask(20, dtype=pl.DT_FP16))", "vf.add(x, y, vf.update_mask(scalar=20, dtype=pl.DT_FP16))");
  both("", "vf.add(x, y, vf.update_mask(20, dtype=None))", "vf.add(x, y, vf.update_mask(scalar=20, dtype=None))");
  both("", "vf.add(x, y, vf.update_mask(20, dtype=pl.MaskPattern.ALL))",
       "vf.add(x, y, vf.update_mask(scalar=20, dtype=pl.MaskPattern.ALL))");
  CheckSpellingsAgree(pairs);
  // The refusals are the general entry's own words, at the call's line.
  const std::string missing = Kernel("    r = vf.astype(x, h)\n");
  CHECK(RefusalAt(missing, sim::hazard::kRuntimeError, "vf.astype(x, h)").find("dtype= is required") !=
        std::string::npos);
  const std::string trunc = Kernel("    r = vf.astype(x, h, dtype=pl.DT_INT32, round_mode=pl.RoundMode.CAST_TRUNC)\n");
  CHECK(RefusalAt(trunc, sim::hazard::kUnsupported, "round_mode=pl.RoundMode.CAST_TRUNC").find("round_mode=CAST_TRUNC") !=
        std::string::npos);
}

TEST_CASE("sim: a bound register store observes what the general entry observes") {
  // vf.store_align(tile, src, preg) is bound (Kernel's own stores of r and s are too); the same
  // store with its mask by keyword takes the general entry. Partial and wrong-width masks, a
  // tile + offset address, lanes past the tile, a misaligned and an out-of-UB address, lanes
  // loaded from bytes never written, a loop of stores and a mask where the register belongs.
  auto with_store = [](const std::string& store) {
    std::string src = Kernel("    r = x\n");
    const std::string first = "    vf.store_align(to, r, m)\n";
    src.replace(src.find(first), first.size(), store);
    return src;
  };
  const std::vector<std::pair<std::string, std::string>> stores = {
      {"    vf.store_align(to, r, h)\n", "    vf.store_align(to, r, preg=h)\n"},
      {"    vf.store_align(to + 16, y, h)\n", "    vf.store_align(to + 16, y, preg=h)\n"},
      {"    vf.store_align(to + 100, r, m)\n", "    vf.store_align(to + 100, r, preg=m)\n"},
      {"    vf.store_align(to + 3, r, m)\n", "    vf.store_align(to + 3, r, preg=m)\n"},
      {"    vf.store_align(to + (1 << 20), r, m)\n", "    vf.store_align(to + (1 << 20), r, preg=m)\n"},
      {"    vf.store_align(to, r, m16)\n", "    vf.store_align(to, r, preg=m16)\n"},
      {"    vf.store_align(to, vf.load_align(to, 64), m)\n", "    vf.store_align(to, vf.load_align(to, 64), preg=m)\n"},
      {"    for i in pl.range(0, 2):\n        vf.store_align(to + i * 8, vf.adds(r, i, m), h)\n",
       "    for i in pl.range(0, 2):\n        vf.store_align(to + i * 8, vf.adds(r, i, m), preg=h)\n"},
      {"    vf.store_align(to, h, m)\n", "    vf.store_align(to, h, preg=m)\n"},
      {"    vf.store_align(x, r, m)\n", "    vf.store_align(x, r, preg=m)\n"},
  };
  CheckSpellingsAgree(stores, with_store);
  // Each refusal at the store's line, with the general entry's message for a declined call.
  const std::string mis = with_store("    vf.store_align(to + 3, r, m)\n");
  CHECK(HasAt(Run(mis).hazards, sim::hazard::kRegisterRange, LineOf(mis, "vf.store_align(to + 3, r, m)")));
  const std::string past = with_store("    vf.store_align(to + 100, r, m)\n");
  auto rp = Run(past);
  INFO(rp.hazards.ToText());
  CHECK(HasAt(rp.hazards, sim::hazard::kRegisterRange, LineOf(past, "vf.store_align(to + 100, r, m)")));
  const std::string bad = with_store("    vf.store_align(to, h, m)\n");
  CHECK(RefusalAt(bad, sim::hazard::kRuntimeError, "vf.store_align(to, h, m)") ==
        "vf.store_align: argument 'src' must be a vector register, got MaskReg");
  // Without auto_mutex or a sync, the VF store into tx races the MTE2 copy into it: the same
  // finding at the store's line through the bound form.
  auto unsynced = [&](const std::string& store) {
    std::string src = with_store(store);
    src.replace(src.find("@pl.jit(auto_mutex=True)"), 24, "@pl.jit(auto_mutex=False)");
    return src;
  };
  const std::string race = unsynced("    vf.store_align(tx, r, m)\n");
  auto rr = Run(race);
  INFO(rr.hazards.ToText());
  REQUIRE(rr.hazards.HasErrors());
  CHECK(HasErrorAt(rr.hazards, LineOf(race, "vf.store_align(tx, r, m)")));
  CHECK(Observed(rr) == Observed(Run(unsynced("    vf.store_align(tx, r, preg=m)\n"))));
}

TEST_CASE("sim: a bound register store is its own operation on the V pipe") {
  // The store of the second VF call is V's newest operation, after the flag the kernel set
  // once the first VF call (a load) had run: MTE3 reading the stored bytes without a flag of
  // its own races it. A store that reused the load's operation would look covered by the flag.
  auto src = [](const std::string& store) {
    return "import pypto_pro.language as pl\n"
           "from pypto_pro.language import Vf as vf\n\n"
           "@pl.vector_function\n"
           "def first(tx):\n"
           "    x = vf.load_align(tx, 0)\n\n"
           "@pl.vector_function\n"
           "def second(to):\n"
           "    m = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)\n" +
           store +
           "\n@pl.jit(auto_mutex=False)\n"
           "def k(x: pl.Tensor[[1, 64], pl.DT_FP32], y: pl.Tensor[[1, 64], pl.DT_FP32],\n"
           "      out: pl.Tensor[[1, 128], pl.DT_FP32]):\n"
           "    tt = pl.TileType(shape=[1, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)\n"
           "    ot = pl.TileType(shape=[1, 128], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)\n"
           "    tx = pl.make_tile(tt, addr=0, size=256)\n"
           "    to = pl.make_tile(ot, addr=512, size=512)\n"
           "    with pl.section_vector():\n"
           "        pl.load(tx, x, [0, 0])\n"
           "        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)\n"
           "        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)\n"
           "        first(tx)\n"
           "        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=1)\n"
           "        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=1)\n"
           "        second(to)\n"
           "        pl.store(out, to, [0, 0])\n";
  };
  const std::string bound = src("    vf.store_align(to, vf.full(1.0, m), m)\n");
  const std::string general = src("    vf.store_align(to, vf.full(1.0, m), preg=m)\n");
  auto rb = Run(bound);
  INFO(rb.hazards.ToText());
  CHECK(HasErrorAt(rb.hazards, LineOf(bound, "pl.store(out, to, [0, 0])")));
  CHECK(Observed(rb) == Observed(Run(general)));
}

TEST_CASE("sim: bound calls with nested calls and integer arithmetic observe what the general entry observes") {
  // Operands that are nested bound calls or integer arithmetic are evaluated into the call's
  // own values (program.h, XNode::bound_direct); the outer call with its last operand by
  // keyword takes the general entry and evaluates the same operands through Eval. Results
  // across loop iterations, float arithmetic where an int was expected, errors raised while an
  // operand is evaluated, and a nested call its bound form declines.
  const std::vector<std::pair<std::string, std::string>> bodies = {
      {"    r = vf.add(vf.abs(x, h), vf.mul(x, y, m), h)\n",
       "    r = vf.add(vf.abs(x, h), vf.mul(x, y, m), preg=h)\n"},
      {"    r = x\n    for i in pl.range(0, 4):\n        r = vf.add(r, vf.muls(y, i + 1, m), h)\n"
       "        s = vf.max(vf.load_align(ty, i * 8 + 8 - 8), vf.reduce_max(r, h), m)\n",
       "    r = x\n    for i in pl.range(0, 4):\n        r = vf.add(r, vf.muls(y, i + 1, m), preg=h)\n"
       "        s = vf.max(vf.load_align(ty, i * 8 + 8 - 8), vf.reduce_max(r, h), preg=m)\n"},
      {"    t = 1.5\n    r = vf.adds(x, t * 2, h)\n", "    t = 1.5\n    r = vf.adds(x, t * 2, preg=h)\n"},
      {"    n = 2\n    r = vf.load_align(tx, 8 // (n - n))\n", "    n = 2\n    r = vf.load_align(tx, offset=8 // (n - n))\n"},
      {"    n = 2\n    r = vf.load_align(tx, (n << 61) * 4)\n", "    n = 2\n    r = vf.load_align(tx, offset=(n << 61) * 4)\n"},
      {"    r = vf.add(vf.abs(m, m), y, h)\n", "    r = vf.add(vf.abs(m, m), y, preg=h)\n"},
      {"    r = vf.add(x, vf.update_mask(40, dtype=pl.DT_FP32), h)\n",
       "    r = vf.add(x, vf.update_mask(40, dtype=pl.DT_FP32), preg=h)\n"},
      {"    n = 24\n    r = vf.add(x, vf.reduce_sum(y, vf.update_mask(n - 4, dtype=pl.DT_FP32)), "
       "vf.update_mask(pl.min(n, 30) + 1, dtype=pl.DT_FP32))\n",
       "    n = 24\n    r = vf.add(x, vf.reduce_sum(y, vf.update_mask(n - 4, dtype=pl.DT_FP32)), "
       "preg=vf.update_mask(pl.min(n, 30) + 1, dtype=pl.DT_FP32))\n"},
  };
  CheckSpellingsAgree(bodies);
  // The errors stop the run at the operand's line with the general entry's messages.
  const std::string zero = Kernel("    n = 2\n    r = vf.load_align(tx, 8 // (n - n))\n");
  auto rz = Run(zero);
  CHECK_FALSE(rz.completed);
  CHECK(HasAt(rz.hazards, sim::hazard::kRuntimeError, LineOf(zero, "8 // (n - n)")));
  const std::string over = Kernel("    n = 2\n    r = vf.load_align(tx, (n << 61) * 4)\n");
  auto ro = Run(over);
  CHECK_FALSE(ro.completed);
  CHECK(HasAt(ro.hazards, sim::hazard::kLimit, LineOf(over, "(n << 61) * 4")));
  const std::string declined = Kernel("    r = vf.add(vf.abs(m, m), y, h)\n");
  auto rd = Run(declined);
  CHECK_FALSE(rd.completed);
  const Diagnostic* d = rd.hazards.Find(sim::hazard::kRuntimeError);
  REQUIRE(d != nullptr);
  CHECK(d->line == LineOf(declined, "vf.abs(m, m)"));
  // The loop's values: lane 0 of r after four iterations of r += y * (i + 1) under h.
  auto loop = Run(Kernel("    r = x\n    for i in pl.range(0, 4):\n        r = vf.add(r, vf.muls(y, i + 1, m), h)\n"));
  REQUIRE(loop.completed);
  const auto in = Inputs();
  float expect = static_cast<float>(in[0].GetDouble(0));
  for (int i = 0; i < 4; ++i) expect = expect + static_cast<float>(in[1].GetDouble(0)) * static_cast<float>(i + 1);
  CHECK(loop.outputs[0].tensor.GetDouble(0) == expect);
}
