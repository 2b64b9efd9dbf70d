// Tensor: shapes, owned storage, element conversion to and from double.
#include "opdev/precision/tensor.h"

#include "opdev/support/half.h"
#include "opdev/support/hifloat8.h"

#include "precision/str_cat.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <new>

namespace opdev::precision {

namespace {

class OwnedStorage final : public TensorStorage {
 public:
  // Zero-filled, or a copy of the n bytes at `init` when it is given.
  explicit OwnedStorage(size_t n, const void* init = nullptr)
      : size_(n),
        data_(static_cast<std::byte*>(::operator new(n == 0 ? 64 : n, std::align_val_t{64}))) {
    if (init != nullptr && n != 0) std::memcpy(data_, init, n);
    else std::memset(data_, 0, n == 0 ? 64 : n);
  }
  ~OwnedStorage() override { ::operator delete(data_, std::align_val_t{64}); }
  OwnedStorage(const OwnedStorage&) = delete;
  OwnedStorage& operator=(const OwnedStorage&) = delete;
  const std::byte* bytes() const override { return data_; }
  size_t size() const override { return size_; }
  bool writable() const override { return true; }
  bool mapped() const override { return false; }

 private:
  size_t size_;
  std::byte* data_;
};

// A byte vector taken over by a tensor (Tensor::FromByteVector).
class VectorStorage final : public TensorStorage {
 public:
  explicit VectorStorage(std::vector<uint8_t>&& v) : v_(std::move(v)) {}
  const std::byte* bytes() const override { return reinterpret_cast<const std::byte*>(v_.data()); }
  size_t size() const override { return v_.size(); }
  bool writable() const override { return true; }
  bool mapped() const override { return false; }

 private:
  std::vector<uint8_t> v_;
};

// Exact double -> 16-bit float: round to odd into float first (float keeps more than two
// extra bits), then round-to-nearest-even into the 16-bit format. This equals a single
// correctly rounded conversion, like torch's double -> half.
float RoundToOddFloat(double d) {
  if (std::isnan(d)) return static_cast<float>(d);
  float f = static_cast<float>(d);
  if (static_cast<double>(f) == d) return f;
  if (std::isinf(f)) f = std::copysign(std::numeric_limits<float>::max(), f);
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);
  uint32_t b = FloatToBits(f) | 1u;
  return BitsToFloat(b);
}

template <typename I>
I SaturatingCast(double v) {
  if (std::isnan(v)) return 0;
  v = std::trunc(v);
  if (v <= static_cast<double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (v >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(v);
}

template <typename T>
T Load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
void Store(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

const std::byte kEmptyBlock[64] = {};

}  // namespace

std::shared_ptr<TensorStorage> AllocateStorage(size_t n) {
  return std::make_shared<OwnedStorage>(n);
}

int64_t ShapeNumel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return -1;
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) return -1;
    n *= d;
  }
  return n;
}

std::string ShapeToString(const Shape& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  s += ")";
  return s;
}

Tensor::Tensor() : dtype_(DType::kFloat32), shape_{0}, numel_(0), data_(kEmptyBlock) {}

namespace {
// The byte size of an owning tensor of `shape`, or why the shape cannot have one.
absl::StatusOr<size_t> OwnedBytes(DType dtype, const Shape& shape) {
  const int64_t n = ShapeNumel(shape);
  if (n < 0)
    return absl::InvalidArgumentError(
        Cat("invalid shape ", ShapeToString(shape), ": negative or overflowing"));
  const size_t item = DTypeSize(dtype);
  if (static_cast<uint64_t>(n) > std::numeric_limits<size_t>::max() / 2 / item)
    return absl::InvalidArgumentError(
        Cat("shape ", ShapeToString(shape), " is too large"));
  return static_cast<size_t>(n) * item;
}
}  // namespace

absl::StatusOr<Tensor> Tensor::Zeros(DType dtype, Shape shape) {
  return Owning(dtype, std::move(shape), nullptr);
}

absl::StatusOr<Tensor> Tensor::Owning(DType dtype, Shape shape, const void* init) {
  auto bytes = OwnedBytes(dtype, shape);
  if (!bytes.ok()) return bytes.status();
  Tensor t;
  t.dtype_ = dtype;
  t.numel_ = ShapeNumel(shape);
  t.shape_ = std::move(shape);
  try {
    auto storage = std::make_shared<OwnedStorage>(*bytes, init);
    t.data_ = storage->bytes();
    t.storage_ = std::move(storage);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(Cat("cannot allocate ", *bytes, " bytes"));
  }
  return t;
}

absl::StatusOr<Tensor> Tensor::FromBytes(DType dtype, Shape shape, const void* bytes,
                                         size_t nbytes) {
  auto want = OwnedBytes(dtype, shape);
  if (!want.ok()) return want.status();
  if (*want != nbytes)
    return absl::InvalidArgumentError(Cat(
        "byte count ", nbytes, " does not match ", DTypeName(dtype), " shape ",
        ShapeToString(shape), " (", *want, " bytes)"));
  return Owning(dtype, std::move(shape), bytes);
}

absl::StatusOr<Tensor> Tensor::FromByteVector(DType dtype, Shape shape,
                                              std::vector<uint8_t>&& bytes) {
  auto want = OwnedBytes(dtype, shape);
  if (!want.ok()) return want.status();
  if (*want != bytes.size())
    return absl::InvalidArgumentError(Cat(
        "byte count ", bytes.size(), " does not match ", DTypeName(dtype), " shape ",
        ShapeToString(shape), " (", *want, " bytes)"));
  if (bytes.empty()) return Owning(dtype, std::move(shape), nullptr);  // data() is never null
  Tensor t;
  t.dtype_ = dtype;
  t.numel_ = ShapeNumel(shape);
  t.shape_ = std::move(shape);
  auto storage = std::make_shared<VectorStorage>(std::move(bytes));
  t.data_ = storage->bytes();
  t.storage_ = std::move(storage);
  return t;
}

absl::StatusOr<Tensor> Tensor::FromDoubles(DType dtype, Shape shape,
                                           const std::vector<double>& values) {
  auto t = Zeros(dtype, std::move(shape));
  if (!t.ok()) return t.status();
  if (static_cast<size_t>(t->numel()) != values.size())
    return absl::InvalidArgumentError(Cat(
        values.size(), " values do not fill shape ", ShapeToString(t->shape()), " (",
        t->numel(), " elements)"));
  for (size_t i = 0; i < values.size(); ++i) t->SetDouble(static_cast<int64_t>(i), values[i]);
  return t;
}

Tensor Tensor::View(DType dtype, Shape shape, std::shared_ptr<const TensorStorage> storage,
                    const std::byte* data) {
  Tensor t;
  t.dtype_ = dtype;
  t.numel_ = ShapeNumel(shape);
  t.shape_ = std::move(shape);
  t.storage_ = std::move(storage);
  t.data_ = data ? data : kEmptyBlock;
  return t;
}

std::byte* Tensor::mutable_data() {
  if (!storage_ || !storage_->writable()) return nullptr;
  return const_cast<std::byte*>(data_);
}

bool Tensor::is_mapped() const { return storage_ && storage_->mapped(); }
bool Tensor::is_writable() const { return storage_ && storage_->writable(); }

double Tensor::GetDouble(int64_t flat) const {
  const std::byte* p = data_ + static_cast<size_t>(flat) * itemsize();
  switch (dtype_) {
    case DType::kFloat16: return HalfToFloat(Load<uint16_t>(p));
    case DType::kBFloat16: return BFloat16ToFloat(Load<uint16_t>(p));
    case DType::kFloat32: return Load<float>(p);
    case DType::kFloat64: return Load<double>(p);
    case DType::kInt8: return Load<int8_t>(p);
    case DType::kInt16: return Load<int16_t>(p);
    case DType::kInt32: return Load<int32_t>(p);
    case DType::kInt64: return static_cast<double>(Load<int64_t>(p));
    case DType::kUInt8: return Load<uint8_t>(p);
    case DType::kUInt16: return Load<uint16_t>(p);
    case DType::kUInt32: return Load<uint32_t>(p);
    case DType::kUInt64: return static_cast<double>(Load<uint64_t>(p));
    case DType::kBool: return Load<uint8_t>(p) != 0 ? 1.0 : 0.0;
    case DType::kHiFloat8: return HiFloat8ToFloat(Load<uint8_t>(p));
  }
  return 0.0;
}

void Tensor::SetDouble(int64_t flat, double v) {
  std::byte* base = mutable_data();
  if (!base) return;
  std::byte* p = base + static_cast<size_t>(flat) * itemsize();
  switch (dtype_) {
    case DType::kFloat16: Store<uint16_t>(p, FloatToHalf(RoundToOddFloat(v))); break;
    case DType::kBFloat16: Store<uint16_t>(p, FloatToBFloat16(RoundToOddFloat(v))); break;
    case DType::kFloat32: Store<float>(p, static_cast<float>(v)); break;
    case DType::kFloat64: Store<double>(p, v); break;
    case DType::kInt8: Store<int8_t>(p, SaturatingCast<int8_t>(v)); break;
    case DType::kInt16: Store<int16_t>(p, SaturatingCast<int16_t>(v)); break;
    case DType::kInt32: Store<int32_t>(p, SaturatingCast<int32_t>(v)); break;
    case DType::kInt64: Store<int64_t>(p, SaturatingCast<int64_t>(v)); break;
    case DType::kUInt8: Store<uint8_t>(p, SaturatingCast<uint8_t>(v)); break;
    case DType::kUInt16: Store<uint16_t>(p, SaturatingCast<uint16_t>(v)); break;
    case DType::kUInt32: Store<uint32_t>(p, SaturatingCast<uint32_t>(v)); break;
    case DType::kUInt64: Store<uint64_t>(p, SaturatingCast<uint64_t>(v)); break;
    case DType::kHiFloat8: Store<uint8_t>(p, FloatToHiFloat8(static_cast<float>(v))); break;
    case DType::kBool: Store<uint8_t>(p, v != 0.0 ? 1 : 0); break;
  }
}

absl::StatusOr<Tensor> Tensor::Reshaped(Shape shape) const {
  int64_t n = ShapeNumel(shape);
  if (n != numel_)
    return absl::InvalidArgumentError(Cat("cannot reshape ", ShapeToString(shape_),
                                                   " to ", ShapeToString(shape)));
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

Tensor Tensor::Clone() const {
  auto t = FromBytes(dtype_, shape_, data_, nbytes());
  return t.ok() ? *std::move(t) : Tensor();
}

std::vector<int64_t> Tensor::Unravel(int64_t flat) const {
  std::vector<int64_t> idx(shape_.size(), 0);
  for (size_t k = shape_.size(); k-- > 0;) {
    int64_t d = shape_[k];
    if (d <= 0) break;
    idx[k] = flat % d;
    flat /= d;
  }
  return idx;
}

}  // namespace opdev::precision
