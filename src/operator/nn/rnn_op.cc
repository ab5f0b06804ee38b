// The fused RNN operator (vanilla ReLU/tanh RNN, LSTM with optional projection, GRU; stacked,
// bidirectional, variable lengths) and its backward: declarations, shape and type rules, and
// the drivers that run the layer-direction kernels of rnn_kernels.cc layer by layer.
#include <algorithm>
#include <string>
#include <vector>

#include "operator/nn/onednn/onednn_rnn.h"
#include "operator/nn/rnn_kernels.h"
#include "operator/random/philox.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(RNNParam);

namespace {

const char* ModeName(int mode) {
  switch (mode) {
    case rnn::kRnnRelu: return "rnn_relu";
    case rnn::kRnnTanh: return "rnn_tanh";
    case rnn::kLstm: return "lstm";
    default: return "gru";
  }
}

void RNNParamParser(NodeAttrs* attrs) {
  ParamParser<RNNParam>(attrs);
  const RNNParam& p = Param<RNNParam>(*attrs);
  const std::string op = "Operator " + attrs->op->name + ": ";
  CHECK_GT(p.state_size, 0u) << op << "argument state_size must be positive, given 0";
  CHECK_GT(p.num_layers, 0u) << op << "argument num_layers must be positive, given 0";
  if (p.projection_size.has_value()) {
    CHECK_EQ(p.mode, rnn::kLstm) << op << "argument projection_size is only supported with "
                                 << "mode='lstm', given mode='" << ModeName(p.mode) << "'";
    CHECK(p.projection_size.value() > 0 &&
          p.projection_size.value() <= static_cast<int>(p.state_size))
        << op << "argument projection_size must be in [1, state_size=" << p.state_size
        << "], given " << p.projection_size.value();
  }
  const bool clip_min = p.lstm_state_clip_min.has_value();
  const bool clip_max = p.lstm_state_clip_max.has_value();
  if (clip_min || clip_max) {
    CHECK_EQ(p.mode, rnn::kLstm) << op << "arguments lstm_state_clip_min/max are only supported "
                                 << "with mode='lstm', given mode='" << ModeName(p.mode) << "'";
    CHECK(clip_min && clip_max) << op << "arguments lstm_state_clip_min and lstm_state_clip_max "
                                << "must be given together";
    CHECK_GE(p.lstm_state_clip_max.value(), p.lstm_state_clip_min.value())
        << op << "argument lstm_state_clip_max=" << p.lstm_state_clip_max.value()
        << " must not be below lstm_state_clip_min=" << p.lstm_state_clip_min.value();
  }
}

RNNSlots Slots(const NodeAttrs& attrs) { return RNNSlots(Param<RNNParam>(attrs)); }

bool RNNShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const RNNParam& p = Param<RNNParam>(attrs);
  const RNNSlots sl(p);
  const TShape& data = (*in)[0];
  if (data.ndim() < 0) return false;
  CHECK_EQ(data.ndim(), 3) << "Operator " << attrs.op->name << ": argument data must be 3-D "
                           << "(sequence_length, batch_size, input_size), given " << data;
  if (!data.IsKnown()) return false;
  const RNNDims d(p, data);
  AssignShape(attrs, "parameters", &(*in)[1], TShape{d.NumParams()});
  AssignShape(attrs, "state", &(*in)[2], TShape{d.L * d.D, d.N, d.P});
  if (sl.lstm) AssignShape(attrs, "state_cell", &(*in)[sl.state_cell], TShape{d.L * d.D, d.N, d.H});
  if (sl.seq) AssignShape(attrs, "sequence_length", &(*in)[sl.seq_len], TShape{d.N});
  AssignShape(attrs, "output", &(*out)[0], TShape{d.T, d.N, d.D * d.P});
  if (sl.states_out) {
    AssignShape(attrs, "hy", &(*out)[1], TShape{d.L * d.D, d.N, d.P});
    if (sl.lstm) AssignShape(attrs, "cy", &(*out)[2], TShape{d.L * d.D, d.N, d.H});
  }
  const RNNReserveLayout lay(d, p.p > 0);
  AssignShape(attrs, "reserve", &(*out)[sl.reserve], TShape{lay.Total(d)});
  return true;
}

/*! \brief data, parameters and the states share a float32 or float64 dtype (as MXNet 1.9.1,
 *  which has no float16 GEMM on the CPU); sequence_length may have any numeric dtype. */
bool RNNType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const RNNSlots sl(Param<RNNParam>(attrs));
  int t = (*in)[0];
  for (uint32_t i = 0; i < sl.seq_len; ++i) AssignInputType(attrs, i, &t, (*in)[i]);
  if (t < 0) return false;
  CHECK(t == kFloat32 || t == kFloat64)
      << "Operator " << attrs.op->name << ": argument data must be float32 or float64 on the "
      << "CPU, given " << DTypeName(t);
  for (uint32_t i = 0; i < sl.seq_len; ++i) (*in)[i] = t;
  for (int& o : *out) AssignType(attrs, "output", &o, t);
  return !sl.seq || (*in)[sl.seq_len] >= 0;
}

std::vector<ResourceRequest> RNNResources(const NodeAttrs& attrs) {
  if (Param<RNNParam>(attrs).p > 0) {
    return {ResourceRequest::kTempSpace, ResourceRequest::kParallelRandom};
  }
  return {ResourceRequest::kTempSpace};
}

/*! \brief Everything both drivers read: sizes, layout, options, typed views of the inputs. */
template <typename DType>
struct RNNCall {
  const RNNParam& p;
  RNNDims d;
  RNNReserveLayout lay;
  rnn::StepOptions opt;
  const DType* params;
  RNNCall(const RNNParam& param, const TBlob& data, const TBlob& parameters)
      : p(param), d(param, data.shape_), lay(d, param.p > 0), params(parameters.dptr<DType>()) {
    opt.onednn_gemm = RNNUsesOneDNNGemm();
    opt.clip = p.lstm_state_clip_min.has_value();
    if (opt.clip) {
      opt.clip_min = p.lstm_state_clip_min.value();
      opt.clip_max = p.lstm_state_clip_max.value();
      opt.clip_nan = p.lstm_state_clip_nan;
    }
  }
  /*! \brief Reads sequence_length into lens (N entries), clamped to [0, T]. */
  void ReadLengths(const TBlob& b, index_t* lens) {
    MXNET_NUMERIC_TYPE_SWITCH(b.type_flag_, LType, {
      const LType* v = b.dptr<LType>();
      for (index_t n = 0; n < d.N; ++n) {
        const double len = static_cast<double>(v[n]);
        lens[n] = static_cast<index_t>(std::min<double>(std::max(len, 0.0), d.T));
      }
    });
    opt.seq_len = lens;
  }
  template <typename T>
  rnn::Weights<T> WeightsAt(T* base, index_t l, index_t dir) const {
    T* w = base + d.WeightOffset(l, dir);
    T* b = base + d.BiasOffset(l, dir);
    const index_t wh = d.GH() * d.LayerInput(l);
    const index_t wr = wh + d.GH() * d.P;
    return {w, w + wh, d.proj ? w + wr : nullptr, b, b + d.GH()};
  }
  template <typename T>
  rnn::DirBuffers<T> Buffers(T* reserve, index_t l, index_t dir) const {
    T* b = reserve + lay.Layer(l) + dir * lay.per_dir;
    return {b + lay.gates, b + lay.gru_hn, b + lay.states, b + lay.cells, b + lay.hraw};
  }
  rnn::DirGeometry Geometry(index_t l, index_t dir) const {
    return {&d, d.LayerInput(l), dir == 1, d.D * d.P};
  }
  /*! \brief The input of layer l (the previous layer's kept, dropped-out output). */
  const DType* LayerInput(const DType* data, const DType* reserve, index_t l) const {
    return l == 0 ? data : reserve + lay.Layer(l - 1) + lay.layer_out;
  }
};

template <typename DType>
void ApplyDropout(const OpContext& ctx, float p, index_t n, DType* y, DType* mask) {
  if (!ctx.is_train || p <= 0) {
    std::fill(mask, mask + n, DType(1));
    return;
  }
  const float keep = 1.0f - p;
  const DType scale = DType(keep > 0 ? 1.0f / keep : 0.0f);
  const uint64_t seed = ctx.random_seed, stream = ctx.random_stream;
  ParallelFor(n, [&](index_t i) {
    RandomStream rs(seed, stream, static_cast<uint64_t>(i));
    mask[i] = rs.UniformF() < keep ? scale : DType(0);
    y[i] *= mask[i];
  });
}

// The reserve output is allocated whatever the mode (shape inference cannot see it), so it
// is the forward's workspace in inference too; only training keeps it for a backward.
template <typename DType>
void ForwardImpl(const RNNParam& p, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const RNNSlots sl(p);
  for (size_t i = 0; i < out.size(); ++i) {
    CHECK_NE(req[i], kAddTo) << "Operator RNN: adding to existing outputs is not supported";
  }
  RNNCall<DType> c(p, in[0], in[1]);
  const RNNDims& d = c.d;
  const index_t scratch_size = d.N * d.GH();
  DType* scratch = static_cast<DType*>(
      ctx.RequestTempSpace(scratch_size * sizeof(DType) + d.N * sizeof(index_t)));
  if (sl.seq) c.ReadLengths(in[sl.seq_len], reinterpret_cast<index_t*>(scratch + scratch_size));
  DType* reserve = out[sl.reserve].dptr<DType>();
  const DType* state = in[2].dptr<DType>();
  const DType* cell = sl.lstm ? in[sl.state_cell].dptr<DType>() : nullptr;
  DType* hy = sl.states_out ? out[1].dptr<DType>() : nullptr;
  DType* cy = sl.states_out && sl.lstm ? out[2].dptr<DType>() : nullptr;
  const index_t np = d.N * d.P, nh = d.N * d.H, layer_elems = d.T * d.N * d.D * d.P;
  for (index_t l = 0; l < d.L; ++l) {
    const bool last = l == d.L - 1;
    const DType* x = c.LayerInput(in[0].dptr<DType>(), reserve, l);
    DType* y = last ? out[0].dptr<DType>() : reserve + c.lay.Layer(l) + c.lay.layer_out;
    for (index_t dir = 0; dir < d.D; ++dir) {
      const index_t k = l * d.D + dir;
      auto w = c.template WeightsAt<const DType>(c.params, l, dir);
      rnn::DirForward<DType>(c.Geometry(l, dir), w, c.opt, x, state + k * np,
                             cell ? cell + k * nh : nullptr, c.Buffers(reserve, l, dir),
                             y + dir * d.P, hy ? hy + k * np : nullptr,
                             cy ? cy + k * nh : nullptr, scratch);
    }
    if (!last && p.p > 0) {
      ApplyDropout(ctx, p.p, layer_elems, y, reserve + c.lay.Layer(l) + c.lay.mask);
    }
  }
}

void RNNForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const RNNParam& p = Param<RNNParam>(attrs);
  if (in[0].type_flag_ == kFloat64) ForwardImpl<double>(p, ctx, in, req, out);
  else ForwardImpl<float>(p, ctx, in, req, out);
}

// ------------------------------------------------------------------------------ backward
/*! \brief Positions of _backward_RNN's inputs: the visible outputs' gradients, the forward
 *  inputs, the reserve. */
struct BackwardSlots {
  RNNSlots fwd;
  uint32_t dhy, dcy, inputs, reserve, num_inputs;
  explicit BackwardSlots(const RNNParam& p) : fwd(p) {
    dhy = fwd.states_out ? 1 : 0;
    dcy = fwd.states_out && fwd.lstm ? 2 : 0;
    inputs = fwd.num_visible;
    reserve = inputs + fwd.num_inputs;
    num_inputs = reserve + 1;
  }
};

template <typename DType>
void AssignState(const DType* src, index_t n, OpReqType req, DType* dst) {
  if (req == kNullOp) return;
  for (index_t i = 0; i < n; ++i) Assign(dst + i, req, src[i]);
}

template <typename DType>
void BackwardImpl(const RNNParam& p, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const BackwardSlots bs(p);
  const RNNSlots& sl = bs.fwd;
  const TBlob& data = in[bs.inputs];
  RNNCall<DType> c(p, data, in[bs.inputs + 1]);
  const RNNDims& d = c.d;
  const index_t np = d.N * d.P, nh = d.N * d.H, layer_elems = d.T * d.N * d.D * d.P;
  const bool param_grad = req[1] != kNullOp;
  // Temp: direction scratch, two layer-gradient buffers, dh0/dc0, parameter gradients when
  // they are not wanted, lengths.
  const index_t dir_scratch = rnn::DirBackwardScratchSize(d);
  const index_t total = dir_scratch + 2 * layer_elems + np + nh + (param_grad ? 0 : d.NumParams());
  DType* temp =
      static_cast<DType*>(ctx.RequestTempSpace(total * sizeof(DType) + d.N * sizeof(index_t)));
  DType* scratch = temp;
  DType* dlayer[2] = {scratch + dir_scratch, scratch + dir_scratch + layer_elems};
  DType* dh0 = dlayer[1] + layer_elems;
  DType* dc0 = dh0 + np;
  DType* gparams = param_grad ? out[1].dptr<DType>() : dc0 + nh;
  if (sl.seq) c.ReadLengths(in[bs.inputs + sl.seq_len], reinterpret_cast<index_t*>(temp + total));
  const DType* reserve = in[bs.reserve].dptr<DType>();
  const DType* dhy = sl.states_out ? in[bs.dhy].dptr<DType>() : nullptr;
  const DType* dcy = sl.states_out && sl.lstm ? in[bs.dcy].dptr<DType>() : nullptr;
  const bool grad_add = req[1] == kAddTo;
  const DType* dy = in[0].dptr<DType>();
  for (index_t l = d.L - 1; l >= 0; --l) {
    const DType* x = c.LayerInput(data.dptr<DType>(), reserve, l);
    DType* dx = l > 0 ? dlayer[l % 2] : (req[0] == kNullOp ? nullptr : out[0].dptr<DType>());
    const bool dx_add = l == 0 && req[0] == kAddTo;
    for (index_t dir = 0; dir < d.D; ++dir) {
      const index_t k = l * d.D + dir;
      const auto w = c.template WeightsAt<const DType>(c.params, l, dir);
      rnn::DirBackward<DType>(c.Geometry(l, dir), w, c.opt, x, c.Buffers(reserve, l, dir),
                              dy + dir * d.P,
                              dhy ? dhy + k * np : nullptr, dcy ? dcy + k * nh : nullptr,
                              c.template WeightsAt<DType>(gparams, l, dir), grad_add, dx,
                              dx_add || dir == 1, dh0, dc0, scratch);
      AssignState(dh0, np, req[2], out[2].dptr<DType>() + k * np);
      if (sl.lstm) {
        AssignState(dc0, nh, req[sl.state_cell], out[sl.state_cell].dptr<DType>() + k * nh);
      }
    }
    if (l > 0 && p.p > 0) {
      const DType* mask = reserve + c.lay.Layer(l - 1) + c.lay.mask;
      for (index_t i = 0; i < layer_elems; ++i) dx[i] *= mask[i];
    }
    dy = dx;
  }
  if (sl.seq && req[sl.seq_len] != kNullOp && req[sl.seq_len] != kAddTo) {
    const TBlob& g = out[sl.seq_len];
    MXNET_NUMERIC_TYPE_SWITCH(g.type_flag_, LType, {
      std::fill(g.dptr<LType>(), g.dptr<LType>() + g.Size(), LType(0));
    });
  }
}

void RNNBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const RNNParam& p = Param<RNNParam>(attrs);
  const BackwardSlots bs(p);
  if (in[bs.inputs].type_flag_ == kFloat64) BackwardImpl<double>(p, ctx, in, req, out);
  else BackwardImpl<float>(p, ctx, in, req, out);
}

bool RNNBackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const BackwardSlots bs(Param<RNNParam>(attrs));
  bool known = true;
  for (uint32_t i = 0; i < bs.fwd.num_inputs; ++i) {
    AssignShape(attrs, "input gradient", &(*out)[i], (*in)[bs.inputs + i]);
    known = known && (*out)[i].IsKnown();
  }
  return known;
}

bool RNNBackwardType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const BackwardSlots bs(Param<RNNParam>(attrs));
  bool known = true;
  for (uint32_t i = 0; i < bs.fwd.num_inputs; ++i) {
    AssignType(attrs, "input gradient", &(*out)[i], (*in)[bs.inputs + i]);
    known = known && (*out)[i] >= 0;
  }
  return known;
}

std::vector<NodeEntry> RNNGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const BackwardSlots bs(Param<RNNParam>(n->attrs));
  std::vector<NodeEntry> ins(og.begin(), og.begin() + bs.fwd.num_visible);
  ins.insert(ins.end(), n->inputs.begin(), n->inputs.end());
  ins.push_back(Out(n, bs.fwd.reserve));
  NodeEntry bw = MakeNode("_backward_RNN", GradName(n), ins, n->attrs.dict, &n);
  std::vector<NodeEntry> grads;
  for (uint32_t i = 0; i < bs.fwd.num_inputs; ++i) grads.emplace_back(bw.node, i, 0);
  return grads;
}

}  // namespace

NNVM_REGISTER_OP(RNN)
    .describe(R"doc(Applies recurrent layers to input data. Currently, vanilla RNN, LSTM and GRU
are implemented, with both multi-layer and bidirectional support.

``data`` is (sequence_length, batch_size, input_size) (layout TNC); ``parameters`` is one flat
vector holding all weights (per layer, per direction: i2h (G*H, input), h2h (G*H, P) and,
with ``projection_size``, h2r (P, H)) followed by all biases (per layer, per direction: i2h,
h2h), with gates ordered i, f, g, o (LSTM) or r, z, n (GRU); ``state`` is (layers*directions,
batch, P) and ``state_cell`` (LSTM) (layers*directions, batch, H).

**Vanilla RNN**: h_t = act(W_ih x_t + b_ih + W_hh h_(t-1) + b_hh), act ReLU or tanh.

**LSTM**::

  i_t = sigmoid(W_ii x_t + b_ii + W_hi h_(t-1) + b_hi)
  f_t = sigmoid(W_if x_t + b_if + W_hf h_(t-1) + b_hf)
  g_t = tanh(W_ig x_t + b_ig + W_hc h_(t-1) + b_hg)
  o_t = sigmoid(W_io x_t + b_io + W_ho h_(t-1) + b_ho)
  c_t = f_t * c_(t-1) + i_t * g_t
  h_t = o_t * tanh(c_t)

With ``projection_size`` the recurrent state is r_t = W_hr h_t. ``lstm_state_clip_min/max``
clip c_t (NaN goes to the minimum with ``lstm_state_clip_nan``).

**GRU**::

  r_t = sigmoid(W_ir x_t + b_ir + W_hr h_(t-1) + b_hr)
  z_t = sigmoid(W_iz x_t + b_iz + W_hz h_(t-1) + b_hz)
  n_t = tanh(W_in x_t + b_in + r_t * (W_hn h_(t-1) + b_hn))
  h_t = (1 - z_t) * n_t + z_t * h_(t-1)

With ``use_sequence_length`` the extra input ``sequence_length`` (batch,) gives each sample's
length: outputs past it are zero and the final states are those of its last valid step (the
reverse direction starts there).
)doc")
    .set_num_inputs([](const NodeAttrs& a) { return Slots(a).num_inputs; })
    .set_num_outputs([](const NodeAttrs& a) { return Slots(a).num_outputs; })
    .set_attr<FNumVisibleOutputs>("FNumVisibleOutputs",
                                  [](const NodeAttrs& a) { return Slots(a).num_visible; })
    .set_attr_parser(RNNParamParser)
    .add_argument("data", "NDArray-or-Symbol", "Input data to RNN")
    .add_argument("parameters", "NDArray-or-Symbol",
                  "Vector of all RNN trainable parameters concatenated")
    .add_argument("state", "NDArray-or-Symbol", "initial hidden state of the RNN")
    .add_argument("state_cell", "NDArray-or-Symbol",
                  "initial cell state for LSTM networks (only for LSTM)")
    .add_argument("sequence_length", "NDArray-or-Symbol",
                  "Vector of valid sequence lengths for each element in batch. (Only used if "
                  "use_sequence_length kwarg is True)")
    .add_arguments(RNNParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs& a) { return Slots(a).InputNames(); })
    .set_attr<FListOutputNames>("FListOutputNames",
                                [](const NodeAttrs& a) {
                                  const RNNSlots sl = Slots(a);
                                  std::vector<std::string> n{"output"};
                                  if (sl.states_out) n.push_back("state");
                                  if (sl.states_out && sl.lstm) n.push_back("state_cell");
                                  n.push_back("reserve");
                                  return n;
                                })
    .set_attr<FInferShape>("FInferShape", RNNShape)
    .set_attr<FInferType>("FInferType", RNNType)
    .set_attr<FResourceRequest>("FResourceRequest", RNNResources)
    .set_attr<FCompute>("FCompute<cpu>", RNNForward)
    .set_attr<FGradient>("FGradient", RNNGrad);

NNVM_REGISTER_OP(_backward_RNN)
    .describe("Gradients of RNN with respect to its inputs.")
    .set_num_inputs([](const NodeAttrs& a) { return BackwardSlots(Param<RNNParam>(a)).num_inputs; })
    .set_num_outputs([](const NodeAttrs& a) { return Slots(a).num_inputs; })
    .set_attr_parser(RNNParamParser)
    .add_arguments(RNNParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", RNNBackwardShape)
    .set_attr<FInferType>("FInferType", RNNBackwardType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", RNNBackward);

}  // namespace op
}  // namespace mxnet
