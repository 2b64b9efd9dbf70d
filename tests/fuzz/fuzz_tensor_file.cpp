// libFuzzer target for the tensor readers: the bytes are parsed as .npy in memory, and (after
// a small header choosing dtype and shape) read back from a file as a raw .bin; a parsed
// tensor must re-encode and parse to the same shape, dtype and bytes.
#include "opdev/precision/tensor_file.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto t = opdev::precision::ParseNpy(bytes, "fuzz.npy");
  if (t.ok()) {
    std::string again = opdev::precision::EncodeNpy(*t);
    auto u = opdev::precision::ParseNpy(again, "again.npy");
    if (!u.ok() || u->shape() != t->shape() || u->dtype() != t->dtype() || u->nbytes() != t->nbytes() ||
        std::memcmp(u->data(), t->data(), t->nbytes()) != 0) {
      std::fprintf(stderr, "npy round trip failed\n");
      std::abort();
    }
  }
  // .bin: the first byte picks a dtype, the second a shape text; the rest is the payload.
  if (size >= 2) {
    static const std::string path = "/tmp/opdev_fuzz_tensor_" + std::to_string(::getpid()) + ".bin";
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(data) + 2, static_cast<std::streamsize>(size - 2));
    }
    using opdev::DType;
    static const DType kDtypes[] = {DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kInt8,
                                    DType::kInt32, DType::kBool, DType::kUInt64};
    static const char* kShapes[] = {"", "4", "2,3", "0", "-1", "99999999999,99999999999", "1,1,1,1", "x"};
    opdev::precision::TensorReadOptions o;
    o.dtype = kDtypes[data[0] % 7];
    o.mmap_threshold_bytes = data[0] & 0x80 ? 0 : SIZE_MAX;
    auto shape = opdev::precision::ParseShape(kShapes[data[1] % 8]);
    if (shape.ok()) o.shape = *shape;
    (void)opdev::precision::ReadBin(path, o);
    (void)opdev::precision::ReadTensorFile(path, o);
  }
  return 0;
}
