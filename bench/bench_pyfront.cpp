// pyfront speed beside CPython in the same run: parse ~1 MB of Python (the corpus under
// tests/data/pyfront repeated) with pyfront and with CPython 3.11's ast.parse. The CPython
// case runs /usr/bin/python3 once per benchmark repetition and times only ast.parse inside
// the interpreter (no start-up), reported as manual time. Tokenizing and printing are
// measured too.
#include "opdev/pyfront/parser.h"
#include "opdev/pyfront/printer.h"
#include "opdev/pyfront/tokenizer.h"
#include "opdev/support/file_io.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// The corpus repeated up to at least 1 MiB (each copy is a complete module, so the whole
// text is one valid module).
const std::string& Source() {
  static const std::string src = [] {
    std::vector<std::string> files;
    for (const auto& e :
         fs::directory_iterator(fs::path(OPDEV_SOURCE_DIR) / "tests" / "data" / "pyfront")) {
      if (e.path().extension() == ".py") files.push_back(e.path().string());
    }
    std::sort(files.begin(), files.end());
    std::string one;
    for (const auto& f : files) {
      auto t = opdev::ReadTextFile(f);
      if (t.ok()) one += *t + "\n";
    }
    std::string all;
    while (all.size() < (1u << 20) && !one.empty()) all += one;
    return all;
  }();
  return src;
}

const std::string& SourcePath() {
  static const std::string path = [] {
    fs::path p = fs::temp_directory_path() / "opdev_bench_pyfront_1mb.py";
    (void)opdev::WriteFileAtomic(p.string(), Source());
    return p.string();
  }();
  return path;
}

void BM_PyfrontParse(benchmark::State& state) {
  const std::string& src = Source();
  for (auto _ : state) {
    opdev::Diagnostics diags;
    auto m = opdev::py::ParseModule(src, "bench.py", &diags);
    if (!m.ok()) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(m);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * src.size()));
  state.counters["MiB"] = static_cast<double>(src.size()) / (1 << 20);
}
BENCHMARK(BM_PyfrontParse)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_CPythonAstParse(benchmark::State& state) {
  const std::string& path = SourcePath();
  // One interpreter per repetition; each timed iteration is one ast.parse of the file.
  std::string cmd = std::string(OPDEV_PYTHON) +
                    " -c \"import ast,sys,time\n"
                    "src=open(sys.argv[1],encoding='utf-8').read()\n"
                    "for line in sys.stdin:\n"
                    "    t=time.perf_counter(); ast.parse(src); d=time.perf_counter()-t\n"
                    "    print(repr(d), flush=True)\n\" " +
                    path;
  // The interpreter prints one timing per stdin line; ask for 20 at a time.
  std::vector<double> timings;
  for (auto _ : state) {
    if (timings.empty()) {
      std::string batch = "yes | head -n 20 | " + cmd;
      FILE* p = popen(batch.c_str(), "r");
      if (!p) {
        state.SkipWithError("cannot run python");
        break;
      }
      std::array<char, 128> line{};
      while (fgets(line.data(), line.size(), p)) timings.push_back(std::atof(line.data()));
      pclose(p);
      if (timings.empty()) {
        state.SkipWithError("python printed no timings");
        break;
      }
    }
    state.SetIterationTime(timings.back());
    timings.pop_back();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * Source().size()));
  state.counters["MiB"] = static_cast<double>(Source().size()) / (1 << 20);
}
BENCHMARK(BM_CPythonAstParse)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(10);

void BM_PyfrontTokenize(benchmark::State& state) {
  const std::string& src = Source();
  for (auto _ : state) {
    auto r = opdev::py::Tokenize(src);
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * src.size()));
}
BENCHMARK(BM_PyfrontTokenize)->Unit(benchmark::kMillisecond);

void BM_PyfrontPrint(benchmark::State& state) {
  opdev::Diagnostics diags;
  auto m = opdev::py::ParseModule(Source(), "bench.py", &diags);
  if (!m.ok()) {
    state.SkipWithError("parse failed");
    return;
  }
  for (auto _ : state) {
    std::string out = opdev::py::PrintModule(*m);
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * Source().size()));
}
BENCHMARK(BM_PyfrontPrint)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
