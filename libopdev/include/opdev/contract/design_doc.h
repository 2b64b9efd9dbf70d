// DESIGN.md, the frozen construction contract, parsed with cmark-gfm (GFM tables enabled) into
// a source-located model: `## ` sections (§0…§10 and the unnumbered header sections) with
// their `###` subsections, every pipe table as header-keyed rows, every fenced code block with
// its info string, all with 1-based source lines. Typed accessors extract what later stages
// need (op_name, Modules, vector_selection, constants, tiles, TileGroups, the §3 address map,
// the §5 core split, the §8 cases, §10). Accessors never fail: missing content yields empty
// results, and check.h reports it.
#pragma once

#include "opdev/support/diagnostic.h"
#include "opdev/support/dtype.h"
#include "opdev/support/target.h"

#include "absl/status/statusor.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opdev::contract {

struct TableRow {
  int line = 0;
  std::vector<std::string> cells;  // plain text of each cell (code spans without backticks)
};

struct Table {
  int line = 0;                      // line of the header row
  std::string section;               // "§3" (or the `## ` title for unnumbered sections)
  std::string subsection;            // title of the enclosing `###`, or empty
  std::vector<std::string> headers;  // plain text, trimmed
  std::vector<TableRow> rows;        // body rows only

  // Index of the first header equal to `name` (after trimming), or of the first header that
  // contains it when `prefix_match`; -1 when absent.
  int Column(std::string_view name, bool prefix_match = false) const;
  // Cell of `row` under header `name` ("" when the column or cell is absent).
  std::string Get(const TableRow& row, std::string_view name, bool prefix_match = false) const;
};

struct CodeBlock {
  int line = 0;          // line of the opening fence
  std::string info;      // info string, e.g. "python" ("" when none)
  std::string text;      // literal content
  std::string section;   // enclosing `## §N`
  std::string subsection;
};

struct Subsection {
  std::string title;  // heading text, e.g. "Wrapper 边界外操作", "2.1 关键常量定义"
  int level = 3;
  int line = 0;
  int end_line = 0;   // last line belonging to it (inclusive)
};

struct Section {
  std::string number;  // "§0"…"§10"; empty for unnumbered `## ` sections (算子名称, ...)
  int index = -1;      // 0…10, -1 when unnumbered
  std::string title;   // full heading text, e.g. "§3 片上空间布局（R3 输出）"
  int line = 0;
  int end_line = 0;
  std::vector<Subsection> subsections;
  const Subsection* FindSubsection(std::string_view title_part) const;
};

// --- typed views --------------------------------------------------------------------------

struct DesignModule {         // §0 Module 列表
  std::string name;           // "Module 1"
  int index = 0;              // 1 for "Module 1"; 0 when not numbered
  std::string purpose, inputs, outputs;
  std::string section;        // "section_vector" / "section_cube" as written
  int line = 0;
};

struct VectorSelection {      // §1 vector_selection (table row or code-block entry)
  std::string step, implementation, api_sequence, decision_reason, kb_template_evidence,
      target_version, applicable_conditions;
  int line = 0;
};

struct Constant {             // §2.1 NAME = expr
  std::string name;
  std::string expr;
  std::optional<std::int64_t> value;  // integer value when the expression is integral
  int line = 0;
};

struct TileAttr {             // §2 Tile 属性表
  std::string purpose, var, shape_text, dtype_text, space_text, layout, size_text, notes;
  std::vector<std::int64_t> shape;       // parsed from `[3, 8192]` (empty if symbolic)
  std::optional<DType> dtype;
  std::optional<MemSpace> space;
  std::optional<std::int64_t> size_bytes;
  std::string group;                     // "in_group" for "`in_slot` (in_group)"
  int line = 0;
};

struct TileGroupSlots {       // §2 TileGroup槽位访问表
  std::string name;           // without backticks
  std::optional<std::int64_t> depth;
  std::string mutex_text;
  std::vector<std::int64_t> mutex_ids;   // every integer of the mutex column, in order
  std::string access, slot_expr, notes;
  int line = 0;
};

struct AddressEntry {         // §3 片上地址映射表 row
  std::string space_text, purpose, var, shape_text, dtype_text, layout, lifetime, notes;
  std::string start_text, slot_bytes_text, slots_text, end_text;
  std::optional<MemSpace> space;
  std::vector<std::int64_t> shape;
  std::optional<DType> dtype;
  std::optional<std::int64_t> start, slot_bytes, slots, end;
  std::string group;          // "in_group" for "in_group[0]", else the variable name
  int line = 0;
};

struct HighWater {            // §3 各空间地址高水位 bullet
  std::string text;
  std::optional<MemSpace> space;
  std::optional<std::int64_t> bytes;     // first number (hex or decimal) stated
  std::optional<std::int64_t> capacity;  // number after '/'
  int line = 0;
};

struct CoreSplit {            // §5 分核策略 bullets
  std::string scheme, block_dim, launch_contract, tensor_list;
  int scheme_line = 0, block_dim_line = 0, launch_line = 0;
  bool uses_vector_core_num = false;  // block_dim derived from vector_core_num
  bool uses_core_num = false;         // from core_num (Cube / mixed)
  std::optional<int> launch_count;    // 1 when the contract says exactly one launch
};

struct TestCase {             // §8 row
  std::string name;           // "test_softmax_aligned"
  std::string shape_text;
  std::vector<std::int64_t> shape;  // `[3, 128]`: the first input's dims in order
  // `M=300, K=200, N=500`: the value of each SPEC shape symbol (several inputs, e.g. a
  // contraction A[M, K] · B[K, N]); empty for the list form.
  std::vector<std::pair<std::string, std::int64_t>> dims;
  std::string scene, confirmation;
  int line = 0;
};

struct EventId {              // §6 event_id cells
  std::int64_t id = 0;
  std::string text;
  int line = 0;
};

class DesignDoc {
 public:
  std::string path;
  std::string text;                    // the whole file
  std::vector<std::string> lines;      // text split by line (index 0 = line 1)
  std::vector<Section> sections;       // every `## ` heading in order
  std::vector<Table> tables;
  std::vector<CodeBlock> code_blocks;
  // Non-empty when the text crossed one of opdev's Markdown input bounds (docs/contract.md,
  // "Input limits"): it was not parsed (no sections, tables or code) and LoadDesignDoc
  // reported CONTRACT-INPUT-LIMIT at limit_line.
  std::string limit_violation;
  int limit_line = 0;

  // §k by index (0…10); nullptr when absent (first occurrence when duplicated).
  const Section* FindSection(int index) const;
  // Section containing `line` (nullptr before the first `## `).
  const Section* SectionAt(int line) const;
  // Raw text of a line range [from, to] (1-based, inclusive).
  std::string Lines(int from, int to) const;
  // Tables of §k; of the subsection whose title contains `subsection` when not empty.
  std::vector<const Table*> TablesIn(int index, std::string_view subsection = {}) const;
  std::vector<const CodeBlock*> CodeIn(int index, std::string_view subsection = {}) const;
  // First table anywhere whose headers include all of `headers`.
  const Table* FindTableWithHeaders(std::initializer_list<std::string_view> headers) const;

  // Typed accessors.
  std::string OpName(int* line = nullptr) const;  // "- **op_name**: softmax"
  std::vector<DesignModule> Modules() const;
  std::vector<VectorSelection> VectorSelections() const;
  const CodeBlock* ConstantsCode() const;         // first code block of §2 "2.1"
  std::vector<Constant> Constants() const;
  std::vector<TileAttr> Tiles() const;
  std::vector<TileGroupSlots> TileGroups() const;
  std::vector<AddressEntry> AddressMap() const;   // all spaces, file order
  std::vector<AddressEntry> AddressMap(MemSpace space) const;
  std::vector<HighWater> HighWaters() const;
  CoreSplit GetCoreSplit() const;
  std::vector<TestCase> TestCases() const;
  std::vector<EventId> EventIds() const;
  // Body text of the subsection whose title contains `title_part` (trimmed), with its first
  // body line; nullopt when the subsection is absent.
  std::optional<std::pair<std::string, int>> SubsectionBody(std::string_view title_part) const;
  bool HasSection10() const { return FindSection(10) != nullptr; }
};

// Parses DESIGN.md text. Never fails on content (Markdown has no syntax errors); text over an
// input bound is left unparsed (limit_violation). The status of LoadDesignDoc is for I/O
// (missing, unreadable, over 16 MiB, non-UTF-8) and for the input bounds, each with a
// diagnostic.
DesignDoc ParseDesignDoc(std::string_view text, const std::string& path);
absl::StatusOr<DesignDoc> LoadDesignDoc(const std::string& path, Diagnostics* diags);

// Helpers shared with the validator and other modules.
std::optional<std::int64_t> ParseIntLiteral(std::string_view s);       // "0x0C000", "49152", "`0x30000`"
std::vector<std::int64_t> ParseShapeList(std::string_view s);          // "`[3, 8192]`" -> {3, 8192}
std::vector<std::int64_t> AllIntegers(std::string_view s);             // every integer token

}  // namespace opdev::contract
