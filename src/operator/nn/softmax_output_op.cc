// SoftmaxOutput (alias Softmax): softmax forward whose backward is the cross-entropy loss
// gradient (label smoothing, ignored labels, normalization); and softmax_cross_entropy.
#include <string>
#include <vector>

#include "operator/nn/float_op_helpers.h"
#include "operator/nn/softmax_kernel.h"

namespace mxnet {
namespace op {

enum class LossNorm { kNull = 0, kBatch = 1, kValid = 2 };

struct SoftmaxOutputParam : public dmlc::Parameter<SoftmaxOutputParam> {
  float grad_scale;
  float ignore_label;
  bool multi_output;
  bool use_ignore;
  bool preserve_shape;
  int normalization;
  bool out_grad;
  float smooth_alpha;
  DMLC_DECLARE_PARAMETER(SoftmaxOutputParam) {
    DMLC_DECLARE_FIELD(grad_scale).set_default(1.0f)
        .describe("Scales the gradient by a float factor.");
    DMLC_DECLARE_FIELD(ignore_label).set_default(-1.0f)
        .describe("The instances whose `labels` == `ignore_label` will be ignored during "
                  "backward, if `use_ignore` is set to ``true``).");
    DMLC_DECLARE_FIELD(multi_output).set_default(false)
        .describe("If set to ``true``, the softmax function will be computed along axis ``1``. "
                  "This is applied when the shape of input array differs from the shape of "
                  "label array.");
    DMLC_DECLARE_FIELD(use_ignore).set_default(false)
        .describe("If set to ``true``, the `ignore_label` value will not contribute to the "
                  "backward gradient.");
    DMLC_DECLARE_FIELD(preserve_shape).set_default(false)
        .describe("If set to ``true``, the softmax function will be computed along the last "
                  "axis (``-1``).");
    DMLC_DECLARE_FIELD(normalization)
        .add_enum("null", static_cast<int>(LossNorm::kNull))
        .add_enum("batch", static_cast<int>(LossNorm::kBatch))
        .add_enum("valid", static_cast<int>(LossNorm::kValid))
        .set_default(static_cast<int>(LossNorm::kNull))
        .describe("Normalizes the gradient.");
    DMLC_DECLARE_FIELD(out_grad).set_default(false)
        .describe("Multiplies gradient with output gradient element-wise.");
    DMLC_DECLARE_FIELD(smooth_alpha).set_default(0.0f).set_range(0.0f, 1.0f)
        .describe("Constant for computing a label smoothed version of cross-entropyfor the "
                  "backwards pass.  This constant gets subtracted from theone-hot encoding of "
                  "the gold label and distributed uniformly toall other labels.");
  }
};
DMLC_REGISTER_PARAMETER(SoftmaxOutputParam);

namespace {

// ------------------------------------------------------------------------------ SoftmaxOutput
/*! \brief The rows softmax runs along: axis 1 (multi_output), the last axis (preserve_shape),
 *  or everything after axis 0. */
SoftmaxLayout OutputLayout(const SoftmaxOutputParam& p, const TShape& s) {
  if (s.ndim() == 1) return SoftmaxLayout::Along(s, 0);
  if (p.multi_output) return SoftmaxLayout::Along(s, 1);
  if (p.preserve_shape) return SoftmaxLayout::Along(s, s.ndim() - 1);
  SoftmaxLayout l;
  l.outer = s[0];
  l.M = static_cast<index_t>(s.ProdShape(1, s.ndim()));
  return l;
}

bool SoftmaxOutputShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                        std::vector<TShape>* out) {
  const SoftmaxOutputParam& p = Param<SoftmaxOutputParam>(attrs);
  AssignInputShape(attrs, 0, &(*in)[0], (*out)[0]);
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  CHECK_GT(d.ndim(), 0) << "Operator " << attrs.op->name
                        << ": argument data must have at least one axis, given a scalar";
  TShape& l = (*in)[1];
  if (l != d) {  // a label per row; a label of data's shape holds probabilities
    if (p.multi_output) {
      CHECK_GE(d.ndim(), 2) << "Operator " << attrs.op->name
                            << ": multi_output=True expects data with at least 2 axes, given " << d;
      const dim_t rest = d[1] > 0 ? static_cast<dim_t>(d.Size() / d[0] / d[1]) : 0;
      TShape flat{d[0], rest};
      std::vector<dim_t> without(d.begin(), d.end());
      without.erase(without.begin() + 1);
      TShape dropped(without.begin(), without.end());
      TShape kept = d;
      kept[1] = 1;
      if (l.ndim() < 0) {
        l = flat;
      } else if (l != flat && l != dropped && l != kept) {
        LOG(FATAL) << "Operator " << attrs.op->name << ": argument label has shape " << l
                   << ", expected " << flat << " or " << dropped << " (or the data's shape "
                   << d << " for probabilities)";
      }
    } else {
      std::vector<dim_t> rows(d.begin(), d.end() - 1);
      AssignInputShape(attrs, 1, &l, TShape(rows.begin(), rows.end()));
    }
  }
  AssignShape(attrs, "output", &(*out)[0], d);
  return true;
}

void SoftmaxOutputCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const SoftmaxOutputParam& p = Param<SoftmaxOutputParam>(attrs);
  SoftmaxForward(in[0], out[0], req[0], OutputLayout(p, in[0].shape_), SoftmaxOptions(), nullptr);
}

// Backward inputs: (output, label, [ograd when out_grad]); outputs: (data grad, label grad).
template <typename DType>
void SoftmaxOutputBackward(const SoftmaxOutputParam& p, const std::vector<TBlob>& in,
                           const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  using C = FloatComputeOf<DType>;
  const TBlob &y = in[0], &label = in[1];
  const DType* yp = y.dptr<DType>();
  const DType* lp = label.dptr<DType>();
  const DType* og = p.out_grad ? in[2].dptr<DType>() : nullptr;
  DType* dx = out[0].dptr<DType>();
  const index_t n = static_cast<index_t>(y.Size());
  const OpReqType r = req[0];
  auto head = [&](index_t i) { return og ? static_cast<C>(og[i]) : C(1); };
  if (label.shape_ == y.shape_) {  // probabilities as label: no normalization or ignoring
    const C scale = static_cast<C>(p.grad_scale);
    ParallelFor(n, [&](index_t i) {
      const C g = (static_cast<C>(yp[i]) - static_cast<C>(lp[i])) * scale * head(i);
      Assign(dx + i, r, DType(g));
    });
    return;
  }
  const SoftmaxLayout l = OutputLayout(p, y.shape_);
  const int ignore = static_cast<int>(p.ignore_label);
  const index_t labels = static_cast<index_t>(label.Size());
  double divisor = 1;
  const LossNorm norm = static_cast<LossNorm>(p.normalization);
  if (norm == LossNorm::kValid) {
    index_t valid = labels;
    for (index_t i = 0; i < labels; ++i) valid -= static_cast<int>(lp[i]) == ignore;
    divisor = std::max<index_t>(valid, 1);
  } else {
    if (norm == LossNorm::kBatch) divisor = p.multi_output ? y.shape_[0] : labels;
    if (p.multi_output) divisor *= l.inner;  // MXNet averages over positions too
  }
  const C scale = static_cast<C>(p.grad_scale / divisor);
  const C alpha = static_cast<C>(p.smooth_alpha);
  const C spread = l.M > 1 ? alpha / C(l.M - 1) : C(0);
  LoopMaybeParallel(n >= ParallelGrain(), l.rows(), [&](index_t row) {
    const index_t o = row / l.inner, i = row % l.inner;
    const index_t base = o * l.M * l.inner + i;
    const int k = static_cast<int>(lp[row]);
    const bool skip = p.use_ignore && k == ignore;
    for (index_t j = 0; j < l.M; ++j) {
      const index_t e = base + j * l.inner;
      C g = 0;
      if (!skip) {
        g = static_cast<C>(yp[e]) - (j == k ? C(1) - alpha : spread);
        g *= scale * head(e);
      }
      Assign(dx + e, r, DType(g));
    }
  });
}

void SoftmaxOutputGradCompute(const NodeAttrs& attrs, const OpContext&,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  const SoftmaxOutputParam& p = Param<SoftmaxOutputParam>(attrs);
  ZeroGradient(out[1], req[1]);
  if (req[0] == kNullOp || in[0].Size() == 0) return;
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType,
                         { SoftmaxOutputBackward<DType>(p, in, req, out); });
}

// The head gradient is used only with out_grad=True: SoftmaxOutput is a loss layer whose
// backward is the loss gradient itself.
std::vector<NodeEntry> SoftmaxOutputGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  std::vector<NodeEntry> inputs{Out(n), n->inputs[1]};
  if (Param<SoftmaxOutputParam>(n->attrs).out_grad) inputs.push_back(og[0]);
  NodeEntry bw = MakeNode("_backward_SoftmaxOutput", GradName(n), inputs, n->attrs.dict);
  return {bw, NodeEntry(bw.node, 1, 0)};
}

bool SoftmaxOutputGradShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                            std::vector<TShape>* out) {
  return GradShapesFromInputs(attrs, in, out, {0, 1});
}

// ---------------------------------------------------------------------- softmax_cross_entropy
bool CrossEntropyShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape &d = (*in)[0], &l = (*in)[1];
  if (!d.IsKnown() || !l.IsKnown()) return false;
  CHECK_EQ(d.ndim(), 2) << "Operator " << attrs.op->name
                        << ": argument data expected a 2-D array, given shape " << d;
  CHECK_EQ(l.ndim(), 1) << "Operator " << attrs.op->name
                        << ": argument label expected a 1-D array, given shape " << l;
  CHECK_EQ(d[0], l[0]) << "Operator " << attrs.op->name << ": data of shape " << d
                       << " and label of shape " << l << " differ in batch size";
  AssignShape(attrs, "output", &(*out)[0], TShape{1});
  return true;
}

template <typename DType>
void CrossEntropyForward(const TBlob& data, const TBlob& label, DType* prob, const TBlob& out,
                         OpReqType req) {
  using C = FloatComputeOf<DType>;
  const index_t rows = data.shape_[0], M = data.shape_[1];
  const DType* lp = label.dptr<DType>();
  C loss = 0;
  for (index_t r = 0; r < rows; ++r) {
    const index_t k = static_cast<int>(lp[r]);
    // MXNet picks the label's element with the index clipped into the row.
    const index_t kk = std::min<index_t>(std::max<index_t>(k, 0), M - 1);
    loss -= std::log(std::max(static_cast<C>(prob[r * M + kk]), C(1e-8)));
  }
  Assign(out.dptr<DType>(), req, DType(loss));
}

void CrossEntropyCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    DType* prob = static_cast<DType*>(ctx.RequestTempSpace(in[0].Size() * sizeof(DType)));
    TBlob pb(prob, in[0].shape_, in[0].type_flag_, in[0].ctx);
    SoftmaxForward(in[0], pb, kWriteTo, SoftmaxLayout::Along(in[0].shape_, 1), SoftmaxOptions(),
                   nullptr);
    CrossEntropyForward<DType>(in[0], in[1], prob, out[0], req[0]);
  });
}

// Backward inputs: (ograd, data, label); outputs: (data grad, label grad).
void CrossEntropyGradCompute(const NodeAttrs& attrs, const OpContext& ctx,
                             const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                             const std::vector<TBlob>& out) {
  ZeroGradient(out[1], req[1]);
  if (req[0] == kNullOp) return;
  const TBlob& data = in[1];
  MXNET_REAL_TYPE_SWITCH(data.type_flag_, DType, {
    using C = FloatComputeOf<DType>;
    DType* prob = static_cast<DType*>(ctx.RequestTempSpace(data.Size() * sizeof(DType)));
    TBlob pb(prob, data.shape_, data.type_flag_, data.ctx);
    SoftmaxForward(data, pb, kWriteTo, SoftmaxLayout::Along(data.shape_, 1), SoftmaxOptions(),
                   nullptr);
    const C g = static_cast<C>(in[0].dptr<DType>()[0]);
    const DType* lp = in[2].dptr<DType>();
    const index_t rows = data.shape_[0], M = data.shape_[1];
    DType* dx = out[0].dptr<DType>();
    for (index_t r = 0; r < rows; ++r) {
      const index_t k = static_cast<int>(lp[r]);
      for (index_t j = 0; j < M; ++j) {
        const C v = static_cast<C>(prob[r * M + j]) - (j == k ? C(1) : C(0));
        Assign(dx + r * M + j, req[0], DType(g * v));
      }
    }
  });
}

std::vector<NodeEntry> CrossEntropyGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  NodeEntry bw = MakeNode("_backward_softmax_cross_entropy", GradName(n),
                          {og[0], n->inputs[0], n->inputs[1]});
  return {bw, NodeEntry(bw.node, 1, 0)};
}

bool CrossEntropyGradShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                           std::vector<TShape>* out) {
  return GradShapesFromInputs(attrs, in, out, {1, 2});
}

}  // namespace

NNVM_REGISTER_OP(SoftmaxOutput)
    .add_alias("Softmax")
    .describe(R"doc(Computes the gradient of cross entropy loss with respect to softmax output.

- Forward: the softmax of the input, per instance: over everything after axis 0 by default,
  along the last axis with ``preserve_shape``, along axis 1 with ``multi_output``.
- Backward: the gradient of the cross-entropy loss, output - label (one-hot for class labels,
  as given for a label of the data's shape), times ``grad_scale``. The head gradient is not
  used unless ``out_grad`` is true.

  - ``use_ignore`` with ``ignore_label`` zeroes the gradient of instances with that label.
  - ``smooth_alpha`` takes alpha from the label's class and spreads it over the others.
  - ``normalization``: ``null`` (none), ``batch`` (divide by the batch size), ``valid``
    (divide by the number of labels that are not ``ignore_label``). With ``multi_output``,
    ``null`` and ``batch`` also divide by the number of positions, as MXNet does.
)doc")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<SoftmaxOutputParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input array.")
    .add_argument("label", "NDArray-or-Symbol", "Ground truth label.")
    .add_arguments(SoftmaxOutputParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data", "label"}))
    .set_attr<FListOutputNames>("FListOutputNames", InputNames({"output"}))
    .set_attr<FInferShape>("FInferShape", SoftmaxOutputShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput)
    .set_attr<FCompute>("FCompute<cpu>", SoftmaxOutputCompute)
    .set_attr<FGradient>("FGradient", SoftmaxOutputGrad);

NNVM_REGISTER_OP(_backward_SoftmaxOutput)
    .describe("Gradient of SoftmaxOutput's loss with respect to data (label gets zeros).")
    .set_num_inputs([](const NodeAttrs& a) {
      return Param<SoftmaxOutputParam>(a).out_grad ? 3u : 2u;
    })
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<SoftmaxOutputParam>)
    .add_argument("args", "NDArray-or-Symbol[]", "output, label and (with out_grad) ograd")
    .add_arguments(SoftmaxOutputParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", SoftmaxOutputGradShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", SoftmaxOutputGradCompute);

NNVM_REGISTER_OP(softmax_cross_entropy)
    .describe(R"doc(Calculate cross entropy of softmax output and one-hot label.

- Applies softmax function on the input array (2-D, one row per instance).
- Computes and returns the cross entropy loss between the softmax output and the labels,
  summed over the batch: -sum_i log(softmax(data)_i[label_i]), a (1,) array.

Example::

  x = [[1, 2, 3],
       [11, 7, 5]]
  label = [2, 0]
  softmax(x) = [[0.09003057, 0.24472848, 0.66524094],
                [0.97962922, 0.01794253, 0.00242826]]
  softmax_cross_entropy(data, label) = - log(0.66524084) - log(0.97962922) = 0.4281871
)doc")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Input data")
    .add_argument("label", "NDArray-or-Symbol", "Input label")
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data", "label"}))
    .set_attr<FInferShape>("FInferShape", CrossEntropyShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", CrossEntropyCompute)
    .set_attr<FGradient>("FGradient", CrossEntropyGrad);

NNVM_REGISTER_OP(_backward_softmax_cross_entropy)
    .describe("Gradient of softmax_cross_entropy with respect to data (label gets zeros).")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .add_argument("args", "NDArray-or-Symbol[]", "ograd, data, label")
    .set_attr<FInferShape>("FInferShape", CrossEntropyGradShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", CrossEntropyGradCompute);

}  // namespace op
}  // namespace mxnet
