// What one simulated core owns during a kernel launch: its kind (AIC or AIV), its indices as
// the PyPTO-Pro system variables report them, its on-chip memory, the tiles it declared and
// its pipe state (the Cube accumulation / unit-flag tracking). The launch plan lists the
// cores of a launch: AIV per block for Vector-only kernels, AIC per block for Cube-only
// kernels and 1 AIC + 2 AIV per block for mixed kernels (section_cube and section_vector).
// The cores of a launch run as concurrent cores (core_scheduler.h); every piece of per-core
// state lives here.
#pragma once

#include "pipe_sync.h"
#include "pipeline_stage.h"

#include "opdev/sim/memory.h"
#include "opdev/sim/tile.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace opdev::sim {

enum class CoreKind { kAic, kAiv };
// Which execution domains a kernel has (from its `with pl.section_*()` blocks).
enum class LaunchKind { kVectorOnly, kCubeOnly, kMixed };
// The domain of a `with` block (kNone: not a section).
enum class Section { kNone, kVector, kCube };

std::string_view CoreKindName(CoreKind k);      // "AIC" / "AIV"
std::string_view LaunchKindName(LaunchKind k);  // "vector-only" / "cube-only" / "mixed"

// Accumulation state of one Acc tile on an AIC: the current K-accumulation chain (opened by
// pl.matmul, extended by pl.matmul_acc) and the unit flag that phase= hands between the M
// pipe and FIX (phase.md).
struct AccState {
  bool written = false;               // a matmul wrote it since the core started
  int first_matmul_line = 0;          // the pl.matmul that opened the chain
  int last_matmul_line = 0;
  int matmuls_in_chain = 0;
  bool has_acc_step = false;          // the chain has a matmul_acc (K-blocked accumulation)
  int first_unphased_line = 0;        // first step without phase= (0: none)
  int first_untransformed_line = 0;   // first step without set_mm_layout_transform (0: none)
  std::string last_phase;             // AccPhase of the last step: "", "Partial", "Final"
  bool final_pending = false;         // unit flag = 1: a Final matmul wrote, no Final store read
};

struct CubeState {
  bool layout_transform = false;  // pl.system.set_mm_layout_transform(enabled=...)
  int layout_transform_line = 0;  // line of the last enabled=True (0: never)
  // By Acc address: tiles at one address are views of the same L0C block (phase.md speaks of
  // "the same L0C").
  std::map<uint64_t, AccState> acc;
};

class CoreContext {
 public:
  CoreKind kind = CoreKind::kAiv;
  LaunchKind launch = LaunchKind::kVectorOnly;
  int64_t block_idx = 0;     // logical block
  int64_t block_num = 1;     // block_dim of the launch
  int64_t subblock_idx = 0;  // AIV of a mixed kernel: 0 or 1
  int64_t subblock_num = 1;  // get_subblock_num(): 2 on the AIV of a mixed kernel, else 1
  int ordinal = 0;           // unique index of the core within the launch (GM writer ids)

  std::unique_ptr<CoreMemory> mem;
  std::vector<std::shared_ptr<Tile>> tiles;  // declared by this core, in order
  struct Overlap {
    std::shared_ptr<Tile> a, b;
  };
  std::vector<Overlap> overlaps;  // partially overlapping pairs (reported when both are used)
  std::vector<std::shared_ptr<TileGroup>> groups;  // tile groups declared by this core
  bool auto_mutex = true;         // the kernel's @pl.jit(auto_mutex=...)
  bool pipeline = false;          // the kernel's @pl.jit(pipeline=...): stages get their events
  StageEvents stage_events;       // the pipeline transform's events on this core
  CubeState cube;
  PipeState pipes;  // the core's pipes (pipe_sync.h)
  // Bytes of this core's memory another core of the block wrote (cross_core_data.h), with
  // the writer's epoch and line.
  struct SharedRegion {
    MemSpace space = MemSpace::kVec;
    uint64_t begin = 0, end = 0;
    int writer = 0;
    uint32_t writer_epoch = 0;
    int writer_line = 0;
    std::string what;
    bool reported = false;
    std::vector<uint8_t> bytes;  // what the write left in [begin, end)
  };
  std::vector<SharedRegion> shared;
  // In a mixed launch: this core's last use of each tile in the space the other cores of its
  // block write into (UB on an AIV, L1 on the AIC), by tile id.
  struct TileUse {
    MemSpace space = MemSpace::kVec;
    uint64_t begin = 0, end = 0;
    uint32_t epoch = 0;
    int line = 0;
    std::string name;
  };
  std::map<int, TileUse> uses;

  // get_block_idx(): the block on an AIC and in single-domain kernels; the flattened AIV
  // index block * subblock_num + subblock_idx on the AIV of a mixed kernel.
  int64_t BlockIdx() const { return block_idx * subblock_num + subblock_idx; }
  // True when the core has the space (AIC: Mat/Left/Right/Acc/Bias/Scaling/Scale*; AIV: Vec).
  bool Owns(MemSpace s) const;
  // True when code of `s` runs on this core.
  bool Runs(Section s) const;
  // "AIC 3", "AIV 5 (block 2, subblock 1)".
  std::string Name() const;
};

// Cores per block: 1, or 3 for a mixed launch (1 AIC + 2 AIV).
int CoresPerBlock(LaunchKind kind);
// Core `ordinal` of a launch of `block_dim` blocks, in the order cores run: block by block;
// in a mixed launch the AIC of a block first, then its two AIVs. Memory is not attached.
CoreContext PlanCore(LaunchKind kind, int64_t block_dim, int64_t ordinal);

}  // namespace opdev::sim
