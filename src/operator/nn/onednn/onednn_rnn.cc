// oneDNN's sgemm for the fused RNN operator (see onednn_rnn.h). oneDNN's RNN primitives were
// not used: the LSTM's time goes into its GEMMs, which this already puts on oneDNN.
#include "operator/nn/onednn/onednn_rnn.h"

#include <dmlc/logging.h>

#include "operator/nn/onednn/onednn_base.h"

namespace mxnet {
namespace op {

bool RNNUsesOneDNNGemm() { return onednn::Enabled(); }

void RNNOneDNNSgemm(bool trans_a, bool trans_b, index_t m, index_t n, index_t k, float alpha,
                    const float* a, index_t lda, const float* b, index_t ldb, float beta,
                    float* c, index_t ldc) {
#if MXNET_USE_ONEDNN
  const dnnl_status_t st = dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha,
                                      a, lda, b, ldb, beta, c, ldc);
  CHECK_EQ(st, dnnl_success) << "Operator RNN: oneDNN sgemm failed with status " << st;
#else
  LOG(FATAL) << "Operator RNN: oneDNN is not built in";
#endif
}

}  // namespace op
}  // namespace mxnet
