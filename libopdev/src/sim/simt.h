// SIMT launches (`pl.simt.launch` of a `@pl.simt.function`, the frontend's _simt_api.py and
// ir/op/simt_ops.py): the thread grid of the launch, the thread running now, and the record of
// the element accesses of the launch that finds races between its threads (SIM-SIMT-RACE:
// PyPTO-Pro's SIMT has no barrier, so two threads touching one element, one writing, race).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace opdev::sim {

class Interp;

struct SimtLaunch {
  std::string callee;
  int line = 0;              // the pl.simt.launch
  int64_t dims[3] = {1, 1, 1};
  int64_t thread[3] = {0, 0, 0};
  int64_t linear = 0;        // x-major: x + y * dx + z * dx * dy
  struct Cell {
    int64_t writer = -1, reader = -1;
    int write_line = 0, read_line = 0;
  };
  std::map<std::pair<const void*, uint64_t>, Cell> cells;  // (buffer, byte offset) -> last access
  bool race_reported = false;
};

// One element access by the running SIMT thread (`buffer` identifies the memory: a tensor or
// an on-chip space; `pos` the element's byte offset in it; `kind` "tensor" or "tile", `name`
// and `element` only for the message); no-op outside a SIMT launch.
void SimtAccess(Interp& in, const void* buffer, uint64_t pos, bool write, int line, const char* kind,
                const std::string& name, int64_t element);

}  // namespace opdev::sim
