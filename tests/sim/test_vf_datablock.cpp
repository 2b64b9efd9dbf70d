// The register moves of the flash-attention VF softmax: vf.de_interleave / vf.interleave
// (de_interleave.md, interleave.md), vf.store_align in DataBlock mode with block_stride and
// POST_UPDATE cursors (store_align.md), the NORM post-update step, BRC loads aligned to their
// element width and mask-register loads (load_align.md), and tile groups that are views of one
// locked buffer.
// The make_tile kernels carry their MTE2 -> V and V -> MTE3 syncs (Tile_vector_computation.md):
// a VF call runs on V.
#include "sim_test_util.h"

#include "opdev/sim/hazards.h"
#include "opdev/sim/simulator.h"
#include "opdev/sim/vf_ops.h"

#include <catch2/catch.hpp>

using namespace opdev;
using namespace opdev::sim;
using simtest::HasAt;
using simtest::LineOf;
using simtest::Mutate;

namespace {

VReg F16Iota(float base) {
  VReg r;
  r.dtype = DType::kFloat16;
  for (int i = 0; i < 128; ++i) r.Set(i, base + i);
  return r;
}

const precision::Tensor* Output(const SimResult& r, const std::string& name) {
  for (const auto& o : r.outputs)
    if (o.name == name) return &o.tensor;
  return nullptr;
}

// Runs a kernel that must end without an error and returns its output `out`.
const precision::Tensor* CleanOutput(const absl::StatusOr<SimResult>& r) {
  REQUIRE(r.ok());
  INFO(r->hazards.ToText());
  REQUIRE(r->hazards.ErrorCount() == 0);
  const precision::Tensor* t = Output(*r, "out");
  REQUIRE(t);
  return t;
}

// Two [1, 128] fp16 source rows stored by DataBlocks (block_stride 2) through a post-update
// cursor advancing one DataBlock per row: block j of row i lands at DataBlock 2j + i of the
// [1, 256] destination, which the kernel first fills from `out` (so unwritten blocks keep it).
const char* kBlocks = R"(import pypto_pro.language as pl
from pypto_pro.language import Vf as vf


@pl.vector_function
def scatter_rows(src, dst):
    m = vf.update_mask(128, dtype=pl.DT_FP16)
    for i in pl.range(0, 2):
        r = vf.load_align(src, i * 128)
        vf.store_align(dst, r, m, block_stride=2, repeat_stride=1, data_copy_mode=pl.DataCopyMode.DATA_BLOCK_COPY, post_update=True)


@pl.jit()
def k(x: pl.Tensor[[2, 128], pl.DT_FP16], out: pl.Tensor[[1, 256], pl.DT_FP16]):
    with pl.section_vector():
        src = pl.make_tile(pl.TileType(shape=[2, 128], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Vec), addr=0x0, size=512)
        dst = pl.make_tile(pl.TileType(shape=[1, 256], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Vec), addr=0x200, size=512)
        pl.load(src, x, [0, 0])
        pl.load(dst, out, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        scatter_rows(src, dst)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, dst, [0, 0])
)";

SimResult RunBlocks(const std::string& src, precision::Tensor* x_out = nullptr) {
  auto x = simtest::Random(DType::kFloat16, {2, 128}, 0, 1, 5);
  auto out = simtest::Random(DType::kFloat16, {1, 256}, -1, -1, 1);  // all -1
  SimOptions o;
  o.entry = "k";
  auto r = RunKernelSource(src, "blocks.py", {x, out}, o);
  REQUIRE(r.ok());
  if (x_out) *x_out = x;
  return *r;
}

}  // namespace

TEST_CASE("de_interleave takes the even and the odd elements of the source pair") {
  const VReg a = F16Iota(0), b = F16Iota(128);  // the pair is 0, 1, ..., 255
  auto [d0, d1] = vf::DeInterleave(a, b);
  for (int i = 0; i < 128; ++i) {
    CHECK(d0.Get(i) == 2 * i);
    CHECK(d1.Get(i) == 2 * i + 1);
  }
  // interleave is its inverse (de_interleave.md's mask example relies on it).
  auto [e0, e1] = vf::Interleave(d0, d1);
  for (int i = 0; i < 128; ++i) {
    CHECK(e0.Get(i) == i);
    CHECK(e1.Get(i) == 128 + i);
  }
  // An fp32 -> fp16 ZERO cast leaves values in even lanes: de_interleave of two such casts puts
  // the first register's 64 values, then the second's, into dst0 (the fa/ softmax's packing).
  VReg f;
  f.dtype = DType::kFloat32;
  for (int i = 0; i < 64; ++i) f.Set(i, i);
  const MaskReg all = vf::UpdateMask(64, DType::kFloat32);
  VReg g = f;
  for (int i = 0; i < 64; ++i) g.Set(i, 100 + i);
  auto [p0, p1] = vf::DeInterleave(vf::AsType(f, all, DType::kFloat16, CastLayout::kZero),
                                   vf::AsType(g, all, DType::kFloat16, CastLayout::kZero));
  for (int i = 0; i < 64; ++i) {
    CHECK(p0.Get(i) == i);
    CHECK(p0.Get(64 + i) == 100 + i);
    CHECK(p1.Get(i) == 0);
  }
}

TEST_CASE("de_interleave moves undefined lanes with their values, masks shuffle by element width") {
  VReg a = F16Iota(0), b = F16Iota(128);
  a.any_undef = true;
  a.undef.fill(0);
  a.undef[3] = 1;  // pair element 3 -> dst1 lane 1
  b.any_undef = false;
  auto [d0, d1] = vf::DeInterleave(a, b);
  CHECK_FALSE(d0.any_undef);
  REQUIRE(d1.any_undef);
  CHECK(d1.LaneUndef(1));
  CHECK_FALSE(d1.LaneUndef(0));
  // Mask form: interleave then de_interleave restores both masks (de_interleave.md example).
  MaskReg all = *vf::CreateMask("ALL", DType::kFloat32);
  MaskReg m3 = *vf::CreateMask("M3", DType::kFloat32);
  auto [i0, i1] = vf::Interleave(all, m3);
  auto [r0, r1] = vf::DeInterleave(i0, i1);
  CHECK(r0.bit == all.bit);
  CHECK(r1.bit == m3.bit);
  CHECK(i0.bit != all.bit);
}

TEST_CASE("store_align DATA_BLOCK_COPY spreads DataBlocks by block_stride, post_update advances by repeat_stride") {
  precision::Tensor x;
  SimResult r = RunBlocks(kBlocks, &x);
  INFO(r.hazards.ToText());
  REQUIRE(r.hazards.ErrorCount() == 0);
  const precision::Tensor* out = Output(r, "out");
  REQUIRE(out);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 8; ++j)
      for (int e = 0; e < 16; ++e)
        REQUIRE(out->GetDouble((2 * j + i) * 16 + e) == x.GetDouble(i * 128 + j * 16 + e));
}

TEST_CASE("a DataBlock is stored whole when any of its mask bits is set, not at all otherwise") {
  // 40 fp16 lanes = 80 bytes: blocks 0 and 1 fully, block 2 partly (so whole), 3..7 not at all.
  std::string src = Mutate(kBlocks, "vf.update_mask(128, dtype=pl.DT_FP16)", "vf.update_mask(40, dtype=pl.DT_FP16)");
  precision::Tensor x;
  SimResult r = RunBlocks(src, &x);
  INFO(r.hazards.ToText());
  REQUIRE(r.hazards.ErrorCount() == 0);
  const precision::Tensor* out = Output(r, "out");
  REQUIRE(out);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 8; ++j)
      for (int e = 0; e < 16; ++e)
        REQUIRE(out->GetDouble((2 * j + i) * 16 + e) == (j < 3 ? x.GetDouble(i * 128 + j * 16 + e) : -1.0));
}

TEST_CASE("without post_update the destination stays put, a block outside the tile is flagged") {
  // Both rows land on the same blocks: the second row wins.
  std::string same = Mutate(kBlocks, ", post_update=True)", ")");
  precision::Tensor x;
  SimResult r = RunBlocks(same, &x);
  REQUIRE(r.hazards.ErrorCount() == 0);
  const precision::Tensor* out = Output(r, "out");
  REQUIRE(out);
  for (int j = 0; j < 8; ++j) {
    CHECK(out->GetDouble(2 * j * 16) == x.GetDouble(128 + j * 16));
    CHECK(out->GetDouble((2 * j + 1) * 16) == -1.0);
  }
  // block_stride 3: block 7 of row 1 starts at DataBlock 22, past the 16-block tile.
  std::string wide = Mutate(kBlocks, "block_stride=2", "block_stride=3");
  SimResult w = RunBlocks(wide);
  CHECK(HasAt(w.hazards, "SIM-VREG-RANGE", LineOf(wide, "vf.store_align(dst")));
}

TEST_CASE("NORM store_align with post_update steps the cursor by the 4th argument in elements") {
  // Row i goes to dst + 128 * i through the cursor; a plain store of the same tile keeps its base.
  std::string src = Mutate(kBlocks,
                           "vf.store_align(dst, r, m, block_stride=2, repeat_stride=1, "
                           "data_copy_mode=pl.DataCopyMode.DATA_BLOCK_COPY, post_update=True)",
                           "vf.store_align(dst, r, m, 128, post_update=True)");
  precision::Tensor x;
  SimResult r = RunBlocks(src, &x);
  INFO(r.hazards.ToText());
  REQUIRE(r.hazards.ErrorCount() == 0);
  const precision::Tensor* out = Output(r, "out");
  REQUIRE(out);
  for (int e = 0; e < 256; ++e) REQUIRE(out->GetDouble(e) == x.GetDouble(e));
}

TEST_CASE("BRC_B32 loads need 4-byte alignment only, NORM loads still need 32") {
  const char* src = R"(import pypto_pro.language as pl
from pypto_pro.language import Vf as vf


@pl.vector_function
def bcast(s, dst):
    m = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    for i in pl.range(0, 4):
        r = vf.load_align(s, i, dist=pl.LoadDist.BRC_B32)
        vf.store_align(dst, r, m, [i, 0])


@pl.jit()
def k(x: pl.Tensor[[1, 8], pl.DT_FP32], out: pl.Tensor[[4, 64], pl.DT_FP32]):
    with pl.section_vector():
        s = pl.make_tile(pl.TileType(shape=[1, 8], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x0, size=32)
        dst = pl.make_tile(pl.TileType(shape=[4, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x100, size=1024)
        pl.load(s, x, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        bcast(s, dst)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, dst, [0, 0])
)";
  auto x = simtest::Random(DType::kFloat32, {1, 8}, -1, 1, 2);
  auto out = simtest::Random(DType::kFloat32, {4, 64}, 0, 0, 1);
  SimOptions o;
  o.entry = "k";
  auto r = RunKernelSource(src, "brc.py", {x, out}, o);
  const precision::Tensor* t = CleanOutput(r);
  for (int i = 0; i < 4; ++i)
    for (int l = 0; l < 64; ++l) REQUIRE(t->GetDouble(i * 64 + l) == x.GetDouble(i));
  // The same offset without dist= is a whole-register load at a 4-byte address.
  std::string norm = Mutate(src, "vf.load_align(s, i, dist=pl.LoadDist.BRC_B32)", "vf.load_align(s, i)");
  auto n = RunKernelSource(norm, "brc.py", {x, out}, o);
  REQUIRE(n.ok());
  CHECK(HasAt(n->hazards, "SIM-VREG-RANGE", LineOf(norm, "r = vf.load_align(s, i)")));
}

TEST_CASE("tile groups that are views of one locked buffer may overlap and share mutex ids") {
  // An ND [16, 64] group and two [8, 64] halves inside it, all on mutex ids [0, 1] (the fa/ VF
  // samples' P buffer); the halves on ids of their own, or a half straddling the ND slot, stay
  // errors.
  const char* src = R"(import pypto_pro.language as pl


@pl.jit(auto_mutex=True)
def k(x: pl.Tensor[[16, 64], pl.DT_FP32], out: pl.Tensor[[16, 64], pl.DT_FP32]):
    with pl.section_vector():
        whole = pl.make_tile_group(type=pl.TileType(shape=[16, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addrs=[0x0, 0x1000], mutex_ids=[0, 1])
        top = pl.make_tile_group(type=pl.TileType(shape=[8, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addrs=[0x0, 0x1000], mutex_ids=[0, 1])
        low = pl.make_tile_group(type=pl.TileType(shape=[8, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addrs=[0x800, 0x1800], mutex_ids=[0, 1])
        for i in pl.range(0, 2):
            w = whole.next()
            t = top.next()
            b = low.next()
            pl.load(w, x, [0, 0])
            pl.mul(t, t, 2.0)
            pl.mul(b, b, 3.0)
            pl.store(out, w, [0, 0])
)";
  auto x = simtest::Random(DType::kFloat32, {16, 64}, -1, 1, 4);
  auto out = simtest::Random(DType::kFloat32, {16, 64}, 0, 0, 1);
  SimOptions o;
  o.entry = "k";
  auto r = RunKernelSource(src, "views.py", {x, out}, o);
  REQUIRE(r.ok());
  INFO(r->hazards.ToText());
  CHECK(r->hazards.ErrorCount() == 0);
  const precision::Tensor* t = Output(*r, "out");
  REQUIRE(t);
  for (int e = 0; e < 16 * 64; ++e)
    REQUIRE(t->GetDouble(e) == static_cast<float>(x.GetDouble(e)) * (e < 8 * 64 ? 2.0f : 3.0f));
  // Own mutex ids: the lower half is no longer protected by the ND slot's lock.
  std::string own = Mutate(src, "addrs=[0x800, 0x1800], mutex_ids=[0, 1]", "addrs=[0x800, 0x1800], mutex_ids=[2, 3]");
  auto ro = RunKernelSource(own, "views.py", {x, out}, o);
  REQUIRE(ro.ok());
  CHECK(HasAt(ro->hazards, "SIM-TILE-OVERLAP", LineOf(own, "low = pl.make_tile_group(")));
  // Straddling: the lower half's slot 0 reaches past the ND slot 0.
  std::string out_of = Mutate(src, "addrs=[0x800, 0x1800], mutex_ids=[0, 1]", "addrs=[0xC00, 0x1800], mutex_ids=[0, 1]");
  auto rs = RunKernelSource(out_of, "views.py", {x, out}, o);
  REQUIRE(rs.ok());
  // The shared ids only serialise the two groups' ops (a warning); the straddling slot itself
  // is the overlap, and the bytes past the ND slot it reads were never loaded.
  INFO(rs->hazards.ToText());
  CHECK(HasAt(rs->hazards, "SIM-MUTEX-SHARED", LineOf(out_of, "low = pl.make_tile_group(")));
  for (const auto& d : rs->hazards.items())
    if (d.code == "SIM-MUTEX-SHARED") CHECK(d.severity == Severity::kWarning);
  CHECK(HasAt(rs->hazards, "SIM-TILE-OVERLAP", LineOf(out_of, "low = pl.make_tile_group(")));
}

TEST_CASE("a multi-id tile over single-id slots may overlap them: a shared mutex id orders them") {
  // bufferid/test_tile_group_multi_mutex_ids.py's pattern: a wide tile carrying ids [0, 1] over
  // the two slots of a group on ids 0 and 1. Every op on the wide tile locks both ids, so its
  // overlap with either slot is ordered; the same layout on unrelated ids is an overlap.
  const char* src = R"(import pypto_pro.language as pl


@pl.jit(auto_mutex=True)
def k(x: pl.Tensor[[16, 64], pl.DT_FP32], out: pl.Tensor[[16, 64], pl.DT_FP32]):
    with pl.section_vector():
        halves = pl.make_tile_group(type=pl.TileType(shape=[8, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addrs=0x0, mutex_ids=[0, 1])
        wide = pl.make_tile_group(type=pl.TileType(shape=[16, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addrs=0x0, mutex_ids=[[0, 1]])
        for i in pl.range(0, 2):
            pl.load(halves[i], x, [i * 8, 0])
        pl.mul(wide[0], wide[0], 2.0)
        pl.store(out, wide[0], [0, 0])
)";
  auto x = simtest::Random(DType::kFloat32, {16, 64}, -1, 1, 6);
  auto out = simtest::Random(DType::kFloat32, {16, 64}, 0, 0, 1);
  SimOptions o;
  o.entry = "k";
  auto r = RunKernelSource(src, "wide.py", {x, out}, o);
  REQUIRE(r.ok());
  INFO(r->hazards.ToText());
  CHECK(r->hazards.ErrorCount() == 0);
  const precision::Tensor* t = Output(*r, "out");
  REQUIRE(t);
  for (int e = 0; e < 16 * 64; ++e) REQUIRE(t->GetDouble(e) == static_cast<float>(x.GetDouble(e)) * 2.0f);
  std::string apart = Mutate(src, "mutex_ids=[[0, 1]]", "mutex_ids=[[5, 6]]");
  auto ra = RunKernelSource(apart, "wide.py", {x, out}, o);
  REQUIRE(ra.ok());
  INFO(ra->hazards.ToText());
  const bool flagged = HasAt(ra->hazards, "SIM-TILE-OVERLAP", LineOf(apart, "halves = pl.make_tile_group(")) ||
                       HasAt(ra->hazards, "SIM-TILE-OVERLAP", LineOf(apart, "wide = pl.make_tile_group("));
  CHECK(flagged);
}

TEST_CASE("load_align into a declared mask register reads predicate bits (NORM, US, DS)") {
  // out[i] = mask lane i ? -100 : x[i]. DS reads 64 bytes and keeps every other bit, so fp32
  // lane i (predicate bit 4i) follows bit 0 of byte i: a uint8 0/1 row masks element-wise.
  const char* src = R"(import pypto_pro.language as pl
from pypto_pro.language import Vf as vf


@pl.vector_function
def masked(xt, mt, dst):
    all32 = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    m = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_UINT32)
    m = vf.load_align(mt, 0, dist=pl.LoadDist.DS)
    x = vf.load_align(xt, 0)
    low = vf.full(-100.0)
    r = vf.select(low, x, m)
    vf.store_align(dst, r, all32)


@pl.jit()
def k(x: pl.Tensor[[1, 64], pl.DT_FP32], mk: pl.Tensor[[1, 64], pl.DT_UINT8], out: pl.Tensor[[1, 64], pl.DT_FP32]):
    with pl.section_vector():
        xt = pl.make_tile(pl.TileType(shape=[1, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x0, size=256)
        mt = pl.make_tile(pl.TileType(shape=[1, 64], dtype=pl.DT_UINT8, target_memory=pl.MemorySpace.Vec), addr=0x100, size=64)
        dst = pl.make_tile(pl.TileType(shape=[1, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x200, size=256)
        pl.load(xt, x, [0, 0])
        pl.load(mt, mk, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        masked(xt, mt, dst)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, dst, [0, 0])
)";
  auto x = simtest::Random(DType::kFloat32, {1, 64}, -1, 1, 6);
  std::vector<double> bits(64);
  for (int i = 0; i < 64; ++i) bits[static_cast<size_t>(i)] = (i % 3 == 0 || i > 50) ? 1 : 0;
  auto mk = *precision::Tensor::FromDoubles(DType::kUInt8, {1, 64}, bits);
  auto out = simtest::Random(DType::kFloat32, {1, 64}, 0, 0, 1);
  SimOptions o;
  o.entry = "k";
  auto r = RunKernelSource(src, "mask.py", {x, mk, out}, o);
  const precision::Tensor* t = CleanOutput(r);
  for (int i = 0; i < 64; ++i) REQUIRE(t->GetDouble(i) == (bits[static_cast<size_t>(i)] ? -100.0 : x.GetDouble(i)));

  // NORM reads 32 bytes as the 256 bits: byte b's bit 0 is predicate bit 8b, i.e. fp32 lane 2b.
  std::string norm = Mutate(src, "dist=pl.LoadDist.DS", "dist=pl.LoadDist.NORM");
  auto rn = RunKernelSource(norm, "mask.py", {x, mk, out}, o);
  REQUIRE(rn.ok());
  REQUIRE(rn->hazards.ErrorCount() == 0);
  t = Output(*rn, "out");
  REQUIRE(t);
  for (int i = 0; i < 64; ++i) {
    const bool on = i % 2 == 0 && bits[static_cast<size_t>(i / 2)] != 0;
    REQUIRE(t->GetDouble(i) == (on ? -100.0 : x.GetDouble(i)));
  }
  // US reads 16 bytes and repeats each bit: predicate bit 4i is source bit 2i, byte i / 4.
  std::string us = Mutate(src, "dist=pl.LoadDist.DS", "dist=pl.LoadDist.US");
  auto ru = RunKernelSource(us, "mask.py", {x, mk, out}, o);
  REQUIRE(ru.ok());
  REQUIRE(ru->hazards.ErrorCount() == 0);
  t = Output(*ru, "out");
  REQUIRE(t);
  for (int i = 0; i < 64; ++i) {
    const bool on = (2 * i) % 8 == 0 && bits[static_cast<size_t>(2 * i / 8)] != 0;
    REQUIRE(t->GetDouble(i) == (on ? -100.0 : x.GetDouble(i)));
  }
  // Without the create_mask declaration the same call is a register load (dist=DS of a
  // register is not simulated), not a mask load.
  std::string reg = Mutate(src, "    m = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_UINT32)\n", "");
  auto rr = RunKernelSource(reg, "mask.py", {x, mk, out}, o);
  REQUIRE(rr.ok());
  CHECK(HasAt(rr->hazards, "SIM-UNSUPPORTED", LineOf(reg, "m = vf.load_align(mt, 0")));
}

TEST_CASE("DINTLV_B32 load, ZERO/ONE casts and or_ rebuild a row in fp16, in order") {
  // The with_mask / flex softmax packing: even and odd fp32 elements of a 128-element row go to
  // two registers, each is cast into the even (ZERO) or odd (ONE) fp16 lanes, or_ merges them.
  const char* src = R"(import pypto_pro.language as pl
from pypto_pro.language import Vf as vf


@pl.vector_function
def pack(xt, dst):
    all32 = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP32)
    all16 = vf.create_mask(pattern=pl.MaskPattern.ALL, dtype=pl.DT_FP16)
    ev, od = vf.load_align(xt, 0, dist=pl.LoadDist.DINTLV_B32)
    e16 = vf.astype(ev, all32, layout=pl.CastLayout.ZERO, dtype=pl.DT_FP16)
    o16 = vf.astype(od, all32, layout=pl.CastLayout.ONE, dtype=pl.DT_FP16)
    r = vf.or_(e16, o16, all16)
    vf.store_align(dst, r, all16)


@pl.jit()
def k(x: pl.Tensor[[1, 128], pl.DT_FP32], out: pl.Tensor[[1, 128], pl.DT_FP16]):
    with pl.section_vector():
        xt = pl.make_tile(pl.TileType(shape=[1, 128], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x0, size=512)
        dst = pl.make_tile(pl.TileType(shape=[1, 128], dtype=pl.DT_FP16, target_memory=pl.MemorySpace.Vec), addr=0x200, size=256)
        pl.load(xt, x, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pack(xt, dst)
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, dst, [0, 0])
)";
  auto x = simtest::Random(DType::kFloat16, {1, 128}, -4, 4, 8);  // fp16-exact values
  auto xf = *precision::Tensor::FromDoubles(DType::kFloat32, {1, 128}, [&] {
    std::vector<double> v(128);
    for (int i = 0; i < 128; ++i) v[static_cast<size_t>(i)] = x.GetDouble(i);
    return v;
  }());
  auto out = simtest::Random(DType::kFloat16, {1, 128}, 0, 0, 1);
  SimOptions o;
  o.entry = "k";
  auto r = RunKernelSource(src, "pack.py", {xf, out}, o);
  const precision::Tensor* t = CleanOutput(r);
  for (int i = 0; i < 128; ++i) REQUIRE(t->GetDouble(i) == x.GetDouble(i));
  // Without the ONE layout both halves land in the even lanes: the odd elements are lost.
  std::string zero = Mutate(src, "layout=pl.CastLayout.ONE", "layout=pl.CastLayout.ZERO");
  auto rz = RunKernelSource(zero, "pack.py", {xf, out}, o);
  REQUIRE(rz.ok());
  t = Output(*rz, "out");
  REQUIRE(t);
  int differ = 0;
  for (int i = 0; i < 128; ++i) differ += t->GetDouble(i) != x.GetDouble(i);
  CHECK(differ > 0);
}

TEST_CASE("and_ / or_ / xor / not_ work on lane bit patterns under the predicate") {
  VReg a, b;
  a.dtype = b.dtype = DType::kUInt16;
  for (int i = 0; i < 128; ++i) {
    a.Set(i, 0x0F0F);
    b.Set(i, 0x00FF);
  }
  const MaskReg half = vf::UpdateMask(64, DType::kUInt16);
  VReg r_and = vf::Bitwise(vf::BitOp::kAnd, a, &b, half);
  VReg r_or = vf::Bitwise(vf::BitOp::kOr, a, &b, half);
  VReg r_xor = vf::Bitwise(vf::BitOp::kXor, a, &b, half);
  VReg r_not = vf::Bitwise(vf::BitOp::kNot, a, nullptr, half);
  for (int i = 0; i < 128; ++i) {
    const bool on = i < 64;
    CHECK(r_and.Get(i) == (on ? 0x000F : 0));
    CHECK(r_or.Get(i) == (on ? 0x0FFF : 0));
    CHECK(r_xor.Get(i) == (on ? 0x0FF0 : 0));
    CHECK(r_not.Get(i) == (on ? 0xF0F0 : 0));
  }
  // Masks: predicate bits combined under the predicate.
  MaskReg m3 = *vf::CreateMask("M3", DType::kFloat32);
  MaskReg all = *vf::CreateMask("ALL", DType::kFloat32);
  MaskReg n3 = vf::Bitwise(vf::BitOp::kNot, m3, nullptr, all);
  MaskReg both = vf::Bitwise(vf::BitOp::kOr, m3, &n3, all);
  MaskReg none = vf::Bitwise(vf::BitOp::kAnd, m3, &n3, all);
  for (int i = 0; i < kVRegBytes; ++i) {
    CHECK(both.bit[i] == all.bit[i]);
    CHECK(none.bit[i] == 0);
  }
}

TEST_CASE("store_unalign chains write element runs, holding the last partial block until the post") {
  // One element per iteration (the with_mask softmax's row maxima): dst[i] = x[i] for 44 i.
  const char* src = R"(import pypto_pro.language as pl
from pypto_pro.language import Vf as vf


@pl.vector_function
def gather_rows(xt, dst):
    u = vf.unalign_reg_for_store()
    for i in pl.range(44):
        r = vf.load_align(xt, i, dist=pl.LoadDist.BRC_B32)
        vf.store_unalign(dst, r, u, 1, post_update=True)
    vf.store_unalign_post(dst, u, 0, post_update=True)


@pl.jit()
def k(x: pl.Tensor[[1, 64], pl.DT_FP32], out: pl.Tensor[[1, 44], pl.DT_FP32]):
    with pl.section_vector():
        xt = pl.make_tile(pl.TileType(shape=[1, 64], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x0, size=256)
        dst = pl.make_tile(pl.TileType(shape=[1, 48], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec), addr=0x100, size=192)
        pl.load(xt, x, [0, 0])
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        gather_rows(xt, dst)
        pl.set_validshape(dst, [1, 44])
        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)
        pl.store(out, dst, [0, 0])
)";
  auto x = simtest::Random(DType::kFloat32, {1, 64}, -1, 1, 12);
  auto out = simtest::Random(DType::kFloat32, {1, 44}, 0, 0, 1);
  SimOptions o;
  o.entry = "k";
  auto r = RunKernelSource(src, "unalign.py", {x, out}, o);
  const precision::Tensor* t = CleanOutput(r);
  for (int i = 0; i < 44; ++i) REQUIRE(t->GetDouble(i) == x.GetDouble(i));
  // Without the post, elements 40..43 (the last partial 32-byte block) never reach UB, and the
  // store to GM copies never-written bytes.
  std::string nopost = Mutate(src, "    vf.store_unalign_post(dst, u, 0, post_update=True)\n", "");
  auto rn = RunKernelSource(nopost, "unalign.py", {x, out}, o);
  REQUIRE(rn.ok());
  CHECK(HasAt(rn->hazards, "SIM-UNINIT-READ", LineOf(nopost, "pl.store(out, dst, [0, 0])")));
  // Stride 2 from 44 loads reaches past the 48-element tile.
  std::string wide = Mutate(src, "vf.store_unalign(dst, r, u, 1, post_update=True)", "vf.store_unalign(dst, r, u, 2, post_update=True)");
  auto rw = RunKernelSource(wide, "unalign.py", {x, out}, o);
  REQUIRE(rw.ok());
  CHECK(HasAt(rw->hazards, "SIM-VREG-RANGE", LineOf(wide, "vf.store_unalign(dst, r, u, 2")));
}
