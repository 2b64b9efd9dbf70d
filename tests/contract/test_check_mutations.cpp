// Mutated copies of the real softmax contracts: each carries exactly one defect and must yield
// the expected diagnostic code, failure category, file and line (all computed by hand from the
// fixture text); the unmutated copy must yield no error.
#include "contract_test_util.h"

#include "opdev/contract/check.h"

using namespace opdev;
using namespace opdev::contract;
using namespace contract_test;

namespace {

struct Mutation {
  const char* name;
  const char* file;
  std::string from, to;
  const char* code;
  std::string_view category;
  int line;
  Target target = Target::kA5;
};

Diagnostics CheckScratch(const ScratchOpDir& s, Target target = Target::kA5) {
  Diagnostics diags;
  LoadOptions load;
  load.kb_root = kKbRoot;
  CheckOptions opts;
  opts.target = target;
  absl::Status st = CheckOpDirPath(s.dir(), load, opts, &diags);
  REQUIRE(st.ok());
  return diags;
}

const Diagnostic* FindAt(const Diagnostics& diags, const std::string& code, int line) {
  for (const auto& d : diags.items())
    if (d.code == code && d.line == line) return &d;
  return nullptr;
}

const std::vector<Mutation>& Mutations() {
  static const std::vector<Mutation> m = {
      // DESIGN.md §3 address map (rows at lines 239-242).
      {"overlap", "DESIGN.md", "| `0x18000` | 49152 | 1 | 轮转 | `0x24000` |",
       "| `0x10000` | 49152 | 1 | 轮转 | `0x1C000` |", "DESIGN-ADDR-OVERLAP",
       category::kDesignViolation, 241},
      {"misaligned start", "DESIGN.md", "| `0x24000` | 49152 | 1 | 轮转 | `0x30000` |",
       "| `0x24010` | 49152 | 1 | 轮转 | `0x30010` |", "DESIGN-ADDR-ALIGN",
       category::kDesignViolation, 242},
      {"range not half-open", "DESIGN.md", "| `0x00000` | 49152 | 1 | 轮转 | `0x0C000` |",
       "| `0x00000` | 49152 | 1 | 轮转 | `0x0D000` |", "DESIGN-ADDR-RANGE",
       category::kDesignViolation, 239},
      {"over UB capacity", "DESIGN.md", "| `0x24000` | 49152 | 1 | 轮转 | `0x30000` |",
       "| `0x3E000` | 49152 | 1 | 轮转 | `0x4A000` |", "DESIGN-ADDR-CAPACITY",
       category::kDesignViolation, 242},
      {"stated high-water wrong", "DESIGN.md", "- UB(Vec): `0x30000` (196608 B)",
       "- UB(Vec): `0x28000` (163840 B)", "DESIGN-HIGHWATER-MISMATCH",
       category::kDesignViolation, 247},
      {"slot bytes vs shape", "DESIGN.md", "`in_group[0]` | `[3,8192]`",
       "`in_group[0]` | `[4,8192]`", "DESIGN-SLOT-BYTES", category::kDesignViolation, 239},
      {"tile size vs shape", "DESIGN.md", "| 49152 | 双缓冲，mutex_ids=[0,1]",
       "| 49000 | 双缓冲，mutex_ids=[0,1]", "DESIGN-TILE-BYTES", category::kDesignViolation, 211},
      {"tile vs address map dtype", "DESIGN.md", "`in_group[1]` | `[3,8192]` | FP16",
       "`in_group[1]` | `[3,8192]` | BF16", "DESIGN-TILE-ADDR-MISMATCH",
       category::kDesignViolation, 240},
      {"group depth vs slots", "DESIGN.md", "| `in_group` | 2 |", "| `in_group` | 3 |",
       "DESIGN-GROUP-DEPTH", category::kDesignViolation, 220},
      {"duplicate mutex id", "DESIGN.md", "`[[2],[3]]`", "`[[1],[3]]`", "DESIGN-MUTEX-DUPLICATE",
       category::kDesignViolation, 221},
      {"mutex id out of range", "DESIGN.md", "`[[0],[1]]`", "`[[0],[32]]`", "DESIGN-MUTEX-RANGE",
       category::kDesignViolation, 220},
      {"event id out of range", "DESIGN.md",
       "> 不涉及 cross_core，以下各表省略。",
       "| 事件组 | event_id |\n|---|---:|\n| READY | 16 |\n\n> 不涉及 cross_core，以下各表省略。",
       "DESIGN-EVENT-RANGE", category::kDesignViolation, 321},
      // DESIGN.md structure.
      {"missing §6", "DESIGN.md", "## §6 核间同步（R6 输出）", "## 核间同步（R6 输出）",
       "DESIGN-SECTION-MISSING", category::kIncompleteStructure, 323},
      {"duplicated §7", "DESIGN.md", "## §8 目标测试 case", "## §7 目标测试 case",
       "DESIGN-SECTION-DUPLICATE", category::kIncompleteStructure, 373},
      {"TODO left", "DESIGN.md", "- **修改记录**: 无", "- **修改记录**: TODO 无",
       "DESIGN-PLACEHOLDER", category::kIncompleteStructure, 437},
      {"待定 left", "DESIGN.md", "- **设计时间**: 2026-08-31", "- **设计时间**: 待定",
       "DESIGN-PLACEHOLDER", category::kIncompleteStructure, 4},
      {"3 test cases", "DESIGN.md",
       "| `test_softmax_col_tail` | `[3, 200]` | 单轴（列/寄存器）尾块（N%128=72→列尾72 lane；B%3=0 无行尾） | ✅ n_regs=2 (128+72)，第2寄存器 k=72，mask_before-max |\n"
       "| `test_softmax_tail2d` | `[4, 200]` | 双轴尾块（行尾1行 + 列尾72 lane） | ✅ 行尾 set_validshape + 列尾 update_mask 同时生效 |\n"
       "| `test_softmax_multitile` | `[7, 200]` | 跨多 tile + 尾块（B=7→3行块：2满+1尾1行；N=200列尾） | ✅ num_tiles=3，验证跨行块 m/s 不串扰（每行块独立 VF 调用） |\n"
       "| `test_softmax_p0_batch1_n128` | `[1, 128]` | P0（用户指定）：单行小 N，单核单 tile 单寄存器 | ✅ num_tiles=1, valid_rows=1, n_regs=1 |\n"
       "| `test_softmax_p0_batch4_n2048` | `[4, 2048]` | P0（用户指定）：中 batch 中大 N，行尾+多寄存器 | ✅ num_tiles=2, n_regs=16 |\n",
       "", "DESIGN-CASES-TOO-FEW", category::kIncompleteStructure, 377},
      {"wrapper boundary not empty", "DESIGN.md", "### Wrapper 边界外操作\n\n空\n",
       "### Wrapper 边界外操作\n\nx = x.contiguous()\n", "DESIGN-WRAPPER-BOUNDARY",
       category::kDesignViolation, 33},
      {"§9 failed check", "DESIGN.md", "| 数据依赖正确（Module 顺序 + sync 点） | ✅ |",
       "| 数据依赖正确（Module 顺序 + sync 点） | ❌ |", "DESIGN-EVAL-FAILED",
       category::kDesignViolation, 401},
      {"§10 without load_tile", "DESIGN.md",
       "| `[pl.load, MTE2]` (tile 级 load_tile 角色) | MTE2 搬运：GM → UB（fp16）；本设计按官方 softmax 样例用 `pl.load(in_slot, x, [row_off,0])`（单元素偏移 tile 级 load，等效于 load_tile 的 GM→UB tile 搬运角色；多 tile_dims 变体 `pl.load_tile` 此处不需要） |",
       "| `[pl.load, MTE2]` | MTE2 搬运：GM → UB（fp16） |", "DESIGN-DATAFLOW-INCOMPLETE",
       category::kIncompleteStructure, 441},
      // §1 vector_selection (rows at lines 167-170).
      {"implementation not vf|tile_op", "DESIGN.md", "| pass1 行 max | vf |",
       "| pass1 行 max | simd |", "DESIGN-VSEL-IMPLEMENTATION", category::kDesignViolation, 167},
      {"tile_op without KB evidence", "DESIGN.md", "| pass2 exp+sum | vf |",
       "| pass2 exp+sum | tile_op |", "DESIGN-VSEL-TILEOP-EVIDENCE", category::kDesignViolation,
       168},
      {"bad decision_reason", "DESIGN.md", "| default_vf | n/a | 950/A5 | fp32 div",
       "| faster | n/a | 950/A5 | fp32 div", "DESIGN-VSEL-REASON", category::kDesignViolation, 169},
      {"op_name differs", "DESIGN.md", "- **op_name**: softmax", "- **op_name**: softmax2",
       "DESIGN-OPNAME-MISMATCH", category::kDesignViolation, 3},
      // DESIGN_BINDINGS.json.
      {"forbidden kind/status pair", "DESIGN_BINDINGS.json",
       "\"kind\": \"obligation\",\n          \"source_anchors\": [\n            \"Applies when",
       "\"kind\": \"precondition\",\n          \"source_anchors\": [\n            \"Applies when",
       "BINDINGS-KIND-STATUS", category::kDesignViolation, 17},
      {"planned_location § missing", "DESIGN_BINDINGS.json", "DESIGN.md §3 高水位",
       "DESIGN.md §12 高水位", "BINDINGS-PLANNED-LOCATION", category::kDesignViolation, 565},
      {"duplicate req_id", "DESIGN_BINDINGS.json",
       "\"req_id\": \"R02\",\n          \"kind\": \"obligation\",\n          \"source_anchors\": [\n            \"Decision checks > Padding",
       "\"req_id\": \"R01\",\n          \"kind\": \"obligation\",\n          \"source_anchors\": [\n            \"Decision checks > Padding",
       "BINDINGS-DUPLICATE-REQ", category::kDesignViolation, 24},
      {"selection_reason edited", "DESIGN_BINDINGS.json",
       "\"selection_reason\": \"softmax 对每行", "\"selection_reason\": \"softmax 对每一行",
       "BINDINGS-REASON-MISMATCH", category::kDesignViolation, 8},
      {"unknown binding field", "DESIGN_BINDINGS.json", "  \"schema_version\": 1,\n",
       "  \"schema_version\": 1,\n  \"note\": \"x\",\n", "BINDINGS-FIELD-UNKNOWN",
       category::kDesignViolation, 3},
      {"schema_version 2", "DESIGN_BINDINGS.json", "  \"schema_version\": 1,\n",
       "  \"schema_version\": 2,\n", "BINDINGS-SCHEMA-VERSION", category::kDesignViolation, 2},
      {"bindings emptied", "DESIGN_BINDINGS.json", "\"bindings\": [\n    {\n      \"class_id\": \".\",\n      \"selection_field\": \"optional_patterns\",\n      \"reference\": \"patterns/vec-row-reduce-broadcast.md\"",
       "\"bindings\": [], \"x\": [\n    {\n      \"class_id\": \".\",\n      \"selection_field\": \"optional_patterns\",\n      \"reference\": \"patterns/vec-row-reduce-broadcast.md\"",
       "BINDINGS-EMPTY-MISMATCH", category::kDesignViolation, 3},
      {"malformed JSON", "DESIGN_BINDINGS.json", "\"req_id\": \"R03\",\n          \"kind\": \"validation_scope\"",
       "\"req_id\": \"R03\"\n          \"kind\": \"validation_scope\"", "JSON-SYNTAX",
       category::kInputError, 37},
      // KB_SELECTION.json and the KB.
      {"stale sha256", "KB_SELECTION.json", "sha256:d64d79b58ebb", "sha256:d64d79b58ebc",
       "KBSEL-SHA256-MISMATCH", category::kKbSelectionInvalid, 44},
      {"reference absent from KB", "KB_SELECTION.json", "\"path\": \"constraints/vec.md\"",
       "\"path\": \"constraints/vec-missing.md\"", "KBSEL-REF-MISSING",
       category::kKbSelectionInvalid, 42},
      {"path escapes namespace", "KB_SELECTION.json", "\"path\": \"constraints/vec.md\"",
       "\"path\": \"../constraints/vec.md\"", "KBSEL-PATH-INVALID",
       category::kKbSelectionInvalid, 42},
      {"flat class_id not '.'", "KB_SELECTION.json", "\"class_id\": \".\"",
       "\"class_id\": \"softmax\"", "KBSEL-CLASS-ID", category::kKbSelectionInvalid, 4},
      {"schema_version vs contract_version", "KB_SELECTION.json", "\"schema_version\": 3",
       "\"schema_version\": 2", "KBSEL-SCHEMA-VERSION", category::kKbSelectionInvalid, 2},
      {"no_matching_pattern true with patterns", "KB_SELECTION.json",
       "\"no_matching_pattern\": false", "\"no_matching_pattern\": true",
       "KBSEL-NO-MATCHING-PATTERN", category::kKbSelectionInvalid, 87},
      {"no_matching_pattern not a bool", "KB_SELECTION.json", "\"no_matching_pattern\": false",
       "\"no_matching_pattern\": 0", "KBSEL-FIELD-TYPE", category::kKbSelectionInvalid, 87},
      {"unknown topology", "KB_SELECTION.json", "\"row-reduction\",", "\"row-reductions\",",
       "KBSEL-TOPOLOGY-UNKNOWN", category::kKbSelectionInvalid, 5},
      // module_interfaces.yaml.
      {"is_fusion contradicts sections", "module_interfaces.yaml", "is_fusion: false",
       "is_fusion: true", "MODIF-FUSION", category::kDesignViolation, 5},
      {"module_count wrong", "module_interfaces.yaml", "module_count: 1", "module_count: 2",
       "MODIF-MODULE-COUNT", category::kDesignViolation, 3},
      {"input from a later module", "module_interfaces.yaml", "- {name: x, source: primary}",
       "- {name: x, source: module_2}", "MODIF-INPUT-SOURCE", category::kDesignViolation, 26},
      {"primary input unknown", "module_interfaces.yaml", "- {name: x, source: primary}",
       "- {name: w, source: primary}", "MODIF-INPUT-PRIMARY", category::kDesignViolation, 26},
      {"final output from no module", "module_interfaces.yaml", "source: module_1}",
       "source: module_3}", "MODIF-FINAL-SOURCE", category::kDesignViolation, 31},
      {"output neither consumed nor final", "module_interfaces.yaml",
       "- {name: y, shape: \"[B, N]\", dtype: float16}\n    golden_stage_fn",
       "- {name: y, shape: \"[B, N]\", dtype: float16}\n      - {name: z, shape: \"[B]\", dtype: float32}\n    golden_stage_fn",
       "MODIF-OUTPUT-UNUSED", category::kDesignViolation, 29},
      {"golden_stage_fn name", "module_interfaces.yaml", "golden_stage_fn: softmax_golden_stage1",
       "golden_stage_fn: softmax_golden_stage2", "MODIF-GOLDEN-STAGE-FN",
       category::kDesignViolation, 29},
      {"shape with **", "module_interfaces.yaml", "shape: \"[B, N]\", dtype: float16}\nmodules",
       "shape: \"[B, N**2]\", dtype: float16}\nmodules", "MODIF-SHAPE",
       category::kDesignViolation, 8},
      {"malformed YAML", "module_interfaces.yaml", "op: softmax\n", "op: softmax: bad\n",
       "YAML-SYNTAX", category::kInputError, 2},
  };
  return m;
}

}  // namespace

TEST_CASE("the unmutated softmax contracts check clean (no errors)") {
  ScratchOpDir s;
  Diagnostics diags = CheckScratch(s);
  INFO(diags.ToText());
  CHECK(diags.ErrorCount() == 0);
  // The one known finding of the published run: a data-movement row with a free-form
  // implementation value in the §1 vector_selection table (reported as a warning).
  CHECK(diags.WarningCount() == 1);
  const Diagnostic* w = diags.Find("DESIGN-VSEL-NONCOMPUTE");
  REQUIRE(w);
  CHECK(w->line == 170);
  CHECK(w->severity == Severity::kWarning);
}

TEST_CASE("every mutated copy yields its diagnostic with code, category, file and line") {
  REQUIRE(Mutations().size() >= 20);
  for (const auto& m : Mutations()) {
    DYNAMIC_SECTION(m.name) {
      ScratchOpDir s;
      s.Mutate(m.file, m.from, m.to);
      Diagnostics diags = CheckScratch(s, m.target);
      INFO(diags.ToText());
      const Diagnostic* d = FindAt(diags, m.code, m.line);
      REQUIRE(d != nullptr);
      CHECK(d->category == m.category);
      CHECK(d->severity == Severity::kError);
      CHECK(d->file == s.path(m.file));
      CHECK(FindRule(m.code) != nullptr);
      CHECK(diags.HasErrors());
    }
  }
}

TEST_CASE("A3 capacities: the softmax UB map fills A3's UB exactly, one more slot overflows") {
  ScratchOpDir s;
  Diagnostics a3 = CheckScratch(s, Target::kA3);
  CHECK(a3.ErrorCount() == 0);  // 196608 <= 196608
  CHECK(a3.HasCode("DESIGN-HIGHWATER-CAPACITY"));  // the stated 253952 is the A5 figure
  s.Mutate("DESIGN.md", "| `0x24000` | 49152 | 1 | 轮转 | `0x30000` |",
           "| `0x24020` | 49152 | 1 | 轮转 | `0x30020` |");
  Diagnostics over = CheckScratch(s, Target::kA3);
  const Diagnostic* d = FindAt(over, "DESIGN-ADDR-CAPACITY", 242);
  REQUIRE(d);
  CHECK(d->message.find("196608") != std::string::npos);
  CHECK(CheckScratch(s, Target::kA5).Find("DESIGN-ADDR-CAPACITY") == nullptr);
}
