// Differential test: random and adversarial cases generated and judged by an independent
// torch implementation of the spec (tests/data/precision/reference_compare.py). opdev must
// reach identical verdicts and summaries and metrics within 1e-12 relative, reading the very
// .npy files the Python side wrote.
#include <catch2/catch.hpp>

#include "opdev/precision/compare.h"
#include "opdev/precision/tensor_file.h"
#include "opdev/support/file_io.h"

#include <boost/json/parse.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

using namespace opdev::precision;
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

double Number(const json::value& v) {
  if (v.is_string()) {
    std::string s(v.as_string());
    if (s == "inf") return HUGE_VAL;
    if (s == "-inf") return -HUGE_VAL;
    return std::nan("");
  }
  return v.to_number<double>();
}

bool Close(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  double scale = std::max(std::fabs(a), std::fabs(b));
  return std::fabs(a - b) <= 1e-12 * scale;
}

}  // namespace

TEST_CASE("differential: opdev vs the torch reference on random and adversarial cases") {
  fs::path dir = fs::temp_directory_path() / ("opdev_precision_diff_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  std::string script = std::string(OPDEV_SOURCE_DIR) + "/tests/data/precision/reference_compare.py";
  std::string cmd = std::string(OPDEV_PYTHON) + " " + script + " gen " + dir.string() +
                    " --random 400 > " + (dir.string() + ".log") + " 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  auto text = opdev::ReadTextFile((dir / "cases.json").string(), {64u << 20, true});
  REQUIRE(text.ok());
  json::array cases = json::parse(*text).as_array();
  REQUIRE(cases.size() > 450);

  int checked_metrics = 0, passed_cases = 0, failed_cases = 0;
  for (const json::value& cv : cases) {
    const json::object& c = cv.as_object();
    std::string name(c.at("name").as_string());
    INFO("case " << name);
    auto load = [&](const json::value& list) {
      std::vector<std::optional<Tensor>> out;
      for (const json::value& p : list.as_array()) {
        if (p.is_null()) {
          out.emplace_back(std::nullopt);
          continue;
        }
        TensorReadOptions ro;
        ro.raw2_is_bfloat16 = true;
        auto t = ReadNpy((dir / std::string(p.as_string())).string(), ro);
        REQUIRE(t.ok());
        out.emplace_back(*t);
      }
      return out;
    };
    auto actual = load(c.at("actual"));
    auto golden = load(c.at("golden"));
    CompareOptions opts;
    if (!c.at("dtype").is_null()) opts.dtype = std::string(c.at("dtype").as_string());
    PrecisionResult r = CheckPrecision(actual, golden, opts);
    std::string expected_summary(c.at("summary").as_string());
    CHECK(r.passed == c.at("passed").as_bool());
    CHECK(r.summary == expected_summary);
    (r.passed ? passed_cases : failed_cases)++;

    const json::array& outs = c.at("outputs").as_array();
    for (size_t i = 0; i < outs.size(); ++i) {
      if (outs[i].is_null()) continue;
      INFO("output " << i);
      REQUIRE(i < r.outputs.size());
      REQUIRE(r.outputs[i]);
      const TensorComparison& t = *r.outputs[i];
      const json::object& o = outs[i].as_object();
      const json::object& m = o.at("metrics").as_object();
      if (!m.empty()) {
        REQUIRE(t.has_metrics);
        CHECK(Close(t.matched_ratio, Number(m.at("matched_ratio"))));
        if (m.contains("max_abs_error")) {
          CHECK(Close(t.max_abs_error, Number(m.at("max_abs_error"))));
          CHECK(Close(t.mean_abs_error, Number(m.at("mean_abs_error"))));
          CHECK(Close(t.mean_rel_error, Number(m.at("mean_rel_error"))));
          ++checked_metrics;
        }
      }
      const json::object& d = o.at("diagnostics").as_object();
      if (d.contains("nan_mismatch") && t.diagnostics)
        CHECK(t.diagnostics->nan_mismatch == d.at("nan_mismatch").to_number<int64_t>());
      if (d.contains("rmse")) {
        REQUIRE(t.diagnostics);
        const ErrorDiagnostics& e = *t.diagnostics;
        CHECK(Close(e.cosine_similarity, Number(d.at("cosine"))));
        CHECK(Close(e.rmse, Number(d.at("rmse"))));
        CHECK(Close(e.max_rel_error, Number(d.at("max_rel"))));
        if (d.at("rel_euclid").is_null())
          CHECK(std::isinf(e.rel_euclidean_distance));
        else
          CHECK(Close(e.rel_euclidean_distance, Number(d.at("rel_euclid"))));
        CHECK(e.failed == d.at("failed").to_number<int64_t>());
        const json::array& h = d.at("histogram").as_array();
        REQUIRE(h.size() == e.histogram.size());
        for (size_t b = 0; b < h.size(); ++b) CHECK(e.histogram[b].count == h[b].to_number<int64_t>());
      }
    }
  }
  // The generated set exercises both verdicts and the metric path substantially.
  CHECK(passed_cases > 100);
  CHECK(failed_cases > 100);
  CHECK(checked_metrics > 300);
  fs::remove_all(dir);
  fs::remove(dir.string() + ".log");
}
