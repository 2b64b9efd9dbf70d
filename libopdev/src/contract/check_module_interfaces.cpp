// module_interfaces.yaml rules (reference §3.3, validate_module_yaml.py rules 1–7, verifier
// stage3 #11): module_count, ids, sections, wiring (inputs from primary or an earlier module,
// final outputs from a module output, every output consumed or final), shape expressions,
// dtypes, golden_stage_fn names, is_fusion vs the sections, and agreement with DESIGN §0.
#include "contract/checks.h"
#include "contract/text_util.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace opdev::contract {

namespace {

// One dimension expression: int or name tokens joined by + - * // with unary ±; no **.
bool ValidDimExpr(const std::string& e) {
  std::string s = Trim(e);
  if (s.empty()) return false;
  size_t i = 0;
  bool expect_operand = true;
  while (i < s.size()) {
    char c = s[i];
    if (c == ' ' || c == '\t') { ++i; continue; }
    if (expect_operand) {
      if (c == '+' || c == '-') { ++i; continue; }  // unary
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
        while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
        expect_operand = false;
        continue;
      }
      return false;
    }
    if (s.compare(i, 2, "**") == 0) return false;
    if (s.compare(i, 2, "//") == 0) { i += 2; expect_operand = true; continue; }
    if (c == '+' || c == '-' || c == '*') { ++i; expect_operand = true; continue; }
    return false;
  }
  return !expect_operand;
}

bool ValidShape(const std::string& shape) {
  std::string s = Trim(shape);
  if (s.size() < 2 || s.front() != '[' || s.back() != ']') return false;
  std::string inner = s.substr(1, s.size() - 2);
  if (Trim(inner).empty()) return true;  // scalar
  for (const auto& d : Split(inner, ','))
    if (!ValidDimExpr(d)) return false;
  return true;
}

bool ValidDtype(const std::string& t) {
  static const std::set<std::string> kOk = {"float32", "float16", "bfloat16", "int32", "int64",
                                            "bool",    "int",     "uint8",    "int8",  "uint16",
                                            "int16",   "uint32",  "uint64",   "float8"};
  return kOk.count(t) > 0;
}

std::string Suffix(std::int64_t k) {
  std::string s;
  for (std::int64_t i = 1; i <= k; ++i) s += std::to_string(i);
  return s;
}

}  // namespace

void CheckModuleInterfaces(const OpDir& od, const CheckOptions&, Diagnostics* diags) {
  if (!od.modules) return;
  const ModuleInterfaces& mi = *od.modules;
  const std::string& f = mi.path;
  const auto cat = category::kDesignViolation;

  if (mi.module_count && *mi.module_count != static_cast<std::int64_t>(mi.modules.size()))
    AddError(diags, "MODIF-MODULE-COUNT", cat, f, mi.FieldLine("module_count"), "",
             "module_count is " + std::to_string(*mi.module_count) + " but " +
                 std::to_string(mi.modules.size()) + " module(s) are listed");

  for (const auto& t : mi.primary_inputs) {
    if (!t.shape.empty() && !ValidShape(t.shape))
      AddError(diags, "MODIF-SHAPE", cat, f, t.line, "",
               "shape of primary input '" + t.name + "' must be [d, ...] with int/name tokens and + - * //",
               t.shape);
    if (!t.dtype.empty() && !ValidDtype(t.dtype))
      AddError(diags, "MODIF-DTYPE", cat, f, t.line, "",
               "dtype of primary input '" + t.name + "' is not a known dtype", t.dtype);
  }

  std::set<std::string> primary;
  for (const auto& t : mi.primary_inputs) primary.insert(t.name);
  // (module id, output name) -> consumed?
  std::map<std::pair<std::int64_t, std::string>, bool> outputs;
  bool has_vector = false, has_cube = false;
  for (size_t i = 0; i < mi.modules.size(); ++i) {
    const ModuleDecl& m = mi.modules[i];
    std::string who = "module " + std::to_string(m.id);
    if (m.id != static_cast<std::int64_t>(i + 1))
      AddError(diags, "MODIF-MODULE-ID", cat, f, m.FieldLine("id"), "",
               who + ": module ids must be 1, 2, … in order; expected " + std::to_string(i + 1));
    std::string sec = NormalizeSection(m.section);
    if (sec == "vector") has_vector = true;
    else if (sec == "cube") has_cube = true;
    else if (!m.section.empty())
      AddError(diags, "MODIF-SECTION", cat, f, m.FieldLine("section"), "",
               who + ": section must be 'vector' or 'cube'", m.section);
    if (m.outputs.empty())
      AddError(diags, "MODIF-NO-OUTPUT", cat, f, m.line, "", who + " declares no output");
    for (const auto& o : m.outputs) {
      outputs[{m.id, o.name}] = false;
      if (!o.shape.empty() && !ValidShape(o.shape))
        AddError(diags, "MODIF-SHAPE", cat, f, o.line, "",
                 who + " output '" + o.name + "': invalid shape expression", o.shape);
      if (!o.dtype.empty() && !ValidDtype(o.dtype))
        AddError(diags, "MODIF-DTYPE", cat, f, o.line, "",
                 who + " output '" + o.name + "': unknown dtype", o.dtype);
    }
    for (const auto& in : m.inputs) {
      if (in.IsPrimary()) {
        if (!primary.count(in.name))
          AddError(diags, "MODIF-INPUT-PRIMARY", cat, f, in.line, "",
                   who + " input '" + in.name + "' has source primary but is not a primary_inputs entry");
        continue;
      }
      auto j = in.SourceModule();
      if (!j) {
        AddError(diags, "MODIF-INPUT-SOURCE", cat, f, in.line, "",
                 who + " input '" + in.name + "': source must be 'primary' or 'module_<j>'", in.source);
        continue;
      }
      if (*j >= m.id) {
        AddError(diags, "MODIF-INPUT-SOURCE", cat, f, in.line, "",
                 who + " input '" + in.name + "' comes from module " + std::to_string(*j) +
                     ", which is not an earlier module", in.source);
        continue;
      }
      auto it = outputs.find({*j, in.name});
      if (it == outputs.end())
        AddError(diags, "MODIF-INPUT-SOURCE", cat, f, in.line, "",
                 who + " input '" + in.name + "': module " + std::to_string(*j) +
                     " has no output of that name", in.source);
      else
        it->second = true;
    }
    if (!mi.op.empty() && !m.golden_stage_fn.empty() &&
        m.golden_stage_fn != mi.op + "_golden_stage" + Suffix(m.id))
      AddError(diags, "MODIF-GOLDEN-STAGE-FN", cat, f, m.FieldLine("golden_stage_fn"), "",
               who + ": golden_stage_fn must be '" + mi.op + "_golden_stage" + Suffix(m.id) +
                   "' (cumulative suffix)",
               m.golden_stage_fn);
  }
  for (const auto& fo : mi.final_outputs) {
    auto j = fo.SourceModule();
    if (!j || !mi.FindModule(*j)) {
      AddError(diags, "MODIF-FINAL-SOURCE", cat, f, fo.line, "",
               "final output '" + fo.name + "': source must name an existing module_<j>", fo.source);
      continue;
    }
    auto it = outputs.find({*j, fo.name});
    if (it == outputs.end())
      AddError(diags, "MODIF-FINAL-SOURCE", cat, f, fo.line, "",
               "final output '" + fo.name + "': module " + std::to_string(*j) +
                   " has no output of that name", fo.source);
    else
      it->second = true;
  }
  for (const auto& m : mi.modules)
    for (const auto& o : m.outputs)
      if (!outputs[{m.id, o.name}])
        AddError(diags, "MODIF-OUTPUT-UNUSED", cat, f, o.line, "",
                 "output '" + o.name + "' of module " + std::to_string(m.id) +
                     " is neither consumed by a later module nor a final output");

  // is_fusion <=> both cube and vector sections among the Modules (YAML and DESIGN §0).
  bool design_vector = false, design_cube = false;
  if (od.design)
    for (const auto& m : od.design->Modules()) {
      design_vector = design_vector || Contains(m.section, "vector");
      design_cube = design_cube || Contains(m.section, "cube");
    }
  if (mi.is_fusion) {
    bool fused = (has_cube || design_cube) && (has_vector || design_vector);
    if (*mi.is_fusion != fused)
      AddError(diags, "MODIF-FUSION", cat, f, mi.FieldLine("is_fusion"), "",
               std::string("is_fusion is ") + (*mi.is_fusion ? "true" : "false") +
                   " but the Modules' sections are " +
                   (has_cube || design_cube ? (has_vector || design_vector ? "cube and vector" : "cube only")
                                            : "vector only"));
  }
  if (od.design) {
    auto dm = od.design->Modules();
    if (!dm.empty() && dm.size() != mi.modules.size())
      AddError(diags, "MODIF-DESIGN-MODULES", cat, f, mi.FieldLine("modules"), "§0",
               "module_interfaces.yaml lists " + std::to_string(mi.modules.size()) +
                   " module(s) but DESIGN §0 Module 列表 has " + std::to_string(dm.size()));
    for (const auto& d : dm) {
      const ModuleDecl* m = d.index > 0 ? mi.FindModule(d.index) : nullptr;
      if (!m) continue;
      std::string ds = NormalizeSection(d.section);
      if (!ds.empty() && NormalizeSection(m->section) != ds)
        AddError(diags, "MODIF-DESIGN-MODULES", cat, f, m->FieldLine("section"), "§0",
                 "module " + std::to_string(m->id) + " section '" + m->section +
                     "' differs from DESIGN §0 (" + d.section + ", line " + std::to_string(d.line) + ")");
    }
  }
}

}  // namespace opdev::contract
