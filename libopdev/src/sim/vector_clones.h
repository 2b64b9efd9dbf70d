// OPDEV_VECTOR_CLONES: a hot loop's function (a register or tile-row kernel, a clock join)
// compiled twice, for AVX2 and for the baseline x86-64, with the copy the CPU can run chosen
// once when the library is loaded (GCC's target_clones). Each copy inlines what it calls
// (flatten), so the compiler's auto-vectorisation of those loops uses 256-bit vectors where
// the CPU has them. FMA is enabled in neither copy: no multiply and add may contract into one
// rounding, so both copies give the same bits (the exhaustive lane tests and the corpus run on
// whichever copy this host takes; the clang build of scripts/sanitized runs the baseline).
// Other compilers and targets get the single baseline function.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__ELF__)
#define OPDEV_VECTOR_CLONES __attribute__((target_clones("avx2", "default"), flatten))
#else
#define OPDEV_VECTOR_CLONES
#endif
