// The per-element rules of 2-bit gradient compression, shared by the CPU loops
// (gradient_compression.cc) and the GPU kernels (gpu_kernels.cu) so the two cannot drift.
//
// An element's code is 11 (+t), 10 (-t) or 00 (0); 01 also reads as 0. Element j of a block of
// 16 sits in byte j / 4 of the 32-bit word (lowest address first) and, inside that byte, in the
// bit pair j % 4 counted from the most significant end. On a little-endian machine (x86, every
// CUDA GPU) that is the shift TwoBitShift(j) inside the word read as a uint32.
#ifndef MXNET_KVSTORE_TWO_BIT_CODEC_H_
#define MXNET_KVSTORE_TWO_BIT_CODEC_H_

#include <cstdint>
#include <cstring>

#ifdef __CUDACC__
#define MXNET_TWO_BIT_HD __host__ __device__
#else
#define MXNET_TWO_BIT_HD
#endif

namespace mxnet {
namespace kvstore {

MXNET_TWO_BIT_HD inline uint32_t TwoBitFloatBits(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  return u;
}

MXNET_TWO_BIT_HD inline float TwoBitFloatFromBits(uint32_t u) {
  float x;
  memcpy(&x, &u, 4);
  return x;
}

/*! \brief Add grad to *residual and return the element's code (3: +t, 2: -t, 0), taking what
 *  is sent off the residual: r = residual + grad; r >= t stores r - t, r <= -t stores r + t,
 *  else r (MXNet's arithmetic). Bit masks rather than branches so the CPU loop vectorizes; a
 *  NaN compares false both ways and stays in the residual. */
MXNET_TWO_BIT_HD inline uint32_t TwoBitQuantizeOne(float grad, float* residual, float t) {
  const float r = *residual + grad;
#ifdef __CUDA_ARCH__
  const uint32_t pos = 0u - static_cast<uint32_t>(r >= t);
  const uint32_t neg = (0u - static_cast<uint32_t>(r <= -t)) & ~pos;
#else  // the same results (quiet comparisons); GCC vectorizes these better
  const uint32_t pos = 0u - static_cast<uint32_t>(__builtin_isgreaterequal(r, t));
  const uint32_t neg = (0u - static_cast<uint32_t>(__builtin_islessequal(r, -t))) & ~pos;
#endif
  *residual = TwoBitFloatFromBits((TwoBitFloatBits(r - t) & pos) |
                                  (TwoBitFloatBits(r + t) & neg) |
                                  (TwoBitFloatBits(r) & ~(pos | neg)));
  return (pos & 3u) | (neg & 2u);
}

/*! \brief Where element j of its block of 16 sits in the little-endian 32-bit word. */
MXNET_TWO_BIT_HD inline int TwoBitShift(int64_t j) {
  return 8 * static_cast<int>((j & 15) >> 2) + 6 - 2 * static_cast<int>(j & 3);
}

/*! \brief The value a code stands for: 11 is +t, 10 is -t, 00 and 01 are 0. */
MXNET_TWO_BIT_HD inline float TwoBitDecode(uint32_t code, float t) {
  return code == 3u ? t : (code == 2u ? -t : 0.0f);
}

/*! \brief Element j's value from the little-endian word holding it. */
MXNET_TWO_BIT_HD inline float TwoBitDequantizeOne(uint32_t word, int64_t j, float t) {
  return TwoBitDecode((word >> TwoBitShift(j)) & 3u, t);
}

/*! \brief Word w of the compressed array of n gradients: its (up to) 16 elements quantized,
 *  their residuals updated and their codes packed (one GPU thread's work). */
MXNET_TWO_BIT_HD inline uint32_t TwoBitQuantizeWord(const float* grad, float* residual, int64_t n,
                                                    int64_t w, float t) {
  uint32_t word = 0;
  const int64_t end = n < w * 16 + 16 ? n : w * 16 + 16;
  for (int64_t j = w * 16; j < end; ++j) {
    word |= TwoBitQuantizeOne(grad[j], residual + j, t) << TwoBitShift(j);
  }
  return word;
}

}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_TWO_BIT_CODEC_H_
