// Per-core on-chip buffers and GM tensors of the simulator.
#include "opdev/sim/memory.h"

#include "opdev/support/half.h"
#include "opdev/support/hifloat8.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace opdev::sim {

bool SpaceBuffer::AllWritten(uint64_t addr, uint64_t len) const {
  if (addr >= written.size()) return len == 0;
  uint64_t end = std::min<uint64_t>(addr + len, written.size());
  return std::memchr(written.data() + addr, 0, end - addr) == nullptr;
}

void SpaceBuffer::MarkWritten(uint64_t addr, uint64_t len, bool value) {
  if (addr >= written.size()) return;
  uint64_t end = std::min<uint64_t>(addr + len, written.size());
  Touch(addr, end);
  std::memset(written.data() + addr, value ? 1 : 0, end - addr);
}

namespace {
int SpaceIndex(MemSpace s) {
  // MemSpace order: kGM, kVec, kMat, kLeft, kRight, kAcc, kBias, kScaling, kScaleLeft,
  // kScaleRight; GM has no on-chip buffer (mapped to the Vec slot, never used).
  int i = static_cast<int>(s) - 1;
  return i < 0 ? 0 : i;
}
}  // namespace

CoreMemory::CoreMemory(Target target) : target_(target) {
  for (const auto& info : OnChipSpaces(target)) {
    SpaceBuffer& b = spaces_[SpaceIndex(info.space)];
    b.space = info.space;
    b.capacity = info.capacity;
    b.alignment = info.alignment;
  }
}

// A space's bytes are allocated (poisoned, never written) on its first use, so a vector-only
// kernel does not fill the cube buffers; observably the same as allocating them up front.
SpaceBuffer& CoreMemory::Ensure(MemSpace s) const {
  SpaceBuffer& b = spaces_[SpaceIndex(s)];
  if (b.bytes.size() != b.capacity) {
    b.bytes.assign(b.capacity, kPoisonByte);
    b.written.assign(b.capacity, 0);
  }
  if (record_origins_ && b.origin.size() != b.capacity) b.origin.assign(b.capacity, WriteOrigin{});
  return b;
}

SpaceBuffer& CoreMemory::Get(MemSpace s) { return Ensure(s); }
const SpaceBuffer& CoreMemory::Get(MemSpace s) const { return Ensure(s); }

namespace {
bool CheckResetRequested() {
  const char* e = std::getenv("OPDEV_SIM_CHECK_RESET");
  return e != nullptr && std::string_view(e) == "1";
}

bool PageDirty(const SpaceBuffer& b, uint64_t page) {
  return (page >> 6) < b.dirty_pages.size() && ((b.dirty_pages[page >> 6] >> (page & 63)) & 1) != 0;
}

// OPDEV_SIM_CHECK_RESET: every byte of a clean page must still be fresh.
void CheckCleanPages(const SpaceBuffer& b) {
  for (uint64_t i = 0; i < b.bytes.size(); ++i) {
    if (PageDirty(b, i >> SpaceBuffer::kDirtyPageShift)) continue;
    if (b.bytes[i] != kPoisonByte || b.written[i] != 0) {
      std::fprintf(stderr,
                   "opdev internal check (OPDEV_SIM_CHECK_RESET): %s byte 0x%llx was changed on a page no write "
                   "marked dirty: a write path does not call SpaceBuffer::Touch\n",
                   std::string(MemSpaceName(b.space)).c_str(), static_cast<unsigned long long>(i));
      std::abort();
    }
  }
}
}  // namespace

void CoreMemory::Reset() {
  static const bool check = CheckResetRequested();
  for (auto& b : spaces_) {
    if (b.bytes.empty()) continue;
    if (check) CheckCleanPages(b);
    const uint64_t n = b.bytes.size();
    for (size_t w = 0; w < b.dirty_pages.size(); ++w) {
      uint64_t bits = b.dirty_pages[w];
      while (bits != 0) {
        // One run of consecutive dirty pages at a time.
        const int first = __builtin_ctzll(bits);
        const uint64_t shifted = bits >> first;
        const int len = shifted == ~uint64_t{0} ? 64 - first : __builtin_ctzll(~shifted);
        bits &= len + first >= 64 ? 0 : ~uint64_t{0} << (first + len);
        const uint64_t lo = std::min<uint64_t>(((w * 64) + first) << SpaceBuffer::kDirtyPageShift, n);
        const uint64_t hi = std::min<uint64_t>(((w * 64) + first + len) << SpaceBuffer::kDirtyPageShift, n);
        std::fill(b.bytes.begin() + lo, b.bytes.begin() + hi, kPoisonByte);
        std::fill(b.written.begin() + lo, b.written.begin() + hi, 0);
        if (b.origin.size() > lo) std::fill(b.origin.begin() + lo, b.origin.begin() + std::min<uint64_t>(hi, b.origin.size()), WriteOrigin{});
      }
    }
    std::fill(b.dirty_pages.begin(), b.dirty_pages.end(), 0);
  }
}

namespace {
// A tensor of `shape` without a writer yet; the caller sets the data bytes.
std::shared_ptr<GmTensor> Unfilled(std::string name, DType dtype, std::vector<int64_t> shape) {
  auto t = std::make_shared<GmTensor>();
  t->name = std::move(name);
  t->dtype = dtype;
  t->shape = std::move(shape);
  return t;
}
}  // namespace

std::shared_ptr<GmTensor> GmTensor::Make(std::string name, DType dtype, std::vector<int64_t> shape,
                                         uint8_t fill) {
  auto t = Unfilled(std::move(name), dtype, std::move(shape));
  t->data.assign(static_cast<size_t>(t->numel()) * DTypeSize(dtype), fill);
  return t;
}

std::shared_ptr<GmTensor> GmTensor::MakeCopy(std::string name, DType dtype, std::vector<int64_t> shape,
                                             const void* bytes) {
  auto t = Unfilled(std::move(name), dtype, std::move(shape));
  const auto* p = static_cast<const uint8_t*>(bytes);
  t->data.assign(p, p + static_cast<size_t>(t->numel()) * DTypeSize(dtype));
  return t;
}

std::vector<int32_t>& GmTensor::Writers() {
  // Every element -1 (no writer), written once: a zero fill first would double the cost.
  if (writer.empty()) writer.assign(static_cast<size_t>(numel()), -1);
  return writer;
}

bool GmTensor::AnyWritten() const {
  return std::any_of(writer.begin(), writer.end(), [](int32_t w) { return w >= 0; });
}

int64_t GmTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

IndexList GmTensor::Strides() const {
  IndexList s(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * shape[i + 1];
  return s;
}

double GmTensor::GetAsDouble(int64_t flat) const {
  return LoadScalar(dtype, data.data() + flat * elem_size());
}

void GmTensor::SetFromDouble(int64_t flat, double v) {
  StoreScalar(dtype, data.data() + flat * elem_size(), v);
}

double LoadScalar(DType t, const uint8_t* p) {
  switch (t) {
    case DType::kFloat16: { uint16_t h; std::memcpy(&h, p, 2); return HalfToFloat(h); }
    case DType::kBFloat16: { uint16_t h; std::memcpy(&h, p, 2); return BFloat16ToFloat(h); }
    case DType::kFloat32: { float f; std::memcpy(&f, p, 4); return f; }
    case DType::kFloat64: { double d; std::memcpy(&d, p, 8); return d; }
    case DType::kInt8: return static_cast<int8_t>(*p);
    case DType::kUInt8: case DType::kBool: return *p;
    case DType::kHiFloat8: return HiFloat8ToFloat(*p);
    case DType::kInt16: { int16_t v; std::memcpy(&v, p, 2); return v; }
    case DType::kUInt16: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case DType::kInt32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case DType::kUInt32: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    case DType::kInt64: { int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
    case DType::kUInt64: { uint64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
  }
  return 0;
}

namespace {
template <typename I>
void StoreInt(uint8_t* p, double v) {
  I x = std::isnan(v) ? I(0) : static_cast<I>(std::llrint(v));
  std::memcpy(p, &x, sizeof(I));
}
}  // namespace

void StoreScalar(DType t, uint8_t* p, double v) {
  switch (t) {
    case DType::kFloat16: { uint16_t h = FloatToHalf(static_cast<float>(v)); std::memcpy(p, &h, 2); return; }
    case DType::kBFloat16: { uint16_t h = FloatToBFloat16(static_cast<float>(v)); std::memcpy(p, &h, 2); return; }
    case DType::kFloat32: { float f = static_cast<float>(v); std::memcpy(p, &f, 4); return; }
    case DType::kFloat64: std::memcpy(p, &v, 8); return;
    case DType::kInt8: StoreInt<int8_t>(p, v); return;
    case DType::kUInt8: StoreInt<uint8_t>(p, v); return;
    case DType::kBool: *p = v != 0 ? 1 : 0; return;
    case DType::kHiFloat8: *p = FloatToHiFloat8(static_cast<float>(v)); return;
    case DType::kInt16: StoreInt<int16_t>(p, v); return;
    case DType::kUInt16: StoreInt<uint16_t>(p, v); return;
    case DType::kInt32: StoreInt<int32_t>(p, v); return;
    case DType::kUInt32: StoreInt<uint32_t>(p, v); return;
    case DType::kInt64: StoreInt<int64_t>(p, v); return;
    case DType::kUInt64: StoreInt<uint64_t>(p, v); return;
  }
}

}  // namespace opdev::sim
