// Static rules of a Cube Module's kernel code (see cube_rules.h).
#include "cube_rules.h"

#include "../ast_util.h"

#include "opdev/pyfront/printer.h"

#include "absl/strings/str_format.h"

namespace opdev::codegen::cube_matmul {

void CheckCubeKernel(const CodeRegion& kernel, GenContext& ctx) {
  const auto& body = kernel.ast.body;
  bool cube = false, block_idx = false, block_num = false, layout_on = false;
  int first_phase_mm = 0, first_plain_mm = 0, first_acc = 0;
  int first_phase_store = 0, first_plain_store = 0;
  bool final_phase = false;
  ForEachCallIn(body, [&](const py::Expr& c) {
    const std::string n = py::CallName(c);
    const int line = c.span.line;
    if (n == "pl.section_cube") cube = true;
    if (n == "pl.section_vector")
      ctx.Violation("CODEGEN-NOT-PURE-CUBE", line, "§1",
                    "a section_vector inside a pure-Cube Module: a Vector/Cube fusion is generated "
                    "Module by Module in L1 rounds");
    if (n == "pl.get_block_idx") block_idx = true;
    if (n == "pl.get_block_num") block_num = true;
    if (n == "pl.system.set_mm_layout_transform") {
      const py::Expr* en = py::FindKeyword(c, "enabled");
      if (en && py::PrintExpr(*en) == "True") layout_on = true;
    }
    if (n == "pl.matmul" || n == "pl.matmul_acc" || n == "pl.matmul_mx" ||
        n == "pl.matmul_mx_acc") {
      const py::Expr* ph = py::FindKeyword(c, "phase");
      if (ph) {
        if (!first_phase_mm) first_phase_mm = line;
        if (py::PrintExpr(*ph).find("Final") != std::string::npos) final_phase = true;
      } else if (!first_plain_mm) {
        first_plain_mm = line;
      }
      if ((n == "pl.matmul_acc" || n == "pl.matmul_mx_acc") && !first_acc) first_acc = line;
    }
    if (n == "pl.store" || n == "pl.store_tile") {
      // Acc stores are the ones with a phase partner; a store of a Vec tile has none. The
      // source tile's space is not known here, so a store counts when the kernel matmuls.
      if (py::FindKeyword(c, "phase")) {
        if (!first_phase_store) first_phase_store = line;
      } else if (!first_plain_store) {
        first_plain_store = line;
      }
    }
  });
  if (!cube)
    ctx.Violation("CODEGEN-NO-CUBE-SECTION", kernel.line, "§1",
                  "the Cube Module's kernel code has no `with pl.section_cube():` block");
  if (!block_idx || !block_num)
    ctx.Violation("CODEGEN-NO-CORE-LOOP", kernel.line, "§4",
                  "the kernel code does not split its output tiles over the cores with "
                  "pl.get_block_idx() and pl.get_block_num() (§4/§5 core split)");
  if (first_phase_mm && first_plain_store)
    ctx.Warn("CODEGEN-CUBE-PHASE", first_plain_store, "§6",
             absl::StrFormat("matmul at line %d sets phase= but this store has no phase=: the "
                             "M/FIX unit-flag handshake never completes and the device hangs "
                             "(transcribed as written)",
                             first_phase_mm));
  if (first_phase_store && !first_phase_mm && (first_plain_mm || first_acc))
    ctx.Warn("CODEGEN-CUBE-PHASE", first_phase_store, "§6",
             "this store sets phase= but no matmul does: the handshake has no producer and the "
             "device hangs (transcribed as written)");
  if (first_phase_mm && !final_phase)
    ctx.Warn("CODEGEN-CUBE-NO-FINAL", first_phase_mm, "§6",
             "matmuls set phase= but none uses pl.AccPhase.Final: the accumulation never "
             "completes (transcribed as written)");
  if (first_acc && !layout_on)
    ctx.Warn("CODEGEN-CUBE-LAYOUT-TRANSFORM", first_acc, "§1",
             "K-blocked accumulation (matmul_acc) without "
             "pl.system.set_mm_layout_transform(enabled=True) before the K loop (a hard "
             "requirement of K-blocked accumulation; transcribed as written)");
}

}  // namespace opdev::codegen::cube_matmul
