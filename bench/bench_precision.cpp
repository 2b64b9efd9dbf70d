// Benchmark of the scheme-A comparison on 16M-element float16, bfloat16 and float32 pairs,
// in one run: opdev's engine (with and without diagnostics), the torch baseline
// (bench/precision_torch_baseline.py, the same algorithm written the vectorised torch way,
// run by /usr/bin/python3 and timed inside Python excluding file loading), and the
// machine's single-pass read bandwidth over the same bytes (a plain threaded sum).
// Compare bytes_per_second of BM_Opdev* with BM_ReadBandwidth*, and the times of BM_Opdev*
// with BM_TorchBaseline*.
#include <benchmark/benchmark.h>

#include "opdev/precision/compare.h"
#include "opdev/precision/tensor_file.h"

#include <boost/json/parse.hpp>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace opdev::precision;
using opdev::DType;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kElements = int64_t{1} << 24;  // 16M
constexpr int kTorchRepeats = 3;

struct Pair {
  Tensor actual, golden;
  std::string actual_path, golden_path;
};

fs::path WorkDir() {
  static fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("opdev_bench_precision_" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

// Golden ~ N(0, 1); actual = golden * (1 + noise * N(0, 1)), rounded to the dtype. The
// noise is that of a realistic passing kernel for the dtype's tolerance; `failing` raises it
// to 1e-3 for float32 (about 30% of the elements fail) to show the failure-profile cost.
const Pair& GetPair(DType dt, bool failing = false) {
  static std::map<std::pair<DType, bool>, Pair> cache;
  auto it = cache.find({dt, failing});
  if (it != cache.end()) return it->second;
  double noise = failing ? 1e-3
                 : dt == DType::kFloat16 ? 5e-4
                 : dt == DType::kBFloat16 ? 2e-3
                                          : 1e-5;
  std::mt19937_64 rng(42);
  std::normal_distribution<double> nd;
  std::vector<double> g(static_cast<size_t>(kElements)), a(static_cast<size_t>(kElements));
  for (size_t i = 0; i < g.size(); ++i) {
    g[i] = nd(rng);
    a[i] = g[i] * (1 + noise * nd(rng));
  }
  Pair p;
  p.actual = *Tensor::FromDoubles(dt, {kElements / 1024, 1024}, a);
  p.golden = *Tensor::FromDoubles(dt, {kElements / 1024, 1024}, g);
  std::string name = std::string(opdev::DTypeName(dt)) + (failing ? "_failing" : "");
  p.actual_path = (WorkDir() / (name + "_actual.npy")).string();
  p.golden_path = (WorkDir() / (name + "_golden.npy")).string();
  if (!WriteNpy(p.actual_path, p.actual).ok() || !WriteNpy(p.golden_path, p.golden).ok())
    std::fprintf(stderr, "cannot write benchmark inputs under %s\n", WorkDir().c_str());
  return cache.emplace(std::make_pair(dt, failing), std::move(p)).first->second;
}

// Process CPU time (all threads): with the machine shared, bytes per CPU-second compares the
// engine and the plain read without depending on how much of the machine each run got.
double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

void SetCpuRate(benchmark::State& state, double cpu_seconds, size_t bytes_per_iteration) {
  if (cpu_seconds > 0)
    state.counters["bytes_per_cpu_second"] = benchmark::Counter(
        static_cast<double>(state.iterations()) * static_cast<double>(bytes_per_iteration) /
        cpu_seconds);
}

void BM_Opdev(benchmark::State& state, DType dt, bool diagnostics, bool failing) {
  const Pair& p = GetPair(dt, failing);
  CompareOptions o;
  o.diagnostics = diagnostics;
  bool passed = false;
  double cpu0 = ProcessCpuSeconds();
  for (auto _ : state) {
    TensorComparison r = CompareTensor(p.actual, p.golden, o);
    passed = r.passed;
    benchmark::DoNotOptimize(r.matched_ratio);
  }
  SetCpuRate(state, ProcessCpuSeconds() - cpu0, p.actual.nbytes() + p.golden.nbytes());
  state.SetBytesProcessed(state.iterations() *
                          static_cast<int64_t>(p.actual.nbytes() + p.golden.nbytes()));
  state.SetLabel(passed ? "PASS" : "FAIL");
}

// Times reported by the torch baseline for its repeats (one Python run per dtype).
void BM_TorchBaseline(benchmark::State& state, DType dt) {
  const Pair& p = GetPair(dt);
  std::string cmd = std::string(OPDEV_PYTHON) + " " + OPDEV_SOURCE_DIR +
                    "/bench/precision_torch_baseline.py " + p.actual_path + " " + p.golden_path +
                    " " + std::to_string(kTorchRepeats);
  FILE* pipe = ::popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while (pipe && (n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  int status = pipe ? ::pclose(pipe) : -1;
  std::vector<double> seconds;
  bool passed = false;
  if (status == 0) {
    try {
      auto j = boost::json::parse(out).as_object();
      for (const auto& s : j.at("seconds").as_array()) seconds.push_back(s.to_number<double>());
      passed = j.at("passed").as_bool();
    } catch (const std::exception&) {
      seconds.clear();
    }
  }
  if (seconds.empty()) {
    state.SkipWithError(("torch baseline failed: " + out).c_str());
    for (auto _ : state) {
    }
    return;
  }
  size_t i = 0;
  for (auto _ : state) state.SetIterationTime(seconds[i++ % seconds.size()]);
  state.SetBytesProcessed(state.iterations() *
                          static_cast<int64_t>(p.actual.nbytes() + p.golden.nbytes()));
  state.SetLabel(passed ? "PASS" : "FAIL");
}

// Single-pass read bandwidth: a threaded sum of the 64-bit words of both tensors.
void BM_ReadBandwidth(benchmark::State& state, DType dt) {
  const Pair& p = GetPair(dt);
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  auto sum_words = [](const std::byte* data, size_t bytes) {
    const uint64_t* w = reinterpret_cast<const uint64_t*>(data);
    size_t n = bytes / 8;
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      s0 += w[i]; s1 += w[i + 1]; s2 += w[i + 2]; s3 += w[i + 3];
      s4 += w[i + 4]; s5 += w[i + 5]; s6 += w[i + 6]; s7 += w[i + 7];
    }
    for (; i < n; ++i) s0 += w[i];
    return s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
  };
  double cpu0 = ProcessCpuSeconds();
  for (auto _ : state) {
    std::vector<uint64_t> partial(threads, 0);
    std::vector<std::thread> pool;
    size_t total = p.actual.nbytes();
    size_t per = (total / threads + 63) / 64 * 64;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        size_t begin = std::min(total, t * per), end = std::min(total, begin + per);
        partial[t] = sum_words(p.actual.data() + begin, end - begin) +
                     sum_words(p.golden.data() + begin, end - begin);
      });
    }
    for (auto& th : pool) th.join();
    uint64_t s = 0;
    for (uint64_t x : partial) s += x;
    benchmark::DoNotOptimize(s);
  }
  SetCpuRate(state, ProcessCpuSeconds() - cpu0, p.actual.nbytes() + p.golden.nbytes());
  state.SetBytesProcessed(state.iterations() *
                          static_cast<int64_t>(p.actual.nbytes() + p.golden.nbytes()));
}

void Register() {
  for (DType dt : {DType::kFloat16, DType::kBFloat16, DType::kFloat32}) {
    std::string n(opdev::DTypeName(dt));
    benchmark::RegisterBenchmark(("BM_ReadBandwidth/" + n).c_str(), BM_ReadBandwidth, dt)
        ->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark(("BM_Opdev/" + n).c_str(), BM_Opdev, dt, true, false)
        ->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark(("BM_OpdevVerdictOnly/" + n).c_str(), BM_Opdev, dt, false, false)
        ->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark(("BM_TorchBaseline/" + n).c_str(), BM_TorchBaseline, dt)
        ->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(kTorchRepeats);
  }
  benchmark::RegisterBenchmark("BM_Opdev/float32_30pct_failing", BM_Opdev, DType::kFloat32, true, true)
      ->Unit(benchmark::kMillisecond)->UseRealTime();
}

}  // namespace

int main(int argc, char** argv) {
  Register();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::error_code ec;
  fs::remove_all(WorkDir(), ec);
  return 0;
}
