// Loading of SPEC.md's machine contract (inputs, outputs, supported dtypes, axis ranges).
#include "opdev/contract/spec_contract.h"

#include "opdev/contract/design_doc.h"
#include "opdev/support/file_io.h"

#include <boost/json.hpp>

namespace opdev::contract {
namespace {

void Error(Diagnostics* d, const std::string& file, int line, const char* code,
           std::string msg, std::string evidence = {}) {
  auto& e = d->Error(code, category::kInputError, file, line, std::move(msg));
  e.evidence = std::move(evidence);
}

std::optional<SpecTensor> Tensor(const boost::json::value& v, const std::string& file, int line,
                                 Diagnostics* d) {
  const auto* o = v.if_object();
  if (!o) {
    Error(d, file, line, "SPEC-TENSOR", "SPEC tensor entry is not an object");
    return std::nullopt;
  }
  SpecTensor t;
  if (auto* n = o->if_contains("name"); n && n->is_string()) t.name = std::string(n->as_string());
  if (t.name.empty()) {
    Error(d, file, line, "SPEC-TENSOR", "SPEC tensor entry has no name",
          boost::json::serialize(v));
    return std::nullopt;
  }
  if (auto* s = o->if_contains("shape"); s && s->is_array()) {
    for (const auto& dim : s->as_array()) {
      if (dim.is_string())
        t.shape.push_back(std::string(dim.as_string()));
      else if (dim.is_int64())
        t.shape.push_back(std::to_string(dim.as_int64()));
      else {
        Error(d, file, line, "SPEC-TENSOR",
              "shape of SPEC tensor " + t.name + " has a dimension that is neither a symbol "
              "nor an integer", boost::json::serialize(*s));
        return std::nullopt;
      }
    }
  } else {
    Error(d, file, line, "SPEC-TENSOR", "SPEC tensor " + t.name + " has no shape list");
    return std::nullopt;
  }
  if (auto* dt = o->if_contains("dtype"); dt && dt->is_string()) {
    t.dtype_text = std::string(dt->as_string());
    t.dtype = ParseDType(t.dtype_text);
  }
  if (!t.dtype) {
    Error(d, file, line, "SPEC-TENSOR",
          "SPEC tensor " + t.name + " has no usable dtype", t.dtype_text);
    return std::nullopt;
  }
  if (auto* r = o->if_contains("value_range"); r && r->is_array() && r->as_array().size() == 2) {
    auto num = [](const boost::json::value& x) -> std::optional<double> {
      if (x.is_int64()) return static_cast<double>(x.as_int64());
      if (x.is_uint64()) return static_cast<double>(x.as_uint64());
      if (x.is_double()) return x.as_double();
      return std::nullopt;
    };
    auto lo = num(r->as_array()[0]), hi = num(r->as_array()[1]);
    if (lo && hi && *lo <= *hi) t.value_range = std::make_pair(*lo, *hi);
  }
  return t;
}

}  // namespace

std::optional<SpecContract> LoadSpecContract(const std::string& op_dir, Diagnostics* diags) {
  const std::string path = op_dir + "/SPEC.md";
  auto text = ReadTextFile(path);
  if (!text.ok()) {
    auto& e = diags->Error("SPEC-MISSING", category::kMissingFile, path, 0,
                           "cannot read SPEC.md: " + std::string(text.status().message()));
    (void)e;
    return std::nullopt;
  }
  DesignDoc doc = ParseDesignDoc(*text, path);
  const CodeBlock* block = nullptr;
  for (const auto& cb : doc.code_blocks)
    if (cb.info.find("machine-contract") != std::string::npos) {
      block = &cb;
      break;
    }
  if (!block) {
    Error(diags, path, 0, "SPEC-CONTRACT",
          "SPEC.md has no ```json machine-contract block");
    return std::nullopt;
  }
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(block->text, ec);
  if (ec || !v.is_object()) {
    Error(diags, path, block->line, "SPEC-CONTRACT",
          "SPEC machine contract is not a JSON object: " + (ec ? ec.message() : "not an object"));
    return std::nullopt;
  }
  SpecContract spec;
  spec.path = path;
  spec.line = block->line;
  const auto& o = v.as_object();
  if (auto* n = o.if_contains("op_name"); n && n->is_string()) spec.op_name = std::string(n->as_string());
  bool ok = true;
  for (const char* key : {"inputs", "outputs"}) {
    auto* arr = o.if_contains(key);
    if (!arr || !arr->is_array() || arr->as_array().empty()) {
      Error(diags, path, block->line, "SPEC-CONTRACT",
            std::string("SPEC machine contract has no ") + key);
      ok = false;
      continue;
    }
    for (const auto& t : arr->as_array()) {
      auto st = Tensor(t, path, block->line, diags);
      if (!st) {
        ok = false;
        continue;
      }
      (std::string(key) == "inputs" ? spec.inputs : spec.outputs).push_back(*st);
    }
  }
  if (auto* sd = o.if_contains("supported_dtypes"); sd && sd->is_array())
    for (const auto& x : sd->as_array())
      if (x.is_string()) spec.supported_dtypes.push_back(std::string(x.as_string()));
  if (auto* sc = o.if_contains("shape_constraints"); sc && sc->is_array())
    for (const auto& x : sc->as_array())
      if (x.is_string()) spec.shape_constraints.push_back(std::string(x.as_string()));
  if (auto* axes = o.if_contains("dynamic_axes_ranges"); axes && axes->is_object()) {
    for (const auto& [k, r] : axes->as_object()) {
      if (r.is_array() && r.as_array().size() == 2 && r.as_array()[0].is_int64() &&
          r.as_array()[1].is_int64())
        spec.dynamic_axes[std::string(k)] = {r.as_array()[0].as_int64(),
                                             r.as_array()[1].as_int64()};
    }
  }
  if (!ok) return std::nullopt;
  return spec;
}

const SpecTensor* SpecContract::FindInput(const std::string& name) const {
  for (const auto& t : inputs)
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace opdev::contract
