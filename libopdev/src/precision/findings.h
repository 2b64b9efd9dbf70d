// Failure-pattern analysis of a floating comparison: where the failing elements lie (rows,
// columns, tiles, tails, special values, scale) and which row of the debugging table in
// stage4.md §8 each pattern points to. Produces Diagnostic records; never changes a verdict.
#pragma once

#include "opdev/precision/compare.h"
#include "precision/scan.h"

namespace opdev::precision {

void AnalyzeFailures(const ScanResult& scan, const ScanParams& params, const Shape& shape,
                     ErrorDiagnostics* diag);

}  // namespace opdev::precision
