// S4-5 (no cheating) and the cheating part of MC-5. Mechanical rules: ① exactly one
// @pl.jit kernel, ② the wrapper's chain launches it exactly once, ③ not inside a host loop,
// ④ no non-Pro `import pypto`. Semantic rules: ⑤ no value-dependent host operation and no
// host compute, ⑥ nothing after the launch changes the kernel's output (host_chain.h; the
// simulator's output coverage is added by the run evidence), ⑦ no wrapper guard that
// narrows SPEC's range, ⑧ the tests' data match DESIGN §8 and SPEC (semantic_rules.h).
#include "host_chain.h"
#include "semantic_rules.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace opdev::selfcheck {
namespace {

bool IsNonProPypto(const std::string& module) {
  return module == "pypto" || module.rfind("pypto.", 0) == 0;
}

}  // namespace

ItemResult CheckNoCheating(const CheckContext& c) {
  ItemResult r;
  const KernelFile& f = *c.file;
  std::vector<std::string> evidence;
  auto jits = f.Jits();
  if (jits.size() != 1) {
    std::vector<std::string> names;
    for (auto* j : jits) names.push_back(j->name);
    AddFinding(&r.findings, f, "SC-JIT-COUNT", cat::kCheating, jits.empty() ? 1 : jits[1]->line,
               absl::StrCat("exactly one @pl.jit kernel is required, found ", jits.size(),
                            names.empty() ? "" : absl::StrCat(" (", absl::StrJoin(names, ", "), ")")),
               f.rel);
  }
  for (const auto& i : f.imports)
    if (IsNonProPypto(i.module) || (!i.is_from && IsNonProPypto(i.names.front())))
      AddFinding(&r.findings, f, "SC-NON-PRO-PYPTO", cat::kCheating, i.line,
                 absl::StrCat("imports the non-Pro `", i.module, "`"));
  evidence.push_back(absl::StrCat("①–④: ", jits.size(), " @pl.jit kernel(s)"));
  const FunctionInfo* w = f.Find(c.wrapper);
  if (jits.size() == 1 && w) {
    const std::string kernel = jits[0]->name;
    int launches = 0;
    for (const auto& fn : Reachable(f, w->name)) {
      for (const auto* call : f.CallsIn(fn)) {
        bool launch = call->launched == kernel || call->name == kernel;
        if (!launch) continue;
        ++launches;
        if (call->loop_depth > 0)
          AddFinding(&r.findings, f, "SC-LAUNCH-IN-LOOP", cat::kCheating, call->line,
                     absl::StrCat("the kernel launch in ", fn, " is inside a host loop"));
      }
    }
    if (launches != 1)
      AddFinding(&r.findings, f, "SC-LAUNCH-COUNT", cat::kCheating, w->line,
                 absl::StrCat(c.wrapper, " must launch ", kernel, " exactly once; found ", launches,
                              " launch site(s)"));
  }
  if (w) {
    HostChainAudit audit = AuditHostChain(c);
    r.findings.Append(audit.cheating);
    evidence.push_back(absl::StrCat("⑤⑥: host chain ", absl::StrJoin(audit.traced, ", "), ", ",
                                    audit.cheating.size(), " cheating operation(s)",
                                    audit.outputs.empty() ? ""
                                                          : absl::StrCat(", output(s) ", absl::StrJoin(audit.outputs, ", "))));
  } else {
    evidence.push_back(absl::StrCat("⑤⑥: no ", c.wrapper, " (S4-12)"));
  }
  if (!c.module_mode) {
    std::string e7, e8;
    r.findings.Append(CheckRangeGuards(c, &e7));
    r.findings.Append(CheckTestData(c, &e8));
    evidence.push_back(e7);
    evidence.push_back(e8);
  }
  r.evidence = absl::StrJoin(evidence, "; ");
  Conclude(&r);
  return r;
}

}  // namespace opdev::selfcheck
