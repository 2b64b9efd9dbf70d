// libFuzzer target for the simulator on arbitrary kernel text: a text that parses is run from
// its last top-level function and from every @pl.jit kernel, with small float inputs for its
// tensor parameters, a small work budget and a small memory cap. Every run must end by
// itself (no hang: the budget; no stack overflow: the call-depth and nesting limits) with a
// result or an error status, never a crash or undefined behaviour.
#include "opdev/pyfront/ast.h"
#include "opdev/pyfront/parser.h"
#include "opdev/sim/simulator.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {
opdev::precision::Tensor Input(size_t i) {
  std::vector<double> v(4 * 64);
  for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<double>((k * 7 + i * 3) % 17) / 8.0 - 1.0;
  return *opdev::precision::Tensor::FromDoubles(i % 2 ? opdev::DType::kFloat16 : opdev::DType::kFloat32,
                                                {4, 64}, v);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string src(reinterpret_cast<const char*>(data), size);
  opdev::Diagnostics diags;
  auto mod = opdev::py::ParseModule(src, "fuzz.py", &diags);
  if (!mod.ok()) return 0;
  std::vector<std::pair<std::string, size_t>> entries;  // name, positional parameters
  auto defs = opdev::py::TopLevelDefs(*mod);
  for (size_t i = 0; i < defs.size(); ++i) {
    const auto& d = defs[i];
    if (d.is_class || !d.stmt->args) continue;
    const size_t params = d.stmt->args->posonlyargs.size() + d.stmt->args->args.size();
    if (d.HasDecorator("pl.jit") || i + 1 == defs.size()) entries.emplace_back(d.name, params);
  }
  for (size_t e = 0; e < entries.size() && e < 3; ++e) {
    opdev::sim::SimOptions o;
    o.entry = entries[e].first;
    o.work_budget = 200000;
    o.memory_limit_bytes = 64 << 20;
    std::vector<opdev::precision::Tensor> inputs;
    for (size_t i = 0; i < entries[e].second && i < 4; ++i) inputs.push_back(Input(i));
    auto r = opdev::sim::RunKernelSource(src, "fuzz.py", inputs, o);
    if (r.ok() && r->stats.work > o.work_budget + 64) {
      std::fprintf(stderr, "the run did %lld work units, past its budget of %lld\n",
                   static_cast<long long>(r->stats.work), static_cast<long long>(o.work_budget));
      std::abort();
    }
  }
  return 0;
}
