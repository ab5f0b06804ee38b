// The fused RNN operator's float32 matrix products on oneDNN's sgemm, whose JIT kernels are
// several times faster than OpenBLAS on the thin per-step products (batch rows x gates).
#ifndef MXNET_OPERATOR_NN_ONEDNN_ONEDNN_RNN_H_
#define MXNET_OPERATOR_NN_ONEDNN_ONEDNN_RNN_H_

#include "mxnet/base.h"

namespace mxnet {
namespace op {

/*! \brief True when oneDNN is built in and enabled (MXNET_ONEDNN_ENABLED, read per call). */
bool RNNUsesOneDNNGemm();

/*! \brief Row-major C = alpha * op(A) * op(B) + beta * C (m x n, inner size k) on oneDNN;
 *  only called when RNNUsesOneDNNGemm() is true. */
void RNNOneDNNSgemm(bool trans_a, bool trans_b, index_t m, index_t n, index_t k, float alpha,
                    const float* a, index_t lda, const float* b, index_t ldb, float beta,
                    float* c, index_t ldc);

/*!
 * \brief The per-step product C (rows x n) (+)= A (rows x k) W^T, W (n x k) row-major, on a
 *  oneDNN matmul whose weights are reordered once per call into its blocked layout (sgemm packs
 *  them again on every call). Prepare runs on the calling thread before the steps, for the row
 *  counts the threads will use, and returns this thread's product (null when oneDNN has none:
 *  the caller keeps sgemm); its Run may then be called from several threads at once (each runs
 *  single-threaded inside an OpenMP region). Valid until the next Prepare on this thread.
 */
class RNNStepProduct {
 public:
  static const RNNStepProduct* Prepare(const float* w, index_t n, index_t k, bool accumulate,
                                       const index_t* row_counts, int count);
  void Run(index_t rows, const float* a, float* c) const;
  virtual ~RNNStepProduct() = default;

 protected:
  RNNStepProduct() = default;
};

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_ONEDNN_ONEDNN_RNN_H_
