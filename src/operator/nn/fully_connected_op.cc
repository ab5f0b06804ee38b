// FullyConnected (out = data . weight^T + bias) and its backward: oneDNN's inner product for
// float32 where it is built in and enabled, BLAS gemm calls otherwise.
#include <algorithm>
#include <string>
#include <vector>

#include "operator/nn/nn_common.h"
#include "operator/nn/onednn/onednn_fully_connected.h"
#include "operator/tensor/linalg.h"

namespace mxnet {
namespace op {

struct FullyConnectedParam : public dmlc::Parameter<FullyConnectedParam> {
  int num_hidden;
  bool no_bias;
  bool flatten;
  DMLC_DECLARE_PARAMETER(FullyConnectedParam) {
    DMLC_DECLARE_FIELD(num_hidden).set_lower_bound(1).describe(
        "Number of hidden nodes of the output.");
    DMLC_DECLARE_FIELD(no_bias).set_default(false).describe("Whether to disable bias parameter.");
    DMLC_DECLARE_FIELD(flatten).set_default(true).describe(
        "Whether to collapse all but the first axis of the input data tensor.");
  }
};
DMLC_REGISTER_PARAMETER(FullyConnectedParam);

namespace {

using linalg::Mat;

/*! \brief data seen as a (rows x cols) matrix: flatten keeps axis 0 as rows, else the last
 *  axis is the only column axis. */
struct FCDims {
  index_t rows, cols;
  FCDims(const FullyConnectedParam& p, const TShape& d) {
    const int nd = d.ndim();
    if (p.flatten) {
      rows = d[0];
      cols = static_cast<index_t>(d.ProdShape(1, nd));
    } else {
      rows = static_cast<index_t>(d.ProdShape(0, nd - 1));
      cols = d[nd - 1];
    }
  }
};

uint32_t FCNumInputs(const NodeAttrs& attrs) {
  return Param<FullyConnectedParam>(attrs).no_bias ? 2 : 3;
}

std::vector<std::string> FCInputNames(const NodeAttrs& attrs) {
  if (Param<FullyConnectedParam>(attrs).no_bias) return {"data", "weight"};
  return {"data", "weight", "bias"};
}

// The bias is (num_hidden,), or (num_hidden, 1) when given so (MXNet 1.9.1 accepts both).
void AssignBiasShape(const NodeAttrs& attrs, const FullyConnectedParam& p, TShape* slot,
                     bool is_input) {
  if (*slot == TShape{p.num_hidden, 1}) return;
  if (is_input) {
    AssignInputShape(attrs, 2, slot, TShape{p.num_hidden});
  } else {
    AssignShape(attrs, "bias", slot, TShape{p.num_hidden});
  }
}

bool FCShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const FullyConnectedParam& p = Param<FullyConnectedParam>(attrs);
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) {
    // Partial inference (MXNet 1.9.1): the weight needs the input width; the batch comes
    // from the output when the data does not have it.
    if (d.ndim() <= 0) return false;
    dim_t cols = 1;
    for (int k = p.flatten ? 1 : d.ndim() - 1; k < d.ndim(); ++k) cols = cols < 0 || d[k] < 0 ? -1 : cols * d[k];
    if (cols >= 0) AssignInputShape(attrs, 1, &(*in)[1], TShape{p.num_hidden, cols});
    if (!p.no_bias) AssignBiasShape(attrs, p, &(*in)[2], true);
    TShape o = d;
    if (p.flatten) o = TShape{d[0], p.num_hidden};
    else o[d.ndim() - 1] = p.num_hidden;
    AssignShape(attrs, "output", &(*out)[0], o);
    const TShape& os = (*out)[0];
    TShape back = d;
    if (p.flatten) back[0] = os[0];
    else for (int k = 0; k + 1 < d.ndim(); ++k) back[k] = os[k];
    AssignInputShape(attrs, 0, &(*in)[0], back);
    if (!(*in)[0].IsKnown()) return false;
  }
  CHECK_GT(d.ndim(), 0) << "Operator " << attrs.op->name
                        << ": data must have at least one axis, given a scalar";
  const FCDims dims(p, d);
  AssignInputShape(attrs, 1, &(*in)[1], TShape{p.num_hidden, dims.cols});
  if (!p.no_bias) AssignBiasShape(attrs, p, &(*in)[2], true);
  TShape o;
  if (p.flatten) {
    o = TShape{d[0], p.num_hidden};
  } else {
    o = d;
    o[d.ndim() - 1] = p.num_hidden;
  }
  AssignShape(attrs, "output", &(*out)[0], o);
  return true;
}

bool FCType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  if (!ElemwiseType(attrs, in, out)) return false;
  const int t = (*out)[0];
  CHECK(t == kFloat32 || t == kFloat64)
      << "Operator " << attrs.op->name << ": supports float32 and float64 on CPU (float16 "
      << "needs a GPU, as in MXNet), given " << DTypeName(t);
  return true;
}

template <typename DType>
void FCForwardImpl(const FullyConnectedParam& p, const std::vector<TBlob>& in, OpReqType req,
                   const TBlob& out) {
  if (req == kNullOp) return;
  const FCDims d(p, in[0].shape_);
  const index_t h = p.num_hidden;
  DType* y = out.dptr<DType>();
  if (d.rows == 0) return;
  if (d.cols == 0) {
    if (req != kAddTo) std::fill(y, y + d.rows * h, DType(0));
  } else {
    const Mat<const DType> X{in[0].dptr<DType>(), d.rows, d.cols, d.cols};
    const Mat<const DType> W{in[1].dptr<DType>(), h, d.cols, d.cols};
    linalg::Gemm<DType>(false, true, DType(1), X, W, DType(req == kAddTo ? 1 : 0),
                        Mat<DType>{y, d.rows, h, h});
  }
  if (p.no_bias) return;
  const DType* b = in[2].dptr<DType>();
  ParallelFor(d.rows, [&](index_t r) {
    for (index_t j = 0; j < h; ++j) y[r * h + j] += b[j];
  });
}

FCMatrixShape MatrixShape(const FullyConnectedParam& p, const TShape& data) {
  const FCDims d(p, data);
  return {d.rows, d.cols, static_cast<index_t>(p.num_hidden)};
}

void FCForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
               const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const FullyConnectedParam& p = Param<FullyConnectedParam>(attrs);
  const FCMatrixShape s = MatrixShape(p, in[0].shape_);
  if (FCUsesOneDNN(s, out[0].type_flag_)) {
    FCForwardOneDNN(s, ctx, in[0], in[1], p.no_bias ? nullptr : &in[2], out[0], req[0]);
  } else if (out[0].type_flag_ == kFloat64) {
    FCForwardImpl<double>(p, in, req[0], out[0]);
  } else {
    FCForwardImpl<float>(p, in, req[0], out[0]);
  }
}

// Inputs (ograd, data, weight); outputs (data_grad, weight_grad[, bias_grad]).
template <typename DType>
void FCBackwardImpl(const FullyConnectedParam& p, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const FCDims d(p, in[1].shape_);
  const index_t h = p.num_hidden;
  const Mat<const DType> G{in[0].dptr<DType>(), d.rows, h, h};
  const Mat<const DType> X{in[1].dptr<DType>(), d.rows, d.cols, d.cols};
  const Mat<const DType> W{in[2].dptr<DType>(), h, d.cols, d.cols};
  // Each gradient is a product over an axis that may be empty: then it is zero.
  auto product = [&](OpReqType r, bool ta, const Mat<const DType>& A, const Mat<const DType>& B,
                     const Mat<DType>& C, index_t inner) {
    if (r == kNullOp || C.rows * C.cols == 0) return;
    if (inner == 0) {
      if (r != kAddTo) std::fill(C.data, C.data + C.rows * C.cols, DType(0));
      return;
    }
    linalg::Gemm<DType>(ta, false, DType(1), A, B, DType(r == kAddTo ? 1 : 0), C);
  };
  product(req[0], false, G, W, Mat<DType>{out[0].dptr<DType>(), d.rows, d.cols, d.cols}, h);
  product(req[1], true, G, X, Mat<DType>{out[1].dptr<DType>(), h, d.cols, d.cols}, d.rows);
  if (p.no_bias || req[2] == kNullOp) return;
  DType* db = out[2].dptr<DType>();
  for (index_t j = 0; j < h; ++j) {
    typename AccType<DType>::type s = 0;
    for (index_t r = 0; r < d.rows; ++r) s += G.data[r * h + j];
    Assign(db + j, req[2], DType(s));
  }
}

void FCBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const FullyConnectedParam& p = Param<FullyConnectedParam>(attrs);
  const FCMatrixShape s = MatrixShape(p, in[1].shape_);
  if (FCUsesOneDNN(s, out[0].type_flag_)) {
    FCBackwardOneDNN(s, ctx, in[0], in[1], in[2], &out[0], req[0], &out[1], req[1],
                     p.no_bias ? nullptr : &out[2], p.no_bias ? kNullOp : req[2]);
  } else if (out[0].type_flag_ == kFloat64) {
    FCBackwardImpl<double>(p, in, req, out);
  } else {
    FCBackwardImpl<float>(p, in, req, out);
  }
}

bool FCBackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const FullyConnectedParam& p = Param<FullyConnectedParam>(attrs);
  AssignShape(attrs, "data", &(*out)[0], (*in)[1]);
  AssignShape(attrs, "weight", &(*out)[1], (*in)[2]);
  if (!p.no_bias) AssignBiasShape(attrs, p, &(*out)[2], false);
  return (*out)[0].IsKnown() && (*out)[1].IsKnown();
}

// Data and weight feed the backward (the bias is not needed); it outputs every gradient.
std::vector<NodeEntry> FCGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return GradOfEachInput("_backward_FullyConnected", n, og, 2);
}

// _backward_FullyConnected is linear in the output gradient G and in each of X, W:
// dX = G W, dW = G^T X, db = sum_rows G. For head gradients (hX, hW[, hb]) of those outputs:
//   G: FC(hX, W) + FC(X, hW, hb);  X: (G hW) = _backward(G, X, hW)[0];
//   W: (G^T hX) = _backward(G, hX, W)[1].
std::vector<NodeEntry> FCBackwardGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const FullyConnectedParam& p = Param<FullyConnectedParam>(n->attrs);
  const std::string name = GradName(n);
  const NodeEntry &G = n->inputs[0], &X = n->inputs[1], &W = n->inputs[2];
  auto no_bias = n->attrs.dict;
  no_bias["no_bias"] = "True";
  NodeEntry via_w = MakeNode("FullyConnected", name, {og[0], W}, no_bias);
  NodeEntry via_x = p.no_bias ? MakeNode("FullyConnected", name, {X, og[1]}, no_bias)
                              : MakeNode("FullyConnected", name, {X, og[1], og[2]}, n->attrs.dict);
  NodeEntry dG = MakeNode("elemwise_add", name, {via_w, via_x});
  NodeEntry dX = MakeNode("_backward_FullyConnected", name, {G, X, og[1]}, no_bias);
  NodeEntry dW = MakeNode("_backward_FullyConnected", name, {G, og[0], W}, no_bias);
  return {dG, NodeEntry(dX.node, 0, 0), NodeEntry(dW.node, 1, 0)};
}

}  // namespace

NNVM_REGISTER_OP(FullyConnected)
    .describe(R"doc(Applies a linear transformation: :math:`Y = XW^T + b`.

With ``flatten`` set, data of shape (batch, x1, ..., xn) is first seen as (batch, x1*...*xn);
weight has shape (num_hidden, x1*...*xn) and the output (batch, num_hidden). Without it, the
transformation applies to the last axis: data (x1, ..., xn, input_dim), weight
(num_hidden, input_dim), output (x1, ..., xn, num_hidden). bias has shape (num_hidden,) (or
(num_hidden, 1)) and is absent when ``no_bias`` is set.
)doc")
    .set_num_inputs(FCNumInputs)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<FullyConnectedParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data.")
    .add_argument("weight", "NDArray-or-Symbol", "Weight matrix.")
    .add_argument("bias", "NDArray-or-Symbol", "Bias parameter.")
    .add_arguments(FullyConnectedParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", FCInputNames)
    .set_attr<FInferShape>("FInferShape", FCShape)
    .set_attr<FInferType>("FInferType", FCType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", FCForward)
    .set_attr<FGradient>("FGradient", FCGrad);

NNVM_REGISTER_OP(_backward_FullyConnected)
    .describe("Gradients of FullyConnected with respect to data, weight and bias.")
    .set_num_inputs(3)
    .set_num_outputs(FCNumInputs)
    .set_attr_parser(ParamParser<FullyConnectedParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output")
    .add_argument("data", "NDArray-or-Symbol", "data of the forward call")
    .add_argument("weight", "NDArray-or-Symbol", "weight of the forward call")
    .add_arguments(FullyConnectedParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"ograd", "data", "weight"}))
    .set_attr<FInferShape>("FInferShape", FCBackwardShape)
    .set_attr<FInferType>("FInferType", FCType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", FCBackward)
    .set_attr<FGradient>("FGradient", FCBackwardGrad);

}  // namespace op
}  // namespace mxnet
