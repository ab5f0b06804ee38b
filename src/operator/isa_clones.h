// MXNET_AVX2_CLONES: compile a hot loop for AVX2/FMA (x86-64-v3) beside the baseline ISA.
#ifndef MXNET_OPERATOR_ISA_CLONES_H_
#define MXNET_OPERATOR_ISA_CLONES_H_

/*! \brief On a function: build it for x86-64-v3 (AVX2, FMA) as well as the baseline ISA; the
 *  loader picks the clone the CPU runs. The library itself targets the baseline, so loops that
 *  vectorize gain twice the width (or more) where the CPU has it. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define MXNET_AVX2_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define MXNET_AVX2_CLONES
#endif

#endif  // MXNET_OPERATOR_ISA_CLONES_H_
