// CTCLoss (connectionist temporal classification) and its backward: a log-space forward-backward
// over the blank-extended label per sample, keeping the gradient for the backward pass.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "operator/operator_common.h"

namespace mxnet {
namespace op {

namespace {

enum CTCBlank { kBlankFirst = 0, kBlankLast = 1 };

struct CTCLossParam : public dmlc::Parameter<CTCLossParam> {
  bool use_data_lengths;
  bool use_label_lengths;
  int blank_label;
  DMLC_DECLARE_PARAMETER(CTCLossParam) {
    DMLC_DECLARE_FIELD(use_data_lengths).set_default(false)
        .describe("Whether the data lenghts are decided by `data_lengths`. If false, the "
                  "lengths are equal to the max sequence length.");
    DMLC_DECLARE_FIELD(use_label_lengths).set_default(false)
        .describe("Whether the label lenghts are decided by `label_lengths`, or derived from "
                  "`padding_mask`. If false, the lengths are derived from the first occurrence "
                  "of the value of `padding_mask`. The value of `padding_mask` is ``0`` when "
                  "first CTC label is reserved for blank, and ``-1`` when last label is "
                  "reserved for blank. See `blank_label`.");
    DMLC_DECLARE_FIELD(blank_label)
        .add_enum("first", kBlankFirst)
        .add_enum("last", kBlankLast)
        .set_default(kBlankFirst)
        .describe("Set the label that is reserved for blank label.If \"first\", 0-th label is "
                  "reserved, and label values for tokens in the vocabulary are between ``1`` "
                  "and ``alphabet_size-1``, and the padding value is ``0``. If \"last\", last "
                  "label value ``alphabet_size-1`` is reserved for blank label instead, and "
                  "label values for tokens in the vocabulary are between ``0`` and "
                  "``alphabet_size-2``, and the padding value is ``-1``.");
  }
};

DMLC_REGISTER_PARAMETER(CTCLossParam);

uint32_t NumInputs(const NodeAttrs& attrs) {
  const CTCLossParam& p = Param<CTCLossParam>(attrs);
  return 2U + p.use_data_lengths + p.use_label_lengths;
}

std::vector<std::string> InputNamesOf(const NodeAttrs& attrs) {
  const CTCLossParam& p = Param<CTCLossParam>(attrs);
  std::vector<std::string> names{"data", "label"};
  if (p.use_data_lengths) names.push_back("data_lengths");
  if (p.use_label_lengths) names.push_back("label_lengths");
  return names;
}

bool CTCShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  const TShape& label = (*in)[1];
  if (!data.IsKnown() || !label.IsKnown()) return false;
  const std::string& op = attrs.op->name;
  CHECK_EQ(data.ndim(), 3) << "Operator " << op << ": argument data must be 3-D "
                           << "(sequence_length, batch_size, alphabet_size), given shape " << data;
  CHECK_EQ(label.ndim(), 2) << "Operator " << op << ": argument label must be 2-D "
                            << "(batch_size, max_label_length), given shape " << label;
  CHECK_EQ(data[1], label[0]) << "Operator " << op << ": data and label must have the same "
                              << "batch size, given data " << data << " and label " << label;
  CHECK_GE(data[0], label[1]) << "Operator " << op << ": the label length " << label[1]
                              << " cannot exceed the sequence length " << data[0]
                              << " of data " << data;
  for (size_t i = 2; i < in->size(); ++i) {
    AssignInputShape(attrs, i, &(*in)[i], TShape({data[1]}));
  }
  AssignShape(attrs, "output", &(*out)[0], TShape({data[1]}));
  AssignShape(attrs, "grad", &(*out)[1], data);
  return true;
}

bool CTCType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const int t = (*in)[0];
  if (t < 0) return false;
  CHECK(t == kFloat32 || t == kFloat64) << "Operator " << attrs.op->name
                                        << ": argument data must be float32 or float64, given "
                                        << DTypeName(t);
  AssignType(attrs, "output", &(*out)[0], t);
  AssignType(attrs, "grad", &(*out)[1], t);
  return true;
}

/*! \brief The elements of b as integers (labels and lengths come in any dtype). */
std::vector<int64_t> AsIntegers(const TBlob& b) {
  std::vector<int64_t> v(b.Size());
  MXNET_TYPE_SWITCH(b.type_flag_, DType, {
    const DType* p = b.dptr<DType>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>(static_cast<double>(p[i]));
  });
  return v;
}

/*! \brief One sample's frames and label, checked before the parallel loop (which must not
 *  throw). */
struct CTCSample {
  index_t frames = 0;
  std::vector<int64_t> label;
};

std::vector<CTCSample> ReadSamples(const CTCLossParam& p, const std::vector<TBlob>& in) {
  const char* op = "CTCLoss";
  const index_t T = in[0].shape_[0], N = in[0].shape_[1], C = in[0].shape_[2];
  const index_t width = in[1].shape_[1];
  const std::vector<int64_t> labels = AsIntegers(in[1]);
  std::vector<int64_t> data_len, label_len;
  if (p.use_data_lengths) data_len = AsIntegers(in[2]);
  if (p.use_label_lengths) label_len = AsIntegers(in[2 + p.use_data_lengths]);
  const int64_t padding = p.blank_label == kBlankFirst ? 0 : -1;
  std::vector<CTCSample> samples(N);
  for (index_t n = 0; n < N; ++n) {
    CTCSample& s = samples[n];
    s.frames = T;
    if (p.use_data_lengths) {
      CHECK(data_len[n] >= 0 && data_len[n] <= T)
          << "Operator " << op << ": data_lengths[" << n << "]=" << data_len[n]
          << " is outside [0, " << T << "], the sequence length of data";
      s.frames = data_len[n];
    }
    const int64_t* row = labels.data() + n * width;
    index_t len = std::find(row, row + width, padding) - row;
    if (p.use_label_lengths) {
      CHECK(label_len[n] >= 0 && label_len[n] <= width)
          << "Operator " << op << ": label_lengths[" << n << "]=" << label_len[n]
          << " is outside [0, " << width << "], the width of label";
      len = label_len[n];
    }
    s.label.assign(row, row + len);
    for (int64_t v : s.label) {
      CHECK(v >= 0 && v < C) << "Operator " << op << ": label value " << v << " in sample " << n
                             << " is outside [0, " << C << "), the alphabet size of data";
    }
  }
  return samples;
}

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double LogAdd(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double m = std::max(a, b);
  return m + std::log1p(std::exp(-std::abs(a - b)));
}

/*!
 * \brief Loss and activation gradient of one sample. x and g point at the sample's first
 *  frame, frames `stride` apart. A label the frames cannot hold (its length plus its repeats
 *  exceeds them) has no path: loss 0 and gradient 0, as MXNet's.
 */
template <typename DType>
DType SampleLoss(const CTCSample& s, index_t C, index_t stride, int64_t blank, const DType* x,
                 DType* g, bool want_grad) {
  const index_t T = s.frames;
  index_t repeats = 0;
  for (size_t i = 1; i < s.label.size(); ++i) repeats += s.label[i] == s.label[i - 1];
  const bool feasible = T > 0 && static_cast<index_t>(s.label.size()) + repeats <= T;
  if (!feasible) {
    if (want_grad) {
      for (index_t t = 0; t < T; ++t) std::fill(g + t * stride, g + t * stride + C, DType(0));
    }
    return DType(0);
  }
  // Log-probabilities of each frame (softmax over the alphabet).
  std::vector<double> lp(T * C);
  for (index_t t = 0; t < T; ++t) {
    const DType* xt = x + t * stride;
    double m = kNegInf;
    for (index_t c = 0; c < C; ++c) m = std::max(m, static_cast<double>(xt[c]));
    double z = 0;
    for (index_t c = 0; c < C; ++c) z += std::exp(static_cast<double>(xt[c]) - m);
    const double lz = m + std::log(z);
    for (index_t c = 0; c < C; ++c) lp[t * C + c] = static_cast<double>(xt[c]) - lz;
  }
  // The extended label: blank, l1, blank, l2, ..., blank.
  const index_t S = 2 * static_cast<index_t>(s.label.size()) + 1;
  std::vector<int64_t> ext(S, blank);
  for (size_t i = 0; i < s.label.size(); ++i) ext[2 * i + 1] = s.label[i];
  // A transition may skip the blank between two different labels.
  auto can_skip = [&](index_t a, index_t b) { return ext[a] != blank && ext[a] != ext[b]; };
  std::vector<double> alpha(T * S, kNegInf), beta(T * S, kNegInf);
  alpha[0] = lp[ext[0]];
  if (S > 1) alpha[1] = lp[ext[1]];
  for (index_t t = 1; t < T; ++t) {
    for (index_t k = 0; k < S; ++k) {
      double a = alpha[(t - 1) * S + k];
      if (k >= 1) a = LogAdd(a, alpha[(t - 1) * S + k - 1]);
      if (k >= 2 && can_skip(k, k - 2)) a = LogAdd(a, alpha[(t - 1) * S + k - 2]);
      alpha[t * S + k] = a == kNegInf ? kNegInf : a + lp[t * C + ext[k]];
    }
  }
  const index_t last = (T - 1) * S;
  beta[last + S - 1] = lp[(T - 1) * C + ext[S - 1]];
  if (S > 1) beta[last + S - 2] = lp[(T - 1) * C + ext[S - 2]];
  for (index_t t = T - 2; t >= 0; --t) {
    for (index_t k = 0; k < S; ++k) {
      double b = beta[(t + 1) * S + k];
      if (k + 1 < S) b = LogAdd(b, beta[(t + 1) * S + k + 1]);
      if (k + 2 < S && can_skip(k, k + 2)) b = LogAdd(b, beta[(t + 1) * S + k + 2]);
      beta[t * S + k] = b == kNegInf ? kNegInf : b + lp[t * C + ext[k]];
    }
  }
  double loglik = alpha[last + S - 1];
  if (S > 1) loglik = LogAdd(loglik, alpha[last + S - 2]);
  if (want_grad) {
    // d(-log p)/dx[t, c] = softmax[t, c] - sum_{k: ext[k] = c} alpha*beta / (p * softmax[t, c]).
    std::vector<double> occupancy(C);
    for (index_t t = 0; t < T; ++t) {
      std::fill(occupancy.begin(), occupancy.end(), kNegInf);
      for (index_t k = 0; k < S; ++k) {
        const double ab = alpha[t * S + k] + beta[t * S + k];
        if (ab != kNegInf) occupancy[ext[k]] = LogAdd(occupancy[ext[k]], ab);
      }
      for (index_t c = 0; c < C; ++c) {
        const double l = lp[t * C + c];
        const double post = occupancy[c] == kNegInf ? 0.0 : std::exp(occupancy[c] - l - loglik);
        g[t * stride + c] = static_cast<DType>(std::exp(l) - post);
      }
    }
  }
  return static_cast<DType>(-loglik);
}

template <typename DType>
void Forward(const CTCLossParam& p, const std::vector<TBlob>& in,
             const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const std::vector<CTCSample> samples = ReadSamples(p, in);
  const index_t T = in[0].shape_[0], N = in[0].shape_[1], C = in[0].shape_[2];
  const int64_t blank = p.blank_label == kBlankFirst ? 0 : C - 1;
  const DType* x = in[0].dptr<DType>();
  DType* loss = out[0].dptr<DType>();
  DType* grad = out[1].dptr<DType>();
  const bool want_grad = req[1] != kNullOp;
  LoopMaybeParallel(N > 1 && T * N * C * 8 >= ParallelGrain(), N, [&](index_t n) {
    const CTCSample& s = samples[n];
    const DType l = SampleLoss(s, C, N * C, blank, x + n * C, grad + n * C, want_grad);
    if (req[0] != kNullOp) Assign(loss + n, req[0], l);
    if (want_grad) {
      // Frames past the sample's length get no gradient.
      for (index_t t = s.frames; t < T; ++t) {
        std::fill(grad + (t * N + n) * C, grad + (t * N + n + 1) * C, DType(0));
      }
    }
  });
}

void CTCForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const CTCLossParam& p = Param<CTCLossParam>(attrs);
  if (in[0].type_flag_ == kFloat64) {
    Forward<double>(p, in, req, out);
  } else {
    Forward<float>(p, in, req, out);
  }
}

template <typename DType>
void Backward(const std::vector<TBlob>& in, OpReqType req, const TBlob& out) {
  const DType* og = in[0].dptr<DType>();
  const DType* grad = in[1].dptr<DType>();
  DType* dx = out.dptr<DType>();
  const index_t T = out.shape_[0], N = out.shape_[1], C = out.shape_[2];
  ParallelFor(T * N, [&](index_t tn) {
    const DType scale = og[tn % N];
    for (index_t c = 0; c < C; ++c) Assign(dx + tn * C + c, req, grad[tn * C + c] * scale);
  });
}

// _backward_ctc_loss: inputs (ograd of the loss, the gradient the forward kept).
void CTCBackward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  if (out[0].type_flag_ == kFloat64) {
    Backward<double>(in, req[0], out[0]);
  } else {
    Backward<float>(in, req[0], out[0]);
  }
}

bool CTCBackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[1].IsKnown()) return false;
  AssignShape(attrs, "data gradient", &(*out)[0], (*in)[1]);
  return true;
}

// Labels and lengths get zero gradients.
std::vector<NodeEntry> CTCGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  NodeEntry bwd = MakeNode("_backward_ctc_loss", GradName(n), {og[0], Out(n, 1)},
                           n->attrs.dict, &n);
  std::vector<NodeEntry> grads = ZeroGrads(n);
  grads[0] = bwd;
  return grads;
}

}  // namespace

NNVM_REGISTER_OP(CTCLoss)
    .add_alias("ctc_loss")
    .add_alias("_contrib_CTCLoss")
    .add_alias("_contrib_ctc_loss")
    .describe(R"doc(Connectionist Temporal Classification Loss.

.. note:: The existing alias ``contrib_CTCLoss`` is deprecated.

The shapes of the inputs and outputs:

- **data**: `(sequence_length, batch_size, alphabet_size)`
- **label**: `(batch_size, label_sequence_length)`
- **out**: `(batch_size)`

The `data` tensor consists of sequences of activation vectors (without applying softmax),
with i-th channel in the last dimension corresponding to i-th label
for i between 0 and alphabet_size-1 (i.e always 0-indexed).
Alphabet size should include one additional value reserved for blank label.
When `blank_label` is ``"first"``, the ``0``-th channel is be reserved for
activation of blank label, or otherwise if it is "last", ``(alphabet_size-1)``-th channel should be
reserved for blank label.

``label`` is an index matrix of integers. When `blank_label` is ``"first"``,
the value 0 is then reserved for blank label, and should not be passed in this matrix. Otherwise,
when `blank_label` is ``"last"``, the value `(alphabet_size-1)` is reserved for blank label.

If a sequence of labels is shorter than *label_sequence_length*, use the special
padding value at the end of the sequence to conform it to the correct
length. The padding value is `0` when `blank_label` is ``"first"``, and `-1` otherwise.

For example, suppose the vocabulary is `[a, b, c]`, and in one batch we have three sequences
'ba', 'cbb', and 'abac'. When `blank_label` is ``"first"``, we can index the labels as
`{'a': 1, 'b': 2, 'c': 3}`, and we reserve the 0-th channel for blank label in data tensor.
The resulting `label` tensor should be padded to be::

  [[2, 1, 0, 0], [3, 2, 2, 0], [1, 2, 1, 3]]

When `blank_label` is ``"last"``, we can index the labels as
`{'a': 0, 'b': 1, 'c': 2}`, and we reserve the channel index 3 for blank label in data tensor.
The resulting `label` tensor should be padded to be::

  [[1, 0, -1, -1], [2, 1, 1, -1], [0, 1, 0, 2]]

``out`` is a list of CTC loss values, one per example in the batch. A label the sequence
cannot hold (its length plus its repeated neighbours exceed the frames) gets loss 0 and no
gradient. The loss is computed in log space (stable for long sequences); the gradient of the
activations is computed with the loss and kept as a hidden second output.

See *Connectionist Temporal Classification: Labelling Unsegmented
Sequence Data with Recurrent Neural Networks*, A. Graves *et al*. for more
information on the definition and the algorithm.
)doc")
    .set_num_inputs(NumInputs)
    .set_num_outputs(2)
    .set_attr<FNumVisibleOutputs>("FNumVisibleOutputs", [](const NodeAttrs&) { return 1U; })
    .set_attr_parser(ParamParser<CTCLossParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input ndarray")
    .add_argument("label", "NDArray-or-Symbol", "Ground-truth labels for the loss.")
    .add_argument("data_lengths", "NDArray-or-Symbol",
                  "Lengths of data for each of the samples. Only required when "
                  "use_data_lengths is true.")
    .add_argument("label_lengths", "NDArray-or-Symbol",
                  "Lengths of labels for each of the samples. Only required when "
                  "use_label_lengths is true.")
    .add_arguments(CTCLossParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNamesOf)
    .set_attr<FInferShape>("FInferShape", CTCShape)
    .set_attr<FInferType>("FInferType", CTCType)
    .set_attr<FCompute>("FCompute<cpu>", CTCForward)
    .set_attr<FGradient>("FGradient", CTCGrad);

NNVM_REGISTER_OP(_backward_ctc_loss)
    .describe("Gradient of CTCLoss with respect to data: the kept gradient scaled by the "
              "gradient of each sample's loss.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<CTCLossParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the loss")
    .add_argument("grad", "NDArray-or-Symbol", "The gradient output of CTCLoss")
    .add_arguments(CTCLossParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"ograd", "grad"}))
    .set_attr<FInferShape>("FInferShape", CTCBackwardShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", CTCBackward);

}  // namespace op
}  // namespace mxnet
