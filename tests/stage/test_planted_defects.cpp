// Planted defects, one table row each: a DESIGN-side defect (a §1 line of examples/softmax
// changed, then generated) or a kernel-side one (a line of the hand-written reference kernel
// changed, run with --no-gen), and what the round's triage must conclude — the failure
// category, the location (the DESIGN line or the kernel line holding a marker text) and the
// §8 symptom row. DESIGN-side rows start from the published DESIGN with its stale pass-3
// masks fixed (the published DESIGN itself is the first row).
#include <catch2/catch.hpp>

#include "opdev/stage/stage.h"
#include "opdev/support/file_io.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace opdev;

namespace {

struct Edit {
  std::string from, to;
  int nth = 0;  // 0-based occurrence
};

struct Planted {
  std::string id;
  bool design_side;
  bool fixed_base;              // DESIGN side: start from the DESIGN with fixed pass-3 masks
  std::vector<Edit> edits;
  std::string category;         // expected verdict failure_category
  std::string marker;           // text on the expected line (DESIGN.md or the kernel file)
  std::string symptom;          // expected §8 row key
  std::string python;           // "" = OPDEV_PYTHON
};

std::string Apply(std::string s, const std::vector<Edit>& edits) {
  for (const auto& e : edits) {
    size_t pos = s.find(e.from);
    for (int i = 0; i < e.nth && pos != std::string::npos; ++i) pos = s.find(e.from, pos + 1);
    REQUIRE(pos != std::string::npos);
    s.replace(pos, e.from.size(), e.to);
  }
  return s;
}

int LineOf(const std::string& text, const std::string& marker) {
  size_t pos = text.find(marker);
  REQUIRE(pos != std::string::npos);
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(pos), '\n'));
}

// The published pass 3 reuses pass 2's fp32 masks and converts its fp32 halves with the fp16
// mask (SIM-MASK-DTYPE); the fixed base computes its own fp32 masks and converts with them, as
// the hand-written reference kernel (tests/data/selfcheck/softmax) does.
const std::vector<Edit> kFixPass3 = {
    {"          d_even = vf.div(",
     "          mreg_fp32_z = vf.update_mask((valid + 1)//2, dtype=pl.DT_FP32)\n"
     "          mreg_fp32_o = vf.update_mask(valid//2, dtype=pl.DT_FP32)\n"
     "          d_even = vf.div(",
     0},
    {"vf.astype(d_even, mreg_fp16,", "vf.astype(d_even, mreg_fp32_z,", 0},
    {"vf.astype(d_odd,  mreg_fp16,", "vf.astype(d_odd,  mreg_fp32_o,", 0}};

const std::vector<Planted>& Table() {
  static const std::vector<Planted> t = {
      // ---- DESIGN side -------------------------------------------------------------------
      {"design: published stale pass-3 masks", true, false, {}, "design_violation",
       "d_even = vf.div(e_even, row_sum_b, mreg_fp32_z)", "tails_only", ""},
      {"design: row tail ignored (valid_rows = TILE_ROWS)", true, true,
       {{"valid_rows = pl.min(TILE_ROWS, rows - row_off)", "valid_rows = TILE_ROWS"}}, "design_violation",
       "pl.load(in_slot,  x, [row_off,0])", "tails_only", ""},
      {"design: pass-1 column mask over padding (valid = LANES)", true, true,
       {{"valid = pl.min(LANES, n_cols - r*LANES)", "valid = LANES"}}, "design_violation",
       "part = vf.reduce_max(reg, mreg_fp16)", "tails_only", ""},
      // Pass 2 sums the padding lanes of the column tail: the row sum, and so every value of the
      // row, is undefined. (VF rows beyond the row tail are not a defect: the junk rows they
      // compute never reach GM, on the device as here; tests/sim/test_hazards.cpp.)
      {"design: pass-2 column mask over padding (valid = LANES)", true, true,
       {{"valid = pl.min(LANES, n_cols - r*LANES)", "valid = LANES", 1}}, "design_violation",
       "row_sum = vf.add(row_sum, vf.reduce_sum(e_even, mreg_fp32_z), preg_fp32)", "tails_only", ""},
      // Subtract, not multiply: SPEC inputs span the whole float16 range, so rows are nearly
      // one-hot and the row sum is ~1, which makes e*s equal e/s; e-s is wrong in every lane.
      {"design: subtract instead of divide", true, true,
       {{"d_even = vf.div(e_even", "d_even = vf.sub(e_even"}, {"d_odd  = vf.div(e_odd", "d_odd  = vf.sub(e_odd"}},
       "design_violation", "vf.store_align(out_tile + (base + r*LANES), out16, mreg_fp16)", "everywhere", ""},
      {"design: at most 16 registers per row", true, true,
       {{"n_regs = (n_cols + LANES - 1) // LANES", "n_regs = pl.min((n_cols + LANES - 1) // LANES, 16)"}},
       "design_violation", "pl.store(y, out_slot, [row_off, 0])", "large_only", ""},
      // Cores overwrite each other's rows with other values (a DESIGN whose cores walk every
      // later tile stores the same values twice: SIM-OUT-MULTI-CORE-SAME, a warning, and the run
      // passes, as it would on the device).
      {"design: every core stores its tiles at row 0", true, true,
       {{"pl.store(y, out_slot, [row_off, 0])", "pl.store(y, out_slot, [0, 0])"}},
       "design_violation", "pl.store(y, out_slot, [0, 0])", "cores", ""},
      {"design: square root of a negative value", true, true,
       {{"d_even = vf.div(e_even, row_sum_b, mreg_fp32_z)",
         "d_even = vf.sqrt(vf.sub(e_even, row_sum_b, mreg_fp32_z), mreg_fp32_z)"}},
       "design_violation", "vf.store_align(out_tile + (base + r*LANES), out16, mreg_fp16)", "special_values", ""},
      // ---- kernel side (hand-written, --no-gen) -------------------------------------------
      {"kernel: stale pass-3 masks", false, false,
       {{"            even = vf.update_mask((valid + 1) // 2, dtype=pl.DT_FP32)\n"
         "            odd = vf.update_mask(valid // 2, dtype=pl.DT_FP32)\n"
         "            reg = vf.load_align(in_tile, base + r * LANES)\n"
         "            e0 = vf.exp_sub(reg, row_max_b, mask16, dtype=pl.DT_FP32, layout=pl.CastLayout.ZERO)\n"
         "            e1 = vf.exp_sub(reg, row_max_b, mask16, dtype=pl.DT_FP32, layout=pl.CastLayout.ONE)\n"
         "            h0",
         "            reg = vf.load_align(in_tile, base + r * LANES)\n"
         "            e0 = vf.exp_sub(reg, row_max_b, mask16, dtype=pl.DT_FP32, layout=pl.CastLayout.ZERO)\n"
         "            e1 = vf.exp_sub(reg, row_max_b, mask16, dtype=pl.DT_FP32, layout=pl.CastLayout.ONE)\n"
         "            h0"}},
       "implementation_error", "h0 = vf.astype(vf.div(e0, row_sum_b, even)", "tails_only", ""},
      {"kernel: pass-1 mask over padding", false, false,
       {{"mask16 = vf.update_mask(n_cols - r * LANES, dtype=pl.DT_FP16)", "mask16 = vf.update_mask(LANES, dtype=pl.DT_FP16)"}},
       "implementation_error", "row_max = vf.max(row_max, vf.reduce_max(reg, mask16), all16)", "tails_only", ""},
      {"kernel: row tail ignored", false, false,
       {{"valid_rows = pl.min(TILE_ROWS, rows - row_off)", "valid_rows = TILE_ROWS"}}, "implementation_error",
       "pl.load(in_slot, x, [row_off, 0])", "tails_only", ""},
      {"kernel: pass-2 column mask over padding", false, false,
       {{"valid = n_cols - r * LANES", "valid = LANES", 0}}, "implementation_error",
       "row_sum = vf.add(row_sum, vf.reduce_sum(e0, even), all32)", "tails_only", ""},
      {"kernel: subtract instead of divide", false, false,
       {{"h0 = vf.astype(vf.div(e0", "h0 = vf.astype(vf.sub(e0"}, {"h1 = vf.astype(vf.div(e1", "h1 = vf.astype(vf.sub(e1"}},
       "implementation_error", "vf.store_align(out_tile + (base + r * LANES)", "everywhere", ""},
      {"kernel: at most 16 registers per row", false, false,
       {{"n_regs = (n_cols + LANES - 1) // LANES", "n_regs = pl.min((n_cols + LANES - 1) // LANES, 16)"}},
       "implementation_error", "pl.store(y, out_slot, [row_off, 0])", "large_only", ""},
      {"kernel: the first tile is skipped", false, false,
       {{"pl.range(core_id, num_tiles, num_cores)", "pl.range(core_id + 1, num_tiles, num_cores)"}},
       "implementation_error", "softmax_tile_group_kernel[None, block_dim](x, y)", "cores", ""},
      // Cores overwrite each other's rows with other values. (Every core walking every later
      // tile stores the same values twice: the result does not depend on the order, so it is
      // the SIM-OUT-MULTI-CORE-SAME warning and the run passes; tests/sim/test_hazards.cpp.)
      {"kernel: every core stores its tiles at row 0", false, false,
       {{"pl.store(y, out_slot, [row_off, 0])", "pl.store(y, out_slot, [0, 0])"}},
       "implementation_error", "pl.store(y, out_slot, [0, 0])", "cores", ""},
      {"kernel: load after the VF call", false, false,
       {{"            pl.load(in_slot, x, [row_off, 0])\n", ""},
        {"            softmax_rows_vf(in_slot, out_slot, valid_rows, cols)\n",
         "            softmax_rows_vf(in_slot, out_slot, valid_rows, cols)\n            pl.load(in_slot, x, [row_off, 0])\n"}},
       "implementation_error", "row_max = vf.max(row_max, vf.reduce_max(reg, mask16), all16)", "sync_pipeline", ""},
      {"kernel: 0/0 in pass 3", false, false,
       {{"h0 = vf.astype(vf.div(e0, row_sum_b, even)", "h0 = vf.astype(vf.div(vf.sub(e0, e0, even), vf.sub(row_sum_b, row_sum_b, all32), even)"}},
       "implementation_error", "vf.store_align(out_tile + (base + r * LANES)", "special_values", ""},
      {"kernel: fp32 input annotation", false, false,
       {{"    x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP16],", "    x: pl.Tensor[[pl.DYNAMIC, pl.DYNAMIC], pl.DT_FP32],"}},
       "implementation_error", "softmax_tile_group_kernel[None, block_dim](x, y)", "by_dtype", ""},
      {"kernel: no Python for the golden", false, false, {}, "env_error", "", "environment",
       "/nonexistent/python3"},
  };
  return t;
}

std::string Key(const Planted& p) {
  return p.design_side ? "d" + std::to_string(&p - Table().data()) : "k" + std::to_string(&p - Table().data());
}

void RunPlanted(size_t index) {
  const Planted& p = Table().at(index);
  INFO(p.id);
  // Per process: other builds of this suite may run at the same time on the machine.
  fs::path dir = fs::temp_directory_path() / ("opdev_planted_" + Key(p) + "_" + std::to_string(::getpid())) / "softmax";
  fs::remove_all(dir.parent_path());
  fs::create_directories(dir.parent_path());
  fs::copy(fs::path(OPDEV_SOURCE_DIR) / "examples/softmax", dir, fs::copy_options::recursive);
  stage::StageOptions o;
  o.op_dir = dir.string();
  o.kb_root = std::string(OPDEV_SHARED_DIR) + "/fixtures/kb";
  o.backend = "sim";
  o.python = p.python.empty() ? std::string(OPDEV_PYTHON) : p.python;
  o.triage_shrink = false;  // the shrink has its own test; here: category, location, symptom
  std::string located;  // the text of the file the marker is in
  if (p.design_side) {
    std::string design = *ReadTextFile((dir / "DESIGN.md").string());
    if (p.fixed_base) design = Apply(design, kFixPass3);
    design = Apply(design, p.edits);
    REQUIRE(WriteFileAtomic((dir / "DESIGN.md").string(), design).ok());
    located = design;
  } else {
    std::string src = *ReadTextFile(std::string(OPDEV_SOURCE_DIR) + "/tests/data/selfcheck/softmax/test_softmax.py");
    for (size_t q = 0; (q = src.find("softmax_kernel", q)) != std::string::npos; q += 25)
      src.replace(q, 14, "softmax_tile_group_kernel");
    src = Apply(src, p.edits);
    REQUIRE(WriteFileAtomic((dir / "test_softmax.py").string(), src).ok());
    o.no_gen = true;
    located = src;
  }
  auto r = stage::RunStage(o);
  REQUIRE(r.ok());
  INFO(r->ToText());
  CHECK(r->verdict.failure_category == p.category);
  REQUIRE(r->diagnosis.has_value());
  const auto& d = *r->diagnosis;
  CHECK(std::string(triage::RowOf(d.separation.symptom).key) == p.symptom);
  if (!p.marker.empty()) {
    const int line = LineOf(located, p.marker);
    const auto& lines = p.design_side ? d.root.design_lines : d.root.kernel_lines;
    CHECK(std::find(lines.begin(), lines.end(), line) != lines.end());
  }
  if (p.category == "design_violation") {
    CHECK(r->verdict.suspected);
    CHECK(r->generated);
  }
  if (!p.design_side && p.category == "implementation_error") CHECK(d.root.origin == "kernel");
}

}  // namespace

TEST_CASE("the planted-defect table covers DESIGN and kernel sides and every §8 symptom row") {
  size_t design = 0, kernel = 0;
  std::set<std::string> rows;
  for (const auto& p : Table()) {
    (p.design_side ? design : kernel)++;
    rows.insert(p.symptom);
  }
  CHECK(Table().size() >= 20);
  CHECK(design >= 8);
  CHECK(kernel >= 8);
  for (const auto& r : triage::SymptomTable()) CHECK(rows.count(r.key) == 1);
}

#define PLANTED(N) \
  TEST_CASE("planted defect " #N " is triaged to its category, location and symptom") { RunPlanted(N); }
PLANTED(0)
PLANTED(1)
PLANTED(2)
PLANTED(3)
PLANTED(4)
PLANTED(5)
PLANTED(6)
PLANTED(7)
PLANTED(8)
PLANTED(9)
PLANTED(10)
PLANTED(11)
PLANTED(12)
PLANTED(13)
PLANTED(14)
PLANTED(15)
PLANTED(16)
PLANTED(17)
PLANTED(18)
PLANTED(19)
