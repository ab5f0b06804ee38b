// The fused RNN operator's arguments (MXNet's RNNParam), its geometry (sizes, where each weight
// sits in the flat parameter vector) and the layout of the buffers forward keeps for backward.
#ifndef MXNET_OPERATOR_NN_RNN_PARAM_H_
#define MXNET_OPERATOR_NN_RNN_PARAM_H_

#include <dmlc/optional.h>

#include <vector>

#include "operator/operator_common.h"

namespace mxnet {
namespace op {

namespace rnn {
enum Mode { kRnnRelu = 0, kRnnTanh, kLstm, kGru };
}  // namespace rnn

struct RNNParam : public dmlc::Parameter<RNNParam> {
  uint32_t state_size;
  uint32_t num_layers;
  bool bidirectional;
  int mode;
  float p;
  bool state_outputs;
  dmlc::optional<int> projection_size;
  dmlc::optional<double> lstm_state_clip_min;
  dmlc::optional<double> lstm_state_clip_max;
  bool lstm_state_clip_nan;
  bool use_sequence_length;
  DMLC_DECLARE_PARAMETER(RNNParam) {
    DMLC_DECLARE_FIELD(state_size).describe("size of the state for each layer");
    DMLC_DECLARE_FIELD(num_layers).describe("number of stacked layers");
    DMLC_DECLARE_FIELD(bidirectional).set_default(false)
        .describe("whether to use bidirectional recurrent layers");
    DMLC_DECLARE_FIELD(mode)
        .add_enum("rnn_relu", rnn::kRnnRelu)
        .add_enum("rnn_tanh", rnn::kRnnTanh)
        .add_enum("lstm", rnn::kLstm)
        .add_enum("gru", rnn::kGru)
        .describe("the type of RNN to compute");
    DMLC_DECLARE_FIELD(p).set_default(0.).set_range(0, 1)
        .describe("drop rate of the dropout on the outputs of each RNN layer, except the last "
                  "layer.");
    DMLC_DECLARE_FIELD(state_outputs).set_default(false)
        .describe("Whether to have the states as symbol outputs.");
    DMLC_DECLARE_FIELD(projection_size).set_default(dmlc::optional<int>())
        .describe("size of project size");
    DMLC_DECLARE_FIELD(lstm_state_clip_min).set_default(dmlc::optional<double>())
        .describe("Minimum clip value of LSTM states. This option must be used together with "
                  "lstm_state_clip_max.");
    DMLC_DECLARE_FIELD(lstm_state_clip_max).set_default(dmlc::optional<double>())
        .describe("Maximum clip value of LSTM states. This option must be used together with "
                  "lstm_state_clip_min.");
    DMLC_DECLARE_FIELD(lstm_state_clip_nan).set_default(false)
        .describe("Whether to stop NaN from propagating in state by clipping it to min/max. If "
                  "clipping range is not specified, this option is ignored.");
    DMLC_DECLARE_FIELD(use_sequence_length).set_default(false)
        .describe("If set to true, this layer takes in an extra input parameter "
                  "`sequence_length` to specify variable length sequence");
  }
};

/*! \brief Input and output positions of RNN, which depend on mode, state_outputs and
 *  use_sequence_length. Forward outputs: out, [hy, cy], then the hidden reserve. */
struct RNNSlots {
  bool lstm, seq, states_out;
  uint32_t state_cell, seq_len;  // input positions (valid when lstm / seq)
  uint32_t num_inputs, num_visible, num_outputs, reserve;
  explicit RNNSlots(const RNNParam& p)
      : lstm(p.mode == rnn::kLstm), seq(p.use_sequence_length), states_out(p.state_outputs) {
    state_cell = 3;
    seq_len = lstm ? 4 : 3;
    num_inputs = seq_len + (seq ? 1 : 0);
    num_visible = states_out ? (lstm ? 3 : 2) : 1;
    reserve = num_visible;
    num_outputs = num_visible + 1;
  }
  std::vector<std::string> InputNames() const {
    std::vector<std::string> n{"data", "parameters", "state"};
    if (lstm) n.push_back("state_cell");
    if (seq) n.push_back("sequence_length");
    return n;
  }
};

/*! \brief Sizes of one call and the offsets of each layer's weights in the flat vector:
 *  all weights first (per layer, per direction: i2h (G*H, In), h2h (G*H, P), with projection
 *  h2r (P, H)), then all biases (per layer, per direction: i2h (G*H), h2h (G*H)). */
struct RNNDims {
  int mode;
  index_t T, N, I, H, P, L, D, G;
  bool proj;
  RNNDims(const RNNParam& p, const TShape& data) {
    mode = p.mode;
    T = data[0];
    N = data[1];
    I = data[2];
    H = p.state_size;
    proj = p.projection_size.has_value();
    P = proj ? p.projection_size.value() : H;
    L = p.num_layers;
    D = p.bidirectional ? 2 : 1;
    G = mode == rnn::kLstm ? 4 : (mode == rnn::kGru ? 3 : 1);
  }
  index_t GH() const { return G * H; }
  index_t LayerInput(index_t l) const { return l == 0 ? I : D * P; }
  index_t WeightSize(index_t l) const {
    return GH() * (LayerInput(l) + P) + (proj ? P * H : 0);
  }
  index_t NumParams() const {
    index_t n = 0;
    for (index_t l = 0; l < L; ++l) n += D * (WeightSize(l) + 2 * GH());
    return n;
  }
  /*! \brief Offset of the i2h weight of layer l, direction d (h2h and h2r follow it). */
  index_t WeightOffset(index_t l, index_t d) const {
    index_t off = 0;
    for (index_t k = 0; k < l; ++k) off += D * WeightSize(k);
    return off + d * WeightSize(l);
  }
  /*! \brief Offset of the i2h bias of layer l, direction d (the h2h bias follows it). */
  index_t BiasOffset(index_t l, index_t d) const {
    index_t off = 0;
    for (index_t k = 0; k < L; ++k) off += D * WeightSize(k);
    return off + (l * D + d) * 2 * GH();
  }
};

/*! \brief What forward keeps per layer and direction for backward, in elements, laid out one
 *  after the other: activated gates (T, N, G*H); GRU: h2h product of the candidate plus its
 *  bias (T, N, H); states (T+1, N, P); LSTM cells (T+1, N, H); with projection, h before
 *  projecting (T, N, H). States and cells are stored by time: in the forward direction slot
 *  t is the state before step t, in the reverse direction slot t + 1 is; so the states every
 *  step reads form one contiguous (T, N, P) block in time order either way. Each layer but
 *  the last also keeps its (dropped-out) output, the next layer's input, and the dropout mask
 *  when p > 0. */
struct RNNReserveLayout {
  index_t gates, gru_hn, states, cells, hraw, per_dir;
  index_t layer_out, mask, per_layer;
  RNNReserveLayout(const RNNDims& d, bool dropout) {
    const index_t tn = d.T * d.N;
    gates = 0;
    gru_hn = gates + tn * d.GH();
    states = gru_hn + (d.mode == rnn::kGru ? tn * d.H : 0);
    cells = states + (d.T + 1) * d.N * d.P;
    hraw = cells + (d.mode == rnn::kLstm ? (d.T + 1) * d.N * d.H : 0);
    per_dir = hraw + (d.proj ? tn * d.H : 0);
    layer_out = d.D * per_dir;
    mask = layer_out + tn * d.D * d.P;
    per_layer = mask + (dropout ? tn * d.D * d.P : 0);
  }
  /*! \brief Start of layer l's buffers; the last layer keeps no output or mask. */
  index_t Layer(index_t l) const { return l * per_layer; }
  index_t Total(const RNNDims& d) const { return (d.L - 1) * per_layer + layer_out; }
};

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_RNN_PARAM_H_
