// Simulator speed: a softmax-like VF kernel ([32,4096] and [777,300] fp16, fp32 accumulation,
// the DESIGN §1 structure) run through opdev's CPU simulator, beside torch's CPU softmax of the
// same shape (x.float() -> softmax -> half, since CPU torch has no fp16 softmax kernel, one
// thread), measured in the same run with /usr/bin/python3. Counters: lane_ops/s (register
// lanes processed per CPU second) and x_torch (simulated wall time / torch wall time).
// Tile ops: the tile-op softmax (fp32 [1024,256]) and an elementwise kernel ((x + y) * 0.5,
// fp16 [1024,1024]) beside the same torch computation; counters tile_elems/s and x_torch.
// Cube: the dynamic two-level-K FP16 matmul (tests/data/sim/matmul_dynamic_fp16.py, FP32
// accumulation, FP16 out) on [1024,1024,1024] and a tail shape [1000,1000,1000], beside
// torch.matmul of the same data in FP32 (one thread); counters MAC/s and x_torch.
// Every simulated run also reports allocs/run: the operator new calls of one RunKernelFile
// (counted by this program's replacement of the global operator new), a count that does not
// depend on the machine's load.
#include "opdev/precision/tensor.h"
#include "opdev/sim/launch.h"
#include "opdev/sim/simulator.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <cstdio>
#include <string>
#include <vector>

// Every allocation of this process through operator new (plain and aligned; the nothrow and
// array forms call these). Not inlined: GCC would otherwise see free() meet a pointer from
// operator new at an inlined delete and warn of a mismatch.
std::atomic<int64_t> g_allocs{0};

[[gnu::noinline]] void* operator new(std::size_t n) {
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void* operator new(std::size_t n, std::align_val_t al) {
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  const std::size_t a = static_cast<std::size_t>(al);
  if (void* p = std::aligned_alloc(a, (n + a - 1) / a * a)) return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace {

const char* kKernel = OPDEV_SOURCE_DIR "/tests/data/sim/softmax_vf_fp16.py";

opdev::precision::Tensor Input(int64_t rows, int64_t cols) {
  std::vector<double> v(static_cast<size_t>(rows * cols));
  uint64_t s = 12345;
  for (auto& x : v) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    x = -4.0 + 8.0 * static_cast<double>(s >> 11) / 9007199254740992.0;
  }
  return *opdev::precision::Tensor::FromDoubles(opdev::DType::kFloat16, {rows, cols}, v);
}

// Mean seconds of the torch expression `expr` (`threads` threads) after `setup`, timed over
// `reps` calls after `warmup` calls, through /usr/bin/python3; -1 when torch is unavailable.
double TorchExprSeconds(const std::string& setup, const std::string& expr, int reps, int warmup = 3, int threads = 1) {
  std::string cmd = std::string(OPDEV_PYTHON) +
                    " -c \"import torch,time\n"
                    "torch.set_num_threads(" + std::to_string(threads) + ")\n" + setup + "\n"
                    "f=lambda: " + expr + "\n"
                    "[f() for _ in range(" + std::to_string(warmup) + ")]\n"
                    "n=" + std::to_string(reps) + "\n"
                    "t=time.perf_counter()\n"
                    "[f() for _ in range(n)]\n"
                    "print((time.perf_counter()-t)/n)\" 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return -1;
  double secs = -1;
  if (std::fscanf(p, "%lf", &secs) != 1) secs = -1;
  pclose(p);
  return secs;
}

// Mean seconds of torch.softmax(x.float(), -1).half() for a [rows, cols] fp16 x, or -1.
double TorchSeconds(int64_t rows, int64_t cols, int threads) {
  return TorchExprSeconds("x=(torch.rand(" + std::to_string(rows) + "," + std::to_string(cols) + ")*8-4).half()",
                          "torch.softmax(x.float(),-1).half()", 300, 20, threads);
}

// Random [rows, cols] data of `dtype` in [lo, hi) (one torch tensor named `name`).
std::string TorchRand(const std::string& name, int64_t rows, int64_t cols, const char* dtype, int lo, int hi) {
  return name + "=(torch.rand(" + std::to_string(rows) + "," + std::to_string(cols) + ")*" + std::to_string(hi - lo) +
         "+(" + std::to_string(lo) + "))." + dtype + "()";
}

// `secs()` once per key in this process run (Google Benchmark calls a benchmark function
// several times while it sizes the iteration count).
template <typename F>
double Once(const std::string& key, F secs) {
  static std::map<std::string, double> cache;
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, secs()).first;
  return it->second;
}

// The fastest repetition (`--benchmark_repetitions=N` adds a "_min" row beside mean and median):
// on a shared machine other work only ever adds time, so the minimum is the steadiest figure
// for comparing two builds run in alternation.
double MinOf(const std::vector<double>& v) { return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end()); }

// The simulated run's wall time per iteration over torch's, both from this process run.
void ReportXTorch(benchmark::State& state, double sim_wall, double torch_secs) {
  if (torch_secs <= 0) return;
  state.counters["torch_us"] = torch_secs * 1e6;
  state.counters["x_torch"] = sim_wall / static_cast<double>(state.iterations()) / torch_secs;
}

// Runs `entry` of `path` on `inputs` once per benchmark iteration; the summed wall time of the
// runs, or -1 after SkipWithError when a run fails. `last` receives the last run's result.
double TimedRuns(benchmark::State& state, const std::string& path, const char* entry,
                 const std::vector<opdev::precision::Tensor>& inputs, opdev::sim::SimResult* last) {
  opdev::sim::SimOptions opts;
  opts.entry = entry;
  double wall = 0;
  const int64_t allocs0 = g_allocs.load(std::memory_order_relaxed);
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = opdev::sim::RunKernelFile(path, inputs, opts);
    wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!r.ok() || !r->completed || r->hazards.HasErrors()) {
      state.SkipWithError("simulation failed");
      return -1;
    }
    benchmark::DoNotOptimize(r->outputs);
    *last = std::move(*r);
  }
  state.counters["allocs/run"] = static_cast<double>(g_allocs.load(std::memory_order_relaxed) - allocs0) /
                                 static_cast<double>(std::max<int64_t>(state.iterations(), 1));
  return wall;
}

void BM_TorchSoftmaxFp16_32x4096(benchmark::State& state) {
  double s = TorchSeconds(32, 4096, static_cast<int>(state.range(0)));
  if (s <= 0) {
    state.SkipWithError("torch is not available to /usr/bin/python3");
    return;
  }
  for (auto _ : state) state.SetIterationTime(s);
  state.counters["threads"] = static_cast<double>(state.range(0));
}
BENCHMARK(BM_TorchSoftmaxFp16_32x4096)->Arg(1)->Arg(2)->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);

void BM_SimSoftmaxFp16(benchmark::State& state) {
  const int64_t rows = state.range(0), cols = state.range(1);
  auto x = Input(rows, cols);
  opdev::sim::SimResult last;
  const double wall = TimedRuns(state, kKernel, "softmax_wrapper", {x}, &last);
  if (wall < 0) return;
  const int64_t lane_ops = last.stats.lane_ops;
  state.counters["lane_ops/s"] = benchmark::Counter(static_cast<double>(lane_ops) * static_cast<double>(state.iterations()),
                                                    benchmark::Counter::kIsRate);
  state.counters["lane_ops"] = static_cast<double>(lane_ops);
  // Same process run: torch's softmax of the same shape, timed right after the simulated runs.
  ReportXTorch(state, wall, Once("softmax" + std::to_string(rows) + "x" + std::to_string(cols),
                                  [&] { return TorchSeconds(rows, cols, 1); }));
}
BENCHMARK(BM_SimSoftmaxFp16)->Args({32, 4096})->Args({777, 300})->MeasureProcessCPUTime()->ComputeStatistics("min", MinOf)->Unit(benchmark::kMillisecond);

// Runs `entry` of tests/data/sim/<file> on `inputs` as a benchmark: wall time per run, the
// tile elements processed per second, x_torch against `torch_expr` on the same shapes.
void RunTileKernel(benchmark::State& state, const char* file, const char* entry,
                   const std::vector<opdev::precision::Tensor>& inputs, const std::string& torch_setup,
                   const std::string& torch_expr) {
  opdev::sim::SimResult last;
  const double wall = TimedRuns(state, std::string(OPDEV_SOURCE_DIR) + "/tests/data/sim/" + file, entry, inputs, &last);
  if (wall < 0) return;
  const int64_t elems = last.stats.tile_elems;
  state.counters["tile_elems/s"] = benchmark::Counter(static_cast<double>(elems) * static_cast<double>(state.iterations()),
                                                      benchmark::Counter::kIsRate);
  ReportXTorch(state, wall, Once(torch_setup + torch_expr, [&] { return TorchExprSeconds(torch_setup, torch_expr, 50); }));
}

// Tile-op row softmax (tests/data/sim/softmax_tile_fp32.py: row_max, row_expand_sub, exp,
// row_sum, row_expand_div on [8, 256] fp32 tiles) beside torch.softmax in fp32.
void BM_SimSoftmaxTileFp32(benchmark::State& state) {
  const int64_t rows = state.range(0), cols = state.range(1);
  std::vector<double> v(static_cast<size_t>(rows * cols));
  uint64_t s = 99;
  for (auto& x : v) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    x = -8.0 + 16.0 * static_cast<double>(s >> 11) / 9007199254740992.0;
  }
  auto x = *opdev::precision::Tensor::FromDoubles(opdev::DType::kFloat32, {rows, cols}, v);
  RunTileKernel(state, "softmax_tile_fp32.py", "softmax_tile_wrapper", {x}, TorchRand("x", rows, cols, "float", -8, 8),
                "torch.softmax(x,-1)");
}
BENCHMARK(BM_SimSoftmaxTileFp32)->Args({1024, 256})->ComputeStatistics("min", MinOf)->Unit(benchmark::kMillisecond);

// Elementwise tile ops (tests/data/sim/add_scale_tile_fp16.py: z = (x + y) * 0.5 on [32, 128]
// fp16 tiles, 8 cores) beside torch's fp16 (x + y) * 0.5.
void BM_SimAddScaleTileFp16(benchmark::State& state) {
  const int64_t rows = state.range(0), cols = state.range(1);
  auto x = Input(rows, cols);
  std::vector<double> v(static_cast<size_t>(rows * cols));
  uint64_t s = 777;
  for (auto& e : v) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    e = -4.0 + 8.0 * static_cast<double>(s >> 11) / 9007199254740992.0;
  }
  auto y = *opdev::precision::Tensor::FromDoubles(opdev::DType::kFloat16, {rows, cols}, v);
  RunTileKernel(state, "add_scale_tile_fp16.py", "add_scale_wrapper", {x, y},
                TorchRand("x", rows, cols, "half", -4, 4) + "\n" + TorchRand("y", rows, cols, "half", -4, 4),
                "(x+y)*0.5");
}
BENCHMARK(BM_SimAddScaleTileFp16)->Args({1024, 1024})->ComputeStatistics("min", MinOf)->Unit(benchmark::kMillisecond);

// Repeated launches of the VF softmax kernel through LaunchKernel (the CPU device's entry, as
// a test file launches one kernel many times): arg 2 = 0 reuses the cached lowered program
// (a cache hit after the first launch), 1 clears the cache before every launch (parse, lower
// and API checks each time). Same shapes and same run: (cold - hit) / hit is the share of
// lowering, and the [1, 128] launch bounds a cache hit's fixed cost (file hash, lookup,
// module values, a launch of one core that simulates one row).
void BM_LaunchSoftmaxFp16(benchmark::State& state) {
  const int64_t rows = state.range(0), cols = state.range(1);
  const bool cold = state.range(2) != 0;
  auto x = Input(rows, cols);
  std::vector<uint16_t> xin(static_cast<size_t>(rows * cols)), yout(xin.size());
  std::memcpy(xin.data(), x.data(), xin.size() * 2);
  opdev::sim::LaunchRequest req;
  req.file = kKernel;
  req.kernel = "softmax_kernel";
  req.block_dim = std::min<int64_t>(48, (rows + 2) / 3);
  req.tensors = {{"x", opdev::DType::kFloat16, {rows, cols}, xin.data()}, {"y", opdev::DType::kFloat16, {rows, cols}, yout.data()}};
  req.args = {opdev::sim::HostValue::Tensor(0), opdev::sim::HostValue::Tensor(1)};
  int64_t hits = 0;
  for (auto _ : state) {
    if (cold) opdev::sim::ClearLaunchCache();
    auto r = opdev::sim::LaunchKernel(req);
    if (!r.ok() || !r->completed || r->hazards.HasErrors()) {
      state.SkipWithError("launch failed");
      return;
    }
    hits += r->cache_hit ? 1 : 0;
  }
  state.counters["cache_hits"] = static_cast<double>(hits);
}
BENCHMARK(BM_LaunchSoftmaxFp16)->Args({32, 4096, 0})->Args({32, 4096, 1})->Args({1, 128, 0})->Args({1, 128, 1})
    ->MeasureProcessCPUTime()->ComputeStatistics("min", MinOf)->Unit(benchmark::kMicrosecond);

const char* kMatmul = OPDEV_SOURCE_DIR "/tests/data/sim/matmul_dynamic_fp16.py";

opdev::precision::Tensor Fp16(int64_t rows, int64_t cols, uint64_t seed) {
  std::vector<double> v(static_cast<size_t>(rows * cols));
  uint64_t s = seed;
  for (auto& x : v) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    x = -1.0 + 2.0 * static_cast<double>(s >> 11) / 9007199254740992.0;
  }
  return *opdev::precision::Tensor::FromDoubles(opdev::DType::kFloat16, {rows, cols}, v);
}

// Mean seconds of torch.matmul(a, b) on FP32 [m, k] x [k, n] (the FP16 data widened), or -1.
double TorchMatmulSeconds(int64_t m, int64_t n, int64_t k) {
  return TorchExprSeconds("a=(torch.rand(" + std::to_string(m) + "," + std::to_string(k) + ")*2-1).half().float()\n"
                          "b=(torch.rand(" + std::to_string(k) + "," + std::to_string(n) + ")*2-1).half().float()",
                          "torch.matmul(a,b)", 20);
}

void BM_SimMatmulFp16(benchmark::State& state) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  auto a = Fp16(m, k, 7);
  auto b = Fp16(k, n, 8);
  opdev::sim::SimResult last;
  const double wall = TimedRuns(state, kMatmul, "matmul_dynamic_wrapper", {a, b}, &last);
  if (wall < 0) return;
  const double macs = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  state.counters["MAC/s"] = benchmark::Counter(macs * static_cast<double>(state.iterations()),
                                               benchmark::Counter::kIsRate);
  // Same process run: torch is timed right after the simulated runs.
  ReportXTorch(state, wall, Once("matmul" + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k),
                                  [&] { return TorchMatmulSeconds(m, n, k); }));
}
BENCHMARK(BM_SimMatmulFp16)->Args({1024, 1024, 1024})->Args({1000, 1000, 1000})->MeasureProcessCPUTime()->ComputeStatistics("min", MinOf)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
