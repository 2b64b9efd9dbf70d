// The automatic cross-core pipeline of `@pl.jit(pipeline=pl.pipeline.PipelineConfig(...))`
// as the PyPTO-Pro docs describe it (make_tile_group.md, programming_paradigm_overview.md):
// a `@pl.pipeline.stage` function called in a section is a stage; a tile group created with
// `fwd_ids` / `bwd_ids` is a buffer shared by the Cube and Vector sections. Around each stage
// call the framework inserts the cross-core events: a stage that writes the buffer waits
// `bwd_ids[i]` at its start (the consumer released the slot) and sets `fwd_ids[i]` at its end;
// a stage that reads it waits `fwd_ids[i]` at its start and sets `bwd_ids[i]` at its end, with
// `i` the stage's rotation index modulo the group's depth. Which stages read or write a buffer
// comes from the stage's body (the API catalog's operand access, through helper and vector
// functions; a branch counts as taken). The docs leave the first and last uses open: the
// framework's planner (python/pypto_pro/runtime/pipeline/_sync_graph.py) pre-fires `depth`
// backward sets from the reader before the loop and drains the releases left after it from the
// writer, because the device needs set and wait counts to match. The simulator balances the
// same counts: the writer skips the backward wait of its first `depth` uses and waits for the
// outstanding releases when its kernel body ends. `preload` reorders the stages for overlap
// only; with the inserted events the order of the stages within a core stays program order
// here (docs/simulator.md, "Automatic pipeline").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace opdev::sim {

class Interp;
struct FuncIR;
struct XNode;
struct TileGroup;
struct Value;

// How a stage uses each parameter (through a group's next()/current()/previous()/[i] tiles,
// or the parameter itself).
struct StageParamUse {
  bool read = false;
  bool write = false;
};

// Per-core bookkeeping of the inserted events.
struct StageEvents {
  // Uses of a buffer by a stage on this core (the rotation index of the next use).
  std::map<std::pair<const FuncIR*, const TileGroup*>, int64_t> uses;
  // Buffers this core produces with backward ids: how many releases it skipped waiting for
  // (at most the depth), drained when the kernel body ends.
  struct Producer {
    const TileGroup* group = nullptr;
    int64_t uses = 0;
    int line = 0;  // the stage call (the drain's line)
  };
  std::vector<Producer> producers;
};

// Calls stage `f` with the events of the pipeline transform around it.
Value CallStage(Interp& in, const FuncIR& f, std::vector<Value>& args,
                std::vector<std::pair<std::string, Value>>& kw, const XNode& site);
// At the end of a core's kernel body: waits for the backward events still pending.
void DrainStages(Interp& in);

}  // namespace opdev::sim
