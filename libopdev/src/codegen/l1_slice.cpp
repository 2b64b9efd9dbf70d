// Module slices of a fused DESIGN §1 kernel for the L1 rounds (see l1_slice.h).
#include "l1_slice.h"

#include "ast_util.h"

#include "opdev/contract/module_interfaces.h"
#include "opdev/pyfront/printer.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <map>

namespace opdev::codegen {
namespace {

constexpr const char* kSetCross = "pl.system.set_cross_core";
constexpr const char* kWaitCross = "pl.system.wait_cross_core";

// "cube" / "vector" for a top-level `with pl.section_*():`, "" otherwise.
std::string SectionOf(const py::Stmt& s) {
  if (!s.Is(py::StmtKind::kWith) || s.items.size() != 1 || !s.items[0].context_expr) return "";
  const std::string n = py::CallName(*s.items[0].context_expr);
  if (n == "pl.section_cube") return "cube";
  if (n == "pl.section_vector") return "vector";
  return "";
}

bool IsDocOrPass(const py::Stmt& s) {
  if (s.Is(py::StmtKind::kPass)) return true;
  return s.Is(py::StmtKind::kExpr) && s.value && s.value->Is(py::ExprKind::kConstant) &&
         s.value->const_kind == py::ConstKind::kStr;
}

const py::Expr* CrossCoreCall(const py::Stmt& s) {
  if (!s.Is(py::StmtKind::kExpr) || !s.value || !s.value->Is(py::ExprKind::kCall)) return nullptr;
  const std::string n = py::CallName(*s.value);
  return n == kSetCross || n == kWaitCross ? s.value.get() : nullptr;
}

const py::Expr* Keyword(const py::Expr& call, const std::string& name) {
  for (const auto& k : call.keywords)
    if (k.arg == name) return k.value.get();
  return nullptr;
}

// The event a cross-core call uses: its event_id and sync_mode as written (the documented
// default sync mode is INTRA_BLOCK).
std::string EventKey(const py::Expr& call) {
  const py::Expr* id = Keyword(call, "event_id");
  const py::Expr* mode = Keyword(call, "sync_mode");
  std::string m = mode ? py::PrintExpr(*mode) : "pl.CrossCoreSyncMode.INTRA_BLOCK";
  return (id ? py::PrintExpr(*id) : "?") + " | " + m;
}

std::optional<std::int64_t> EventIdValue(const py::Expr& call, const GenContext& ctx) {
  const py::Expr* id = Keyword(call, "event_id");
  if (!id) return std::nullopt;
  if (id->Is(py::ExprKind::kConstant) && id->const_kind == py::ConstKind::kInt) {
    try {
      return std::stoll(id->value);
    } catch (...) {
      return std::nullopt;
    }
  }
  if (id->Is(py::ExprKind::kName)) {
    auto it = ctx.constants.find(id->id);
    if (it != ctx.constants.end()) return it->second;
  }
  return std::nullopt;
}

void CollectCrossCore(const std::vector<py::StmtPtr>& body,
                      std::vector<const py::Expr*>* out) {
  ForEachStmt(body, [&](const py::Stmt& s) {
    if (const py::Expr* c = CrossCoreCall(s)) out->push_back(c);
  });
}

// Removes, at every depth, the cross-core statements whose event is not complete in this
// round. False when a block would become empty.
bool DropIncomplete(std::vector<py::StmtPtr>& body, const std::set<std::string>& incomplete,
                    int* dropped, std::vector<int>* lines, int* empty_line) {
  std::vector<py::StmtPtr> kept;
  bool ok = true;
  for (auto& s : body) {
    if (const py::Expr* c = CrossCoreCall(*s); c && incomplete.count(EventKey(*c))) {
      ++*dropped;
      lines->push_back(s->span.line);
      continue;
    }
    for (auto* nested : {&s->body, &s->orelse, &s->finalbody}) {
      if (nested->empty()) continue;
      if (!DropIncomplete(*nested, incomplete, dropped, lines, empty_line)) ok = false;
      if (nested->empty()) {
        *empty_line = s->span.line;
        ok = false;
      }
    }
    kept.push_back(std::move(s));
  }
  body = std::move(kept);
  return ok;
}

class NameReads : public py::AstVisitor {
 public:
  std::set<std::string> names;
  bool EnterExpr(const py::Expr& e) override {
    if (e.Is(py::ExprKind::kName)) names.insert(e.id);
    return true;
  }
};

std::set<std::string> CalledNames(const std::vector<py::StmtPtr>& body) {
  std::set<std::string> out;
  ForEachCallIn(body, [&](const py::Expr& c) {
    if (c.func && c.func->Is(py::ExprKind::kName)) out.insert(c.func->id);
  });
  return out;
}

}  // namespace

std::optional<FusedSlices> SliceFusedKernel(const contract::DesignDoc& design, int k,
                                            const std::vector<std::string>& launch_args,
                                            GenContext& ctx) {
  const size_t errors_before = ctx.diags->ErrorCount();
  const int s1 = design.FindSection(1) ? design.FindSection(1)->line : 0;
  Diagnostics scratch;  // the regions were already extracted (and reported) once
  auto full = ExtractDesignCode(design, &scratch, /*require_kernel=*/false);
  if (!full || !full->Kernel()) {
    ctx.Violation("CODEGEN-L1-NEEDS-KERNEL-CODE", s1, "§1",
                  "a Vector/Cube fusion is generated from the fused kernel DESIGN §1 writes (one "
                  "@pl.jit kernel with one section block per Module); §1 gives no kernel code");
    return std::nullopt;
  }
  const CodeRegion& kernel = *full->Kernel();

  // Section blocks against the §0 Modules.
  std::vector<const py::Stmt*> sections;
  for (const auto& s : kernel.ast.body) {
    if (IsDocOrPass(*s)) continue;
    if (SectionOf(*s).empty()) {
      ctx.Violation("CODEGEN-L1-MODULE-SECTIONS", s->span.line, "§1",
                    "a statement of the fused kernel lies outside every section block: each "
                    "Module's code (tiles, core split, loops) must be inside its own "
                    "`with pl.section_cube()` / `with pl.section_vector()` block so that a Module "
                    "round can keep exactly Modules 1..k");
      continue;
    }
    sections.push_back(s.get());
  }
  std::vector<contract::DesignModule> mods = design.Modules();
  std::stable_sort(mods.begin(), mods.end(),
                   [](const auto& a, const auto& b) { return a.index < b.index; });
  const int s0 = design.FindSection(0) ? design.FindSection(0)->line : 0;
  if (mods.size() != sections.size()) {
    ctx.Violation("CODEGEN-L1-MODULE-SECTIONS", kernel.line, "§1",
                  absl::StrFormat("the fused kernel has %d section block(s) but DESIGN §0 lists %d "
                                  "Module(s) (line %d): a Module round needs one section block "
                                  "per Module, in Module order",
                                  sections.size(), mods.size(), s0));
    return std::nullopt;
  }
  for (size_t i = 0; i < mods.size(); ++i) {
    const std::string want = contract::NormalizeSection(mods[i].section);
    const std::string got = SectionOf(*sections[i]);
    if (want != got)
      ctx.Violation("CODEGEN-L1-MODULE-SECTIONS", sections[i]->span.line, "§1",
                    absl::StrFormat("section block %d is section_%s but DESIGN §0 gives %s "
                                    "(line %d) section `%s`",
                                    i + 1, got, mods[i].name, mods[i].line, mods[i].section));
  }
  if (k < 1 || static_cast<size_t>(k) > mods.size()) {
    ctx.Violation("CODEGEN-L1-MODULE-SECTIONS", s0, "§0",
                  absl::StrFormat("Module %d is not one of the %d DESIGN §0 Modules", k,
                                  mods.size()));
    return std::nullopt;
  }
  if (ctx.diags->ErrorCount() > errors_before) return std::nullopt;

  // Which Modules use each event.
  std::map<std::string, std::set<int>> users;
  std::map<std::string, int> first_line;
  std::set<std::int64_t> code_ids;
  for (size_t i = 0; i < sections.size(); ++i) {
    std::vector<const py::Expr*> calls;
    CollectCrossCore(sections[i]->body, &calls);
    for (const py::Expr* c : calls) {
      const std::string key = EventKey(*c);
      users[key].insert(static_cast<int>(i) + 1);
      first_line.emplace(key, c->span.line);
      if (auto v = EventIdValue(*c, ctx)) code_ids.insert(*v);
      else
        ctx.Warn("CODEGEN-L1-EVENT", c->span.line, "§1",
                 "the event_id of this cross-core call is not a literal or §2.1 constant; it is "
                 "transcribed as written and not compared with the §6 event table");
    }
  }
  // The §6 event table states the same ids.
  const std::vector<contract::EventId> s6 = design.EventIds();
  const int s6_line = design.FindSection(6) ? design.FindSection(6)->line : 0;
  std::set<std::int64_t> table_ids;
  for (const auto& e : s6) table_ids.insert(e.id);
  for (std::int64_t id : code_ids)
    if (!table_ids.count(id))
      ctx.Violation("CODEGEN-L1-EVENT", s6_line, "§6",
                    absl::StrFormat("§1 uses cross-core event_id %d, which the §6 event table "
                                    "does not list: the connection between the sections must be "
                                    "the one §6 states",
                                    id));
  for (const auto& e : s6)
    if (!code_ids.count(e.id))
      ctx.Violation("CODEGEN-L1-EVENT", e.line, "§6",
                    absl::StrFormat("§6 lists event_id %d, which no set_cross_core / "
                                    "wait_cross_core of §1 uses",
                                    e.id));
  for (const auto& [key, mset] : users) {
    if (mset.size() == 1) {
      bool has_set = false, has_wait = false;
      for (size_t i = 0; i < sections.size(); ++i) {
        std::vector<const py::Expr*> calls;
        CollectCrossCore(sections[i]->body, &calls);
        for (const py::Expr* c : calls)
          if (EventKey(*c) == key) (py::CallName(*c) == kSetCross ? has_set : has_wait) = true;
      }
      if (!has_set || !has_wait)
        ctx.Warn("CODEGEN-L1-EVENT", first_line[key], "§1",
                 "event `" + key + "` is only " + (has_set ? "set" : "waited for") +
                     " in §1: transcribed as written");
    }
  }
  if (ctx.diags->ErrorCount() > errors_before) return std::nullopt;
  std::set<std::string> incomplete;
  for (const auto& [key, mset] : users)
    if (*mset.rbegin() > k) incomplete.insert(key);

  FusedSlices out;
  std::set<std::string> reads;
  for (int j = 1; j <= k; ++j) {
    Diagnostics again;
    auto code = ExtractDesignCode(design, &again, /*require_kernel=*/false);
    if (!code || !code->Kernel()) return std::nullopt;
    ModuleSlice slice;
    slice.module = j;
    slice.section = SectionOf(*sections[j - 1]);
    slice.section_line = sections[j - 1]->span.line;
    CodeRegion* kr = nullptr;
    for (auto& r : code->regions)
      if (r.kind == RegionKind::kKernel) kr = &r;
    std::vector<py::StmtPtr> body;
    for (auto& s : kr->ast.body)
      if (s->span.line == slice.section_line && !SectionOf(*s).empty()) body.push_back(std::move(s));
    kr->ast.body = std::move(body);
    int dropped = 0, empty_line = 0;
    std::vector<int> lines;
    if (!DropIncomplete(kr->ast.body, incomplete, &dropped, &lines, &empty_line)) {
      ctx.Violation("CODEGEN-L1-EMPTY-BODY", empty_line, "§1",
                    absl::StrFormat("leaving out the cross-core calls of later Modules empties "
                                    "this block in the Module %d round",
                                    k));
      return std::nullopt;
    }
    for (int l : lines)
      ctx.diags->Add(Diagnostic{
          "CODEGEN-L1-SYNC-LATER", Severity::kNote, std::string(category::kDesignViolation),
          ctx.file(), l, 0, "§1",
          absl::StrFormat("this cross-core call pairs with a Module after Module %d; the Module "
                          "%d round leaves it out and the round that adds its partner keeps it "
                          "as written",
                          k, k),
          ctx.DesignLine(l)});
    out.dropped_sync += dropped;
    // Vector functions: only those this Module calls.
    const std::set<std::string> called = CalledNames(kr->ast.body);
    std::vector<CodeRegion> regions;
    for (auto& r : code->regions)
      if (r.kind != RegionKind::kVectorFunction || called.count(r.name))
        regions.push_back(std::move(r));
    code->regions = std::move(regions);
    for (auto& r : code->regions)
      if (r.kind == RegionKind::kKernel) {
        ForEachStmt(r.ast.body, [&](const py::Stmt& s) {
          if (s.Is(py::StmtKind::kAssign))
            for (const auto& t : s.targets)
              if (t->Is(py::ExprKind::kName)) out.declared.insert(t->id);
        });
        NameReads nr;
        for (const auto& s : r.ast.body) py::Walk(*s, nr);
        reads.insert(nr.names.begin(), nr.names.end());
      }
    slice.code = std::move(*code);
    out.modules.push_back(std::move(slice));
  }
  for (const auto& a : launch_args)
    if (reads.count(a)) out.used_params.push_back(a);
  return out;
}

}  // namespace opdev::codegen
