// Digest lines of simulator runs for the corpus proof (run_digest.h).
#include "run_digest.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

namespace opdev::sim {

void Digest::Bytes(const void* p, size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i) {
    h_ ^= b[i];
    h_ *= 1099511628211ULL;
  }
}

void Digest::Str(std::string_view s) {
  Int(static_cast<int64_t>(s.size()));
  Bytes(s.data(), s.size());
}

const std::string& DigestLogPath() {
  static const std::string path = [] {
    const char* p = std::getenv("OPDEV_SIM_DIGEST_LOG");
    return std::string(p ? p : "");
  }();
  return path;
}

namespace {

// The file's base name; a temporary file's random suffix ("x_Ab3dEf.py", mkstemp) becomes
// "x_XXXXXX.py" so that runs of the same corpus give the same lines.
std::string BaseName(const std::string& path) {
  auto p = path.find_last_of('/');
  std::string b = p == std::string::npos ? path : path.substr(p + 1);
  const auto us = b.rfind('_'), dot = b.rfind('.');
  if (us != std::string::npos && dot == us + 7) {
    bool upper = false, lower = false, alnum = true;
    for (size_t i = us + 1; i < dot; ++i) {
      const char c = b[i];
      upper |= c >= 'A' && c <= 'Z';
      lower |= c >= 'a' && c <= 'z';
      alnum &= (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    }
    if (upper && lower && alnum) b.replace(us + 1, 6, "XXXXXX");
  }
  return b;
}

void TensorBytes(Digest& d, DType dt, const std::vector<int64_t>& shape, const void* data, size_t n) {
  d.Int(static_cast<int64_t>(dt));
  d.Int(static_cast<int64_t>(shape.size()));
  for (int64_t s : shape) d.Int(s);
  d.Int(static_cast<int64_t>(n));
  if (data) d.Bytes(data, n);
}

void HostValueDigest(Digest& d, const HostValue& h) {
  d.Int(static_cast<int64_t>(h.kind));
  d.Int(h.i);
  d.Double(h.f);
  d.Str(h.s);
  d.Int(static_cast<int64_t>(h.items.size()));
  for (const auto& x : h.items) HostValueDigest(d, x);
  d.Int(static_cast<int64_t>(h.fields.size()));
  for (const auto& f : h.fields) {
    d.Str(f.name);
    HostValueDigest(d, f.value);
  }
}

// Hazards: every field but the file (tests run kernels from temporary directories), which
// is reduced to its base name.
uint64_t HazardDigest(const Diagnostics& hz, std::string* summary) {
  Digest d;
  for (const auto& x : hz.items()) {
    d.Str(x.code);
    d.Int(static_cast<int64_t>(x.severity));
    d.Str(x.category);
    d.Str(BaseName(x.file));
    d.Int(x.line);
    d.Int(x.column);
    d.Str(x.section);
    d.Str(x.message);
    d.Str(x.evidence);
    if (summary->size() < 200) absl::StrAppend(summary, summary->empty() ? "" : ",", x.code, "@", x.line);
  }
  return d.value();
}

std::string StatsText(const SimStats& s) {
  return absl::StrFormat("vf=%d lanes=%d tile=%d stmts=%d cores=%d launches=%d bd=%d work=%d budget=%d", s.vf_ops,
                         s.lane_ops, s.tile_elems, s.statements, s.cores_run, s.launches, s.block_dim, s.work,
                         s.work_budget);
}

void Append(const std::string& line) {
  const std::string& path = DigestLogPath();
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) return;
  ssize_t w = ::write(fd, line.data(), line.size());
  (void)w;
  ::close(fd);
}

}  // namespace

uint64_t RunKey(std::string_view source, const std::vector<precision::Tensor>& inputs, const SimOptions& o) {
  Digest d;
  d.Str(source);
  d.Str(o.entry);
  d.Int(static_cast<int64_t>(o.target));
  d.Int(o.block_dim);
  d.Int(o.vector_core_num);
  d.Int(o.cube_core_num);
  d.Int(static_cast<int64_t>(o.scalar_args.size()));
  for (double s : o.scalar_args) d.Double(s);
  d.Int(o.work_budget);
  d.Int(o.memory_limit_bytes);
  d.Int(o.record_provenance ? 1 : 0);
  for (const auto& t : inputs) TensorBytes(d, t.dtype(), t.shape(), t.data(), t.nbytes());
  return d.value();
}

void LogRun(const std::string& file, const std::string& entry, uint64_t key, const SimResult& r) {
  Digest out;
  for (const auto& o : r.outputs) {
    out.Str(o.name);
    TensorBytes(out, o.tensor.dtype(), o.tensor.shape(), o.tensor.data(), o.tensor.nbytes());
    out.Int(static_cast<int64_t>(o.origin.size()));
    for (const auto& e : o.origin) {
      out.Int(e.writer_line);
      out.Int(e.lane);
      out.Int(e.active_lanes);
      out.Int(e.store_line);
      out.Int(e.core);
    }
  }
  std::string hz;
  uint64_t hd = HazardDigest(r.hazards, &hz);
  Append(absl::StrFormat("run %s %s key=%016x completed=%d outputs=%d out=%016x haz=%016x [%s] %s\n", BaseName(file),
                         entry, key, r.completed ? 1 : 0, r.outputs.size(), out.value(), hd, hz, StatsText(r.stats)));
}

void LogLaunch(std::string_view source, const LaunchRequest& req, const std::vector<std::shared_ptr<GmTensor>>& gm,
               const LaunchResult& r) {
  Digest key;
  key.Str(source);
  key.Str(req.kernel);
  key.Int(req.block_dim);
  key.Int(static_cast<int64_t>(req.args.size()));
  for (const auto& a : req.args) HostValueDigest(key, a);
  key.Int(static_cast<int64_t>(req.kwargs.size()));
  for (const auto& [k, v] : req.kwargs) {
    key.Str(k);
    HostValueDigest(key, v);
  }
  key.Int(static_cast<int64_t>(req.globals.size()));
  for (const auto& [k, v] : req.globals) {
    key.Str(k);
    HostValueDigest(key, v);
  }
  key.Int(static_cast<int64_t>(req.target));
  key.Int(req.vector_core_num);
  key.Int(req.cube_core_num);
  key.Int(req.check_api ? 1 : 0);
  key.Int(req.work_budget);
  key.Int(req.memory_limit_bytes);
  Digest out;
  out.Int(r.rejected ? 1 : 0);
  for (size_t i = 0; i < req.tensors.size(); ++i) {
    const ExternalTensor& t = req.tensors[i];
    key.Str(t.name);
    const GmTensor* g = i < gm.size() ? gm[i].get() : nullptr;
    const bool written = g && g->AnyWritten();
    TensorBytes(key, t.dtype, t.shape, nullptr, 0);
    if (!g || written) {
      if (!written) continue;
      out.Int(static_cast<int64_t>(i));
      const size_t es = g->elem_size();
      for (size_t e = 0; e < g->writer.size(); ++e) {
        out.Int(g->writer[e]);
        if (g->writer[e] >= 0) out.Bytes(g->data.data() + e * es, es);
      }
    } else {
      key.Bytes(g->data.data(), g->data.size());
    }
  }
  std::string hz;
  uint64_t hd = HazardDigest(r.hazards, &hz);
  Append(absl::StrFormat("launch %s %s key=%016x completed=%d rejected=%d written=%d out=%016x haz=%016x [%s] %s\n",
                         BaseName(req.file), req.kernel, key.value(), r.completed ? 1 : 0, r.rejected ? 1 : 0,
                         r.written.size(), out.value(), hd, hz, StatsText(r.stats)));
}

}  // namespace opdev::sim
