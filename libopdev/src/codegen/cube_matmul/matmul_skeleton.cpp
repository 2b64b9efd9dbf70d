// Building the dynamic two-level-K matmul kernel region from a matmul plan (see
// matmul_skeleton.h).
#include "matmul_skeleton.h"

#include "../ast_util.h"

#include "opdev/pyfront/parser.h"
#include "opdev/pyfront/printer.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace opdev::codegen::cube_matmul {
namespace {

std::string Ids(const std::vector<std::int64_t>& ids) { return "[" + absl::StrJoin(ids, ", ") + "]"; }

void Group(LineMappedSource& src, int indent, const CubeGroup& g) {
  src.Add(indent,
          absl::StrFormat("%s = pl.make_tile_group(type=%s, addrs=%s, mutex_ids=%s)", g.group,
                          g.type_var, g.addrs, Ids(g.mutex_ids)),
          g.tile->line);
}

}  // namespace

bool BuildMatmulSkeleton(const MatmulPlan& p, DesignCode& code, GenContext& ctx) {
  LineMappedSource src;
  const int L = p.line;
  const std::string TM = p.tm.name, TK1 = p.tk1.name, TK0 = p.tk0.name, TN = p.tn.name;
  const std::string acc = p.acc.group + ".current()";
  const std::string A = p.a_l1.slot_var, B = p.b_l1.slot_var, LEFT = p.left.slot_var,
                    RIGHT = p.right.slot_var;
  src.Add(0, absl::StrFormat("def %s(%s):", ctx.launch->kernel, absl::StrJoin(ctx.launch->args, ", ")),
          L);
  src.Add(1, "with pl.section_cube():", L);
  src.Add(2, "num_cores = pl.get_block_num()", L);
  src.Add(2, "core_id = pl.get_block_idx()", L);
  src.Add(2, absl::StrFormat("m = %s.shape[0]", p.a), L);
  src.Add(2, absl::StrFormat("k = %s.shape[1]", p.a), L);
  src.Add(2, absl::StrFormat("n = %s.shape[1]", p.b), L);
  for (const CubeGroup* g : {&p.a_l1, &p.b_l1, &p.left, &p.right, &p.acc}) Group(src, 2, *g);
  src.Add(2, "pl.system.set_mm_layout_transform(enabled=True)", L);
  src.Add(2, absl::StrFormat("m_tiles = (m + %s - 1) // %s", TM, TM), p.tm.line);
  src.Add(2, absl::StrFormat("n_tiles = (n + %s - 1) // %s", TN, TN), p.tn.line);
  src.Add(2, "total_tiles = m_tiles * n_tiles", L);
  src.Add(2, absl::StrFormat("k_outer = (k + %s - 1) // %s", TK1, TK1), p.tk1.line);
  src.Add(2, absl::StrFormat("last_sub = (k + %s - 1) // %s - 1", TK0, TK0), p.tk0.line);
  src.Add(2, "for tile_id in pl.range(core_id, total_tiles, num_cores):", L);
  if (p.asw) {
    const std::string W = p.window.name;
    const int wl = p.window.line;
    src.Add(3, absl::StrFormat("column = tile_id // n_tiles // %s", W), wl);
    src.Add(3, absl::StrFormat("mi = column * %s + tile_id %% %s", W, W), wl);
    src.Add(3, absl::StrFormat("ni_forward = (tile_id // %s) %% n_tiles", W), wl);
    src.Add(3, "ni = ni_forward + (column % 2) * (n_tiles - 1 - 2 * ni_forward)", wl);
  } else {
    src.Add(3, "mi = tile_id // n_tiles", L);
    src.Add(3, "ni = tile_id % n_tiles", L);
  }
  src.Add(3, absl::StrFormat("i = mi * %s", TM), p.tm.line);
  src.Add(3, absl::StrFormat("j = ni * %s", TN), p.tn.line);
  src.Add(3, absl::StrFormat("valid_m = pl.min(%s, m - i)", TM), p.tm.line);
  src.Add(3, absl::StrFormat("valid_n = pl.min(%s, n - j)", TN), p.tn.line);
  src.Add(3, "for ko in pl.range(0, k_outer):", p.tk1.line);
  src.Add(4, absl::StrFormat("k_off = ko * %s", TK1), p.tk1.line);
  src.Add(4, absl::StrFormat("valid_k1 = pl.min(%s, k - k_off)", TK1), p.tk1.line);
  src.Add(4, absl::StrFormat("%s = %s.next()", A, p.a_l1.group), p.a_l1.tile->line);
  src.Add(4, absl::StrFormat("pl.set_validshape(%s, [valid_m, valid_k1])", A), p.a_l1.tile->line);
  src.Add(4, absl::StrFormat("pl.load(%s, %s, [i, k_off])", A, p.a), p.a_l1.tile->line);
  src.Add(4, absl::StrFormat("%s = %s.next()", B, p.b_l1.group), p.b_l1.tile->line);
  src.Add(4, absl::StrFormat("pl.set_validshape(%s, [valid_k1, valid_n])", B), p.b_l1.tile->line);
  src.Add(4, absl::StrFormat("pl.load(%s, %s, [k_off, j])", B, p.b), p.b_l1.tile->line);
  src.Add(4, absl::StrFormat("n_sub = (valid_k1 + %s - 1) // %s", TK0, TK0), p.tk0.line);
  src.Add(4, "for ki in pl.range(0, n_sub):", p.tk0.line);
  src.Add(5, absl::StrFormat("sub_off = ki * %s", TK0), p.tk0.line);
  src.Add(5, absl::StrFormat("sub_k = pl.min(%s, valid_k1 - sub_off)", TK0), p.tk0.line);
  src.Add(5, absl::StrFormat("gsub = (k_off + sub_off) // %s", TK0), p.tk0.line);
  const int ll = p.left.tile->line, rl = p.right.tile->line;
  src.Add(5, absl::StrFormat("pl.set_validshape(%s, [%s, sub_k])", A, TM), ll);
  src.Add(5, absl::StrFormat("%s = %s.next()", LEFT, p.left.group), ll);
  src.Add(5, absl::StrFormat("pl.move(%s, %s, offset=[0, sub_off])", LEFT, A), ll);
  src.Add(5, absl::StrFormat("pl.set_validshape(%s, [%s, sub_k])", LEFT, TM), ll);
  src.Add(5, absl::StrFormat("pl.set_validshape(%s, [sub_k, %s])", B, TN), rl);
  src.Add(5, absl::StrFormat("%s = %s.next()", RIGHT, p.right.group), rl);
  src.Add(5, absl::StrFormat("pl.move(%s, %s, offset=[sub_off, 0])", RIGHT, B), rl);
  src.Add(5, absl::StrFormat("pl.set_validshape(%s, [sub_k, %s])", RIGHT, TN), rl);
  const int al = p.acc.tile->line;
  src.Add(5, "if gsub == 0:", al);
  src.Add(6, "if gsub == last_sub:", al);
  src.Add(7, absl::StrFormat("pl.matmul(%s, %s, %s, phase=pl.AccPhase.Final)", acc, LEFT, RIGHT), al);
  src.Add(6, "else:", al);
  src.Add(7, absl::StrFormat("pl.matmul(%s, %s, %s, phase=pl.AccPhase.Partial)", acc, LEFT, RIGHT), al);
  src.Add(5, "else:", al);
  src.Add(6, "if gsub == last_sub:", al);
  src.Add(7, absl::StrFormat("pl.matmul_acc(%s, %s, %s, %s, phase=pl.AccPhase.Final)",
                             acc, acc, LEFT, RIGHT),
          al);
  src.Add(6, "else:", al);
  src.Add(7, absl::StrFormat("pl.matmul_acc(%s, %s, %s, %s, phase=pl.AccPhase.Partial)",
                             acc, acc, LEFT, RIGHT),
          al);
  src.Add(3, absl::StrFormat("pl.set_validshape(%s, [valid_m, valid_n])", acc), al);
  src.Add(3, absl::StrFormat("pl.store(%s, %s, [i, j], phase=pl.STPhase.Final)", p.c, acc), al);
  src.Add(2, "pl.system.set_mm_layout_transform(enabled=False)", L);

  Diagnostics pd;
  auto mod = py::ParseModule(src.text(), ctx.file(), &pd);
  if (!mod.ok() || mod->body.size() != 1) {
    ctx.diags
        ->Error("CODEGEN-CUBE-INTERNAL", category::kImplementationError, ctx.file(), L,
                "the matmul structure produced code that does not parse: " +
                    std::string(mod.ok() ? "unexpected statements" : mod.status().message()))
        .evidence = src.text();
    return false;
  }
  RemapLines(*mod, src);
  py::StmtPtr& def = mod->body.front();
  CodeRegion r;
  r.kind = RegionKind::kKernel;
  r.name = def->name;
  r.decorator = "pl.jit(auto_mutex=True)";
  r.line = L;
  r.from_def = true;
  for (const auto& a : def->args->args) {
    r.params.push_back(a.arg);
    r.param_annotations.push_back("");
  }
  r.ast.filename = ctx.file();
  r.ast.body = std::move(def->body);
  code.regions.push_back(std::move(r));
  Diagnostic note{"CODEGEN-CUBE-SKELETON", Severity::kNote,
                  std::string(category::kDesignViolation), ctx.file(), L, 0, "§1",
                  absl::StrFormat("§1 freezes the matmul API sequence and parameters without "
                                  "kernel code: generated the dynamic two-level-K matmul "
                                  "structure (TM=%s=%d, TK1=%s=%d, TK0=%s=%d, TN=%s=%d, %s order)",
                                  TM, p.tm.value, TK1, p.tk1.value, TK0, p.tk0.value, TN,
                                  p.tn.value, p.asw ? "ASW snake" : "raster"),
                  ctx.DesignLine(L)};
  ctx.diags->Add(std::move(note));
  return true;
}

}  // namespace opdev::codegen::cube_matmul
