// The simulator's fp32 exp over arrays of lanes. Its values are the host C library's expf
// (std::exp of a float), bit for bit: the runs' outputs must not depend on how many lanes are
// evaluated at once. On x86-64 CPUs with AVX2 and FMA, where glibc's expf is its table-driven
// FMA variant (exp(x) = 2^(k/32) * p(r), evaluated in double), ExpF32 evaluates that same
// sequence of operations four lanes at a time (eight with AVX-512); the vector path is used
// only after a check at first use that it reproduces std::exp on this host (else every lane
// calls std::exp). Lanes with |x| >= 88, infinities and NaNs always call std::exp.
#pragma once

#include <cstdint>

namespace opdev::sim {

// out[i] = std::exp(in[i]) for i < n (in and out may be the same array).
void ExpF32(const float* in, float* out, int64_t n);

// Whether ExpF32 uses the vector path on this host (the CPU has AVX2 and FMA and the check at
// first use passed).
bool ExpF32Vectorised();

// One vector variant by its width (4: AVX2 + FMA, 8: AVX-512), whatever ExpF32 chose (tests).
// False, with nothing written, when the CPU lacks its instructions.
bool ExpF32Variant(int lanes, const float* in, float* out, int64_t n);

}  // namespace opdev::sim
