// Catalog tests: the embedded data is the reviewed file, every entry cites its source, the
// requested enums/constants/legacy spellings are present, and the catalog covers every call
// of the real softmax DESIGN §1 and of the four official samples named in the task.
#include "opdev/api/catalog.h"
#include "opdev/api/checker.h"
#include "opdev/pyfront/parser.h"
#include "opdev/support/file_io.h"

#include <catch2/catch.hpp>

#include <regex>
#include <set>
#include <sstream>

using namespace opdev;

namespace {

std::string Read(const std::string& path) {
  auto t = ReadTextFile(path);
  REQUIRE(t.ok());
  return *t;
}

Diagnostics Lint(const std::string& src, const std::string& name = "t.py",
                 api::CheckOptions opts = {}) {
  Diagnostics diags;
  auto m = py::ParseModule(src, name, &diags);
  REQUIRE(m.ok());
  return api::CheckModule(*m, api::Catalog::Builtin(), opts);
}

std::set<std::string> CallNames(const py::Module& m) {
  api::AliasResolver alias(m);
  std::set<std::string> names;
  py::ForEachCall(m, [&](const py::Expr& c) {
    std::string n = alias.Canonical(*c.func);
    if (!n.empty()) names.insert(n);
  });
  return names;
}

const std::string kData = std::string(OPDEV_SOURCE_DIR) + "/tests/data/pyfront/";

}  // namespace

TEST_CASE("catalog: embedded copy is the reviewed data file", "[api]") {
  std::string on_disk = Read(std::string(OPDEV_SOURCE_DIR) + "/libopdev/data/pypto_pro_api.json");
  CHECK(api::BuiltinCatalogJson() == on_disk);
  auto parsed = api::Catalog::FromJson(on_disk);
  REQUIRE(parsed.ok());
  const api::Catalog& cat = api::Catalog::Builtin();
  CHECK(cat.functions().size() == parsed->functions().size());
  CHECK(cat.source_repo() == "hicann/pypto");
  CHECK(cat.source_commit() == "883e7dfb0");
}

TEST_CASE("catalog: every entry cites a source path in hicann/pypto", "[api]") {
  const api::Catalog& cat = api::Catalog::Builtin();
  REQUIRE(cat.functions().size() > 200);
  auto cited = [](const std::string& s) {
    return s.rfind("python/pypto_pro/", 0) == 0 || s.rfind("docs/zh/pypto_pro/", 0) == 0;
  };
  for (const auto& f : cat.functions()) {
    INFO(f.name);
    CHECK(cited(f.source));
    CHECK((f.name.rfind("pl.", 0) == 0 || f.name.rfind("vf.", 0) == 0));
  }
  for (const auto& e : cat.enums()) {
    INFO(e.name);
    CHECK(cited(e.source));
    CHECK(!e.members.empty());
  }
  for (const auto& c : cat.constants()) CHECK(cited(c.source));
  for (const auto& l : cat.legacy()) {
    INFO(l.name);
    CHECK(cited(l.source));
    CHECK(!l.changed_in.empty());
    CHECK(!l.replacement.empty());
  }
}

TEST_CASE("catalog: signatures, roles and legality of key entries", "[api]") {
  const api::Catalog& cat = api::Catalog::Builtin();
  const api::Function* load = cat.FindFunction("pl.load");
  REQUIRE(load);
  REQUIRE(load->params.size() == 4);
  CHECK(load->params[0].name == "dst_tile");
  CHECK(load->params[0].role == "tile");
  CHECK(load->params[0].memory == std::vector<std::string>{"Vec", "Mat"});
  CHECK(load->params[3].name == "order");
  CHECK(load->params[3].kind == api::ParamKind::kKeywordOnly);
  CHECK(load->mte);
  CHECK(load->pipe == "MTE2");
  CHECK_FALSE(load->legal.vector_function);
  CHECK(load->legal.section_vector);
  CHECK(load->legal.section_cube);

  const api::Function* mtg = cat.FindFunction("pl.make_tile_group");
  REQUIRE(mtg);
  for (const auto& p : mtg->params) CHECK(p.kind == api::ParamKind::kKeywordOnly);
  CHECK(mtg->FindParam("mutex_ids")->range == std::make_pair(0, 31));
  CHECK(mtg->FindParam("type")->required());
  CHECK_FALSE(mtg->FindParam("depth")->required());

  const api::Function* matmul = cat.FindFunction("pl.matmul");
  REQUIRE(matmul);
  CHECK(matmul->FindParam("dst_tile")->memory == std::vector<std::string>{"Acc"});
  CHECK(matmul->FindParam("lhs_tile")->memory == std::vector<std::string>{"Left"});
  CHECK(matmul->FindParam("rhs_tile")->memory == std::vector<std::string>{"Right"});
  CHECK(matmul->legal.section_cube);
  CHECK_FALSE(matmul->legal.section_vector);

  const api::Function* exp_sub = cat.FindFunction("vf.exp_sub");
  REQUIRE(exp_sub);
  CHECK(exp_sub->legal.vector_function);
  CHECK_FALSE(exp_sub->legal.section_vector);
  CHECK(exp_sub->results == 1);
  CHECK(exp_sub->FindParam("mask")->kind == api::ParamKind::kPositionalOnly);
  CHECK(exp_sub->FindParam("layout")->role == "enum:CastLayout");
  CHECK(exp_sub->FindParam("dtype"));  // documented in exp_sub.md
  CHECK(cat.FindFunction("vf.store_align")->results == 0);
  CHECK(cat.FindFunction("pl.range")->legal.vector_function);
  CHECK(cat.FindFunction("pl.min")->legal.vector_function);
  CHECK_FALSE(cat.FindFunction("pl.exp")->legal.vector_function);
  const api::Function* sync = cat.FindFunction("pl.system.sync_src");
  REQUIRE(sync);
  CHECK(sync->FindParam("event_id")->range == std::make_pair(0, 15));
  CHECK(sync->MaxPositional() == 0);
}

TEST_CASE("catalog: enums, dtype/layout constants and legacy spellings", "[api]") {
  const api::Catalog& cat = api::Catalog::Builtin();
  for (const char* e : {"pl.MemorySpace", "pl.PipeType", "pl.CastLayout", "pl.MaskPattern",
                        "pl.AccPhase", "pl.STPhase", "pl.FillPadMode", "pl.TilePad",
                        "pl.TensorLayout", "pl.RoundMode", "pl.CrossCoreSyncMode",
                        "pl.AccToVecMode", "pl.LoadDist", "pl.StoreDist", "pl.MemBarMode"}) {
    INFO(e);
    CHECK(cat.FindEnum(e));
  }
  CHECK(cat.FindEnum("pl.MemorySpace")->HasMember("Vec"));
  CHECK(cat.FindEnum("pl.MemorySpace")->HasMember("Acc"));
  CHECK(cat.FindEnum("pl.CastLayout")->HasMember("ZERO"));
  CHECK(cat.FindEnum("pl.CastLayout")->HasMember("ONE"));
  CHECK(cat.FindEnum("pl.FillPadMode")->members ==
        std::vector<std::string>{"NORMAL", "EXPAND", "INPLACE"});
  CHECK(cat.FindEnum("pl.TilePad")->members ==
        std::vector<std::string>{"null", "zero", "max", "min"});
  for (const char* l : {"pl.ND", "pl.DN", "pl.NZ", "pl.ZN", "pl.ZZ", "pl.NN"}) {
    INFO(l);
    REQUIRE(cat.FindConstant(l));
    CHECK(cat.FindConstant(l)->kind == "layout");
  }
  for (const char* d : {"pl.DT_FP16", "pl.DT_FP32", "pl.DT_BF16", "pl.DT_INT8", "pl.DT_INT64",
                        "pl.DT_UINT8", "pl.DT_BOOL", "pl.DT_FP8E4M3FN", "pl.DT_HF8"}) {
    INFO(d);
    REQUIRE(cat.FindConstant(d));
    CHECK(cat.FindConstant(d)->kind == "dtype");
  }
  auto fillpad_inplace = cat.FindLegacy("pl.fillpad_inplace");
  REQUIRE(fillpad_inplace.size() == 1);
  CHECK(fillpad_inplace[0]->replacement == "pl.fillpad(out, src, mode=pl.FillPadMode.INPLACE)");
  CHECK(fillpad_inplace[0]->changed_in.find("04506f1d5") != std::string::npos);
  CHECK(cat.FindLegacy("pl.section_vf").at(0)->replacement == "@pl.vector_function");
  CHECK(cat.FindLegacy("pl.inline").at(0)->status == "deprecated");
  CHECK(cat.FindLegacy("pl.set_validshape").at(0)->replacement ==
        "pl.set_validshape(tile, [rows, cols])");
  CHECK_FALSE(cat.FindFunction("pl.fillpad_inplace"));
  CHECK_FALSE(cat.FindFunction("pl.section_vf"));
}

TEST_CASE("catalog: covers every call of the real softmax DESIGN §1", "[api]") {
  std::string design = Read(std::string(OPDEV_SHARED_DIR) + "/fixtures/softmax/DESIGN.md");
  size_t start = design.find("### Module 1 API 调用序列");
  REQUIRE(start != std::string::npos);
  size_t open = design.find("```", start);
  size_t close = design.find("```", open + 3);
  REQUIRE(close != std::string::npos);
  std::string block = design.substr(open + 3, close - open - 3);

  std::set<std::string> names;
  std::regex call_re(R"(\b((?:pl|vf)\.[A-Za-z_]+)\s*\()");
  for (auto it = std::sregex_iterator(block.begin(), block.end(), call_re);
       it != std::sregex_iterator(); ++it) {
    names.insert((*it)[1].str());
  }
  // Hand-read from DESIGN.md §1 (the extraction above must find exactly these; pl.jit is
  // named in the "kernel 主体（@pl.jit(auto_mutex=True)）" line).
  const std::set<std::string> expected = {
      "pl.get_block_idx", "pl.get_block_num", "pl.jit",         "pl.load",
      "pl.make_tile_group",
      "pl.min",           "pl.range",         "pl.section_vector", "pl.set_validshape",
      "pl.store",         "vf.add",           "vf.astype",      "vf.create_mask",
      "vf.div",           "vf.exp_sub",       "vf.full",        "vf.load_align",
      "vf.max",           "vf.reduce_max",    "vf.reduce_sum",  "vf.store_align",
      "vf.update_mask"};
  CHECK(names == expected);
  for (const auto& n : names) {
    INFO(n);
    CHECK(api::Catalog::Builtin().FindFunction(n));
  }

  // Every statement line of the block that is Python parses and its calls check clean
  // (arity, keywords) - the DESIGN's calls are valid against the catalog.
  std::istringstream lines(block);
  std::string line;
  int checked = 0;
  api::CheckOptions no_context;
  no_context.check_context = false;
  no_context.check_syntax = false;
  while (std::getline(lines, line)) {
    size_t hash = line.find('#');
    if (hash != std::string::npos) line = line.substr(0, hash);
    size_t b = line.find_first_not_of(' ');
    if (b == std::string::npos) continue;
    line = line.substr(b);
    if (line.find("pl.") == std::string::npos && line.find("vf.") == std::string::npos) continue;
    if (line.back() == ':') line += " pass";
    Diagnostics pd;
    auto m = py::ParseModule(line + "\n", "DESIGN.md", &pd);
    if (!m.ok()) continue;  // prose lines
    INFO(line);
    Diagnostics d = api::CheckModule(*m, api::Catalog::Builtin(), no_context);
    CHECK(d.ToText().empty());
    ++checked;
  }
  CHECK(checked >= 40);

  // The kernel written from this DESIGN uses every one of these calls and lints clean.
  Diagnostics diags;
  auto kernel = py::ParseFile(kData + "kernel_softmax_vf_fp16.py", &diags);
  REQUIRE(kernel.ok());
  std::set<std::string> used = CallNames(*kernel);
  for (const auto& n : expected) {
    INFO(n);
    CHECK(used.count(n) == 1);
  }
  CHECK(api::CheckModule(*kernel, api::Catalog::Builtin()).ToText().empty());
}

TEST_CASE("catalog: covers the calls of the four official samples", "[api]") {
  // Calls (name, positional count, keywords) read from hicann/pypto@883e7dfb0:
  //   vf_api/test_softmax_tile_group_vf.py, vf_api/test_layernorm_tile_group_vf.py,
  //   tile_vector/test_softmax.py, element_wise/test_add.py.
  const char* calls[] = {
      "pl.jit(auto_mutex=a)",
      "pl.TileType(shape=a, dtype=a, target_memory=a)",
      "pl.TileType(shape=a, dtype=a, target_memory=a, valid_shape=a)",
      "pl.TileType(shape=a, dtype=a, target_memory=a, valid_shape=a, layout=a)",
      "pl.make_tile_group(type=a, addrs=a, mutex_ids=a)",
      "pl.section_vector()",
      "pl.get_block_idx()",
      "pl.get_block_num()",
      "pl.range(a, a)",
      "pl.range(a, a, a)",
      "pl.min(a, a)",
      "pl.set_validshape(a, a)",
      "pl.load(a, a, a)",
      "pl.store(a, a, a)",
      "pl.load_tile(a, a, a)",
      "pl.store_tile(a, a, a)",
      "pl.add(a, a, a)",
      "pl.exp(a, a)",
      "pl.row_max(a, a, a)",
      "pl.row_sum(a, a, a)",
      "pl.row_expand_sub(a, a, a)",
      "pl.row_expand_div(a, a, a)",
      "vf.create_mask(pattern=a, dtype=a)",
      "vf.update_mask(a, dtype=a)",
      "vf.full(a, a)",
      "vf.full(a, a, dtype=a)",
      "vf.load_align(a, a)",
      "vf.store_align(a, a, a)",
      "vf.reduce_max(a, a)",
      "vf.reduce_sum(a, a)",
      "vf.max(a, a, a)",
      "vf.add(a, a, a)",
      "vf.adds(a, a, a)",
      "vf.sub(a, a, a)",
      "vf.mul(a, a, a)",
      "vf.div(a, a, a)",
      "vf.sqrt(a, a)",
      "vf.exp_sub(a, a, a)",
  };
  api::CheckOptions no_context;
  no_context.check_context = false;
  std::set<std::string> used;
  for (const char* f : {"kernel_softmax_vf_fp32.py", "kernel_layernorm_vf.py",
                        "kernel_softmax_tile_ops.py", "kernel_add_tile.py"}) {
    Diagnostics diags;
    auto m = py::ParseFile(kData + f, &diags);
    REQUIRE(m.ok());
    for (const auto& n : CallNames(*m)) used.insert(n);
    INFO(f);
    CHECK(api::CheckModule(*m, api::Catalog::Builtin()).ToText().empty());
  }
  for (const char* c : calls) {
    INFO(c);
    CHECK(Lint(std::string("x = ") + c + "\n", "sample.py", no_context).ToText().empty());
    std::string name = std::string(c).substr(0, std::string(c).find('('));
    CHECK(used.count(name) == 1);  // the kernel files written for this use the call too
  }
}

TEST_CASE("catalog: FromJson rejects malformed catalogs with a reason", "[api]") {
  CHECK_FALSE(api::Catalog::FromJson("{").ok());
  CHECK_FALSE(api::Catalog::FromJson("[]").ok());
  auto no_schema = api::Catalog::FromJson(R"({"functions": [], "enums": [], "constants": [], "legacy": []})");
  REQUIRE_FALSE(no_schema.ok());
  CHECK(std::string(no_schema.status().message()).find("schema") != std::string::npos);
  auto bad_kind = api::Catalog::FromJson(R"({"schema": "opdev.pypto_pro_api/1",
    "functions": [{"name": "pl.x", "source": "s", "legal": {}, "params": [{"name": "a", "kind": "both"}]}],
    "enums": [], "constants": [], "legacy": []})");
  REQUIRE_FALSE(bad_kind.ok());
  CHECK(std::string(bad_kind.status().message()).find("pl.x parameter a") != std::string::npos);
  auto dup = api::Catalog::FromJson(R"({"schema": "opdev.pypto_pro_api/1",
    "functions": [{"name": "pl.x", "source": "s", "legal": {}, "params": []},
                  {"name": "pl.x", "source": "s", "legal": {}, "params": []}],
    "enums": [], "constants": [], "legacy": []})");
  REQUIRE_FALSE(dup.ok());
  CHECK(std::string(dup.status().message()).find("duplicate function pl.x") != std::string::npos);
  auto missing = api::Catalog::FromFile("/nonexistent/catalog.json");
  CHECK(absl::IsNotFound(missing.status()));
}

TEST_CASE("catalog: op facts (data paths with their pipes, matmul operand dtypes)", "[api]") {
  const auto& cat = api::Catalog::Builtin();
  struct Want {
    const char *op, *src, *dst, *pipe;
  };
  for (const Want& w : {Want{"pl.load", "GM", "Mat", "MTE2"}, Want{"pl.load", "GM", "Vec", "MTE2"},
                        Want{"pl.store", "Acc", "GM", "FIX"}, Want{"pl.store", "Vec", "GM", "MTE3"},
                        Want{"pl.move", "Mat", "Left", "MTE1"}, Want{"pl.move", "Mat", "Right", "MTE1"},
                        Want{"pl.move", "Mat", "Bias", "MTE1"}, Want{"pl.move", "Acc", "Vec", "FIX"},
                        Want{"pl.move", "Vec", "Mat", "MTE3"}, Want{"pl.insert", "Vec", "Mat", "MTE3"},
                        Want{"pl.matmul", "Left,Right", "Acc", "M"},
                        Want{"pl.matmul_acc", "Left,Right", "Acc", "M"}}) {
    CAPTURE(w.op, w.src, w.dst);
    const api::DataPath* d = cat.FindDataPath(w.op, w.src, w.dst);
    REQUIRE(d != nullptr);
    CHECK(d->pipe == w.pipe);
    CHECK(d->source.find("docs/zh/pypto_pro/") != std::string::npos);
    // Every data path's op is a catalogued function whose tile parameters allow the spaces.
    CHECK(cat.FindFunction(w.op) != nullptr);
  }
  CHECK(cat.FindDataPath("pl.move", "Left", "Mat") == nullptr);
  CHECK(cat.FindDataPath("pl.load", "GM", "Left") == nullptr);
  CHECK(cat.DataPathsOf("pl.move").size() >= 9);
  CHECK(cat.HasOperandDtypes("pl.matmul_acc", "FP16", "FP16", "FP32"));
  CHECK(cat.HasOperandDtypes("pl.matmul", "INT8", "INT8", "INT32"));
  CHECK_FALSE(cat.HasOperandDtypes("pl.matmul", "FP16", "BF16", "FP32"));
  CHECK_FALSE(cat.HasOperandDtypes("pl.matmul", "INT8", "INT8", "FP32"));
  for (const auto& d : cat.data_paths()) {
    CAPTURE(d.op);
    CHECK(cat.FindFunction(d.op) != nullptr);
  }
  auto bad = api::Catalog::FromJson(R"({"schema": "opdev.pypto_pro_api/1",
    "functions": [], "enums": [], "constants": [], "legacy": [],
    "data_paths": [{"op": "pl.move", "src": "Mat", "pipe": "MTE1", "source": "s"}]})");
  REQUIRE_FALSE(bad.ok());
  CHECK(std::string(bad.status().message()).find("data path of pl.move") != std::string::npos);
}
