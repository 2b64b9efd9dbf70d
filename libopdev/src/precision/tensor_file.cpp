// Reading and writing .npy and raw .bin tensor files, with read-only mappings for large
// inputs. The .npy header is a Python dict literal; only the subset NumPy writes is accepted
// ('descr' string, 'fortran_order' bool, 'shape' tuple of ints) and every length, offset and
// size is checked against the bytes actually present before any element is touched.
#include "opdev/precision/tensor_file.h"

#include "opdev/support/file_io.h"

#include "precision/str_cat.h"


#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <map>

namespace opdev::precision {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

class MappedStorage final : public TensorStorage {
 public:
  MappedStorage(void* base, size_t size) : base_(base), size_(size) {}
  ~MappedStorage() override { ::munmap(base_, size_); }
  MappedStorage(const MappedStorage&) = delete;
  MappedStorage& operator=(const MappedStorage&) = delete;
  const std::byte* bytes() const override { return static_cast<const std::byte*>(base_); }
  size_t size() const override { return size_; }
  bool writable() const override { return false; }
  bool mapped() const override { return true; }

 private:
  void* base_;
  size_t size_;
};

// ---- header dict parsing ---------------------------------------------------------------

struct HeaderValue {
  enum Kind { kString, kBool, kTuple, kOther } kind = kOther;
  std::string str;
  bool boolean = false;
  std::vector<int64_t> ints;
};

class DictParser {
 public:
  explicit DictParser(std::string_view s) : s_(s) {}

  absl::Status Parse(std::map<std::string, HeaderValue>* out) {
    SkipWs();
    if (!Eat('{')) return Err("expected '{' at the start of the header dict");
    while (true) {
      SkipWs();
      if (Eat('}')) break;
      std::string key;
      if (auto st = ParseString(&key); !st.ok()) return st;
      SkipWs();
      if (!Eat(':')) return Err(Cat("expected ':' after key '", key, "'"));
      SkipWs();
      HeaderValue v;
      if (auto st = ParseValue(&v); !st.ok()) return st;
      if (out->count(key)) return Err(Cat("duplicate key '", key, "'"));
      (*out)[key] = std::move(v);
      SkipWs();
      if (Eat(',')) continue;
      SkipWs();
      if (Eat('}')) break;
      return Err("expected ',' or '}' in the header dict");
    }
    SkipWs();
    if (pos_ != s_.size()) return Err("unexpected text after the header dict");
    return absl::OkStatus();
  }

 private:
  absl::Status Err(std::string_view what) const {
    return absl::InvalidArgumentError(
        Cat("malformed .npy header at character ", pos_, ": ", what));
  }
  void SkipWs() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' ||
                                s_[pos_] == '\r'))
      ++pos_;
  }
  bool Eat(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  absl::Status ParseString(std::string* out) {
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"'))
      return Err("expected a quoted string");
    char q = s_[pos_++];
    while (pos_ < s_.size() && s_[pos_] != q) {
      if (s_[pos_] == '\\') return Err("escape sequences are not supported in header strings");
      out->push_back(s_[pos_++]);
    }
    if (!Eat(q)) return Err("unterminated string");
    return absl::OkStatus();
  }
  absl::Status ParseInt(int64_t* out) {
    size_t start = pos_;
    uint64_t v = 0;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      uint64_t digit = static_cast<uint64_t>(s_[pos_] - '0');
      if (v > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - digit) / 10)
        return Err("shape dimension overflows int64");
      v = v * 10 + digit;
      ++pos_;
    }
    if (pos_ == start) return Err("expected a non-negative integer in 'shape'");
    Eat('L');  // Python 2 long suffix written by very old NumPy
    *out = static_cast<int64_t>(v);
    return absl::OkStatus();
  }
  absl::Status ParseValue(HeaderValue* v) {
    if (pos_ >= s_.size()) return Err("missing value");
    char c = s_[pos_];
    if (c == '\'' || c == '"') {
      v->kind = HeaderValue::kString;
      return ParseString(&v->str);
    }
    if (s_.substr(pos_, 4) == "True") {
      pos_ += 4;
      v->kind = HeaderValue::kBool;
      v->boolean = true;
      return absl::OkStatus();
    }
    if (s_.substr(pos_, 5) == "False") {
      pos_ += 5;
      v->kind = HeaderValue::kBool;
      v->boolean = false;
      return absl::OkStatus();
    }
    if (c == '(') {
      ++pos_;
      v->kind = HeaderValue::kTuple;
      SkipWs();
      if (Eat(')')) return absl::OkStatus();
      while (true) {
        SkipWs();
        int64_t d = 0;
        if (auto st = ParseInt(&d); !st.ok()) return st;
        v->ints.push_back(d);
        if (v->ints.size() > 64) return Err("more than 64 dimensions");
        SkipWs();
        if (Eat(',')) {
          SkipWs();
          if (Eat(')')) break;
          continue;
        }
        if (Eat(')')) break;
        return Err("expected ',' or ')' in 'shape'");
      }
      return absl::OkStatus();
    }
    if (c == '[') return Err("structured dtypes (a list 'descr') are not supported");
    return Err("unsupported value in the header dict");
  }

  std::string_view s_;
  size_t pos_ = 0;
};

struct NpyLayout {
  DType dtype = DType::kFloat32;
  bool raw2 = false;        // 2-byte void payload ('V2'), only meaningful as bfloat16
  bool big_endian = false;
  bool fortran = false;
  Shape shape;
  size_t data_offset = 0;
};

absl::Status DescrError(std::string_view name, std::string_view descr, std::string_view why) {
  return absl::InvalidArgumentError(
      Cat(name, ": unsupported .npy descr '", descr, "': ", why));
}

absl::Status ParseDescr(std::string_view name, const std::string& descr, NpyLayout* L) {
  if (descr.size() < 3) return DescrError(name, descr, "expected <byteorder><kind><size>");
  char order = descr[0];
  if (order != '<' && order != '>' && order != '|' && order != '=')
    return DescrError(name, descr, "unknown byte order character");
  L->big_endian = order == '>';
  char kind = descr[1];
  std::string_view size_text = std::string_view(descr).substr(2);
  int size = 0;
  for (char c : size_text) {
    if (c < '0' || c > '9' || size > 1000) return DescrError(name, descr, "bad item size");
    size = size * 10 + (c - '0');
  }
  switch (kind) {
    case 'b':
      if (size == 1) { L->dtype = DType::kBool; return absl::OkStatus(); }
      break;
    case 'i':
      if (size == 1) { L->dtype = DType::kInt8; return absl::OkStatus(); }
      if (size == 2) { L->dtype = DType::kInt16; return absl::OkStatus(); }
      if (size == 4) { L->dtype = DType::kInt32; return absl::OkStatus(); }
      if (size == 8) { L->dtype = DType::kInt64; return absl::OkStatus(); }
      break;
    case 'u':
      if (size == 1) { L->dtype = DType::kUInt8; return absl::OkStatus(); }
      if (size == 2) { L->dtype = DType::kUInt16; return absl::OkStatus(); }
      if (size == 4) { L->dtype = DType::kUInt32; return absl::OkStatus(); }
      if (size == 8) { L->dtype = DType::kUInt64; return absl::OkStatus(); }
      break;
    case 'f':
      if (size == 2) { L->dtype = DType::kFloat16; return absl::OkStatus(); }
      if (size == 4) { L->dtype = DType::kFloat32; return absl::OkStatus(); }
      if (size == 8) { L->dtype = DType::kFloat64; return absl::OkStatus(); }
      return DescrError(name, descr, "only float16/32/64 are supported");
    case 'V':
      if (size == 2) {
        L->dtype = DType::kBFloat16;
        L->raw2 = true;
        return absl::OkStatus();
      }
      return DescrError(name, descr, "only 2-byte raw ('V2', bfloat16) is supported");
    case 'c': return DescrError(name, descr, "complex tensors are not supported");
    case 'O': return DescrError(name, descr, "object arrays are not supported");
    case 'U': case 'S': return DescrError(name, descr, "string arrays are not supported");
    case 'M': case 'm': return DescrError(name, descr, "datetime arrays are not supported");
    default: break;
  }
  return DescrError(name, descr, "unknown kind or size");
}

absl::StatusOr<NpyLayout> ParseNpyHeader(std::string_view bytes, std::string_view name) {
  if (bytes.size() < 10)
    return absl::DataLossError(Cat(name, ": truncated .npy: ", bytes.size(),
                                            " bytes, the preamble alone needs 10"));
  if (bytes.substr(0, kMagicLen) != std::string_view(kMagic, kMagicLen))
    return absl::InvalidArgumentError(
        Cat(name, ": not an .npy file (missing the \\x93NUMPY magic)"));
  auto u8 = [&](size_t i) { return static_cast<uint8_t>(bytes[i]); };
  int major = u8(6), minor = u8(7);
  size_t header_len = 0, preamble = 0;
  if (major == 1) {
    header_len = u8(8) | (static_cast<size_t>(u8(9)) << 8);
    preamble = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return absl::DataLossError(Cat(name, ": truncated .npy version ", major,
                                              " preamble"));
    header_len = u8(8) | (static_cast<size_t>(u8(9)) << 8) |
                 (static_cast<size_t>(u8(10)) << 16) | (static_cast<size_t>(u8(11)) << 24);
    preamble = 12;
  } else {
    return absl::InvalidArgumentError(
        Cat(name, ": unsupported .npy format version ", major, ".", minor));
  }
  if (minor != 0)
    return absl::InvalidArgumentError(
        Cat(name, ": unsupported .npy format version ", major, ".", minor));
  if (header_len > bytes.size() - preamble)
    return absl::DataLossError(Cat(name, ": truncated .npy: header claims ",
                                            header_len, " bytes but only ",
                                            bytes.size() - preamble, " follow the preamble"));
  std::string_view header = bytes.substr(preamble, header_len);
  if (major < 3) {
    for (char c : header)
      if (static_cast<unsigned char>(c) >= 0x80)
        return absl::InvalidArgumentError(
            Cat(name, ": .npy version ", major, " header must be ASCII"));
  } else if (FindInvalidUtf8(header) >= 0) {
    return absl::InvalidArgumentError(Cat(name, ": .npy 3.0 header is not UTF-8"));
  }
  std::map<std::string, HeaderValue> dict;
  if (auto st = DictParser(header).Parse(&dict); !st.ok())
    return absl::InvalidArgumentError(Cat(name, ": ", st.message()));
  for (const auto& [k, v] : dict)
    if (k != "descr" && k != "fortran_order" && k != "shape")
      return absl::InvalidArgumentError(
          Cat(name, ": .npy header has unexpected key '", k, "'"));
  NpyLayout L;
  auto descr = dict.find("descr");
  if (descr == dict.end() || descr->second.kind != HeaderValue::kString)
    return absl::InvalidArgumentError(
        Cat(name, ": .npy header lacks a string 'descr'"));
  if (auto st = ParseDescr(name, descr->second.str, &L); !st.ok()) return st;
  auto fo = dict.find("fortran_order");
  if (fo == dict.end() || fo->second.kind != HeaderValue::kBool)
    return absl::InvalidArgumentError(
        Cat(name, ": .npy header lacks a True/False 'fortran_order'"));
  L.fortran = fo->second.boolean;
  auto sh = dict.find("shape");
  if (sh == dict.end() || sh->second.kind != HeaderValue::kTuple)
    return absl::InvalidArgumentError(
        Cat(name, ": .npy header lacks a tuple 'shape'"));
  L.shape = sh->second.ints;
  L.data_offset = preamble + header_len;
  if (DTypeSize(L.dtype) == 1) L.big_endian = false;
  return L;
}

// Resolves the element type from the header and the caller's override.
absl::Status ApplyDTypeOverride(std::string_view name, const TensorReadOptions& opts,
                                NpyLayout* L) {
  if (L->raw2) {
    if ((!opts.dtype || *opts.dtype != DType::kBFloat16) && !(opts.raw2_is_bfloat16 && !opts.dtype))
      return absl::InvalidArgumentError(Cat(
          name, ": .npy holds 2-byte raw elements ('V2'); pass dtype bfloat16 "
                "(--dtype bfloat16) to read them as bfloat16"));
    return absl::OkStatus();
  }
  if (!opts.dtype || *opts.dtype == L->dtype) return absl::OkStatus();
  if (*opts.dtype == DType::kBFloat16 &&
      (L->dtype == DType::kUInt16 || L->dtype == DType::kInt16)) {
    L->dtype = DType::kBFloat16;  // bfloat16 bits stored as 2-byte integers
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(Cat(
      name, ": .npy element type is ", DTypeName(L->dtype), " but ", DTypeName(*opts.dtype),
      " was requested (only 2-byte raw/integer payloads can be read as bfloat16)"));
}

absl::Status CheckPayload(std::string_view name, const NpyLayout& L, size_t file_size,
                          int64_t* numel_out) {
  int64_t n = ShapeNumel(L.shape);
  size_t item = DTypeSize(L.dtype);
  if (n < 0 || static_cast<uint64_t>(n) > std::numeric_limits<size_t>::max() / item)
    return absl::InvalidArgumentError(Cat(name, ": .npy shape ",
                                                   ShapeToString(L.shape), " overflows"));
  size_t need = static_cast<size_t>(n) * item;
  size_t have = file_size - L.data_offset;
  if (have < need)
    return absl::DataLossError(Cat(
        name, ": truncated .npy: header says ", DTypeName(L.dtype), " ",
        ShapeToString(L.shape), " (", need, " bytes of data) but only ", have, " follow"));
  if (have > need)
    return absl::DataLossError(Cat(
        name, ": .npy header says ", DTypeName(L.dtype), " ", ShapeToString(L.shape), " (",
        need, " bytes of data) but ", have, " bytes follow the header"));
  *numel_out = n;
  return absl::OkStatus();
}

void ByteSwapInPlace(std::byte* p, size_t count, size_t item) {
  if (item == 1) return;
  for (size_t i = 0; i < count; ++i, p += item) std::reverse(p, p + item);
}

// Copies the payload into an owned C-order native tensor (byte swap, Fortran transpose).
absl::StatusOr<Tensor> MaterialiseCopy(const NpyLayout& L, const std::byte* payload) {
  auto t = Tensor::Zeros(L.dtype, L.shape);
  if (!t.ok()) return t.status();
  size_t item = DTypeSize(L.dtype);
  size_t n = static_cast<size_t>(t->numel());
  std::byte* dst = t->mutable_data();
  if (!L.fortran || L.shape.size() <= 1) {
    if (n) std::memcpy(dst, payload, n * item);
  } else {
    // Fortran order: element with multi-index (i0..ik) is at sum i_j * prod_{m<j} d_m.
    const Shape& d = L.shape;
    size_t rank = d.size();
    std::vector<size_t> fstride(rank, 1);
    for (size_t j = 1; j < rank; ++j) fstride[j] = fstride[j - 1] * static_cast<size_t>(d[j - 1]);
    std::vector<int64_t> idx(rank, 0);
    for (size_t flat = 0; flat < n; ++flat) {
      size_t src = 0;
      for (size_t j = 0; j < rank; ++j) src += static_cast<size_t>(idx[j]) * fstride[j];
      std::memcpy(dst + flat * item, payload + src * item, item);
      for (size_t j = rank; j-- > 0;) {  // C-order increment
        if (++idx[j] < d[j]) break;
        idx[j] = 0;
      }
    }
  }
  if (L.big_endian) ByteSwapInPlace(dst, n, item);
  return t;
}

struct FileMap {
  std::shared_ptr<MappedStorage> storage;  // null for an empty file
  size_t size = 0;
};

absl::StatusOr<FileMap> MapFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    if (e == ENOENT) return absl::NotFoundError(Cat(path, ": no such file"));
    return absl::PermissionDeniedError(Cat(path, ": cannot open: ", std::strerror(e)));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::FailedPreconditionError(Cat(path, ": not a regular file"));
  }
  FileMap m;
  m.size = static_cast<size_t>(st.st_size);
  if (m.size > 0) {
    void* base = ::mmap(nullptr, m.size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (base == MAP_FAILED) {
      int e = errno;
      ::close(fd);
      return absl::ResourceExhaustedError(
          Cat(path, ": cannot map: ", std::strerror(e)));
    }
    m.storage = std::make_shared<MappedStorage>(base, m.size);
  }
  ::close(fd);
  return m;
}

absl::Status CheckShapeOverride(std::string_view name, const TensorReadOptions& opts,
                                const Shape& shape) {
  if (opts.shape && *opts.shape != shape)
    return absl::InvalidArgumentError(Cat(name, ": shape ", ShapeToString(shape),
                                                   " differs from the requested ",
                                                   ShapeToString(*opts.shape)));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Tensor> ParseNpy(std::string_view bytes, std::string_view name,
                                const TensorReadOptions& opts) {
  auto L = ParseNpyHeader(bytes, name);
  if (!L.ok()) return L.status();
  if (auto st = ApplyDTypeOverride(name, opts, &*L); !st.ok()) return st;
  if (auto st = CheckShapeOverride(name, opts, L->shape); !st.ok()) return st;
  int64_t n = 0;
  if (auto st = CheckPayload(name, *L, bytes.size(), &n); !st.ok()) return st;
  return MaterialiseCopy(*L, reinterpret_cast<const std::byte*>(bytes.data()) + L->data_offset);
}

absl::StatusOr<Tensor> ReadNpy(const std::string& path, const TensorReadOptions& opts) {
  auto m = MapFile(path);
  if (!m.ok()) return m.status();
  std::string_view bytes;
  if (m->storage)
    bytes = std::string_view(reinterpret_cast<const char*>(m->storage->bytes()), m->size);
  auto L = ParseNpyHeader(bytes, path);
  if (!L.ok()) return L.status();
  if (auto st = ApplyDTypeOverride(path, opts, &*L); !st.ok()) return st;
  if (auto st = CheckShapeOverride(path, opts, L->shape); !st.ok()) return st;
  int64_t n = 0;
  if (auto st = CheckPayload(path, *L, m->size, &n); !st.ok()) return st;
  const std::byte* payload = m->storage->bytes() + L->data_offset;
  size_t item = DTypeSize(L->dtype);
  bool layout_ok = !L->big_endian && (!L->fortran || L->shape.size() <= 1);
  bool aligned = L->data_offset % item == 0;
  size_t nbytes = static_cast<size_t>(n) * item;
  if (layout_ok && aligned && nbytes > 0 && nbytes >= opts.mmap_threshold_bytes)
    return Tensor::View(L->dtype, L->shape, m->storage, payload);
  return MaterialiseCopy(*L, payload);
}

absl::StatusOr<Tensor> ReadBin(const std::string& path, const TensorReadOptions& opts) {
  if (!opts.dtype)
    return absl::InvalidArgumentError(
        Cat(path, ": a raw tensor file needs an element type (--dtype)"));
  if (!opts.shape)
    return absl::InvalidArgumentError(
        Cat(path, ": a raw tensor file needs a shape (--shape)"));
  int64_t n = ShapeNumel(*opts.shape);
  size_t item = DTypeSize(*opts.dtype);
  if (n < 0 || static_cast<uint64_t>(n) > std::numeric_limits<size_t>::max() / item)
    return absl::InvalidArgumentError(
        Cat(path, ": invalid shape ", ShapeToString(*opts.shape)));
  auto m = MapFile(path);
  if (!m.ok()) return m.status();
  size_t need = static_cast<size_t>(n) * item;
  if (m->size != need)
    return absl::InvalidArgumentError(Cat(
        path, ": size mismatch: file has ", m->size, " bytes but ", DTypeName(*opts.dtype),
        " ", ShapeToString(*opts.shape), " needs ", need));
  if (need > 0 && need >= opts.mmap_threshold_bytes)
    return Tensor::View(*opts.dtype, *opts.shape, m->storage, m->storage->bytes());
  if (need == 0) return Tensor::Zeros(*opts.dtype, *opts.shape);
  return Tensor::FromBytes(*opts.dtype, *opts.shape, m->storage->bytes(), need);
}

absl::StatusOr<Tensor> ReadTensorFile(const std::string& path, const TensorReadOptions& opts) {
  auto m = MapFile(path);
  if (!m.ok()) return m.status();
  bool is_npy = m->size >= kMagicLen &&
                std::memcmp(m->storage->bytes(), kMagic, kMagicLen) == 0;
  m->storage.reset();
  if (is_npy) return ReadNpy(path, opts);
  if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0)
    return absl::InvalidArgumentError(
        Cat(path, ": not an .npy file (missing the \\x93NUMPY magic)"));
  return ReadBin(path, opts);
}

std::string NpyDescr(DType dtype) {
  switch (dtype) {
    case DType::kFloat16: return "<f2";
    case DType::kBFloat16: return "<V2";
    case DType::kFloat32: return "<f4";
    case DType::kFloat64: return "<f8";
    case DType::kInt8: return "|i1";
    case DType::kInt16: return "<i2";
    case DType::kInt32: return "<i4";
    case DType::kInt64: return "<i8";
    case DType::kUInt8: return "|u1";
    case DType::kUInt16: return "<u2";
    case DType::kUInt32: return "<u4";
    case DType::kUInt64: return "<u8";
    case DType::kBool: return "|b1";
    case DType::kHiFloat8: return "|u1";  // HF8 codes, as numpy and torch carry them (uint8)
  }
  return "<f4";
}

std::string EncodeNpy(const Tensor& t) {
  std::string dict = Cat("{'descr': '", NpyDescr(t.dtype()),
                                  "', 'fortran_order': False, 'shape': ",
                                  ShapeToString(t.shape()), ", }");
  size_t preamble = 10;
  size_t total = preamble + dict.size() + 1;
  if (((total + 63) / 64) * 64 - preamble > 0xFFFF) preamble = 12;
  total = preamble + dict.size() + 1;
  size_t padded = (total + 63) / 64 * 64;
  std::string header = dict + std::string(padded - total, ' ') + "\n";
  std::string out(kMagic, kMagicLen);
  out.push_back(static_cast<char>(preamble == 10 ? 1 : 2));
  out.push_back(0);
  size_t hl = header.size();
  out.push_back(static_cast<char>(hl & 0xFF));
  out.push_back(static_cast<char>((hl >> 8) & 0xFF));
  if (preamble == 12) {
    out.push_back(static_cast<char>((hl >> 16) & 0xFF));
    out.push_back(static_cast<char>((hl >> 24) & 0xFF));
  }
  out += header;
  out.append(reinterpret_cast<const char*>(t.data()), t.nbytes());
  return out;
}

absl::Status WriteNpy(const std::string& path, const Tensor& t) {
  return WriteFileAtomic(path, EncodeNpy(t));
}

absl::Status WriteBin(const std::string& path, const Tensor& t) {
  return WriteFileAtomic(
      path, std::string_view(reinterpret_cast<const char*>(t.data()), t.nbytes()));
}

absl::StatusOr<Shape> ParseShape(std::string_view text) {
  Shape shape;
  std::string s(text);
  s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return c == ' ' || c == '(' || c == ')' || c == '[' || c == ']'; }),
          s.end());
  if (s.empty()) return shape;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = i;
    uint64_t v = 0;
    while (j < s.size() && s[j] >= '0' && s[j] <= '9') {
      v = v * 10 + static_cast<uint64_t>(s[j] - '0');
      if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max() / 10))
        return absl::InvalidArgumentError(Cat("shape '", text, "': dimension too large"));
      ++j;
    }
    if (j == i) {
      if (i == s.size() && !shape.empty() && (s.back() == ',')) break;  // "(5,)"
      return absl::InvalidArgumentError(
          Cat("shape '", text, "': expected comma- or x-separated non-negative integers"));
    }
    shape.push_back(static_cast<int64_t>(v));
    if (j == s.size()) break;
    if (s[j] != ',' && s[j] != 'x' && s[j] != 'X')
      return absl::InvalidArgumentError(
          Cat("shape '", text, "': unexpected character '", std::string(1, s[j]), "'"));
    i = j + 1;
  }
  if (ShapeNumel(shape) < 0)
    return absl::InvalidArgumentError(Cat("shape '", text, "' overflows"));
  return shape;
}

}  // namespace opdev::precision
