// Parsing of the §1 vector_selection api_sequence chains of a chain-only DESIGN.
#include "vf_chain.h"

#include "../ast_util.h"

#include "opdev/api/catalog.h"
#include "opdev/pyfront/parser.h"
#include "opdev/pyfront/printer.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <map>
#include <regex>
#include <set>

namespace opdev::codegen::vector_vf {
namespace {

constexpr const char* kS1 = "§1";

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string StripTicks(std::string s) {
  std::string out;
  for (char c : s)
    if (c != '`') out += c;
  return Trim(out);
}

const std::map<std::string, OpClass>& OpTable() {
  static const std::map<std::string, OpClass> t = {
      {"vf.exp", OpClass::kUnary},         {"vf.ln", OpClass::kUnary},
      {"vf.log", OpClass::kUnary},         {"vf.sqrt", OpClass::kUnary},
      {"vf.abs", OpClass::kUnary},         {"vf.neg", OpClass::kUnary},
      {"vf.relu", OpClass::kUnary},        {"vf.add", OpClass::kBinary},
      {"vf.sub", OpClass::kBinary},        {"vf.mul", OpClass::kBinary},
      {"vf.div", OpClass::kBinary},        {"vf.max", OpClass::kBinary},
      {"vf.min", OpClass::kBinary},        {"vf.adds", OpClass::kScalar},
      {"vf.muls", OpClass::kScalar},       {"vf.maxs", OpClass::kScalar},
      {"vf.mins", OpClass::kScalar},       {"vf.reduce_sum", OpClass::kReduce},
      {"vf.reduce_max", OpClass::kReduce}, {"vf.reduce_min", OpClass::kReduce},
  };
  return t;
}

// Structure the skeleton supplies itself.
bool IsMarker(const std::string& api) {
  return api == "vf.load_align" || api == "vf.store_align" || api == "vf.full";
}

// Splits on `→` and `->`.
std::vector<std::string> SplitArrows(const std::string& seq) {
  std::vector<std::string> out;
  std::string cur;
  for (size_t i = 0; i < seq.size();) {
    if (seq.compare(i, 3, "→") == 0) {
      out.push_back(cur);
      cur.clear();
      i += 3;
    } else if (seq.compare(i, 2, "->") == 0) {
      out.push_back(cur);
      cur.clear();
      i += 2;
    } else {
      cur += seq[i++];
    }
  }
  out.push_back(cur);
  for (auto& s : out) s = Trim(s);
  return out;
}

// A compute step names some vf.* op other than the data-movement markers.
bool HasComputeOp(const std::string& seq) {
  static const std::regex kOp(R"(vf\.([A-Za-z_][A-Za-z0-9_]*))");
  for (auto it = std::sregex_iterator(seq.begin(), seq.end(), kOp); it != std::sregex_iterator();
       ++it) {
    std::string api = "vf." + (*it)[1].str();
    if (!IsMarker(api)) return true;
  }
  return false;
}

// An operand: `_`, a name, or a (signed) number.
std::optional<std::string> Operand(const py::Expr& e) {
  if (e.Is(py::ExprKind::kName)) return e.id;
  if (e.Is(py::ExprKind::kConstant) &&
      (e.const_kind == py::ConstKind::kInt || e.const_kind == py::ConstKind::kFloat))
    return py::PrintExpr(e);
  if (e.Is(py::ExprKind::kUnaryOp) && e.operand && e.operand->Is(py::ExprKind::kConstant) &&
      (e.operand->const_kind == py::ConstKind::kInt ||
       e.operand->const_kind == py::ConstKind::kFloat))
    return py::PrintExpr(e);
  return std::nullopt;
}

struct PatternField {
  std::string value;
  int line = 0;
};

// `pattern` of each vector_selection step: a table column or a `pattern:` key of the block
// entry that starts at the step line. Keyed by the step's line.
std::map<int, PatternField> PatternFields(const contract::DesignDoc& d) {
  std::map<int, PatternField> out;
  for (const contract::Table* t : d.TablesIn(1)) {
    if (t->Column("implementation") < 0 || t->Column("pattern") < 0) continue;
    for (const auto& r : t->rows) {
      std::string v = StripTicks(t->Get(r, "pattern"));
      if (!v.empty()) out[r.line] = {v, r.line};
    }
  }
  for (const contract::CodeBlock* cb : d.CodeIn(1)) {
    if (cb->text.find("vector_selection") == std::string::npos) continue;
    std::vector<std::string> ls;
    size_t b = 0;
    for (size_t i = 0; i <= cb->text.size(); ++i)
      if (i == cb->text.size() || cb->text[i] == '\n') {
        ls.push_back(cb->text.substr(b, i - b));
        b = i + 1;
      }
    int step_line = 0;
    for (size_t i = 0; i < ls.size(); ++i) {
      std::string l = Trim(ls[i]);
      if (l.rfind("- ", 0) == 0) l = Trim(l.substr(2));
      size_t c = l.find(':');
      if (c == std::string::npos) continue;
      std::string key = Trim(l.substr(0, c));
      int line = cb->line + 1 + static_cast<int>(i);
      if (key == "step") step_line = line;
      if (key == "pattern" && step_line) out[step_line] = {StripTicks(l.substr(c + 1)), line};
    }
  }
  return out;
}

std::optional<ChainOp> ParseElement(const std::string& element, int line, GenContext& ctx) {
  ChainOp op;
  op.text = element;
  op.line = line;
  std::string expr = element;
  static const std::regex kBind(R"(^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([^=].*)$)");
  std::smatch m;
  if (std::regex_match(element, m, kBind)) {
    op.bind = m[1];
    expr = Trim(m[2]);
  }
  Diagnostics pd;
  auto e = py::ParseExpression(expr, ctx.file(), &pd);
  if (!e.ok()) {
    ctx.Violation("CODEGEN-CHAIN-SYNTAX", line, kS1,
                  absl::StrFormat("api_sequence element `%s` is not `[NAME =] vf.op[(operands)]`",
                                  element));
    return std::nullopt;
  }
  const py::Expr& x = **e;
  const py::Expr* callee = x.Is(py::ExprKind::kCall) ? x.func.get() : &x;
  auto dotted = callee ? py::DottedName(*callee) : std::nullopt;
  if (!dotted) {
    ctx.Violation("CODEGEN-CHAIN-SYNTAX", line, kS1,
                  absl::StrFormat("api_sequence element `%s` does not name an API", element));
    return std::nullopt;
  }
  op.api = *dotted;
  if (IsMarker(op.api)) {
    if (op.api == "vf.full" && x.Is(py::ExprKind::kCall))
      ctx.Violation("CODEGEN-CHAIN-AMBIGUOUS", line, kS1,
                    "vf.full with operands in an api_sequence: the skeleton supplies the "
                    "reduction init and broadcast; write the init as `init=` of the reduction",
                    element);
    op.api.clear();  // marker: dropped by the caller
    return op;
  }
  auto it = OpTable().find(op.api);
  if (it == OpTable().end()) {
    if (!api::Catalog::Builtin().FindFunction(op.api))
      ctx.Violation("CODEGEN-UNKNOWN-API", line, kS1,
                    absl::StrFormat("%s in the api_sequence is not a PyPTO-Pro API", op.api),
                    element);
    else
      ctx.Violation("CODEGEN-CHAIN-UNSUPPORTED", line, kS1,
                    absl::StrFormat("%s cannot be placed by the pure-vec skeleton (it builds "
                                    "unary, binary, scalar and reduction vf ops); give the "
                                    "kernel code in §1",
                                    op.api),
                    element);
    return std::nullopt;
  }
  op.cls = it->second;
  std::vector<std::string> args;
  if (x.Is(py::ExprKind::kCall)) {
    for (const auto& a : x.args) {
      auto o = Operand(*a);
      if (!o) {
        ctx.Violation("CODEGEN-CHAIN-AMBIGUOUS", line, kS1,
                      absl::StrFormat("operand `%s` of %s is neither a name nor a number (the "
                                      "chain names values, it does not nest calls)",
                                      py::PrintExpr(*a), op.api),
                      element);
        return std::nullopt;
      }
      args.push_back(*o);
    }
    for (const auto& k : x.keywords) {
      auto o = k.value ? Operand(*k.value) : std::nullopt;
      if (k.arg != "init" || op.cls != OpClass::kReduce || !o) {
        ctx.Violation("CODEGEN-CHAIN-AMBIGUOUS", line, kS1,
                      absl::StrFormat("keyword `%s=` of %s: only reductions take `init=` (a "
                                      "name or number)",
                                      k.arg, op.api),
                      element);
        return std::nullopt;
      }
      op.init = *o;
    }
  }
  const char* want = "";
  switch (op.cls) {
    case OpClass::kUnary:
    case OpClass::kReduce:
      if (args.empty()) args.push_back("_");
      if (args.size() != 1) want = "one register operand";
      break;
    case OpClass::kScalar:
      if (args.size() == 1) args.insert(args.begin(), "_");
      if (args.size() != 2) want = "a register and a scalar, e.g. (_, 1.0)";
      break;
    case OpClass::kBinary:
      if (args.size() != 2)
        want = "both operands written out, e.g. (x, _): the chain does not guess which "
               "operand the previous result is";
      break;
  }
  if (*want) {
    ctx.Violation("CODEGEN-CHAIN-AMBIGUOUS", line, kS1,
                  absl::StrFormat("%s needs %s", op.api, want), element);
    return std::nullopt;
  }
  op.args = std::move(args);
  return op;
}

// The DESIGN line of a step's api_sequence: its own key line in the block form (the entry
// starts at its `step:` line), the row line in the table form.
int ApiSequenceLine(const contract::DesignDoc& d, int step_line) {
  for (int l = step_line; l >= 1 && l <= static_cast<int>(d.lines.size()) && l < step_line + 12;
       ++l) {
    const std::string& t = d.lines[l - 1];
    if (l > step_line && t.find("step:") != std::string::npos) break;
    if (t.find("api_sequence") != std::string::npos && t.find(':') != std::string::npos) return l;
  }
  return step_line;
}

}  // namespace

const ChainOp* Chain::FirstReduce() const {
  for (const auto& s : steps)
    for (const auto& o : s.ops)
      if (o.cls == OpClass::kReduce) return &o;
  return nullptr;
}

std::optional<Chain> ParseChain(GenContext& ctx) {
  const size_t errors_before = ctx.diags->ErrorCount();
  const auto patterns = PatternFields(*ctx.design);
  Chain chain;
  for (const auto& v : ctx.design->VectorSelections()) {
    if (!HasComputeOp(v.api_sequence)) continue;  // data movement only
    if (v.implementation != "vf") {
      ctx.Violation("CODEGEN-CHAIN-UNSUPPORTED", v.line, kS1,
                    absl::StrFormat("step '%s' is frozen as implementation `%s`; the pure-vec "
                                    "skeleton builds @pl.vector_function chains only (give the "
                                    "kernel code in §1)",
                                    v.step, v.implementation));
      continue;
    }
    ChainStep step;
    step.step = v.step;
    step.line = ApiSequenceLine(*ctx.design, v.line);
    step.kb_evidence = v.kb_template_evidence;
    const int line = step.line;
    if (auto p = patterns.find(v.line); p != patterns.end()) {
      step.pattern = p->second.value;
      step.pattern_line = p->second.line;
    }
    bool ok = true;
    for (const auto& el : SplitArrows(v.api_sequence)) {
      if (el.empty()) {
        ctx.Violation("CODEGEN-CHAIN-SYNTAX", line, kS1,
                      absl::StrFormat("step '%s': empty element in api_sequence `%s`", v.step,
                                      v.api_sequence));
        ok = false;
        continue;
      }
      auto op = ParseElement(el, line, ctx);
      if (!op) {
        ok = false;
        continue;
      }
      if (!op->api.empty()) step.ops.push_back(std::move(*op));
    }
    int reduces = 0;
    for (const auto& o : step.ops) reduces += o.cls == OpClass::kReduce;
    if (reduces > 1) {
      ctx.Violation("CODEGEN-CHAIN-AMBIGUOUS", line, kS1,
                    absl::StrFormat("step '%s' has %d reductions; one vector_selection step "
                                    "holds at most one (one pass over the row per reduction)",
                                    v.step, reduces));
      ok = false;
    }
    if (ok) {
      if (chain.steps.empty()) chain.line = line;
      chain.steps.push_back(std::move(step));
    }
  }
  if (ctx.diags->ErrorCount() > errors_before) return std::nullopt;
  if (chain.steps.empty()) return std::nullopt;
  return chain;
}

}  // namespace opdev::codegen::vector_vf
