// Tensor: a host tensor of one DType and shape with contiguous row-major (C-order) elements,
// either owning its buffer or viewing a read-only memory-mapped file. It is the value type
// exchanged by tensor files (.npy/.bin), the precision comparison and the CPU simulator.
// Copies are cheap (the storage is shared); mutation is only possible on owning tensors.
#pragma once

#include "opdev/support/dtype.h"

#include "absl/status/statusor.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace opdev::precision {

using Shape = std::vector<int64_t>;

// Number of elements of a shape (1 for a 0-d shape); nullopt-like -1 when a dimension is
// negative or the product overflows int64.
int64_t ShapeNumel(const Shape& shape);

// Python tuple spelling used in messages: "()", "(5,)", "(2, 3)".
std::string ShapeToString(const Shape& shape);

// Storage backing a tensor: an owned heap block (64-byte aligned unless adopted from a byte
// vector) or a read-only mapping.
class TensorStorage {
 public:
  virtual ~TensorStorage() = default;
  virtual const std::byte* bytes() const = 0;
  virtual size_t size() const = 0;
  virtual bool writable() const = 0;
  virtual bool mapped() const = 0;
};

// An owned, zero-initialised, 64-byte aligned block of `n` bytes (throws std::bad_alloc).
std::shared_ptr<TensorStorage> AllocateStorage(size_t n);

class Tensor {
 public:
  Tensor();  // empty float32 tensor of shape (0,)

  // Owning, zero-filled. Fails on negative dimensions or sizes that overflow.
  static absl::StatusOr<Tensor> Zeros(DType dtype, Shape shape);
  // Owning copy of `bytes` (native-endian, C-order); bytes.size() must be numel*itemsize.
  static absl::StatusOr<Tensor> FromBytes(DType dtype, Shape shape, const void* bytes,
                                          size_t nbytes);
  // Owning and writable, taking `bytes` over without a copy (aligned as the vector's heap
  // block, not to 64 bytes); bytes.size() must be numel*itemsize. `bytes` is left empty.
  static absl::StatusOr<Tensor> FromByteVector(DType dtype, Shape shape,
                                               std::vector<uint8_t>&& bytes);
  // Owning tensor from values given as double, each converted to `dtype` like torch's
  // tensor(..., dtype=...) would (round-to-nearest-even for floats; integers truncate toward
  // zero; bool is value != 0). Mainly for tests and golden generation.
  static absl::StatusOr<Tensor> FromDoubles(DType dtype, Shape shape,
                                            const std::vector<double>& values);
  // Read-only view of `nbytes` at `data` kept alive by `storage` (used by the file readers).
  static Tensor View(DType dtype, Shape shape, std::shared_ptr<const TensorStorage> storage,
                     const std::byte* data);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t dim() const { return static_cast<int64_t>(shape_.size()); }
  int64_t numel() const { return numel_; }
  size_t itemsize() const { return DTypeSize(dtype_); }
  size_t nbytes() const { return static_cast<size_t>(numel_) * itemsize(); }

  // Raw element bytes, native little-endian, C-order. Never null (points at a static empty
  // block for zero-size tensors).
  const std::byte* data() const { return data_; }
  // Writable bytes; null when the tensor is a read-only view (e.g. memory-mapped).
  std::byte* mutable_data();
  bool is_mapped() const;    // data lives in a read-only file mapping
  bool is_writable() const;  // owning tensor

  // Typed access; T must match the element size (uint16_t for float16/bfloat16 bits).
  template <typename T>
  const T* data_as() const { return reinterpret_cast<const T*>(data_); }
  template <typename T>
  T* mutable_data_as() { return reinterpret_cast<T*>(mutable_data()); }

  // Element `flat` (C-order index) converted exactly to double (float16/bfloat16 via
  // opdev/support/half.h, integers exactly up to 2^53, bool as 0/1). Bounds are the caller's.
  double GetDouble(int64_t flat) const;
  // Stores `v` into element `flat` converted to the dtype (see FromDoubles). Owning only.
  void SetDouble(int64_t flat, double v);

  // Same data with another shape of equal numel (no copy).
  absl::StatusOr<Tensor> Reshaped(Shape shape) const;
  // Owning deep copy (e.g. to modify a mapped tensor).
  Tensor Clone() const;

  // Multi-dimensional index of a flat C-order index.
  std::vector<int64_t> Unravel(int64_t flat) const;

 private:
  // Owning storage for `shape`: zero-filled, or a copy of numel*itemsize bytes at `init`.
  static absl::StatusOr<Tensor> Owning(DType dtype, Shape shape, const void* init);

  DType dtype_;
  Shape shape_;
  int64_t numel_;
  std::shared_ptr<const TensorStorage> storage_;
  const std::byte* data_;
};

}  // namespace opdev::precision
