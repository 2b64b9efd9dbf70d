// The simulator's memory model: GM tensors (host-visible, with per-element writer tracking for
// output coverage) and, per core, one byte array per on-chip space (Vec/UB, Mat/L1, Left/L0A,
// Right/L0B, Acc/L0C, Bias/BT, Scaling/FB, ScaleLeft, ScaleRight) sized from
// opdev/support/target.h. Every on-chip byte carries a "written
// in this run" bit, so reads of never-written bytes can be reported.
#pragma once

#include "opdev/support/dtype.h"
#include "opdev/support/target.h"

#include "absl/container/inlined_vector.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace opdev::sim {

// A short list of integers (offsets, shapes, strides, mutex ids): up to four held without
// allocating.
using IndexList = absl::InlinedVector<int64_t, 4>;

// Bytes an on-chip space holds before anything is written: a quiet-NaN pattern for every
// float width, so stale data is never silently plausible.
inline constexpr uint8_t kPoisonByte = 0xFF;

// Provenance of written bytes (recorded only when SimOptions::record_provenance is set): the
// kernel line of the instruction that wrote them and, for a VF register store, the register
// lane and how many lanes that store had active. Localisation of wrong outputs reads it.
struct WriteOrigin {
  int32_t line = 0;    // 0: not written in this run (or not recorded)
  int16_t lane = -1;   // register lane for vf.store_align, -1 for tile ops and DMA
  int16_t active = 0;  // active lanes of that store's mask (0 when not a register store)
};

// One on-chip buffer of one core.
struct SpaceBuffer {
  MemSpace space = MemSpace::kVec;
  uint64_t capacity = 0;
  uint64_t alignment = 32;
  std::vector<uint8_t> bytes;    // capacity bytes
  std::vector<uint8_t> written;  // 1 when the byte was written in this run
  // The 512-byte pages that may differ from a fresh buffer (poison, unwritten): every writer
  // of `bytes`/`written` calls Touch (or MarkWritten) with the range it writes, and
  // CoreMemory::Reset clears only the pages marked here (a kernel writes a fraction of UB).
  static constexpr int kDirtyPageShift = 9;
  std::vector<uint64_t> dirty_pages;  // one bit per page, sized on first use
  std::vector<WriteOrigin> origin;  // per byte; empty unless provenance is recorded

  bool AllWritten(uint64_t addr, uint64_t len) const;
  void MarkWritten(uint64_t addr, uint64_t len, bool value = true);
  // Records that [lo, hi) may be written (see dirty_pages).
  void Touch(uint64_t lo, uint64_t hi) {
    if (hi <= lo) return;
    const uint64_t p0 = lo >> kDirtyPageShift, p1 = (hi - 1) >> kDirtyPageShift;
    if ((p1 >> 6) >= dirty_pages.size()) dirty_pages.resize((p1 >> 6) + 1, 0);
    for (uint64_t p = p0; p <= p1; ++p) dirty_pages[p >> 6] |= uint64_t{1} << (p & 63);
  }
};

// The on-chip memories of one core (AIV: Vec; AIC: the Cube spaces). Buffers are allocated on
// first use; which spaces a core may use is decided by its CoreContext.
class CoreMemory {
 public:
  explicit CoreMemory(Target target);
  Target target() const { return target_; }
  // The buffer of a space, allocated (poisoned, never written) on first use.
  SpaceBuffer& Get(MemSpace s);
  const SpaceBuffer& Get(MemSpace s) const;
  // Resets contents to poison and clears the written bits (of the dirty pages of each space).
  // With OPDEV_SIM_CHECK_RESET=1 in the environment it first proves that no byte of a clean
  // page was changed (a write path that forgot to Touch), and aborts naming the space
  // and byte when one was: a developer check, run over the test suite.
  void Reset();

  // Provenance: when on, every space keeps a WriteOrigin per byte and writers stamp it with
  // `op_line` (the kernel line of the executing call, set by the interpreter).
  void RecordOrigins(bool on) { record_origins_ = on; }
  bool RecordsOrigins() const { return record_origins_; }
  int32_t op_line = 0;

 private:
  SpaceBuffer& Ensure(MemSpace s) const;

  Target target_;
  bool record_origins_ = false;
  mutable std::array<SpaceBuffer, 9> spaces_;  // by MemSpace - 1 (allocated lazily)
};

// A tensor in GM. Elements are stored contiguously, row-major, in the tensor's own dtype.
struct GmTensor {
  std::string name;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
  // Per element: -1 never written in this run, otherwise the first writing core. Empty until
  // the first write (Writers()), and then every element is -1: a tensor the run only reads
  // never allocates it.
  std::vector<int32_t> writer;
  bool multi_writer_reported = false;
  // With provenance: per element, the origin of the on-chip bytes the last pl.store copied
  // here and that store's kernel line (empty otherwise).
  std::vector<WriteOrigin> origin;
  std::vector<int32_t> store_line;

  // A tensor whose bytes are all `fill`, or (MakeCopy) a copy of numel*itemsize bytes at
  // `bytes`; no element has a writer yet.
  static std::shared_ptr<GmTensor> Make(std::string name, DType dtype,
                                        std::vector<int64_t> shape, uint8_t fill = 0);
  static std::shared_ptr<GmTensor> MakeCopy(std::string name, DType dtype,
                                            std::vector<int64_t> shape, const void* bytes);
  int64_t numel() const;
  size_t elem_size() const { return DTypeSize(dtype); }
  // The writer array for a write (allocated, every element -1, on the first one).
  std::vector<int32_t>& Writers();
  // Whether some core wrote some element.
  bool AnyWritten() const;
  // The first writing core of element `flat`, -1 when none.
  int32_t WriterOf(int64_t flat) const { return writer.empty() ? -1 : writer[static_cast<size_t>(flat)]; }
  // Row-major strides in elements.
  IndexList Strides() const;
  double GetAsDouble(int64_t flat) const;
  void SetFromDouble(int64_t flat, double v);
};

// Element access on raw storage of any supported dtype (fp16/bf16 via exact RNE conversion).
double LoadScalar(DType t, const uint8_t* p);
void StoreScalar(DType t, uint8_t* p, double v);

}  // namespace opdev::sim
