// Failure-pattern findings of a floating comparison, each naming the stage4.md §8 symptom
// row ("right shape, values wrong everywhere", "only tails fail", ...) and what to check.
#include "precision/findings.h"

#include "precision/str_cat.h"

#include <algorithm>
#include <cmath>

namespace opdev::precision {

namespace {

constexpr const char* kWrongEverywhere =
    "§8 'right shape, values wrong everywhere': check the formula, cast points, I/O "
    "semantics and layout";
constexpr const char* kTails =
    "§8 'only tails fail': check the valid-shape reset, boundary index, padding and store "
    "range";
constexpr const char* kLarge =
    "§8 'only large shapes fail': check per-space capacity, the tile split and cross-tile "
    "state";
constexpr const char* kCores =
    "§8 'cores missing, overlapping or double-accumulating': check work-item coverage, write "
    "ownership, overwrite vs accumulate and initialisation";
constexpr const char* kSpecial =
    "§8 'NaN/Inf/±0 wrong': check the dtype, op order, transcendental ranges and special "
    "values";

void Add(ErrorDiagnostics* d, std::string code, std::string message, std::string evidence) {
  Diagnostic f;
  f.code = std::move(code);
  f.severity = Severity::kNote;
  f.category = std::string(category::kPrecisionFailure);
  f.section = "stage4.md §8";
  f.message = std::move(message);
  f.evidence = std::move(evidence);
  d->findings.Add(std::move(f));
}

std::string Percent(int64_t part, int64_t whole) {
  if (whole <= 0) return "0%";
  double pct = 100.0 * static_cast<double>(part) / static_cast<double>(whole);
  return PyFormat("%.2f", pct) + "%";
}

int64_t TileExtent(int64_t index, int64_t tile, int64_t total) {
  return std::min(tile, total - index * tile);
}

}  // namespace

void AnalyzeFailures(const ScanResult& s, const ScanParams& p, const Shape& shape,
                     ErrorDiagnostics* d) {
  const int64_t rows = p.rows, cols = p.cols;
  const int64_t batch = rows * cols > 0 ? s.total / (rows * cols) : 0;
  const int64_t failed = s.compared - s.passed;

  if (!s.fail_rows.empty()) {
    for (int64_t r = 0; r < rows; ++r) {
      if (!s.fail_rows[static_cast<size_t>(r)]) continue;
      if (d->first_failing_row < 0) d->first_failing_row = r;
      d->last_failing_row = r;
      ++d->failing_rows;
    }
    for (int64_t c = 0; c < cols; ++c) {
      if (!s.fail_cols[static_cast<size_t>(c)]) continue;
      if (d->first_failing_col < 0) d->first_failing_col = c;
      d->last_failing_col = c;
      ++d->failing_cols;
    }
  }
  bool have_tiles = p.tile_rows > 0 && p.tile_cols > 0;
  if (have_tiles) {
    d->tile = std::make_pair(p.tile_rows, p.tile_cols);
    d->tile_grid_rows = (rows + p.tile_rows - 1) / p.tile_rows;
    d->tile_grid_cols = (cols + p.tile_cols - 1) / p.tile_cols;
    for (int64_t tr = 0; tr < d->tile_grid_rows && !s.fail_tiles.empty(); ++tr) {
      for (int64_t tc = 0; tc < d->tile_grid_cols; ++tc) {
        int64_t f = s.fail_tiles[static_cast<size_t>(tr * d->tile_grid_cols + tc)];
        if (!f) continue;
        TileFailures t;
        t.tile_row = tr;
        t.tile_col = tc;
        t.failed = f;
        t.elements = TileExtent(tr, p.tile_rows, rows) * TileExtent(tc, p.tile_cols, cols) * batch;
        t.tail = (tr == d->tile_grid_rows - 1 && rows % p.tile_rows != 0) ||
                 (tc == d->tile_grid_cols - 1 && cols % p.tile_cols != 0);
        d->failing_tiles.push_back(t);
      }
    }
  }

  // Special values first: they fail the verdict before any tolerance is applied.
  if (s.nan_mismatch || s.inf_sign_mismatch) {
    std::string where;
    if (!s.special_rows.empty()) {
      int64_t first = -1, count = 0;
      for (int64_t r = 0; r < rows; ++r)
        if (s.special_rows[static_cast<size_t>(r)]) {
          if (first < 0) first = r;
          ++count;
        }
      where = Cat("; first in row ", first, " (", count, " of ", rows, " rows affected)");
    }
    Add(d, "PRECISION-SPECIAL-VALUES",
        Cat("NaN/Inf disagree with the golden: ", s.nan_mismatch,
            " positions with NaN on one side, ", s.inf_sign_mismatch,
            " with Inf of opposite sign; ", kSpecial),
        Cat("nan_mismatch=", s.nan_mismatch, " inf_sign_mismatch=", s.inf_sign_mismatch, where));
  }
  if (failed <= 0) return;

  // The output looks unwritten or scaled.
  if (s.sum_aa == 0 && s.sum_gg > 0) {
    Add(d, "PRECISION-ZERO-OUTPUT",
        Cat("the actual output is all zeros where the golden is not: it was probably never "
            "written; ", kCores),
        Cat(failed, " of ", s.compared, " compared elements fail"));
  } else if (s.sum_gg > 0 && d->cosine_similarity >= 0.9999) {
    double k = s.sum_ag / s.sum_gg;
    if (std::fabs(k - 1.0) > 1e-3)
      Add(d, "PRECISION-SCALED-OUTPUT",
          Cat("actual ≈ ", PyFormat("%.6g", k), " × golden (cosine similarity ",
              PyFormat("%.6f", d->cosine_similarity),
              "): a constant factor such as a missing or doubled normalisation; ",
              kWrongEverywhere),
          Cat("least-squares scale ", PyFormat("%.6g", k)));
  }

  const bool everywhere = 2 * failed >= s.compared && d->failing_rows == rows &&
                          d->failing_cols == cols;
  if (everywhere) {
    Add(d, "PRECISION-WRONG-EVERYWHERE",
        Cat(Percent(failed, s.compared), " of the compared elements fail, in every row and "
            "column; ", kWrongEverywhere),
        Cat(failed, " of ", s.compared, " fail"));
  }

  // Tiles: tails only, or a subset of the full tiles.
  if (have_tiles && !d->failing_tiles.empty()) {
    int64_t tail_tiles = 0, total_tiles = d->tile_grid_rows * d->tile_grid_cols;
    for (const TileFailures& t : d->failing_tiles) tail_tiles += t.tail;
    int64_t failing_tiles = static_cast<int64_t>(d->failing_tiles.size());
    std::string tile_text = Cat(p.tile_rows, "x", p.tile_cols);
    if (tail_tiles == failing_tiles) {
      Add(d, "PRECISION-TAIL-TILES",
          Cat("all failures are in tail tiles (", failing_tiles, " of ", total_tiles, " ",
              tile_text, " tiles fail, every one partial); ", kTails),
          Cat("rows=", rows, " cols=", cols, " tile=", tile_text, " tail rows=",
              rows % p.tile_rows, " tail cols=", cols % p.tile_cols));
    } else if (failing_tiles < total_tiles && !everywhere) {
      const TileFailures& first = d->failing_tiles.front();
      bool first_tile_ok = first.tile_row != 0 || first.tile_col != 0;
      Add(d, "PRECISION-SOME-TILES",
          Cat(failing_tiles, " of ", total_tiles, " ", tile_text, " tiles fail, the first at "
              "tile (", first.tile_row, ", ", first.tile_col, ")",
              first_tile_ok ? " while tile (0, 0) is correct; " : "; ",
              first_tile_ok ? kLarge : kCores),
          Cat("failing tiles: ", failing_tiles, " (", tail_tiles, " of them partial)"));
    }
  }

  // Rows and columns: only dense patterns (at least two failing lines, and at least half
  // of the lines in the reported range failing) are worth a finding.
  auto dense = [](int64_t failing, int64_t range) { return failing >= 2 && 2 * failing >= range; };
  // Rows: failures starting at a row, or confined to a band of rows.
  if (d->first_failing_row > 0 && dense(d->failing_rows, rows - d->first_failing_row)) {
    bool at_tile_boundary = have_tiles && d->first_failing_row % p.tile_rows == 0;
    Add(d, "PRECISION-ROWS-FROM",
        Cat("failures start at row ", d->first_failing_row, " of ", rows, " (axis -2); rows 0..",
            d->first_failing_row - 1, " are correct",
            at_tile_boundary ? Cat(", at a tile boundary (tile rows ", p.tile_rows, "); ")
                             : std::string("; "),
            at_tile_boundary ? kLarge : kCores),
        Cat(d->failing_rows, " failing rows between ", d->first_failing_row, " and ",
            d->last_failing_row));
  }
  if (d->last_failing_row >= 0 && d->last_failing_row < rows - 1 &&
      dense(d->failing_rows, d->last_failing_row + 1)) {
    Add(d, "PRECISION-ROWS-UNTIL",
        Cat("failures end at row ", d->last_failing_row, "; rows ", d->last_failing_row + 1,
            "..", rows - 1, " are correct; ", kCores),
        Cat(d->failing_rows, " failing rows between ", d->first_failing_row, " and ",
            d->last_failing_row));
  }
  // Columns: failures starting at a column (tail columns, mask width).
  if (d->first_failing_col > 0 && dense(d->failing_cols, cols - d->first_failing_col)) {
    bool tail_cols = have_tiles && d->first_failing_col >= (cols / p.tile_cols) * p.tile_cols &&
                     cols % p.tile_cols != 0;
    Add(d, "PRECISION-COLS-FROM",
        Cat("failures start at column ", d->first_failing_col, " of ", cols,
            " (last axis); columns 0..", d->first_failing_col - 1, " are correct; ",
            tail_cols ? kTails : kLarge),
        Cat(d->failing_cols, " failing columns between ", d->first_failing_col, " and ",
            d->last_failing_col));
  }
  (void)shape;
}

}  // namespace opdev::precision
