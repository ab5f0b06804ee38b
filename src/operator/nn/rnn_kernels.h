// Kernels of the fused RNN operator for one layer and one direction: forward over all steps
// (one input-projection GEMM for every step, one recurrent GEMM per step, fused gate math)
// and its backward (weight gradients batched over all steps). Defined for float and double.
#ifndef MXNET_OPERATOR_NN_RNN_KERNELS_H_
#define MXNET_OPERATOR_NN_RNN_KERNELS_H_

#include "operator/nn/rnn_param.h"

namespace mxnet {
namespace op {
namespace rnn {

/*! \brief One layer-direction's weights inside the flat parameter vector (wr: projection,
 *  null without it); the same struct holds their gradients. */
template <typename DType>
struct Weights {
  DType *wx, *wh, *wr, *bx, *bh;
};

/*! \brief Options every step reads. seq_len (N entries) is null without use_sequence_length;
 *  a sample is inactive at steps t >= seq_len[n]: its state carries over and its output is 0. */
struct StepOptions {
  const index_t* seq_len{nullptr};
  bool clip{false};
  double clip_min{0}, clip_max{0};
  bool clip_nan{false};
  bool onednn_gemm{false};  // float32 products on oneDNN's sgemm (see onednn_rnn.h)
};

/*! \brief A layer-direction's saved buffers (see RNNReserveLayout); unused ones are null. */
template <typename DType>
struct DirBuffers {
  DType *gates, *gru_hn, *states, *cells, *hraw;
};

/*! \brief The geometry of one layer-direction call. */
struct DirGeometry {
  const RNNDims* dims;
  index_t in_size;  // columns of the layer input
  bool reverse;     // the backward direction of a bidirectional layer
  index_t y_ld;     // leading dimension of the layer output (D * P)
};

/*! \brief Runs one layer-direction over all steps. x: (T, N, in_size); h0 (N, P), c0 (N, H)
 *  (LSTM); y: the output's first column for this direction; hy, cy: final states (may be
 *  null); scratch: N * G * H elements. */
template <typename DType>
void DirForward(const DirGeometry& g, const Weights<const DType>& w, const StepOptions& opt,
                const DType* x, const DType* h0, const DType* c0, const DirBuffers<DType>& buf,
                DType* y, DType* hy, DType* cy, DType* scratch);

/*! \brief Scratch of DirBackward, in elements: see DirBackwardScratchSize. */
index_t DirBackwardScratchSize(const RNNDims& d);

/*! \brief Backward of DirForward. dy: gradient of this direction's output columns (ld y_ld,
 *  may be null), dhy/dcy: gradients of the final states (may be null). Writes (or adds, with
 *  grad_add) the weight gradients gw, writes (or adds, with dx_add) dx (T, N, in_size), and
 *  writes dh0 (N, P) and dc0 (N, H, LSTM). */
template <typename DType>
void DirBackward(const DirGeometry& g, const Weights<const DType>& w, const StepOptions& opt,
                 const DType* x, const DirBuffers<const DType>& buf, const DType* dy,
                 const DType* dhy, const DType* dcy, const Weights<DType>& gw, bool grad_add,
                 DType* dx, bool dx_add, DType* dh0, DType* dc0, DType* scratch);

}  // namespace rnn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_RNN_KERNELS_H_
