// Chain-only DESIGNs (§1 freezes only vector_selection api_sequence chains, no kernel code)
// generate through the pure-vec pattern skeletons A / B / B+: the file compiles, re-parses,
// keeps the chain's ops in DESIGN order, and runs in the simulator against its golden. Planted
// chain defects are design_violation findings at the DESIGN line, and then no file.
#include "codegen_test_util.h"

#include "opdev/codegen/generate.h"

#include <catch2/catch.hpp>

#include <boost/json.hpp>

using namespace opdev;
namespace fs = std::filesystem;

namespace {

// A fresh copy of tests/data/codegen/<name>.
fs::path CopyData(const std::string& name, const std::string& tag) {
  return cgtest::CopyToTemp(fs::path(OPDEV_SOURCE_DIR) / "tests" / "data" / "codegen" / name, tag);
}

struct Example {
  const char* op;
  const char* pattern;  // "Pattern A", ...
  bool inferred;        // no pattern field: the choice is a note
  const char* chain;    // the chain's ops in order, as they appear in the VF
  size_t vfs;           // @pl.vector_function count
};

const Example kExamples[] = {
    {"swish", "Pattern A", false, "vf.muls|vf.exp|vf.adds|vf.div|vf.store_align", 1},
    // Two row inputs, tile groups named after their tensors.
    {"add_relu", "Pattern A", false, "vf.load_align|vf.load_align|vf.add|vf.relu|vf.store_align", 1},
    {"half_relu_exp", "Pattern A", true, "vf.relu|vf.muls|vf.exp|vf.store_align", 1},
    {"row_softmax", "Pattern B", false,
     "vf.reduce_max|vf.max|vf.sub|vf.exp|vf.reduce_sum|vf.add|vf.sub|vf.exp|vf.div|vf.store_align",
     1},
    {"rmsnorm", "Pattern B+", true,
     "vf.mul|vf.reduce_sum|vf.add|vf.div|vf.adds|vf.sqrt|vf.div|vf.mul|vf.store_align", 1},
    {"layernorm", "Pattern B+", false,
     "vf.reduce_sum|vf.add|vf.div|vf.sub|vf.mul|vf.reduce_sum|vf.add|vf.div|vf.adds|vf.sqrt|"
     "vf.sub|vf.div|vf.mul|vf.add|vf.store_align",
     1},
    // Pattern C: pass 1 init VF, pass 1 accumulate VF, then the output VF, which recomputes
    // the row value from the accumulator tile.
    {"rmsnorm_long", "Pattern C", true,
     "vf.mul|vf.reduce_sum|vf.add|vf.store_align|vf.load_align|vf.mul|vf.reduce_sum|vf.add|"
     "vf.store_align|vf.load_align|vf.full|vf.div|vf.adds|vf.sqrt|vf.div|vf.mul|vf.store_align",
     3},
    // Pattern C with two reductions: pass 2 recomputes the row max from pass 1's accumulator.
    {"softmax_long", "Pattern C", false,
     "vf.reduce_max|vf.max|vf.store_align|vf.reduce_max|vf.max|vf.store_align|vf.sub|vf.exp|"
     "vf.reduce_sum|vf.add|vf.store_align|vf.sub|vf.exp|vf.reduce_sum|vf.add|vf.store_align|"
     "vf.sub|vf.exp|vf.div|vf.store_align",
     5},
};

// Positions of the `|`-separated needles in order; false when one is missing or out of order.
bool InOrder(const std::string& text, const std::string& needles, std::string* missing) {
  size_t at = 0, b = 0;
  while (b <= needles.size()) {
    size_t e = needles.find('|', b);
    if (e == std::string::npos) e = needles.size();
    std::string n = needles.substr(b, e - b) + "(";
    size_t p = text.find(n, at);
    if (p == std::string::npos) {
      *missing = n;
      return false;
    }
    at = p + n.size();
    b = e + 1;
  }
  return true;
}

std::string Bin() {
  const char* b = std::getenv("OPDEV_BIN");
  return b ? b : "";
}

}  // namespace

TEST_CASE("chain-only DESIGNs generate from the pattern skeleton named or inferred") {
  for (const Example& ex : kExamples) {
    SECTION(ex.op) {
      fs::path dir = CopyData(ex.op, "gen");
      auto r = codegen::GenerateKernelFile(dir.string(), {});
      INFO(r.diagnostics.ToText());
      REQUIRE(r.ok());
      const Diagnostic* note = r.diagnostics.Find("CODEGEN-CHAIN-SKELETON");
      REQUIRE(note);
      CHECK(note->severity == Severity::kNote);
      CHECK(note->message.find(std::string(ex.pattern) + " skeleton") != std::string::npos);
      CHECK(r.diagnostics.HasCode("CODEGEN-CHAIN-PATTERN-INFERRED") == ex.inferred);
      CHECK_FALSE(r.diagnostics.HasCode("CODEGEN-NO-KERNEL-CODE"));
      const std::string& c = r.file->content;
      INFO(c);
      CHECK(r.file->kernel == std::string(ex.op) + "_kernel");
      REQUIRE(r.file->vector_functions.size() == ex.vfs);
      CHECK(r.file->vector_functions.back() == std::string(ex.op) + "_vf");
      // Structure: one jit kernel, multi-core row loop, validshape before load, tail masks.
      CHECK(c.find("@pl.jit(auto_mutex=True)") != std::string::npos);
      CHECK(c.find("for tile_id in pl.range(core_id, num_tiles, num_cores):") != std::string::npos);
      const bool cross = std::string(ex.pattern) == "Pattern C";
      const size_t vs = c.find(cross ? "pl.set_validshape(x_slot, [valid_rows, valid_cols])"
                                     : "pl.set_validshape(x_slot, [valid_rows, cols])");
      const size_t ld = c.find("pl.load(x_slot, x, [row_off, 0])");
      REQUIRE(vs != std::string::npos);
      REQUIRE(ld != std::string::npos);
      CHECK(vs < ld);
      CHECK(c.find("mreg = vf.update_mask(valid, dtype=") != std::string::npos);
      if (std::string(ex.op) == "add_relu")
        CHECK(c.find("z_group = pl.make_tile_group(type=z_tt, addrs=[VA_Z0, VA_Z1], "
                     "mutex_ids=[2, 3])") != std::string::npos);
      else
        CHECK(c.find("in_group = pl.make_tile_group(type=in_tt, addrs=[VA_IN0, VA_IN1], "
                     "mutex_ids=[0, 1])") != std::string::npos);
      CHECK(c.find("valid_shape=[-1, -1]") != std::string::npos);
      // The chain's ops in DESIGN order inside the VF.
      const size_t vf = c.find("def " + r.file->vector_functions.front() + "(");
      REQUIRE(vf != std::string::npos);
      std::string missing;
      CHECK(InOrder(c.substr(vf), ex.chain, &missing));
      INFO("missing or out of order: " << missing);
      // Deterministic, and the budget equals DESIGN §3 (checked inside generation).
      auto again = codegen::GenerateKernelFile(dir.string(), {});
      REQUIRE(again.ok());
      CHECK(again.file->content == c);
      // py_compile accepts the file.
      REQUIRE(codegen::WriteGeneratedFile(r.file->path, c, {}).ok());
      CHECK(cgtest::RunShell(std::string(OPDEV_PYTHON) + " -m py_compile " + r.file->path) == 0);
    }
  }
}

TEST_CASE("Pattern C accumulates each row across column chunks in a UB tile") {
  fs::path dir = CopyData("rmsnorm_long", "c");
  auto r = codegen::GenerateKernelFile(dir.string(), {});
  INFO(r.diagnostics.ToText());
  REQUIRE(r.ok());
  const std::string& c = r.file->content;
  INFO(c);
  CHECK(c.find("acc1_slot = acc_group.next()") < c.find("for tile_id in pl.range("));
  CHECK(c.find("num_chunks = (cols + MAX_N - 1) // MAX_N") != std::string::npos);
  // First chunk initialises, later chunks accumulate, the output pass walks every chunk.
  const size_t init =
      c.find("rmsnorm_long_p1_init_vf(x_slot, acc1_slot, valid_rows, valid_cols, cols)");
  const size_t more = c.find("for c in pl.range(1, num_chunks):");
  const size_t acc = c.find("rmsnorm_long_p1_acc_vf(x_slot, acc1_slot");
  const size_t out = c.find("for c in pl.range(0, num_chunks):");
  REQUIRE(init != std::string::npos);
  REQUIRE(more != std::string::npos);
  REQUIRE(acc != std::string::npos);
  REQUIRE(out != std::string::npos);
  CHECK(init < more);
  CHECK(more < acc);
  CHECK(acc < out);
  CHECK(c.find("pl.load(x_slot, x, [row_off, col_off])") != std::string::npos);
  CHECK(c.find("pl.store(y, y_slot, [row_off, col_off])") != std::string::npos);
  CHECK(c.find("vf.store_align(acc1_tile + m * LANES, acc") != std::string::npos);
  // The axis symbol N is the whole row, not the chunk.
  CHECK(c.find("n_len = vf.full(n_total, preg, dtype=pl.DT_FP32)") != std::string::npos);
}

TEST_CASE("KB template evidence names the pattern when no pattern field does") {
  fs::path dir = CopyData("rmsnorm", "evidence");
  REQUIRE(cgtest::MutateDesign(dir, "kb_template_evidence:  n/a",
                               "kb_template_evidence:  patterns/vec-row-reduce-broadcast.md") > 0);
  auto r = codegen::GenerateKernelFile(dir.string(), {});
  INFO(r.diagnostics.ToText());
  REQUIRE(r.ok());
  CHECK_FALSE(r.diagnostics.HasCode("CODEGEN-CHAIN-PATTERN-INFERRED"));
  const Diagnostic* note = r.diagnostics.Find("CODEGEN-CHAIN-SKELETON");
  REQUIRE(note);
  // vec-row-reduce-broadcast is Pattern B; the chain's gamma row makes it B+.
  CHECK(note->message.find("Pattern B+ skeleton (kb_template_evidence)") != std::string::npos);
}

TEST_CASE("Pattern B+ loads the per-column parameter once, before the row loop") {
  fs::path dir = CopyData("rmsnorm", "bplus");
  auto r = codegen::GenerateKernelFile(dir.string(), {});
  INFO(r.diagnostics.ToText());
  REQUIRE(r.ok());
  const std::string& c = r.file->content;
  const size_t g = c.find("pl.load(gamma_slot, gamma, [0, 0])");
  const size_t loop = c.find("for tile_id in pl.range(");
  REQUIRE(g != std::string::npos);
  REQUIRE(loop != std::string::npos);
  CHECK(g < loop);
  CHECK(c.find("gamma = vf.load_align(gamma_tile, r * LANES)") != std::string::npos);
  CHECK(c.find("n_len = vf.full(n_cols, preg, dtype=pl.DT_FP32)") != std::string::npos);
  CHECK(c.find("addrs=[VA_GAMMA0], mutex_ids=[4]") != std::string::npos);
}

TEST_CASE("chain-only examples run in the simulator and pass against their golden") {
  REQUIRE_FALSE(Bin().empty());  // OPDEV_BIN (set by CTest): the opdev command under test
  REQUIRE(fs::exists(Bin()));
  for (const Example& ex : kExamples) {
    SECTION(ex.op) {
      fs::path dir = CopyData(ex.op, "sim");
      fs::path out = dir / "run.json";
      REQUIRE(cgtest::RunShell(Bin() + " gen " + dir.string() + " > /dev/null 2>&1") == 0);
      const int rc = cgtest::RunShell(Bin() + " run " + dir.string() + " --backend sim --json > " +
                                      out.string() + " 2>&1");
      const std::string text = cgtest::ReadAll(out);
      INFO(text);
      CHECK(rc == 0);
      boost::json::error_code ec;
      auto v = boost::json::parse(text, ec);
      REQUIRE_FALSE(ec);
      const auto* cases = v.as_object().if_contains("cases");
      REQUIRE(cases);
      REQUIRE(cases->as_array().size() == 5);
      for (const auto& cv : cases->as_array()) {
        INFO(boost::json::serialize(cv));
        CHECK(cv.as_object().at("status").as_string() == "PASS");
      }
    }
  }
}

namespace {

struct ChainDefect {
  const char* name;
  const char* op;
  const char* from;
  const char* to;
  const char* code;
  bool at_mutated_line;
};

const ChainDefect kChainDefects[] = {
    {"unknown API in the chain", "swish", "→ vf.exp →", "→ vf.expo →", "CODEGEN-UNKNOWN-API", true},
    {"a reduction under Pattern A", "swish", "vf.div(x, _) → vf.store_align",
     "vf.div(x, _) → vf.reduce_sum → vf.store_align", "CODEGEN-CHAIN-PATTERN", true},
    {"a binary op without its operands", "swish", "vf.div(x, _)", "vf.div",
     "CODEGEN-CHAIN-AMBIGUOUS", true},
    {"an undefined operand", "swish", "vf.div(x, _)", "vf.div(z, _)", "CODEGEN-UNDEFINED-NAME",
     true},
    {"an API the skeleton cannot place", "swish", "→ vf.exp →", "→ vf.select →",
     "CODEGEN-CHAIN-UNSUPPORTED", true},
    {"a tile_op step", "swish", "implementation:        vf", "implementation:        tile_op",
     "CODEGEN-CHAIN-UNSUPPORTED", false},
    {"an unknown pattern name", "swish", "pattern:               A", "pattern:               D",
     "CODEGEN-CHAIN-PATTERN", true},
    {"reduce_max without its frozen init", "row_softmax", "vf.reduce_max(x, init=NEG_INF)",
     "vf.reduce_max(x)", "CODEGEN-CHAIN-REDUCE-INIT", true},
    {"steps naming different patterns", "row_softmax", "pattern:               B",
     "pattern:               B+", "CODEGEN-CHAIN-AMBIGUOUS", false},
    {"a per-register input read after the reduction", "row_softmax",
     "mx = vf.reduce_max(x, init=NEG_INF)", "vf.reduce_max(x, init=NEG_INF) → mx = vf.max(_, x)",
     "CODEGEN-CHAIN-AMBIGUOUS", true},
    {"missing §3 rows for the gamma slot",
     "rmsnorm", "| UB(Vec) | gamma 驻留 slot0 | `gamma_group[0]`", "| UB(Vec) | gamma 驻留 slot0 | `beta_group[0]`",
     "CODEGEN-CHAIN-SLOT", false},
    {"missing §2 TileGroup row for the gamma slot", "rmsnorm", "| `gamma_group` | 1 |",
     "| `beta_group` | 1 |", "CODEGEN-CHAIN-SLOT", false},
    {"no §2 tile row for the second input", "add_relu", "| `z_slot` (z_group)",
     "| `w_slot` (w_group)", "CODEGEN-CHAIN-SLOT", false},
    {"a reduction on fp16 registers", "half_relu_exp", "vf.exp → vf.store_align",
     "vf.exp → s = vf.reduce_sum → vf.store_align", "CODEGEN-CHAIN-UNSUPPORTED", true},
    {"an element outside the chain grammar", "swish", "vf.adds(1.0)", "vf.adds(1.0",
     "CODEGEN-CHAIN-SYNTAX", true},
    {"a chain that ends with a reduction", "row_softmax", "vf.div(_, sm) → vf.store_align",
     "vf.div(_, sm) → s2 = vf.reduce_sum", "CODEGEN-CHAIN-NO-OUTPUT", true},
    {"a result name rebinding an input", "rmsnorm", "rms = vf.sqrt", "x = vf.sqrt",
     "CODEGEN-CHAIN-NAME", true},
    {"§0 says the axis may exceed one tile but §2 has no accumulator tile", "rmsnorm",
     "超单 tile**：否", "超单 tile**：是", "CODEGEN-CHAIN-SLOT", false},
    {"Pattern C accumulator shaped unlike one register per row", "rmsnorm_long",
     "| `acc_slot` (acc_group) | `[4, 64]`", "| `acc_slot` (acc_group) | `[4, 128]`",
     "CODEGEN-CHAIN-SLOT", true},
    {"Pattern B declared for a row longer than a tile", "rmsnorm_long",
     "applicable_conditions: FP32；列尾 update_mask\n  - step", "applicable_conditions: FP32；列尾 "
     "update_mask\n    pattern: B+\n  - step", "CODEGEN-CHAIN-PATTERN", false},
};

}  // namespace

TEST_CASE("planted chain defects are reported at the DESIGN line and nothing is generated") {
  for (const ChainDefect& d : kChainDefects) {
    SECTION(d.name) {
      fs::path dir = CopyData(d.op, "defect");
      const int line = cgtest::MutateDesign(dir, d.from, d.to);
      REQUIRE(line > 0);
      auto r = codegen::GenerateKernelFile(dir.string(), {});
      INFO(d.name << "\n" << r.diagnostics.ToText());
      CHECK_FALSE(r.ok());
      CHECK_FALSE(r.file.has_value());
      REQUIRE(r.diagnostics.HasCode(d.code));
      const Diagnostic* f = r.diagnostics.Find(d.code);
      CHECK(f->severity == Severity::kError);
      CHECK(f->file == (dir / "DESIGN.md").string());
      CHECK(f->line > 0);
      if (d.at_mutated_line) CHECK(f->line == line);
      CHECK_FALSE(fs::exists(dir / ("test_" + std::string(d.op) + ".py")));
    }
  }
}

TEST_CASE("a SPEC row longer than the tile is refused for Patterns A/B") {
  fs::path dir = CopyData("row_softmax", "capacity");
  std::string spec = cgtest::ReadAll(dir / "SPEC.md");
  const std::string from = "\"N\": [\n      1,\n      512\n    ]";
  size_t at = spec.find(from);
  REQUIRE(at != std::string::npos);
  spec.replace(at, from.size(), "\"N\": [1, 4096]");
  cgtest::WriteAll(dir / "SPEC.md", spec);
  auto r = codegen::GenerateKernelFile(dir.string(), {});
  INFO(r.diagnostics.ToText());
  CHECK_FALSE(r.ok());
  CHECK(r.diagnostics.HasCode("CODEGEN-CHAIN-CAPACITY"));
}

TEST_CASE("the softmax DESIGN's own vector_selection table is not a buildable chain") {
  // Its §1 code is the product; with the code removed, the table's chains lack operands and
  // the finding says so instead of inventing them.
  fs::path dir = cgtest::CopyExample("softmax", "tableonly");
  std::string text = cgtest::ReadAll(dir / "DESIGN.md");
  const size_t a = text.find("### Module 1 API 调用序列");
  const size_t b = text.find("**API 来源**", a);
  REQUIRE(a != std::string::npos);
  REQUIRE(b != std::string::npos);
  text.erase(a, b - a);
  cgtest::WriteAll(dir / "DESIGN.md", text);
  auto r = codegen::GenerateKernelFile(dir.string(), {});
  INFO(r.diagnostics.ToText());
  CHECK_FALSE(r.ok());
  CHECK_FALSE(r.file.has_value());
  CHECK(r.diagnostics.ErrorCount() > 0);
  CHECK_FALSE(r.diagnostics.HasCode("CODEGEN-NO-KERNEL-CODE"));
}
