// Catalog loading: parses the reviewed JSON catalog (embedded at build time, see
// embed_catalog.cmake) into typed entries and indexes them by canonical name.
#include "opdev/api/catalog.h"

#include "opdev/support/file_io.h"

#include "absl/status/status.h"

#include <boost/json.hpp>

#include <cstdlib>

namespace opdev::api {

// Defined in the generated pypto_pro_api_data.cpp.
extern const unsigned char kPyptoProApiJson[];
extern const unsigned long kPyptoProApiJsonSize;

std::string_view BuiltinCatalogJson() {
  return std::string_view(reinterpret_cast<const char*>(kPyptoProApiJson),
                          kPyptoProApiJsonSize);
}

std::string_view ParamKindName(ParamKind k) {
  switch (k) {
    case ParamKind::kPositionalOnly: return "positional_only";
    case ParamKind::kPositionalOrKeyword: return "positional_or_keyword";
    case ParamKind::kKeywordOnly: return "keyword_only";
  }
  return "?";
}

bool Function::SupportsRegDtype(std::string_view dt_name) const {
  if (reg_dtypes.empty()) return true;
  for (const auto& d : reg_dtypes)
    if (d == dt_name) return true;
  return false;
}

const Param* Function::FindParam(std::string_view n) const {
  for (const auto& p : params) {
    if (p.name == n) return &p;
  }
  return nullptr;
}

size_t Function::MaxPositional() const {
  size_t n = 0;
  for (const auto& p : params) {
    if (p.kind != ParamKind::kKeywordOnly) ++n;
  }
  return n;
}

size_t Function::RequiredPositional() const {
  size_t n = 0;
  for (const auto& p : params) {
    if (p.kind != ParamKind::kKeywordOnly && p.required()) ++n;
  }
  return n;
}

bool Enum::HasMember(std::string_view m) const {
  for (const auto& x : members) {
    if (x == m) return true;
  }
  return false;
}

namespace {

namespace json = boost::json;

class Reader {
 public:
  std::string error;

  std::string Str(const json::object& o, std::string_view key, const std::string& where,
                  bool required = false) {
    auto it = o.find(key);
    if (it == o.end() || it->value().is_null()) {
      if (required && error.empty()) error = where + ": missing \"" + std::string(key) + "\"";
      return {};
    }
    if (!it->value().is_string()) {
      if (error.empty()) error = where + ": \"" + std::string(key) + "\" must be a string";
      return {};
    }
    return std::string(it->value().get_string());
  }

  bool Bool(const json::object& o, std::string_view key) {
    auto it = o.find(key);
    return it != o.end() && it->value().is_bool() && it->value().get_bool();
  }

  std::vector<std::string> Strs(const json::object& o, std::string_view key,
                                const std::string& where) {
    std::vector<std::string> out;
    auto it = o.find(key);
    if (it == o.end()) return out;
    if (!it->value().is_array()) {
      if (error.empty()) error = where + ": \"" + std::string(key) + "\" must be an array";
      return out;
    }
    for (const auto& v : it->value().get_array()) {
      if (v.is_string()) out.emplace_back(v.get_string());
    }
    return out;
  }
};

}  // namespace

absl::StatusOr<Catalog> Catalog::FromJson(std::string_view text) {
  boost::system::error_code ec;
  json::value doc = json::parse(json::string_view(text.data(), text.size()), ec);
  if (ec) return absl::InvalidArgumentError("API catalog is not valid JSON: " + ec.message());
  if (!doc.is_object()) return absl::InvalidArgumentError("API catalog: top level must be an object");
  const json::object& root = doc.get_object();
  Reader r;
  Catalog c;
  if (r.Str(root, "schema", "catalog", true) != "opdev.pypto_pro_api/1" && r.error.empty()) {
    r.error = "catalog: unsupported schema (want opdev.pypto_pro_api/1)";
  }
  c.source_repo_ = r.Str(root, "source_repo", "catalog");
  c.source_commit_ = r.Str(root, "source_commit", "catalog");
  if (auto it = root.find("namespaces"); it != root.end() && it->value().is_object()) {
    for (const auto& kv : it->value().get_object()) c.namespaces_.emplace_back(kv.key());
  }
  auto array_of = [&](std::string_view key) -> const json::array* {
    auto it = root.find(key);
    if (it == root.end() || !it->value().is_array()) {
      if (r.error.empty()) r.error = "catalog: missing array \"" + std::string(key) + "\"";
      return nullptr;
    }
    return &it->value().get_array();
  };
  if (const json::array* fns = array_of("functions")) {
    for (size_t i = 0; i < fns->size() && r.error.empty(); ++i) {
      if (!(*fns)[i].is_object()) {
        r.error = "functions[" + std::to_string(i) + "]: must be an object";
        break;
      }
      const json::object& o = (*fns)[i].get_object();
      Function f;
      f.name = r.Str(o, "name", "functions[" + std::to_string(i) + "]", true);
      std::string where = "function " + f.name;
      f.varargs = r.Str(o, "varargs", where);
      f.kwargs = r.Str(o, "kwargs", where);
      f.mte = r.Bool(o, "mte");
      f.pipe = r.Str(o, "pipe", where);
      f.dtypes = r.Str(o, "dtypes", where);
      if (auto it = o.find("reg_dtypes"); it != o.end()) {
        if (!it->value().is_array()) r.error = where + ": reg_dtypes must be a list of DT_ names";
        else
          for (const auto& x : it->value().get_array()) {
            if (!x.is_string()) { r.error = where + ": reg_dtypes must be a list of DT_ names"; break; }
            f.reg_dtypes.emplace_back(x.get_string().c_str());
          }
      }
      f.returns = r.Str(o, "returns", where);
      f.internal = r.Bool(o, "internal");
      f.note = r.Str(o, "note", where);
      f.source = r.Str(o, "source", where, true);
      if (auto it = o.find("results"); it != o.end() && it->value().is_int64()) {
        f.results = static_cast<int>(it->value().get_int64());
      }
      if (auto it = o.find("legal"); it != o.end() && it->value().is_object()) {
        const json::object& l = it->value().get_object();
        f.legal.vector_function = r.Bool(l, "vector_function");
        f.legal.section_vector = r.Bool(l, "section_vector");
        f.legal.section_cube = r.Bool(l, "section_cube");
        f.legal.kernel = r.Bool(l, "kernel");
        f.legal.host = r.Bool(l, "host");
        f.legal.decorator = r.Bool(l, "decorator");
      } else if (r.error.empty()) {
        r.error = where + ": missing \"legal\"";
      }
      auto pit = o.find("params");
      if (pit == o.end() || !pit->value().is_array()) {
        if (r.error.empty()) r.error = where + ": missing \"params\"";
        break;
      }
      for (const auto& pv : pit->value().get_array()) {
        if (!pv.is_object()) {
          if (r.error.empty()) r.error = where + ": a parameter must be an object";
          break;
        }
        const json::object& po = pv.get_object();
        Param p;
        p.name = r.Str(po, "name", where, true);
        std::string kind = r.Str(po, "kind", where + " parameter " + p.name, true);
        if (kind == "positional_only") {
          p.kind = ParamKind::kPositionalOnly;
        } else if (kind == "positional_or_keyword") {
          p.kind = ParamKind::kPositionalOrKeyword;
        } else if (kind == "keyword_only") {
          p.kind = ParamKind::kKeywordOnly;
        } else if (r.error.empty()) {
          r.error = where + " parameter " + p.name + ": unknown kind \"" + kind + "\"";
        }
        if (auto d = po.find("default"); d != po.end() && d->value().is_string()) {
          p.default_value = std::string(d->value().get_string());
        }
        p.role = r.Str(po, "role", where);
        p.memory = r.Strs(po, "memory", where);
        p.access = r.Str(po, "access", where);
        if (!p.access.empty() && p.access != "write" && p.access != "none" && r.error.empty())
          r.error = where + " parameter " + p.name + ": access must be \"write\" or \"none\"";
        if (auto rg = po.find("range"); rg != po.end() && rg->value().is_array() &&
                                         rg->value().get_array().size() == 2) {
          const auto& a = rg->value().get_array();
          if (a[0].is_int64() && a[1].is_int64()) {
            p.range = std::make_pair(static_cast<int>(a[0].get_int64()),
                                     static_cast<int>(a[1].get_int64()));
          }
        }
        f.params.push_back(std::move(p));
      }
      c.functions_.push_back(std::move(f));
    }
  }
  if (const json::array* es = array_of("enums")) {
    for (const auto& v : *es) {
      if (!v.is_object()) continue;
      Enum e;
      e.name = r.Str(v.get_object(), "name", "enum", true);
      e.members = r.Strs(v.get_object(), "members", "enum " + e.name);
      e.source = r.Str(v.get_object(), "source", "enum " + e.name, true);
      c.enums_.push_back(std::move(e));
    }
  }
  if (const json::array* cs = array_of("constants")) {
    for (const auto& v : *cs) {
      if (!v.is_object()) continue;
      Constant k;
      k.name = r.Str(v.get_object(), "name", "constant", true);
      k.kind = r.Str(v.get_object(), "kind", "constant " + k.name);
      k.source = r.Str(v.get_object(), "source", "constant " + k.name, true);
      c.constants_.push_back(std::move(k));
    }
  }
  if (const json::array* ls = array_of("legacy")) {
    for (const auto& v : *ls) {
      if (!v.is_object()) continue;
      const json::object& o = v.get_object();
      Legacy l;
      l.name = r.Str(o, "name", "legacy", true);
      std::string where = "legacy " + l.name;
      l.form = r.Str(o, "form", where);
      l.replacement = r.Str(o, "replacement", where, true);
      l.changed_in = r.Str(o, "changed_in", where, true);
      l.status = r.Str(o, "status", where, true);
      l.source = r.Str(o, "source", where, true);
      c.legacy_.push_back(std::move(l));
    }
  }
  // Op facts (optional arrays: a catalog without them has no data paths).
  if (auto it = root.find("data_paths"); it != root.end() && it->value().is_array()) {
    for (const auto& v : it->value().get_array()) {
      if (!v.is_object()) {
        if (r.error.empty()) r.error = "data_paths: every entry must be an object";
        break;
      }
      const json::object& o = v.get_object();
      DataPath d;
      d.op = r.Str(o, "op", "data_paths", true);
      std::string where = "data path of " + d.op;
      d.src = r.Str(o, "src", where, true);
      d.dst = r.Str(o, "dst", where, true);
      d.pipe = r.Str(o, "pipe", where, true);
      d.note = r.Str(o, "note", where);
      d.source = r.Str(o, "source", where, true);
      c.data_paths_.push_back(std::move(d));
    }
  }
  if (auto it = root.find("operand_dtypes"); it != root.end() && it->value().is_array()) {
    for (const auto& v : it->value().get_array()) {
      if (!v.is_object()) {
        if (r.error.empty()) r.error = "operand_dtypes: every entry must be an object";
        break;
      }
      const json::object& o = v.get_object();
      OperandDtypes d;
      d.op = r.Str(o, "op", "operand_dtypes", true);
      std::string where = "operand dtypes of " + d.op;
      d.lhs = r.Str(o, "lhs", where, true);
      d.rhs = r.Str(o, "rhs", where, true);
      d.dst = r.Str(o, "dst", where, true);
      d.note = r.Str(o, "note", where);
      d.source = r.Str(o, "source", where, true);
      c.operand_dtypes_.push_back(std::move(d));
    }
  }
  if (!r.error.empty()) return absl::InvalidArgumentError("API catalog: " + r.error);
  c.Index();
  for (size_t i = 0; i < c.functions_.size(); ++i) {
    if (c.fn_index_.at(c.functions_[i].name) != i) {
      return absl::InvalidArgumentError("API catalog: duplicate function " +
                                        c.functions_[i].name);
    }
  }
  return c;
}

void Catalog::Index() {
  fn_index_.clear();
  enum_index_.clear();
  const_index_.clear();
  for (size_t i = 0; i < functions_.size(); ++i) fn_index_.emplace(functions_[i].name, i);
  for (size_t i = 0; i < enums_.size(); ++i) enum_index_.emplace(enums_[i].name, i);
  for (size_t i = 0; i < constants_.size(); ++i) const_index_.emplace(constants_[i].name, i);
}

absl::StatusOr<Catalog> Catalog::FromFile(const std::string& path) {
  auto text = ReadTextFile(path);
  if (!text.ok()) return text.status();
  auto c = FromJson(*text);
  if (!c.ok()) return absl::InvalidArgumentError(path + ": " + std::string(c.status().message()));
  return c;
}

const Catalog& Catalog::Builtin() {
  static const Catalog* builtin = [] {
    auto c = FromJson(BuiltinCatalogJson());
    // The embedded file is validated by the tests; an invalid build would be a bug.
    return new Catalog(c.ok() ? std::move(*c) : Catalog());
  }();
  return *builtin;
}

absl::StatusOr<Catalog> Catalog::Default() {
  const char* path = std::getenv("OPDEV_API_CATALOG");
  if (path && *path) return FromFile(path);
  return Builtin();
}

const Function* Catalog::FindFunction(std::string_view name) const {
  auto it = fn_index_.find(name);
  return it == fn_index_.end() ? nullptr : &functions_[it->second];
}

const Enum* Catalog::FindEnum(std::string_view name) const {
  auto it = enum_index_.find(name);
  return it == enum_index_.end() ? nullptr : &enums_[it->second];
}

const Constant* Catalog::FindConstant(std::string_view name) const {
  auto it = const_index_.find(name);
  return it == const_index_.end() ? nullptr : &constants_[it->second];
}

std::vector<const Legacy*> Catalog::FindLegacy(std::string_view name) const {
  std::vector<const Legacy*> out;
  for (const auto& l : legacy_) {
    if (l.name == name) out.push_back(&l);
  }
  return out;
}

bool Catalog::IsNamespace(std::string_view prefix) const {
  for (const auto& n : namespaces_) {
    if (n == prefix) return true;
  }
  return false;
}

const DataPath* Catalog::FindDataPath(std::string_view op, std::string_view src,
                                     std::string_view dst) const {
  for (const auto& d : data_paths_)
    if (d.op == op && d.src == src && d.dst == dst) return &d;
  return nullptr;
}

std::vector<const DataPath*> Catalog::DataPathsOf(std::string_view op) const {
  std::vector<const DataPath*> out;
  for (const auto& d : data_paths_)
    if (d.op == op) out.push_back(&d);
  return out;
}

std::vector<const OperandDtypes*> Catalog::OperandDtypesOf(std::string_view op) const {
  std::vector<const OperandDtypes*> out;
  for (const auto& d : operand_dtypes_)
    if (d.op == op) out.push_back(&d);
  return out;
}

bool Catalog::HasOperandDtypes(std::string_view op, std::string_view lhs, std::string_view rhs,
                               std::string_view dst) const {
  for (const auto& d : operand_dtypes_)
    if (d.op == op && d.lhs == lhs && d.rhs == rhs && d.dst == dst) return true;
  return false;
}

}  // namespace opdev::api
