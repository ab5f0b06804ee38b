// LayerNorm, InstanceNorm and GroupNorm: where each op's rows lie and its gamma/beta shapes;
// the normalization itself is norm_rows.h. Each has two hidden statistic outputs (LayerNorm
// and GroupNorm show them with output_mean_var).
#include <string>
#include <vector>

#include "operator/nn/norm_rows.h"
#include "operator/nn/onednn/onednn_layer_norm.h"

namespace mxnet {
namespace op {

struct LayerNormParam : public dmlc::Parameter<LayerNormParam> {
  int axis;
  float eps;
  bool output_mean_var;
  DMLC_DECLARE_PARAMETER(LayerNormParam) {
    DMLC_DECLARE_FIELD(axis).set_default(-1).describe(
        "The axis to perform layer normalization. Usually, this should be be axis of the "
        "channel dimension. Negative values means indexing from right to left.");
    DMLC_DECLARE_FIELD(eps).set_default(1e-5f).describe(
        "An `epsilon` parameter to prevent division by 0.");
    DMLC_DECLARE_FIELD(output_mean_var).set_default(false).describe(
        "Output the mean and std calculated along the given axis.");
  }
};
DMLC_REGISTER_PARAMETER(LayerNormParam);

struct InstanceNormParam : public dmlc::Parameter<InstanceNormParam> {
  float eps;
  DMLC_DECLARE_PARAMETER(InstanceNormParam) {
    DMLC_DECLARE_FIELD(eps).set_default(1e-3f).describe(
        "An `epsilon` parameter to prevent division by 0.");
  }
};
DMLC_REGISTER_PARAMETER(InstanceNormParam);

struct GroupNormParam : public dmlc::Parameter<GroupNormParam> {
  int num_groups;
  float eps;
  bool output_mean_var;
  DMLC_DECLARE_PARAMETER(GroupNormParam) {
    DMLC_DECLARE_FIELD(num_groups).set_default(1).set_lower_bound(1).describe(
        "Total number of groups.");
    DMLC_DECLARE_FIELD(eps).set_default(1e-5f).describe(
        "An `epsilon` parameter to prevent division by 0.");
    DMLC_DECLARE_FIELD(output_mean_var).set_default(false).describe(
        "Output the mean and std calculated along the given axis.");
  }
};
DMLC_REGISTER_PARAMETER(GroupNormParam);

namespace {

// ------------------------------------------------------------------------------ LayerNorm
int LayerNormAxis(const NodeAttrs& attrs, const TShape& d) {
  const int axis = Param<LayerNormParam>(attrs).axis;
  const int a = axis < 0 ? axis + d.ndim() : axis;
  CHECK(a >= 0 && a < d.ndim()) << "Operator " << attrs.op->name << ": argument axis=" << axis
                                << " is out of range for data of shape " << d;
  return a;
}

NormRows LayerNormRows(const NodeAttrs& attrs, const TShape& d) {
  const int a = LayerNormAxis(attrs, d);
  NormRows l;
  l.outer = static_cast<index_t>(d.ProdShape(0, a));
  l.len = d[a];
  l.inner = static_cast<index_t>(d.ProdShape(a + 1, d.ndim()));
  l.eps = Param<LayerNormParam>(attrs).eps;
  return l;
}

bool LayerNormShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  const int a = LayerNormAxis(attrs, d);
  AssignInputShape(attrs, 1, &(*in)[1], TShape{d[a]});
  AssignInputShape(attrs, 2, &(*in)[2], TShape{d[a]});
  TShape stats = d;
  stats[a] = 1;
  AssignShape(attrs, "output", &(*out)[0], d);
  AssignShape(attrs, "mean", &(*out)[1], stats);
  AssignShape(attrs, "std", &(*out)[2], stats);
  return true;
}

// --------------------------------------------------------------------------- InstanceNorm
NormRows InstanceNormRows(const NodeAttrs& attrs, const TShape& d) {
  NormRows l;
  l.outer = d[0] * d[1];
  l.len = static_cast<index_t>(d.ProdShape(2, d.ndim()));
  l.gamma_mod = d[1];
  l.gamma_div = l.len;
  l.eps = Param<InstanceNormParam>(attrs).eps;
  l.spread_is_var = true;
  return l;
}

void CheckRank3(const NodeAttrs& attrs, const TShape& d) {
  CHECK_GE(d.ndim(), 3) << "Operator " << attrs.op->name
                        << ": data must have rank >= 3 (batch, channel, spatial...), given "
                        << d;
}

bool InstanceNormShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                       std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  CheckRank3(attrs, d);
  AssignInputShape(attrs, 1, &(*in)[1], TShape{d[1]});
  AssignInputShape(attrs, 2, &(*in)[2], TShape{d[1]});
  AssignShape(attrs, "output", &(*out)[0], d);
  AssignShape(attrs, "mean", &(*out)[1], TShape{d[0], d[1]});
  AssignShape(attrs, "var", &(*out)[2], TShape{d[0], d[1]});
  return true;
}

// ------------------------------------------------------------------------------ GroupNorm
NormRows GroupNormRows(const NodeAttrs& attrs, const TShape& d) {
  const GroupNormParam& p = Param<GroupNormParam>(attrs);
  NormRows l;
  l.outer = d[0] * p.num_groups;
  l.len = static_cast<index_t>(d.ProdShape(1, d.ndim())) / p.num_groups;
  l.gamma_mod = p.num_groups;
  l.gamma_div = l.len;
  l.eps = p.eps;
  return l;
}

// gamma and beta hold one entry per group, as in MXNet 1.9.1.
bool GroupNormShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const int groups = Param<GroupNormParam>(attrs).num_groups;
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  CheckRank3(attrs, d);
  CHECK_EQ(d[1] % groups, 0) << "Operator " << attrs.op->name << ": the " << d[1]
                             << " channels of data " << d << " are not divisible by num_groups="
                             << groups;
  AssignInputShape(attrs, 1, &(*in)[1], TShape{groups});
  AssignInputShape(attrs, 2, &(*in)[2], TShape{groups});
  AssignShape(attrs, "output", &(*out)[0], d);
  AssignShape(attrs, "mean", &(*out)[1], TShape{d[0], groups});
  AssignShape(attrs, "std", &(*out)[2], TShape{d[0], groups});
  return true;
}

// ------------------------------------------------------------------------------ kernels
using RowsOf = NormRows (*)(const NodeAttrs&, const TShape&);

template <RowsOf rows>
void Forward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
             const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const NormRows l = rows(attrs, in[0].shape_);
  if (LayerNormUsesOneDNN(l, in[0], req[0])) return LayerNormForwardOneDNN(l, in, req, out);
  NormRowsForward(l, in, req, out);
}

template <RowsOf rows>
void Backward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
              const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const NormRows l = rows(attrs, in[1].shape_);
  if (LayerNormUsesOneDNN(l, in[1], req[0])) return LayerNormBackwardOneDNN(l, in, req, out);
  NormRowsBackward(l, in, req, out);
}

/*! \brief Registers the forward op (data, gamma, beta) -> (out, stat1, stat2) and its backward
 *  (ograd, data, gamma, stat1, stat2) -> (data, gamma, beta gradients). */
template <typename PType, RowsOf rows>
void RegisterNormOp(const char* name, const char* doc, const char* data_doc,
                    const char* gamma_doc, const char* beta_doc, FInferShape shape,
                    FNumVisibleOutputs visible, const std::string& stat1,
                    const std::string& stat2) {
  nnvm::Op& op = nnvm::Op::Register(name);
  op.describe(doc)
      .set_num_inputs(3)
      .set_num_outputs(3)
      .set_attr_parser(ParamParser<PType>)
      .add_argument("data", "NDArray-or-Symbol", data_doc)
      .add_argument("gamma", "NDArray-or-Symbol", gamma_doc)
      .add_argument("beta", "NDArray-or-Symbol", beta_doc)
      .add_arguments(PType::__FIELDS__());
  op.set_attr<FNumVisibleOutputs>("FNumVisibleOutputs", visible);
  op.set_attr<FListInputNames>("FListInputNames", InputNames({"data", "gamma", "beta"}));
  op.set_attr<FListOutputNames>("FListOutputNames", InputNames({"output", stat1, stat2}));
  op.set_attr<FInferShape>("FInferShape", shape);
  op.set_attr<FInferType>("FInferType", FloatElemwiseType);
  op.set_attr<FCompute>("FCompute<cpu>", Forward<rows>);
  op.set_attr<FGradient>("FGradient", NormRowsGrad);

  nnvm::Op& bw = nnvm::Op::Register(std::string("_backward_") + name);
  bw.describe(std::string("Gradients of ") + name + " with respect to data, gamma and beta.")
      .set_num_inputs(5)
      .set_num_outputs(3)
      .set_attr_parser(ParamParser<PType>)
      .add_arguments(PType::__FIELDS__());
  bw.set_attr<FListInputNames>("FListInputNames",
                               InputNames({"ograd", "data", "gamma", stat1, stat2}));
  bw.set_attr<FInferShape>("FInferShape", NormRowsBackwardShape);
  bw.set_attr<FInferType>("FInferType", FloatElemwiseType);
  bw.set_attr<FCompute>("FCompute<cpu>", Backward<rows>);
}

template <typename PType>
uint32_t VisibleWithMeanVar(const NodeAttrs& attrs) {
  return Param<PType>(attrs).output_mean_var ? 3 : 1;
}

uint32_t OnlyOutput(const NodeAttrs&) { return 1; }

const bool registered [[maybe_unused]] = [] {
  RegisterNormOp<LayerNormParam, LayerNormRows>(
      "LayerNorm", R"doc(Layer normalization.

Normalizes data along ``axis`` to zero mean and unit variance, then scales and shifts it:
``out = (data - mean(data, axis)) / sqrt(var(data, axis) + eps) * gamma + beta``, with gamma
and beta of shape (data.shape[axis],). With ``output_mean_var`` the mean and the standard
deviation sqrt(var + eps) (data's shape with axis set to 1) are returned as well.
)doc",
      "Input data to layer normalization", "gamma array", "beta array", LayerNormShape,
      VisibleWithMeanVar<LayerNormParam>, "mean", "std");
  RegisterNormOp<InstanceNormParam, InstanceNormRows>(
      "InstanceNorm", R"doc(Instance normalization.

For data (batch, channel, spatial...), each (batch, channel) slice is normalized over its
spatial positions: ``out = (x - mean) / sqrt(var + eps) * gamma[c] + beta[c]``, with gamma and
beta of shape (channel,).
)doc",
      "An n-dimensional input array (n > 2) of the form [batch, channel, spatial_dim1, "
      "spatial_dim2, ...].",
      "A vector of length 'channel', which multiplies the normalized input.",
      "A vector of length 'channel', which is added to the product of the normalized input and "
      "the weight.",
      InstanceNormShape, OnlyOutput, "mean", "var");
  RegisterNormOp<GroupNormParam, GroupNormRows>(
      "GroupNorm", R"doc(Group normalization.

The channels of data (batch, channel, spatial...) are split into ``num_groups`` groups; each
(batch, group) block is normalized over its channels and spatial positions, then scaled and
shifted by that group's gamma and beta (shape (num_groups,), as in MXNet 1.9.1). With
``output_mean_var`` the mean and the standard deviation sqrt(var + eps), shape
(batch, num_groups), are returned as well.
)doc",
      "Input data", "gamma array", "beta array", GroupNormShape,
      VisibleWithMeanVar<GroupNormParam>, "mean", "std");
  return true;
}();

}  // namespace

}  // namespace op
}  // namespace mxnet
