// moments: mean and (biased) variance over the given axes, and their backward.
#include <vector>

#include "operator/nn/nn_common.h"
#include "operator/tensor/reduce_kernel.h"

namespace mxnet {
namespace op {

namespace {

struct MomentsParam : public dmlc::Parameter<MomentsParam> {
  dmlc::optional<IntTuple> axes;
  bool keepdims;
  DMLC_DECLARE_PARAMETER(MomentsParam) {
    DMLC_DECLARE_FIELD(axes).set_default(dmlc::optional<IntTuple>())
        .describe("Array of ints. Axes along which to compute mean and variance.");
    DMLC_DECLARE_FIELD(keepdims).set_default(false)
        .describe("produce moments with the same dimensionality as the input.");
  }
};

DMLC_REGISTER_PARAMETER(MomentsParam);

/*! \brief The reduced axes; like MXNet's, moments wants them listed (no None for "all"). */
std::vector<bool> MomentsMask(const NodeAttrs& attrs, const TShape& data) {
  const MomentsParam& p = Param<MomentsParam>(attrs);
  CHECK(p.axes.has_value() && p.axes.value().ndim() > 0)
      << "Operator " << attrs.op->name << ": argument axes must list at least one axis (for "
      << "moments over the whole array, list every axis), given "
      << (p.axes.has_value() ? "()" : "None");
  return ReduceAxesMask(attrs, "axes", data, p.axes, false);
}

bool MomentsShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!data.IsKnown()) return false;
  const TShape r = ReducedShape(data, MomentsMask(attrs, data), Param<MomentsParam>(attrs).keepdims);
  AssignShape(attrs, "mean", &(*out)[0], r);
  AssignShape(attrs, "var", &(*out)[1], r);
  return true;
}

bool MomentsType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const int t = (*in)[0];
  if (t < 0) return false;
  CHECK(t != kBool) << "Operator " << attrs.op->name << ": argument data must be numeric, given "
                    << DTypeName(t);
  AssignType(attrs, "mean", &(*out)[0], t);
  AssignType(attrs, "var", &(*out)[1], t);
  return true;
}

/*! \brief For each element of data (in order), the flat index of its reduced output element. */
std::vector<index_t> OutputIndexOfEach(const TShape& data, const std::vector<bool>& mask) {
  const int nd = data.ndim();
  std::vector<index_t> stride(nd, 0);
  index_t s = 1;
  for (int d = nd - 1; d >= 0; --d) {
    if (!mask[d]) {
      stride[d] = s;
      s *= data[d];
    }
  }
  std::vector<index_t> idx(data.Size());
  std::vector<index_t> coord(nd, 0);
  index_t o = 0;
  for (size_t i = 0; i < idx.size(); ++i) {
    idx[i] = o;
    for (int d = nd - 1; d >= 0; --d) {  // next coordinate, odometer style
      o += stride[d];
      if (++coord[d] < data[d]) break;
      o -= stride[d] * data[d];
      coord[d] = 0;
    }
  }
  return idx;
}

void MomentsForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TShape& shape = in[0].shape_;
  const std::vector<bool> mask = MomentsMask(attrs, shape);
  const std::vector<index_t> to_out = OutputIndexOfEach(shape, mask);
  const double count = static_cast<double>(ReducedCount(shape, mask));
  const size_t n_out = out[0].Size();
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    std::vector<double> mean(n_out, 0.0), var(n_out, 0.0);
    for (size_t i = 0; i < to_out.size(); ++i) mean[to_out[i]] += static_cast<double>(x[i]);
    for (double& m : mean) m = count > 0 ? m / count : 0.0;
    for (size_t i = 0; i < to_out.size(); ++i) {
      const double d = static_cast<double>(x[i]) - mean[to_out[i]];
      var[to_out[i]] += d * d;
    }
    for (size_t o = 0; o < n_out; ++o) {
      if (req[0] != kNullOp) Assign(out[0].dptr<DType>() + o, req[0], static_cast<DType>(mean[o]));
      if (req[1] != kNullOp) {
        Assign(out[1].dptr<DType>() + o, req[1],
               static_cast<DType>(count > 0 ? var[o] / count : 0.0));
      }
    }
  });
}

// _backward_moments: inputs (mean grad, var grad, data, mean); output the data gradient
// mean_grad / n + var_grad * 2 (x - mean) / n.
void MomentsBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const TShape& shape = in[2].shape_;
  const std::vector<bool> mask = MomentsMask(attrs, shape);
  const std::vector<index_t> to_out = OutputIndexOfEach(shape, mask);
  const double count = static_cast<double>(ReducedCount(shape, mask));
  MXNET_TYPE_SWITCH(in[2].type_flag_, DType, {
    const DType* gm = in[0].dptr<DType>();
    const DType* gv = in[1].dptr<DType>();
    const DType* x = in[2].dptr<DType>();
    const DType* mean = in[3].dptr<DType>();
    DType* dx = out[0].dptr<DType>();
    ParallelFor(static_cast<index_t>(to_out.size()), [&](index_t i) {
      const index_t o = to_out[i];
      const double d = static_cast<double>(x[i]) - static_cast<double>(mean[o]);
      const double g = (static_cast<double>(gm[o]) + 2.0 * static_cast<double>(gv[o]) * d) / count;
      Assign(dx + i, req[0], static_cast<DType>(g));
    });
  });
}

std::vector<NodeEntry> MomentsGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {MakeNode("_backward_moments", GradName(n), {og[0], og[1], n->inputs[0], Out(n, 0)},
                   n->attrs.dict, &n)};
}

bool MomentsBackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                          std::vector<TShape>* out) {
  AssignShape(attrs, "data gradient", &(*out)[0], (*in)[2]);
  return (*out)[0].IsKnown();
}

}  // namespace

NNVM_REGISTER_OP(moments)
    .describe(R"doc(Calculate the mean and variance of `data`.

The mean and variance are calculated by aggregating the contents of data across axes.
If x is 1-D and axes = [0] this is just the mean and variance of a vector.

Example:

     x = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
     mean, var = moments(data=x, axes=[0])
     mean = [4.0, 5.0, 6.0]
     var = [6.0, 6.0, 6.0]
     mean, var = moments(data=x, axes=[1])
     mean = [2.0, 5.0, 8.0]
     var = [0.66666667, 0.66666667, 0.66666667]
     mean, var = moments(data=x, axes=[0, 1])
     mean = [5.0]
     var = [6.66666667]
)doc")
    .set_num_inputs(1)
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<MomentsParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input ndarray")
    .add_arguments(MomentsParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data"}))
    .set_attr<FInferShape>("FInferShape", MomentsShape)
    .set_attr<FInferType>("FInferType", MomentsType)
    .set_attr<FCompute>("FCompute<cpu>", MomentsForward)
    .set_attr<FGradient>("FGradient", MomentsGrad);

NNVM_REGISTER_OP(_backward_moments)
    .describe("Gradient of moments with respect to its input.")
    .set_num_inputs(4)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<MomentsParam>)
    .add_argument("mean_grad", "NDArray-or-Symbol", "Gradient of the mean")
    .add_argument("var_grad", "NDArray-or-Symbol", "Gradient of the variance")
    .add_argument("data", "NDArray-or-Symbol", "The input of moments")
    .add_argument("mean", "NDArray-or-Symbol", "The mean output of moments")
    .add_arguments(MomentsParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames",
                               InputNames({"mean_grad", "var_grad", "data", "mean"}))
    .set_attr<FInferShape>("FInferShape", MomentsBackwardShape)
    .set_attr<FInferType>("FInferType", FirstInputType)
    .set_attr<FCompute>("FCompute<cpu>", MomentsBackward);

}  // namespace op
}  // namespace mxnet
