// Loader of module_interfaces.yaml with yaml-cpp (see module_interfaces.h).
#include "opdev/contract/module_interfaces.h"

#include "contract/read_input.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>

namespace opdev::contract {

namespace {

constexpr std::string_view kCat = category::kDesignViolation;

int LineOf(const YAML::Node& n) {
  if (!n.IsDefined()) return 0;
  int l = n.Mark().line;
  return l < 0 ? 0 : l + 1;
}

class YamlReader {
 public:
  YamlReader(std::string path, Diagnostics* diags) : path_(std::move(path)), diags_(diags) {}

  void Missing(const std::string& key, const std::string& where, int line) {
    if (diags_) diags_->Error("MODIF-FIELD-MISSING", category::kIncompleteStructure, path_, line,
                              "required key '" + key + "' is missing in " + where);
  }
  void WrongType(const std::string& key, const std::string& expected, int line) {
    if (diags_) diags_->Error("MODIF-FIELD-TYPE", kCat, path_, line,
                              "key '" + key + "' must be " + expected);
  }

  std::string Str(const YAML::Node& m, const char* key, const std::string& where, bool required) {
    YAML::Node v = m[key];
    if (!v.IsDefined() || v.IsNull()) {
      if (required) Missing(key, where, LineOf(m));
      return {};
    }
    if (!v.IsScalar()) { WrongType(key, "a scalar", LineOf(v)); return {}; }
    return v.Scalar();
  }

  std::optional<std::int64_t> Int(const YAML::Node& m, const char* key, const std::string& where,
                                  bool required) {
    YAML::Node v = m[key];
    if (!v.IsDefined() || v.IsNull()) {
      if (required) Missing(key, where, LineOf(m));
      return std::nullopt;
    }
    const std::string& s = v.IsScalar() ? v.Scalar() : std::string();
    char* end = nullptr;
    long long x = s.empty() ? 0 : std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0') { WrongType(key, "an integer", LineOf(v)); return std::nullopt; }
    return x;
  }

  std::optional<bool> Bool(const YAML::Node& m, const char* key, const std::string& where,
                           bool required) {
    YAML::Node v = m[key];
    if (!v.IsDefined() || v.IsNull()) {
      if (required) Missing(key, where, LineOf(m));
      return std::nullopt;
    }
    if (v.IsScalar()) {
      const std::string& s = v.Scalar();
      if (s == "true" || s == "True" || s == "TRUE") return true;
      if (s == "false" || s == "False" || s == "FALSE") return false;
    }
    WrongType(key, "a boolean (true/false)", LineOf(v));
    return std::nullopt;
  }

  std::vector<TensorDecl> Tensors(const YAML::Node& m, const char* key, const std::string& where,
                                  bool required) {
    std::vector<TensorDecl> out;
    YAML::Node v = m[key];
    if (!v.IsDefined() || v.IsNull()) {
      if (required) Missing(key, where, LineOf(m));
      return out;
    }
    if (!v.IsSequence()) { WrongType(key, "a list of {name, shape, dtype}", LineOf(v)); return out; }
    for (const auto& e : v) {
      if (!e.IsMap()) { WrongType(key, "a list of {name, shape, dtype}", LineOf(e)); continue; }
      std::string w = std::string(key) + " entry";
      out.push_back({Str(e, "name", w, true), Str(e, "shape", w, true), Str(e, "dtype", w, true),
                     LineOf(e)});
    }
    return out;
  }

  std::vector<WireRef> Wires(const YAML::Node& m, const char* key, const std::string& where,
                             bool required) {
    std::vector<WireRef> out;
    YAML::Node v = m[key];
    if (!v.IsDefined() || v.IsNull()) {
      if (required) Missing(key, where, LineOf(m));
      return out;
    }
    if (!v.IsSequence()) { WrongType(key, "a list of {name, source}", LineOf(v)); return out; }
    for (const auto& e : v) {
      if (!e.IsMap()) { WrongType(key, "a list of {name, source}", LineOf(e)); continue; }
      std::string w = std::string(key) + " entry";
      out.push_back({Str(e, "name", w, true), Str(e, "source", w, true), LineOf(e)});
    }
    return out;
  }

 private:
  std::string path_;
  Diagnostics* diags_;
};

}  // namespace

std::optional<int> WireRef::SourceModule() const {
  for (const char* prefix : {"module_", "phase_"}) {
    std::string p(prefix);
    if (source.rfind(p, 0) == 0 && source.size() > p.size()) {
      std::string num = source.substr(p.size());
      if (num.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
      return std::atoi(num.c_str());
    }
  }
  return std::nullopt;
}

int ModuleDecl::FieldLine(const std::string& f) const {
  auto it = field_lines.find(f);
  return it == field_lines.end() ? line : it->second;
}

int ModuleInterfaces::FieldLine(const std::string& f) const {
  auto it = field_lines.find(f);
  return it == field_lines.end() ? 1 : it->second;
}

const ModuleDecl* ModuleInterfaces::FindModule(std::int64_t id) const {
  for (const auto& m : modules)
    if (m.id == id) return &m;
  return nullptr;
}

std::string NormalizeSection(std::string_view s) {
  if (s == "vector" || s == "section_vector") return "vector";
  if (s == "cube" || s == "section_cube") return "cube";
  return std::string(s);
}

absl::StatusOr<ModuleInterfaces> ParseModuleInterfaces(std::string_view text,
                                                       const std::string& path,
                                                       Diagnostics* diags) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    int line = e.mark.line < 0 ? 0 : e.mark.line + 1;
    if (diags) diags->Error("YAML-SYNTAX", category::kInputError, path, line,
                            "malformed YAML: " + e.msg);
    return absl::InvalidArgumentError(path + ":" + std::to_string(line) + ": malformed YAML: " + e.msg);
  }
  ModuleInterfaces mi;
  mi.path = path;
  if (!root.IsMap()) {
    if (diags) diags->Error("MODIF-FIELD-TYPE", category::kIncompleteStructure, path, 1,
                            "module_interfaces.yaml must be a mapping (it is empty or not a mapping)");
    return mi;
  }
  YamlReader rd(path, diags);
  try {
    for (const auto& kv : root) {
      std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string();
      mi.field_lines[key] = LineOf(kv.first);
      static const char* kKnown[] = {"schema_version", "op", "module_count", "has_cross_core",
                                     "is_fusion", "primary_inputs", "modules", "final_outputs",
                                     "composition_verification"};
      bool known = false;
      for (const char* k : kKnown) known = known || key == k;
      if (!known) {
        mi.unknown_fields.push_back({key, "/", LineOf(kv.first)});
        if (diags) diags->Warning("MODIF-FIELD-UNKNOWN", kCat, path, LineOf(kv.first),
                                  "unknown top-level key '" + key + "'");
      }
    }
    const std::string top = "the top level";
    mi.schema_version = rd.Int(root, "schema_version", top, false);
    mi.op = rd.Str(root, "op", top, true);
    mi.module_count = rd.Int(root, "module_count", top, true);
    mi.has_cross_core = rd.Bool(root, "has_cross_core", top, false);
    mi.is_fusion = rd.Bool(root, "is_fusion", top, true);
    mi.primary_inputs = rd.Tensors(root, "primary_inputs", top, true);
    YAML::Node mods = root["modules"];
    if (!mods.IsDefined() || mods.IsNull()) {
      rd.Missing("modules", top, 1);
    } else if (!mods.IsSequence()) {
      rd.WrongType("modules", "a list", LineOf(mods));
    } else {
      for (const auto& m : mods) {
        if (!m.IsMap()) { rd.WrongType("modules", "a list of mappings", LineOf(m)); continue; }
        ModuleDecl d;
        d.line = LineOf(m);
        for (const auto& kv : m)
          if (kv.first.IsScalar()) d.field_lines[kv.first.Scalar()] = LineOf(kv.first);
        std::string where = "module at line " + std::to_string(d.line);
        d.id = rd.Int(m, "id", where, true).value_or(0);
        d.name = rd.Str(m, "name", where, true);
        d.description = rd.Str(m, "description", where, false);
        d.section = rd.Str(m, "section", where, true);
        // A missing key yields an invalid node whose type queries throw: ask IsDefined first.
        YAML::Node gs = m["golden_steps"];
        if (!gs.IsDefined() || gs.IsNull()) {
          rd.Missing("golden_steps", where, d.line);
        } else if (gs.IsSequence()) {
          for (const auto& s : gs)
            if (s.IsScalar()) d.golden_steps.push_back(s.Scalar());
        } else {
          rd.WrongType("golden_steps", "a list of strings", LineOf(gs));
        }
        d.inputs = rd.Wires(m, "inputs", where, true);
        d.outputs = rd.Tensors(m, "outputs", where, true);
        d.golden_stage_fn = rd.Str(m, "golden_stage_fn", where, true);
        mi.modules.push_back(std::move(d));
      }
      if (mi.modules.empty() && diags)
        diags->Error("MODIF-FIELD-MISSING", category::kIncompleteStructure, path, LineOf(mods),
                     "'modules' is empty");
    }
    mi.final_outputs = rd.Wires(root, "final_outputs", top, true);
    YAML::Node cv = root["composition_verification"];
    if (cv.IsMap()) {
      CompositionVerification c;
      c.line = LineOf(cv);
      if (cv["atol"].IsScalar()) c.atol = std::strtod(cv["atol"].Scalar().c_str(), nullptr);
      if (cv["rtol"].IsScalar()) c.rtol = std::strtod(cv["rtol"].Scalar().c_str(), nullptr);
      if (cv["seeds"].IsSequence())
        for (const auto& s : cv["seeds"])
          if (s.IsScalar()) c.seeds.push_back(std::strtoll(s.Scalar().c_str(), nullptr, 10));
      if (cv["shapes"].IsSequence())
        for (const auto& s : cv["shapes"]) {
          std::map<std::string, std::string> one;
          if (s.IsMap())
            for (const auto& kv : s)
              if (kv.first.IsScalar() && kv.second.IsScalar())
                one[kv.first.Scalar()] = kv.second.Scalar();
          c.shapes.push_back(std::move(one));
        }
      mi.composition_verification = std::move(c);
    }
  } catch (const YAML::Exception& e) {
    int line = e.mark.line < 0 ? 0 : e.mark.line + 1;
    if (diags) diags->Error("YAML-SYNTAX", category::kInputError, path, line,
                            "unexpected YAML structure: " + e.msg);
    return absl::InvalidArgumentError(path + ": unexpected YAML structure: " + e.msg);
  }
  return mi;
}

absl::StatusOr<ModuleInterfaces> LoadModuleInterfaces(const std::string& path, Diagnostics* diags) {
  auto text = ReadContractText(path, diags);
  if (!text.ok()) return text.status();
  return ParseModuleInterfaces(*text, path, diags);
}

}  // namespace opdev::contract
