// Localisation of a precision failure: which output elements miss scheme A's element rule
// (|a − g| ≤ atol + rtol·|g|, NaN positions equal, Inf signs equal), folded onto the DESIGN's
// geometry — row tiles, rows, registers of a row (full or tail) and register lanes — and,
// with the simulator's per-instruction provenance, onto the instruction that wrote them
// ("lanes 72–127 of every full register stored by line 151, the 3rd of 3 loops of
// softmax_rows_vf, are wrong; its tail registers are right").
#pragma once

#include "opdev/precision/tensor.h"
#include "opdev/pyfront/ast.h"
#include "opdev/sim/simulator.h"
#include "opdev/triage/case_attributes.h"

#include <boost/json/object.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace opdev::triage {

struct LaneRange {
  int lo = 0, hi = 0;  // inclusive
};

// Mismatches of the elements one instruction wrote, for one register width class.
struct WriterGroup {
  int writer_line = 0;        // kernel line that wrote the on-chip bytes (0: unknown)
  int store_line = 0;         // pl.store that copied them to GM
  int active_lanes = 0;       // active lanes of the register store (0: not a register store)
  bool full_register = false; // active_lanes == the register width
  std::int64_t registers = 0, registers_bad = 0;  // register stores (instances) in the group
  std::int64_t elements = 0, mismatched = 0;
  std::vector<LaneRange> bad_lanes;  // lanes wrong in at least one register of the group
  bool same_lanes_everywhere = false;  // every bad register has exactly the bad_lanes set
  std::string where;          // code_context of writer_line
};

struct Localisation {
  std::string case_name;
  std::vector<std::int64_t> shape;
  std::int64_t elements = 0, mismatched = 0;
  std::int64_t rows = 0, rows_bad = 0;        // rows (leading axes folded) with a mismatch
  std::int64_t row_tiles = 0;                 // tiles along the rows
  std::vector<std::int64_t> row_tiles_bad;    // tile indices with a mismatch
  std::int64_t registers_per_row = 0;
  std::vector<std::int64_t> registers_bad;    // register index within a row with a mismatch
  bool tail_register_bad = false, full_register_bad = false;
  std::vector<LaneRange> bad_lanes;           // column % lanes of the mismatches
  std::int64_t nan_mismatch = 0;
  bool provenance = false;
  std::vector<WriterGroup> writers;           // by (writer line, active lanes); provenance only
  std::string sentence;                       // one line
  boost::json::object ToJson() const;
};

// `kernel` (parsed kernel file) names the loops; it may be null. `origin` may be empty.
Localisation Localise(const std::string& case_name, const precision::Tensor& actual,
                      const precision::Tensor& golden, const std::vector<sim::ElementOrigin>& origin,
                      const ShapeFacts& facts, const py::Module* kernel);

// "72–127", "0, 5–9" (lanes as ranges).
std::string LaneRangesText(const std::vector<LaneRange>& r);

}  // namespace opdev::triage
