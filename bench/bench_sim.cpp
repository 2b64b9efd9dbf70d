// Simulator speed: a softmax-like VF kernel ([32,4096] fp16, fp32 accumulation, the DESIGN §1
// structure) run through opdev's CPU simulator, beside torch's CPU softmax of the same data
// (x.float() -> softmax -> half, since CPU torch has no fp16 softmax kernel, one thread),
// measured in the same run with /usr/bin/python3. Counters: lane_ops/s (register lanes
// processed per CPU second) and x_torch (simulated wall time / torch wall time).
// Cube: the dynamic two-level-K FP16 matmul (tests/data/sim/matmul_dynamic_fp16.py, FP32
// accumulation, FP16 out) on [1024,1024,1024] and a tail shape [1000,1000,1000], beside
// torch.matmul of the same data in FP32 (one thread); counters MAC/s and x_torch.
#include "opdev/precision/tensor.h"
#include "opdev/sim/simulator.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

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

// Mean seconds of torch.softmax(x.float(), -1).half() for a [rows, cols] fp16 x, or -1.
double TorchSeconds(int64_t rows, int64_t cols, int threads) {
  std::string cmd = std::string(OPDEV_PYTHON) +
                    " -c \"import torch,time\n"
                    "torch.set_num_threads(" + std::to_string(threads) + ")\n"
                    "x=(torch.rand(" + std::to_string(rows) + "," + std::to_string(cols) + ")*8-4).half()\n"
                    "f=lambda: torch.softmax(x.float(),-1).half()\n"
                    "[f() for _ in range(20)]\n"
                    "n=300\n"
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

double TorchSecondsCached() {
  static double s = TorchSeconds(32, 4096, 1);
  return s;
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
  opdev::sim::SimOptions opts;
  opts.entry = "softmax_wrapper";
  int64_t lane_ops = 0;
  double wall = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = opdev::sim::RunKernelFile(kKernel, {x}, opts);
    wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!r.ok() || !r->completed || r->hazards.HasErrors()) {
      state.SkipWithError("simulation failed");
      return;
    }
    lane_ops = r->stats.lane_ops;
    benchmark::DoNotOptimize(r->outputs);
  }
  state.counters["lane_ops/s"] = benchmark::Counter(static_cast<double>(lane_ops) * static_cast<double>(state.iterations()),
                                                    benchmark::Counter::kIsRate);
  state.counters["lane_ops"] = static_cast<double>(lane_ops);
  if (rows == 32 && cols == 4096) {
    double t = TorchSecondsCached();
    if (t > 0) {
      // Wall time of one simulated run over torch's wall time, both measured in this process run.
      state.counters["torch_us"] = t * 1e6;
      state.counters["x_torch"] = wall / static_cast<double>(state.iterations()) / t;
    }
  }
}
BENCHMARK(BM_SimSoftmaxFp16)->Args({32, 4096})->Args({777, 300})->Unit(benchmark::kMillisecond);

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
  std::string cmd = std::string(OPDEV_PYTHON) +
                    " -c \"import torch,time\n"
                    "torch.set_num_threads(1)\n"
                    "a=(torch.rand(" + std::to_string(m) + "," + std::to_string(k) + ")*2-1).half().float()\n"
                    "b=(torch.rand(" + std::to_string(k) + "," + std::to_string(n) + ")*2-1).half().float()\n"
                    "f=lambda: torch.matmul(a,b)\n"
                    "[f() for _ in range(3)]\n"
                    "n=20\n"
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

void BM_SimMatmulFp16(benchmark::State& state) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  auto a = Fp16(m, k, 7);
  auto b = Fp16(k, n, 8);
  opdev::sim::SimOptions opts;
  opts.entry = "matmul_dynamic_wrapper";
  double wall = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = opdev::sim::RunKernelFile(kMatmul, {a, b}, opts);
    wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!r.ok() || !r->completed || r->hazards.HasErrors()) {
      state.SkipWithError("simulation failed");
      return;
    }
    benchmark::DoNotOptimize(r->outputs);
  }
  const double macs = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  state.counters["MAC/s"] = benchmark::Counter(macs * static_cast<double>(state.iterations()),
                                               benchmark::Counter::kIsRate);
  // Same process run: torch is timed right after the simulated runs.
  double t = TorchMatmulSeconds(m, n, k);
  if (t > 0) {
    state.counters["torch_ms"] = t * 1e3;
    state.counters["x_torch"] = wall / static_cast<double>(state.iterations()) / t;
  }
}
BENCHMARK(BM_SimMatmulFp16)->Args({1024, 1024, 1024})->Args({1000, 1000, 1000})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
