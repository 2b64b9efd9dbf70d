// Function and loop nesting of a kernel line (see code_context.h).
#include "opdev/triage/code_context.h"

#include "absl/strings/str_cat.h"

namespace opdev::triage {
namespace {

bool Contains(const py::Stmt& s, int line) {
  return s.span.line <= line && line <= (s.span.end_line ? s.span.end_line : s.span.line);
}

bool IsLoop(const py::Stmt& s) {
  return s.kind == py::StmtKind::kFor || s.kind == py::StmtKind::kWhile;
}

std::string Ordinal(int n) {
  const char* suf = (n % 100 >= 11 && n % 100 <= 13) ? "th"
                    : n % 10 == 1                     ? "st"
                    : n % 10 == 2                     ? "nd"
                    : n % 10 == 3                     ? "rd"
                                                      : "th";
  return absl::StrCat(n, suf);
}

void Descend(const std::vector<py::StmtPtr>& body, int line, LineContext& ctx) {
  int loops = 0;
  for (const auto& s : body)
    if (IsLoop(*s)) ++loops;
  int index = 0;
  for (const auto& s : body) {
    if (IsLoop(*s)) ++index;
    if (!Contains(*s, line)) continue;
    if (s->kind == py::StmtKind::kFunctionDef) {
      ctx.function = s->name;
      ctx.function_line = s->span.line;
      ctx.function_end = s->span.end_line;
      ctx.loops.clear();  // loops of an enclosing function do not nest the inner def's code
    } else if (IsLoop(*s)) {
      LoopContext l;
      l.line = s->span.line;
      l.end_line = s->span.end_line;
      l.index = index;
      l.siblings = loops;
      if (s->target && s->target->kind == py::ExprKind::kName) l.target = s->target->id;
      ctx.loops.push_back(l);
    }
    Descend(s->body, line, ctx);
    Descend(s->orelse, line, ctx);
    Descend(s->finalbody, line, ctx);
    for (const auto& h : s->handlers) Descend(h.body, line, ctx);
    return;
  }
}

}  // namespace

std::string LineContext::Describe() const {
  const LoopContext* l = Innermost();
  std::string where = function.empty() ? "" : absl::StrCat(" of ", function);
  if (!l) return function.empty() ? "" : absl::StrCat("in ", function);
  std::string which = l->siblings > 1 ? absl::StrCat("the ", Ordinal(l->index), " of ", l->siblings, " loops")
                                      : "the loop";
  return absl::StrCat(which, " (line ", l->line, l->target.empty() ? "" : ", over " + l->target, ")", where);
}

LineContext DescribeLine(const py::Module& module, int line) {
  LineContext ctx;
  Descend(module.body, line, ctx);
  return ctx;
}

}  // namespace opdev::triage
