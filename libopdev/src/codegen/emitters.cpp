// Shared emitters: header, helpers, wrapper (§5), tests (§8) and the __main__ runner.
#include "emitters.h"

#include "ast_util.h"

#include "opdev/pyfront/parser.h"
#include "opdev/pyfront/printer.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <set>

namespace opdev::codegen {
namespace {

void Append(std::vector<py::StmtPtr>* out, const std::string& src) {
  auto v = ParseSnippet(src);
  for (auto& s : v) out->push_back(std::move(s));
}

std::string TorchDType(DType t) { return "torch." + std::string(DTypeName(t)); }

std::string PyNumber(double v) {
  if (std::floor(v) == v && std::fabs(v) < 1e15) return absl::StrFormat("%.1f", v);
  return absl::StrFormat("%.17g", v);
}

bool IsNumeric(const std::string& d) {
  return !d.empty() && std::all_of(d.begin(), d.end(), ::isdigit);
}

// Local variable naming a SPEC shape symbol inside the wrapper.
std::string SymbolVar(const std::string& sym, const GenContext& ctx) {
  bool clash = std::find(ctx.constant_names.begin(), ctx.constant_names.end(), sym) !=
               ctx.constant_names.end();
  static const std::set<std::string> kReserved = {"torch", "pl", "vf", "block_dim", "min", "max"};
  return clash || kReserved.count(sym) ? "dim_" + sym : sym;
}

// DESIGN's host formula (ceil(B / TILE_ROWS), B * N, ...) as Python over wrapper locals.
std::optional<std::string> Formula(const py::Expr& e, const std::set<std::string>& symbols,
                                   const GenContext& ctx, std::string* bad) {
  switch (e.kind) {
    case py::ExprKind::kConstant:
      if (e.const_kind == py::ConstKind::kInt) return e.text.empty() ? e.value : e.text;
      break;
    case py::ExprKind::kName:
      if (symbols.count(e.id)) return SymbolVar(e.id, ctx);
      if (std::find(ctx.constant_names.begin(), ctx.constant_names.end(), e.id) !=
          ctx.constant_names.end())
        return e.id;
      *bad = e.id;
      return std::nullopt;
    case py::ExprKind::kCall: {
      std::string f = py::CallName(e);
      if ((f == "ceil" || f == "math.ceil") && e.args.size() == 1 &&
          e.args[0]->Is(py::ExprKind::kBinOp) && e.args[0]->op == py::Op::kDiv) {
        auto a = Formula(*e.args[0]->left, symbols, ctx, bad);
        auto b = Formula(*e.args[0]->right, symbols, ctx, bad);
        if (!a || !b) return std::nullopt;
        return absl::StrFormat("((%s) + (%s) - 1) // (%s)", *a, *b, *b);
      }
      if ((f == "min" || f == "max") && e.args.size() == 2) {
        auto a = Formula(*e.args[0], symbols, ctx, bad);
        auto b = Formula(*e.args[1], symbols, ctx, bad);
        if (!a || !b) return std::nullopt;
        return absl::StrFormat("%s(%s, %s)", f, *a, *b);
      }
      break;
    }
    case py::ExprKind::kBinOp: {
      if (e.op != py::Op::kAdd && e.op != py::Op::kSub && e.op != py::Op::kMult &&
          e.op != py::Op::kFloorDiv)
        break;
      auto a = Formula(*e.left, symbols, ctx, bad);
      auto b = Formula(*e.right, symbols, ctx, bad);
      if (!a || !b) return std::nullopt;
      return absl::StrFormat("(%s) %s (%s)", *a, std::string(py::OpText(e.op)), *b);
    }
    default: break;
  }
  *bad = py::PrintExpr(e);
  return std::nullopt;
}

}  // namespace

std::string PyStr(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default: out += c;
    }
  }
  return out + "\"";
}

void ReadCoreSplit(GenContext& ctx) {
  const contract::Section* s5 = ctx.design->FindSection(5);
  if (!s5) return;
  static const std::regex kLaunch(
      R"(([A-Za-z_][A-Za-z0-9_]*)\s*\[\s*None\s*,\s*block_dim\s*\]\s*\(([^)]*)\))");
  static const std::regex kBlockDim(
      R"(block_dim\s*=\s*min\(\s*get_platform_info\(\)\.([A-Za-z_]+)\s*,\s*([A-Za-z_][A-Za-z0-9_]*)\s*\))");
  for (int line = s5->line; line <= s5->end_line; ++line) {
    const std::string& text = ctx.design->lines[line - 1];
    std::smatch m;
    if (!ctx.launch && std::regex_search(text, m, kLaunch)) {
      LaunchContract lc;
      lc.kernel = m[1];
      lc.line = line;
      std::string args = m[2];
      std::regex comma(R"(\s*,\s*)");
      for (std::sregex_token_iterator it(args.begin(), args.end(), comma, -1), end; it != end;
           ++it) {
        std::string a = *it;
        a.erase(0, a.find_first_not_of(" \t"));
        a.erase(a.find_last_not_of(" \t") + 1);
        if (!a.empty()) lc.args.push_back(a);
      }
      ctx.launch = lc;
    }
    if (!ctx.block_dim && std::regex_search(text, m, kBlockDim)) {
      BlockDimContract b;
      b.cores_attr = m[1];
      b.tasks_var = m[2];
      b.line = line;
      ctx.block_dim = b;
    }
  }
  if (ctx.block_dim) {
    // The tasks formula: `num_tiles = ceil(B / TILE_ROWS)` in §5 (or §4).
    const std::regex kFormula("\\b" + ctx.block_dim->tasks_var + R"(\s*=\s*([^`;\n]+))");
    for (int idx : {5, 4}) {
      const contract::Section* s = ctx.design->FindSection(idx);
      if (!s || !ctx.block_dim->tasks_formula.empty()) continue;
      for (int line = s->line; line <= s->end_line; ++line) {
        const std::string& text = ctx.design->lines[line - 1];
        std::smatch m;
        if (!std::regex_search(text, m, kFormula)) continue;
        std::string f = m[1];
        for (const char* stop : {"；", "（", "，", "。"})
          if (auto p = f.find(stop); p != std::string::npos) f = f.substr(0, p);
        f.erase(f.find_last_not_of(" \t") + 1);
        if (f.empty() || f.find("min(") == 0) continue;
        ctx.block_dim->tasks_formula = f;
        break;
      }
    }
  }
}

std::vector<py::StmtPtr> EmitHeader(const GenContext& ctx, const std::string& design_sha256,
                                    const std::string& kind, const std::string& provenance) {
  std::string doc = absl::StrFormat(
      "%s: the PyPTO-Pro kernel of %s with its wrapper and the DESIGN §8 tests (%s, %s).\n\n"
      "Generated by `opdev gen` from the frozen DESIGN.md (sha256 %s) and SPEC.md:\n"
      "%s"
      "follows §5 and each test is one §8 case. %s\n",
      ctx.product_rel, ctx.op, ctx.round_text, kind, design_sha256, provenance,
      ctx.staged
          ? absl::StrFormat("A staged file is an audit step, not a\n"
                            "delivery: its tests import %s (for _get_device) from the op dir\n"
                            "and precision_compare and %s only inside _assert_precision.",
                            ctx.device_golden, ctx.golden_cpu)
          : absl::StrFormat("The delivered unit is this file plus\n"
                            "%s.py; precision_compare and %s are imported only inside "
                            "_assert_precision.",
                            ctx.device_golden, ctx.golden_cpu));
  std::vector<py::StmtPtr> out;
  Append(&out, PyStr(doc) + "\n");
  Append(&out,
         std::string(ctx.staged ? "import re\nimport sys\nfrom pathlib import Path\n"
                                : "import re\n") +
             "\nimport torch\nimport torch_npu\n\nimport pypto_pro.language as pl\n"
             "from pypto_pro.language import Vf as vf\n"
             "from pypto_pro.runtime.platform import get_platform_info\n");
  if (ctx.staged)
    // A staged file runs as `python custom/<op>/modules/<file>`: its tests import
    // <op>_golden (for _get_device) from the op dir one level up.
    Append(&out,
           "_OP_DIR = str(Path(__file__).resolve().parent.parent)\n"
           "if _OP_DIR not in sys.path:\n"
           "    sys.path.insert(0, _OP_DIR)\n");
  return out;
}

std::vector<py::StmtPtr> EmitHelpers(const GenContext& ctx) {
  std::vector<py::StmtPtr> out;
  const std::string golden_fn = ctx.golden_fn.empty() ? ctx.golden_cpu : ctx.golden_fn;
  Append(&out,
         "def _make_input(shape, dtype, low, high, device):\n"
         "    \"\"\"Seeded input of the SPEC dtype inside the SPEC value range: standard normal\n"
         "    when the range holds [-3, 3] (the range is the legal domain, not a distribution),\n"
         "    uniform over a narrower range.\"\"\"\n"
         "    if dtype.is_floating_point and low <= -3 and high >= 3:\n"
         "        data = torch.randn(shape, dtype=torch.float32).clamp_(low, high)\n"
         "    elif dtype.is_floating_point:\n"
         "        data = torch.empty(shape, dtype=torch.float32).uniform_(low, high)\n"
         "    else:\n"
         "        data = torch.randint(int(low), int(high) + 1, shape, dtype=torch.int64)\n"
         "    return data.to(dtype).to(device)\n");
  Append(&out, absl::StrFormat(
      "def _assert_precision(actual, *inputs, label=\"\"):\n"
      "    \"\"\"Compares the kernel output with the CPU FP32 golden under scheme A.\n\n"
      "    The dev-only modules are imported here, never at module level, so the delivered\n"
      "    unit imports without them.\n"
      "    \"\"\"\n"
      "    from precision_compare import check_precision\n"
      "    from %s import %s\n"
      "    host_inputs = [t.cpu() if isinstance(t, torch.Tensor) else t for t in inputs]\n"
      "    golden = %s(*host_inputs)\n"
      "    if isinstance(actual, (tuple, list)):\n"
      "        host_actual = [a.cpu() if isinstance(a, torch.Tensor) else a for a in actual]\n"
      "        golden = list(golden)\n"
      "    else:\n"
      "        host_actual = actual.cpu()\n"
      "    passed, summary = check_precision(host_actual, golden)\n"
      "    if not passed:\n"
      "        raise AssertionError(\"[{}] precision FAIL: {}\".format(label, summary))\n"
      "    ratio = re.search(\"matched_ratio\\\\s*[=:]\\\\s*([^\\\\s,)]+)\", summary)\n"
      "    max_abs = re.search(\"max_abs_error\\\\s*[=:]\\\\s*([^\\\\s,)]+)\", summary)\n"
      "    print(\"[{}] PASS (matched_ratio={}, max_abs_error={})\".format(label, "
      "ratio.group(1) if ratio else \"n/a\", max_abs.group(1) if max_abs else \"n/a\"), "
      "flush=True)\n"
      "    return summary\n",
      ctx.golden_cpu, golden_fn, golden_fn));
  return out;
}

std::optional<std::vector<py::StmtPtr>> EmitWrapper(GenContext& ctx, const std::string& kernel,
                                                    const LaunchPolicy& launch,
                                                    const std::vector<WrapperCheck>& checks) {
  const size_t errors_before = ctx.diags->ErrorCount();
  const SpecContract& spec = *ctx.spec;
  const int s5 = ctx.design->FindSection(5) ? ctx.design->FindSection(5)->line : 0;
  const std::string cores(launch.CoresAttr());
  if (!ctx.block_dim) {
    ctx.Violation("CODEGEN-BLOCK-DIM-MISSING", s5, "§5",
                  "§5 gives no host block_dim `block_dim = min(get_platform_info()." + cores +
                      ", <tasks>)`");
    return std::nullopt;
  }
  if (ctx.block_dim->cores_attr != cores)
    ctx.Violation("CODEGEN-BLOCK-DIM-CORES", ctx.block_dim->line, "§5",
                  launch.cores == CoreKind::kVector
                      ? "a pure-Vector kernel launches at most vector_core_num blocks, but §5 "
                        "uses " + ctx.block_dim->cores_attr
                      : "a kernel with a Cube section launches at most core_num blocks (1 AIC + "
                        "2 AIV each), but §5 uses " + ctx.block_dim->cores_attr);
  if (ctx.block_dim->tasks_formula.empty()) {
    ctx.Violation("CODEGEN-BLOCK-DIM-MISSING", ctx.block_dim->line, "§5",
                  "§5 uses " + ctx.block_dim->tasks_var + " for block_dim but never gives its "
                  "formula (`" + ctx.block_dim->tasks_var + " = ...`)");
    return std::nullopt;
  }

  std::vector<std::string> params;
  for (const auto& t : spec.inputs) params.push_back(t.name);
  std::string body;
  std::set<std::string> symbols;
  std::map<std::string, std::string> bound;  // symbol -> "x.shape[i]"
  for (const auto& t : spec.inputs) {
    const std::string dt = TorchDType(*t.dtype);
    body += absl::StrFormat(
        "    if %s.dtype != %s:\n"
        "        raise TypeError(\"%s must be %s, got {}\".format(%s.dtype))\n",
        t.name, dt, t.name, dt, t.name);
    body += absl::StrFormat(
        "    if %s.dim() != %d:\n"
        "        raise ValueError(\"%s must be %d-D [%s], got {}-D\".format(%s.dim()))\n",
        t.name, t.shape.size(), t.name, t.shape.size(), absl::StrJoin(t.shape, ", "), t.name);
    // Contiguity from stride()/size() only: is_contiguous() is outside the wrapper
    // boundary's metadata allowlist (kb constraints/wrapper-boundary.md).
    {
      const int nd = static_cast<int>(t.shape.size());
      std::vector<std::string> conds;
      if (nd > 0) conds.push_back(absl::StrFormat("%s.stride(%d) != 1", t.name, nd - 1));
      for (int i = nd - 2; i >= 0; --i)
        conds.push_back(absl::StrFormat("%s.stride(%d) != %s.stride(%d) * %s.size(%d)", t.name, i,
                                        t.name, i + 1, t.name, i + 1));
      if (!conds.empty())
        body += absl::StrFormat(
            "    if %s:\n"
            "        raise ValueError(\"%s must be contiguous (row-major strides)\")\n",
            absl::StrJoin(conds, " or "), t.name);
    }
    for (size_t i = 0; i < t.shape.size(); ++i) {
      const std::string& d = t.shape[i];
      std::string ref = absl::StrFormat("%s.shape[%d]", t.name, i);
      if (IsNumeric(d)) {
        body += absl::StrFormat(
            "    if %s != %s:\n"
            "        raise ValueError(\"%s must be %s, got {}\".format(%s))\n",
            ref, d, ref, d, ref);
        continue;
      }
      if (!bound.count(d)) {
        bound[d] = ref;
        symbols.insert(d);
        body += absl::StrFormat("    %s = %s\n", SymbolVar(d, ctx), ref);
        auto r = spec.dynamic_axes.find(d);
        if (r != spec.dynamic_axes.end())
          body += absl::StrFormat(
              "    if not %d <= %s <= %d:\n"
              "        raise ValueError(\"%s must be in [%d, %d], got {}\".format(%s))\n",
              r->second.first, SymbolVar(d, ctx), r->second.second, d, r->second.first,
              r->second.second, SymbolVar(d, ctx));
      } else {
        body += absl::StrFormat(
            "    if %s != %s:\n"
            "        raise ValueError(\"%s must equal %s, got {} and {}\".format(%s, %s))\n",
            ref, SymbolVar(d, ctx), ref, bound[d], ref, SymbolVar(d, ctx));
      }
    }
  }
  for (const WrapperCheck& c : checks) {
    Diagnostics cp;
    auto ce = py::ParseExpression(c.count, ctx.file(), &cp);
    std::string cbad;
    std::optional<std::string> count;
    if (ce.ok()) count = Formula(**ce, symbols, ctx, &cbad);
    if (!count) {
      ctx.Violation("CODEGEN-WRAPPER", ctx.block_dim->line, "§5",
                    "the structure's argument check `" + c.count + "` cannot be written on the "
                    "host from the SPEC dimensions and §2.1 constants");
      continue;
    }
    body += absl::StrFormat("    if (%s) %% %s != 0:\n        raise ValueError(%s)\n", *count,
                            c.multiple_of, PyStr(c.message));
  }
  // Outputs: the SPEC outputs, or in an L1 round every launch argument that is no input
  // (Module outputs and GM workspaces), each allocated with torch.empty.
  std::vector<std::string> outs;
  std::vector<SpecTensor> allocs;
  if (ctx.round_args.empty()) {
    allocs = spec.outputs;
  } else {
    for (const auto& a : ctx.round_args) {
      bool input = false;
      for (const auto& t : spec.inputs) input |= t.name == a;
      if (input) continue;
      if (const SpecTensor* t = ctx.FindTensor(a)) allocs.push_back(*t);
    }
  }
  for (const auto& o : allocs) {
    {
      std::vector<std::string> dims;
      for (const auto& d : o.shape) {
        if (IsNumeric(d))
          dims.push_back(d);
        else if (symbols.count(d))
          dims.push_back(SymbolVar(d, ctx));
        else
          ctx.Violation("CODEGEN-OUTPUT-SHAPE", spec.line, "SPEC",
                        absl::StrFormat("output %s has dimension %s that no input binds", o.name,
                                        d),
                        d);
      }
      body += absl::StrFormat("    %s = torch.empty((%s%s), dtype=%s, device=%s.device)\n",
                              o.name, absl::StrJoin(dims, ", "), dims.size() == 1 ? "," : "",
                              TorchDType(*o.dtype), spec.inputs.front().name);
    }
    outs.push_back(o.name);
  }
  // block_dim.
  Diagnostics parse;
  auto fexpr = py::ParseExpression(ctx.block_dim->tasks_formula, ctx.file(), &parse);
  std::string bad;
  std::optional<std::string> tasks;
  if (fexpr.ok()) tasks = Formula(**fexpr, symbols, ctx, &bad);
  if (!tasks) {
    ctx.Violation("CODEGEN-BLOCK-DIM-FORMULA", ctx.block_dim->line, "§5",
                  absl::StrFormat("the §5 formula `%s = %s` cannot be evaluated on the host from "
                                  "the SPEC dimensions and §2.1 constants%s",
                                  ctx.block_dim->tasks_var, ctx.block_dim->tasks_formula,
                                  bad.empty() ? "" : " (unknown: " + bad + ")"));
    return std::nullopt;
  }
  body += absl::StrFormat("    %s = %s\n", ctx.block_dim->tasks_var, *tasks);
  body += absl::StrFormat("    block_dim = min(get_platform_info().%s, %s)\n", cores,
                          ctx.block_dim->tasks_var);
  body += absl::StrFormat("    %s[None, block_dim](%s)\n", kernel,
                          absl::StrJoin(ctx.round_args.empty() ? ctx.launch->args : ctx.round_args,
                                        ", "));
  const std::string allocated = absl::StrJoin(outs, ", ");
  if (!ctx.returns.empty()) outs = ctx.returns;
  body += absl::StrFormat("    return %s\n", absl::StrJoin(outs, ", "));
  std::string doc = absl::StrFormat(
      "    \"\"\"Checks the arguments, allocates %s and launches %s exactly once (DESIGN §5).\"\"\"\n",
      allocated, kernel);
  std::string src =
      absl::StrFormat("def %s(%s):\n", ctx.wrapper, absl::StrJoin(params, ", ")) + doc + body;
  std::vector<py::StmtPtr> out = ParseSnippet(src);
  if (out.empty())
    ctx.Violation("CODEGEN-WRAPPER", ctx.block_dim->line, "§5",
                  "the wrapper derived from §5 and SPEC is not valid Python", src);
  if (ctx.diags->ErrorCount() > errors_before) return std::nullopt;
  return out;
}

std::optional<EmittedTests> EmitTests(GenContext& ctx) {
  const size_t errors_before = ctx.diags->ErrorCount();
  const SpecContract& spec = *ctx.spec;
  EmittedTests out;
  const auto cases = ctx.design->TestCases();
  const int s8 = ctx.design->FindSection(8) ? ctx.design->FindSection(8)->line : 0;
  if (cases.empty()) {
    ctx.Violation("CODEGEN-NO-CASES", s8, "§8", "DESIGN §8 lists no test case");
    return std::nullopt;
  }
  static const std::regex kIdent(R"(^test_[A-Za-z0-9_]+$)");
  std::set<std::string> seen;
  const SpecTensor& first = spec.inputs.front();
  for (const auto& c : cases) {
    if (!std::regex_match(c.name, kIdent)) {
      ctx.Violation("CODEGEN-CASE-NAME", c.line, "§8",
                    "§8 case name `" + c.name + "` is not a Python test function name test_*");
      continue;
    }
    if (!seen.insert(c.name).second) {
      ctx.Violation("CODEGEN-CASE-DUPLICATE", c.line, "§8",
                    "§8 lists case " + c.name + " more than once");
      continue;
    }
    std::map<std::string, std::int64_t> env;
    if (!c.dims.empty()) {
      // `M=300, K=200, N=500`: each SPEC shape symbol by name.
      std::set<std::string> known;
      for (const auto& t : spec.inputs)
        for (const auto& d : t.shape)
          if (!IsNumeric(d)) known.insert(d);
      bool bad = false;
      for (const auto& [sym, v] : c.dims) {
        if (!known.count(sym) || v <= 0 || env.count(sym)) {
          ctx.Violation("CODEGEN-CASE-SHAPE", c.line, "§8",
                        absl::StrFormat("§8 case %s sets %s=%d, which is not a positive value of "
                                        "a SPEC input shape symbol (%s) given once",
                                        c.name, sym, v, absl::StrJoin(known, ", ")));
          bad = true;
          continue;
        }
        env[sym] = v;
        auto r = spec.dynamic_axes.find(sym);
        if (r != spec.dynamic_axes.end() && (v < r->second.first || v > r->second.second))
          ctx.Violation("CODEGEN-CASE-RANGE", c.line, "§8",
                        absl::StrFormat("§8 case %s sets %s=%d outside the SPEC range [%d, %d]",
                                        c.name, sym, v, r->second.first, r->second.second));
      }
      if (bad) continue;
    } else {
      if (c.shape.size() != first.shape.size() ||
          std::any_of(c.shape.begin(), c.shape.end(), [](std::int64_t d) { return d <= 0; })) {
        ctx.Violation("CODEGEN-CASE-SHAPE", c.line, "§8",
                      absl::StrFormat("§8 case %s has shape `%s`, which is not a %d-D positive "
                                      "shape of input %s [%s]",
                                      c.name, c.shape_text, first.shape.size(), first.name,
                                      absl::StrJoin(first.shape, ", ")));
        continue;
      }
      for (size_t i = 0; i < first.shape.size(); ++i) {
        if (IsNumeric(first.shape[i]) && std::stoll(first.shape[i]) != c.shape[i]) {
          ctx.Violation("CODEGEN-CASE-SHAPE", c.line, "§8",
                        absl::StrFormat("§8 case %s sets dimension %d to %d but SPEC fixes it to %s",
                                        c.name, i, c.shape[i], first.shape[i]));
        }
        env[first.shape[i]] = c.shape[i];
        auto r = spec.dynamic_axes.find(first.shape[i]);
        if (r != spec.dynamic_axes.end() &&
            (c.shape[i] < r->second.first || c.shape[i] > r->second.second))
          ctx.Violation("CODEGEN-CASE-RANGE", c.line, "§8",
                        absl::StrFormat("§8 case %s sets %s=%d outside the SPEC range [%d, %d]",
                                        c.name, first.shape[i], c.shape[i], r->second.first,
                                        r->second.second));
      }
    }
    std::string body;
    std::vector<std::string> names;
    bool ok = true;
    for (const auto& t : spec.inputs) {
      std::vector<std::string> dims;
      for (const auto& d : t.shape) {
        if (IsNumeric(d))
          dims.push_back(d);
        else if (env.count(d))
          dims.push_back(std::to_string(env[d]));
        else {
          ctx.Violation("CODEGEN-CASE-SHAPE", c.line, "§8",
                        absl::StrFormat("§8 case %s does not determine dimension %s of input %s",
                                        c.name, d, t.name));
          ok = false;
        }
      }
      double lo = -1.0, hi = 1.0;
      if (t.value_range) {
        lo = t.value_range->first;
        hi = t.value_range->second;
      }
      body += absl::StrFormat("    %s = _make_input([%s], %s, %s, %s, device)\n", t.name,
                              absl::StrJoin(dims, ", "), TorchDType(*t.dtype), PyNumber(lo),
                              PyNumber(hi));
      names.push_back(t.name);
    }
    if (!ok) continue;
    std::vector<std::string> outs = ctx.returns;
    if (outs.empty())
      for (const auto& o : spec.outputs) outs.push_back(o.name);
    const std::string label = c.name + " " + c.shape_text;
    std::string doc = "DESIGN §8 case " + c.name + " " + c.shape_text;
    if (!c.scene.empty()) doc += ": " + c.scene;
    std::string src = absl::StrFormat(
        "def %s():\n"
        "    %s\n"
        "    from %s import _get_device\n"
        "    device = _get_device()\n"
        "    torch.manual_seed(42)\n"
        "%s"
        "    %s = %s(%s)\n"
        "    _assert_precision(%s, %s, label=%s)\n",
        c.name, PyStr(doc), ctx.device_golden, body, absl::StrJoin(outs, ", "), ctx.wrapper,
        absl::StrJoin(names, ", "),
        outs.size() == 1 ? outs[0] : "(" + absl::StrJoin(outs, ", ") + ")",
        absl::StrJoin(names, ", "), PyStr(label));
    auto stmts = ParseSnippet(src);
    if (stmts.empty()) {
      ctx.Violation("CODEGEN-CASE-NAME", c.line, "§8", "the test for this case is not valid Python",
                    src);
      continue;
    }
    out.names.push_back(c.name);
    for (auto& s : stmts) out.defs.push_back(std::move(s));
  }
  if (ctx.diags->ErrorCount() > errors_before) return std::nullopt;
  if (out.names.size() < 4)
    ctx.Warn("CODEGEN-FEW-CASES", s8, "§8",
             absl::StrFormat("§8 has %d case(s); the template asks for at least 4 (aligned, "
                             "tail, tail2d, multitile)",
                             out.names.size()));
  return out;
}

std::vector<py::StmtPtr> EmitMain(const GenContext& ctx, const std::vector<std::string>& tests) {
  std::string src = "if __name__ == \"__main__\":\n";
  for (const auto& t : tests) src += "    " + t + "()\n";
  src += absl::StrFormat("    print(%s, flush=True)\n",
                         PyStr(absl::StrFormat("%s: %d DESIGN §8 case(s) PASS", ctx.op,
                                               tests.size())));
  return ParseSnippet(src);
}

}  // namespace opdev::codegen
