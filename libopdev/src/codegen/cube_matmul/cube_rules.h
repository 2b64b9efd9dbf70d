// Static rules of a Cube Module's kernel code, checked on the transcribed region before it is
// written. What cannot be transcribed faithfully is a design_violation (no Cube section, a
// Vector section or @pl.vector_function in a pure-Cube Module, no multi-core split); what the
// docs say hangs or corrupts an NPU but is still a faithful transcription is a warning, so the
// file is written as DESIGN says and the simulator and verdict expose it:
//   CODEGEN-CUBE-PHASE            a matmul with `phase=` but an Acc store without (or the reverse)
//   CODEGEN-CUBE-NO-FINAL         phases used but no matmul/matmul_acc with AccPhase.Final
//   CODEGEN-CUBE-LAYOUT-TRANSFORM matmul_acc (K-blocked accumulation) without
//                                 pl.system.set_mm_layout_transform(enabled=True)
#pragma once

#include "../design_code.h"
#include "../gen_context.h"

namespace opdev::codegen::cube_matmul {

void CheckCubeKernel(const CodeRegion& kernel, GenContext& ctx);

}  // namespace opdev::codegen::cube_matmul
