// Case attributes: what each DESIGN §8 case exercises, derived from its shape and the DESIGN
// constants it is measured against (tile rows and columns of the primary tile, the VF register
// width, the core count): row tail, column tail, multi-tile, multi-core, register count,
// dtype, size class and value range. Each attribute is a predicate with a readable text
// ("N % 128 ≠ 0") and the §8 symptom row it points to, so that a separation found by
// bisection.h reads as a sentence and lands on a check list.
#pragma once

#include "opdev/contract/design_doc.h"
#include "opdev/triage/symptoms.h"

#include <boost/json/object.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace opdev::triage {

// The DESIGN facts a case shape is measured against. A value of 0 means unknown (the
// attributes that need it are not derived).
struct ShapeFacts {
  std::vector<std::string> symbols;  // shape symbols of the primary input, e.g. {"B", "N"}
  std::int64_t tile_rows = 0;        // rows of the primary on-chip tile (§2), e.g. 3
  std::string tile_rows_name;        // the §2.1 constant with that value, e.g. "TILE_ROWS"
  std::int64_t tile_cols = 0;        // columns of that tile, e.g. 8192
  std::string tile_cols_name;        // "MAX_N"
  std::int64_t lanes = 0;            // VF register elements of the dtype (256 bytes), e.g. 128
  std::string lanes_name;            // "LANES"
  std::int64_t cores = 0;            // vector cores a launch can use (block_dim = min(cores, tiles))
  std::string dtype;                 // "float16"
  // SPEC dynamic-axis ranges (inclusive) by symbol: the DESIGN's supported range.
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> ranges;
  // SPEC value range of the primary input, when stated.
  std::optional<std::pair<double, double>> value_range;

  std::string Symbol(size_t axis) const;  // symbols[axis], or "d<axis>"
  boost::json::object ToJson() const;
};

// Reads the facts from DESIGN (§2 Tile 属性表 first Vec tile, §2.1 constants) and the caller's
// knowledge of the primary input (shape symbols, dtype) and the platform (cores).
ShapeFacts DeriveShapeFacts(const contract::DesignDoc& design,
                            const std::vector<std::string>& symbols, const std::string& dtype,
                            std::int64_t cores);

enum class CaseOutcome { kPass, kFail, kNotMeasured };

// One case as bisection sees it: its shape and whether it failed. How the outcome was obtained
// (simulator, NPU log, CPU device) does not matter here.
struct CaseFacts {
  std::string name;
  std::vector<std::int64_t> shape;
  std::string dtype;
  CaseOutcome outcome = CaseOutcome::kNotMeasured;
  bool special_values = false;  // the failure involves NaN/Inf
  // Who measured `outcome`: "run" (the run itself) or "triage_rerun" (the triage ran the case
  // on the DESIGN-case simulator because the run did not measure it). "" = not measured.
  std::string measured_by = "run";
  // The triage rerun's outcome when the case was rerun (also for a case the run measured, to
  // show whether the two paths agree).
  std::optional<CaseOutcome> rerun;
};

const char* CaseOutcomeName(CaseOutcome o);  // "pass" | "fail" | "not_measured"

// One derived predicate over the cases.
struct Attribute {
  std::string id;          // "col_tail", "row_tail", "multi_tile", "N>=4096", ...
  std::string kind;        // row_tail | col_tail | multi_tile | multi_core | registers | dtype | size | value_range
  std::string text_true;   // "N % 128 ≠ 0"
  std::string text_false;  // "N % 128 = 0"
  Symptom symptom;         // the §8 row a separation by this attribute points to
  std::vector<bool> value; // per case, in CaseFacts order
};

// Per-case numbers behind the attributes (for the report).
struct CaseMeasure {
  std::string name;
  std::int64_t row_tiles = 0, col_tiles = 0, tiles = 0, block_dim = 0, registers = 0, numel = 0;
  std::int64_t row_tail = 0, col_tail = 0;  // B % tile_rows, N % lanes (0 = none)
  boost::json::object ToJson() const;
};

struct AttributeTable {
  std::vector<CaseFacts> cases;
  std::vector<CaseMeasure> measures;
  std::vector<Attribute> attributes;  // in a fixed order: tails, tiles/cores, registers, sizes, dtype
  boost::json::object ToJson() const;
};

// Derives every attribute for the cases. Threshold attributes (size class: "N ≥ 4096",
// "numel ≥ 16384", "registers per row ≥ 32") are made at each distinct value the cases take.
AttributeTable DeriveAttributes(const std::vector<CaseFacts>& cases, const ShapeFacts& facts);

}  // namespace opdev::triage
