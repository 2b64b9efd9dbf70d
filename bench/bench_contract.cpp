// Contract ingestion speed on examples/softmax (target: well under 50 ms for all contracts).
// Baselines in the same run: reading the six files raw, and reading + a bare cmark-gfm parse
// of DESIGN.md with the table extension (the floor any Markdown model must pay).
#include "opdev/contract/check.h"
#include "opdev/contract/op_dir.h"
#include "opdev/support/file_io.h"

#include <benchmark/benchmark.h>
#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm-extension_api.h>
#include <cmark-gfm.h>

#include <string>

namespace {

const std::string kDir = std::string(OPDEV_SOURCE_DIR) + "/examples/softmax";
const std::string kKb = std::string(OPDEV_SHARED_DIR) + "/fixtures/kb";
const char* const kFiles[] = {"DESIGN.md", "DESIGN_BINDINGS.json", "KB_SELECTION.json",
                              "module_interfaces.yaml"};

void BM_Baseline_ReadContractFiles(benchmark::State& state) {
  for (auto _ : state) {
    size_t bytes = 0;
    for (const char* f : kFiles) {
      auto t = opdev::ReadTextFile(kDir + "/" + f);
      bytes += t.ok() ? t->size() : 0;
    }
    auto tm = opdev::ReadTextFile(kKb + "/topology-map.json");
    bytes += tm.ok() ? tm->size() : 0;
    benchmark::DoNotOptimize(bytes);
  }
}
BENCHMARK(BM_Baseline_ReadContractFiles)->Unit(benchmark::kMicrosecond);

void BM_Baseline_ReadAndCmarkParseDesign(benchmark::State& state) {
  cmark_gfm_core_extensions_ensure_registered();
  for (auto _ : state) {
    auto text = opdev::ReadTextFile(kDir + "/DESIGN.md");
    cmark_parser* p = cmark_parser_new(CMARK_OPT_DEFAULT);
    cmark_parser_attach_syntax_extension(p, cmark_find_syntax_extension("table"));
    cmark_parser_feed(p, text->data(), text->size());
    cmark_node* doc = cmark_parser_finish(p);
    benchmark::DoNotOptimize(doc);
    cmark_node_free(doc);
    cmark_parser_free(p);
  }
}
BENCHMARK(BM_Baseline_ReadAndCmarkParseDesign)->Unit(benchmark::kMicrosecond);

// Every contract of the example into its model (DESIGN.md, bindings, selection,
// module_interfaces, topology-map).
void BM_LoadOpDir(benchmark::State& state) {
  for (auto _ : state) {
    opdev::Diagnostics diags;
    auto od = opdev::contract::LoadOpDir(kDir, {kKb}, &diags);
    benchmark::DoNotOptimize(od);
  }
}
BENCHMARK(BM_LoadOpDir)->Unit(benchmark::kMicrosecond);

// Load plus every rule, including the typed DESIGN views and the sha256 of the 12 KB files.
void BM_LoadAndCheckOpDir(benchmark::State& state) {
  for (auto _ : state) {
    opdev::Diagnostics diags;
    auto st = opdev::contract::CheckOpDirPath(kDir, {kKb}, {}, &diags);
    benchmark::DoNotOptimize(st);
  }
}
BENCHMARK(BM_LoadAndCheckOpDir)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
