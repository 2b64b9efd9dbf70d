// The host CPU's instruction-set extensions that the run-time dispatched kernels choose by
// (the precision scan, the simulator's lane conversions and its exp), read once per process.
#pragma once

namespace opdev {

// AVX2 together with F16C (the fp16 <-> fp32 conversion instructions). False off x86-64.
bool CpuHasAvx2F16c();
// AVX2 together with FMA (fused multiply-add). False off x86-64.
bool CpuHasAvx2Fma();
// AVX-512 F, BW, DQ and VL on top of AVX2 + F16C. False off x86-64.
bool CpuHasAvx512();

}  // namespace opdev
