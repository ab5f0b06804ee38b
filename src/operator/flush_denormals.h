// FlushDenormals: while in scope, float results too small to be normal become zero (x86 FTZ).
#ifndef MXNET_OPERATOR_FLUSH_DENORMALS_H_
#define MXNET_OPERATOR_FLUSH_DENORMALS_H_

#if defined(__x86_64__) || defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace mxnet {
namespace op {

/*!
 * \brief Sets flush-to-zero on the calling thread for its lifetime, then restores the previous
 *  mode. A value that shrinks geometrically (an optimizer's momentum or moving average for a
 *  weight whose gradient stays 0, behind a dead ReLU or an always-black pixel) otherwise walks
 *  through the denormals, and every arithmetic instruction that makes or reads one takes a
 *  microcode assist of about a hundred cycles: perf found 74% of an MLP's training step in
 *  multi_sgd_mom_update for that reason. Only results below 1.18e-38 in magnitude (float32;
 *  2.2e-308 for float64) change, to zero. Inputs are read as they are (no DAZ).
 */
class FlushDenormals {
 public:
#if defined(__x86_64__) || defined(__SSE__)
  FlushDenormals() : saved_(_mm_getcsr()) { _mm_setcsr(saved_ | _MM_FLUSH_ZERO_ON); }
  ~FlushDenormals() { _mm_setcsr(saved_); }
#else
  FlushDenormals() = default;
#endif
  FlushDenormals(const FlushDenormals&) = delete;
  FlushDenormals& operator=(const FlushDenormals&) = delete;

 private:
#if defined(__x86_64__) || defined(__SSE__)
  unsigned int saved_;
#endif
};

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_FLUSH_DENORMALS_H_
