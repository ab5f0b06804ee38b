// MXNET_AVX2_CLONES, MXNET_AVX2_NOFMA_CLONES: build a hot loop for AVX2 beside the baseline ISA.
#ifndef MXNET_OPERATOR_ISA_CLONES_H_
#define MXNET_OPERATOR_ISA_CLONES_H_

// On a function: build it for AVX2 as well as the baseline ISA; the loader picks the clone the
// CPU runs. The library itself targets the baseline, so loops that vectorize gain twice the
// width (or more) where the CPU has it.
//   MXNET_AVX2_CLONES        x86-64-v3 (AVX2 and FMA; the build fuses multiply-adds there).
//   MXNET_AVX2_NOFMA_CLONES  AVX2 alone: no fused multiply-add, so results round as on the
//                            baseline; for kernels whose rounding must match MXNet 1.9.1's
//                            (the optimizer updates).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define MXNET_AVX2_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#define MXNET_AVX2_NOFMA_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define MXNET_AVX2_CLONES
#define MXNET_AVX2_NOFMA_CLONES
#endif

#endif  // MXNET_OPERATOR_ISA_CLONES_H_
