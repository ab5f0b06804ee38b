// Loss layers that pass data through (or its sigmoid) and whose backward is the loss gradient:
// LinearRegressionOutput, LogisticRegressionOutput, MAERegressionOutput, SVMOutput; and
// smooth_l1, the elementwise smooth L1 loss.
#include <cmath>
#include <string>
#include <vector>

#include "operator/nn/float_op_helpers.h"
#include "operator/tensor/elemwise_unary_kernel.h"

namespace mxnet {
namespace op {

struct RegressionOutputParam : public dmlc::Parameter<RegressionOutputParam> {
  float grad_scale;
  DMLC_DECLARE_PARAMETER(RegressionOutputParam) {
    DMLC_DECLARE_FIELD(grad_scale).set_default(1.0f)
        .describe("Scale the gradient by a float factor");
  }
};
DMLC_REGISTER_PARAMETER(RegressionOutputParam);

struct SVMOutputParam : public dmlc::Parameter<SVMOutputParam> {
  float margin;
  float regularization_coefficient;
  bool use_linear;
  DMLC_DECLARE_PARAMETER(SVMOutputParam) {
    DMLC_DECLARE_FIELD(margin).set_default(1.0f)
        .describe("The loss function penalizes outputs that lie outside this margin. Default "
                  "margin is 1.");
    DMLC_DECLARE_FIELD(regularization_coefficient).set_default(1.0f)
        .describe("Regularization parameter for the SVM. This balances the tradeoff between "
                  "coefficient size and error.");
    DMLC_DECLARE_FIELD(use_linear).set_default(false)
        .describe("Whether to use L1-SVM objective. L2-SVM objective is used by default.");
  }
};
DMLC_REGISTER_PARAMETER(SVMOutputParam);

struct SmoothL1Param : public dmlc::Parameter<SmoothL1Param> {
  double scalar;
  bool is_int;
  DMLC_DECLARE_PARAMETER(SmoothL1Param) {
    DMLC_DECLARE_FIELD(scalar).set_default(1).describe("scalar input");
    DMLC_DECLARE_FIELD(is_int).set_default(true)
        .describe("Accepted for MXNet's numpy front; has no effect.");
  }
};
DMLC_REGISTER_PARAMETER(SmoothL1Param);

namespace {

// ------------------------------------------------------------------------- regression outputs
enum class Regression { kLinear, kLogistic, kMAE };

bool RegressionShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  AssignInputShape(attrs, 0, &(*in)[0], (*out)[0]);
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  TShape& l = (*in)[1];
  if (l.ndim() < 0) {
    // A (n, 1) output takes a 1-D label by default.
    l = d.ndim() == 2 && d[1] == 1 ? TShape{d[0]} : d;
  } else if (l.IsKnown()) {
    CHECK(l.ndim() > 0 && d.ndim() > 0 && l[0] == d[0] && l.Size() == d.Size())
        << "Operator " << attrs.op->name << ": argument label has shape " << l
        << ", expected the data's shape " << d << " (or another with its batch size and size)";
  }
  AssignShape(attrs, "output", &(*out)[0], d);
  return true;
}

template <Regression kind>
void RegressionCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = FloatComputeOf<DType>;
    MapLoop(in[0].dptr<DType>(), out[0].dptr<DType>(), static_cast<index_t>(in[0].Size()), req[0],
            [](DType v) {
              if (kind != Regression::kLogistic) return v;
              return DType(C(1) / (C(1) + std::exp(-static_cast<C>(v))));
            });
  });
}

// Backward inputs: (label, output); gradient (output - label), or its sign for MAE, times
// grad_scale / (outputs per instance).
template <Regression kind>
void RegressionGradCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                           const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  ZeroGradient(out[1], req[1]);
  if (req[0] == kNullOp || out[0].Size() == 0) return;
  const TBlob &label = in[0], &y = in[1];
  const double per_instance = static_cast<double>(label.Size()) / label.shape_[0];
  MXNET_REAL_TYPE_SWITCH(y.type_flag_, DType, {
    using C = FloatComputeOf<DType>;
    const C scale = static_cast<C>(Param<RegressionOutputParam>(attrs).grad_scale / per_instance);
    const DType* lp = label.dptr<DType>();
    const DType* yp = y.dptr<DType>();
    DType* dx = out[0].dptr<DType>();
    ParallelFor(static_cast<index_t>(y.Size()), [&](index_t i) {
      C d = static_cast<C>(yp[i]) - static_cast<C>(lp[i]);
      if (kind == Regression::kMAE) d = d > C(0) ? C(1) : C(-1);
      Assign(dx + i, req[0], DType(d * scale));
    });
  });
}

std::vector<NodeEntry> LabelAndOutputGrad(const char* backward, const ObjectPtr& n) {
  NodeEntry bw = MakeNode(backward, GradName(n), {n->inputs[1], Out(n)}, n->attrs.dict);
  return {bw, NodeEntry(bw.node, 1, 0)};
}

bool LabelAndOutputGradShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                             std::vector<TShape>* out) {
  return GradShapesFromInputs(attrs, in, out, {1, 0});
}

void RegisterRegression(const char* name, const char* backward, FCompute forward_fn,
                        FCompute backward_fn, const char* doc) {
  nnvm::Op::Register(name)
      .describe(doc)
      .set_num_inputs(2)
      .set_num_outputs(1)
      .set_attr_parser(ParamParser<RegressionOutputParam>)
      .add_argument("data", "NDArray-or-Symbol", "Input data to the function.")
      .add_argument("label", "NDArray-or-Symbol", "Input label to the function.")
      .add_arguments(RegressionOutputParam::__FIELDS__())
      .set_attr<FListInputNames>("FListInputNames", InputNames({"data", "label"}))
      .set_attr<FInferShape>("FInferShape", RegressionShape)
      .set_attr<FInferType>("FInferType", FloatElemwiseType)
      .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput)
      .set_attr<FCompute>("FCompute<cpu>", forward_fn)
      .set_attr<FGradient>("FGradient", [backward](const ObjectPtr& n,
                                                   const std::vector<NodeEntry>&) {
        return LabelAndOutputGrad(backward, n);
      });
  nnvm::Op::Register(backward)
      .describe(std::string("Gradient of ") + name + "'s loss (label gets zeros).")
      .set_num_inputs(2)
      .set_num_outputs(2)
      .set_attr_parser(ParamParser<RegressionOutputParam>)
      .add_argument("label", "NDArray-or-Symbol", "The label")
      .add_argument("output", "NDArray-or-Symbol", "The forward output")
      .add_arguments(RegressionOutputParam::__FIELDS__())
      .set_attr<FInferShape>("FInferShape", LabelAndOutputGradShape)
      .set_attr<FInferType>("FInferType", FloatElemwiseType)
      .set_attr<FCompute>("FCompute<cpu>", backward_fn);
}

const bool reg_regression_ [[maybe_unused]] = [] {
  RegisterRegression("LinearRegressionOutput", "_backward_linear_reg_out",
                     RegressionCompute<Regression::kLinear>,
                     RegressionGradCompute<Regression::kLinear>,
      R"doc(Computes and optimizes for squared loss during backward propagation.
Just outputs ``data`` during forward propagation.

The backward gradient is (output - label) scaled by `grad_scale/m`, where m is the number of
regression outputs of a training example; the head gradient is not used.

.. note::
   Use the LinearRegressionOutput as the final output layer of a net.
)doc");
  RegisterRegression("LogisticRegressionOutput", "_backward_logistic_reg_out",
                     RegressionCompute<Regression::kLogistic>,
                     RegressionGradCompute<Regression::kLogistic>,
      R"doc(Applies a logistic function to the input: 1 / (1 + exp(-x)).

The backward gradient is that of the binary cross entropy loss, (output - label), scaled by
`grad_scale/m` with m the number of outputs of a training example; the head gradient is not
used.

.. note::
   Use the LogisticRegressionOutput as the final output layer of a net.
)doc");
  RegisterRegression("MAERegressionOutput", "_backward_mae_reg_out",
                     RegressionCompute<Regression::kMAE>, RegressionGradCompute<Regression::kMAE>,
      R"doc(Computes mean absolute error of the input.
Just outputs ``data`` during forward propagation.

The backward gradient is sign(output - label) (-1 where they are equal) scaled by
`grad_scale/m`, with m the number of outputs of a training example; the head gradient is not
used.

.. note::
   Use the MAERegressionOutput as the final output layer of a net.
)doc");
  return true;
}();

// ------------------------------------------------------------------------------------ SVMOutput
bool SVMOutputShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  AssignInputShape(attrs, 0, &(*in)[0], (*out)[0]);
  const TShape& d = (*in)[0];
  if (d.ndim() < 0) return false;
  CHECK_GT(d.ndim(), 0) << "Operator " << attrs.op->name
                        << ": argument data must have at least one axis, given a scalar";
  std::vector<dim_t> rows(d.begin(), d.end() - 1);
  AssignInputShape(attrs, 1, &(*in)[1], TShape(rows.begin(), rows.end()));
  AssignShape(attrs, "output", &(*out)[0], d);
  return d.IsKnown();
}

void CopyCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    MapLoop(in[0].dptr<DType>(), out[0].dptr<DType>(), static_cast<index_t>(in[0].Size()), req[0],
            [](DType v) { return v; });
  });
}

// Backward inputs: (label, output). Hinge loss gradients per row (rows = axis 0): the label's
// class is pushed above margin, the others below -margin; L2 squares the hinge.
void SVMOutputGradCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  ZeroGradient(out[1], req[1]);
  if (req[0] == kNullOp || out[0].Size() == 0) return;
  const SVMOutputParam& p = Param<SVMOutputParam>(attrs);
  const TBlob &label = in[0], &y = in[1];
  const index_t rows = y.shape_[0], M = static_cast<index_t>(y.Size() / rows);
  MXNET_REAL_TYPE_SWITCH(y.type_flag_, DType, {
    using C = FloatComputeOf<DType>;
    const C margin = p.margin, reg = p.regularization_coefficient;
    const DType* lp = label.dptr<DType>();
    const DType* yp = y.dptr<DType>();
    DType* dx = out[0].dptr<DType>();
    for (index_t r = 0; r < rows; ++r) {
      const index_t k = static_cast<int>(lp[r]);
      for (index_t j = 0; j < M; ++j) {
        const C v = static_cast<C>(yp[r * M + j]);
        C g;
        if (j == k) {  // below the margin
          const C hinge = margin > v ? margin - v : C(0);
          g = p.use_linear ? -C(margin > v) * reg : C(-2) * hinge * reg;
        } else {  // above -margin
          const C hinge = margin > -v ? margin + v : C(0);
          g = p.use_linear ? C(margin > -v) * reg : C(2) * hinge * reg;
        }
        Assign(dx + r * M + j, req[0], DType(g));
      }
    }
  });
}

// -------------------------------------------------------------------------------- smooth_l1
// f(x) = 0.5 (s x)^2 where |x| < 1/s^2, |x| - 0.5/s^2 elsewhere; f'(x) = s^2 x or sign(x).
template <typename C>
C SmoothL1(C x, C s2) {
  const C inv = C(1) / s2;
  if (x > inv) return x - C(0.5) * inv;
  if (x < -inv) return -x - C(0.5) * inv;
  return C(0.5) * x * x * s2;
}
template <typename C>
C SmoothL1Slope(C x, C s2) {
  const C inv = C(1) / s2;
  if (x > inv) return C(1);
  if (x < -inv) return C(-1);
  return s2 * x;
}

// Every numeric dtype, as MXNet: integers compute in double and truncate back.
void SmoothL1Compute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const double s = Param<SmoothL1Param>(attrs).scalar;
  MXNET_NUMERIC_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = typename MathType<DType>::type;
    const C s2 = static_cast<C>(s * s);
    MapLoop(in[0].dptr<DType>(), out[0].dptr<DType>(), static_cast<index_t>(in[0].Size()), req[0],
            [s2](DType v) { return ConvertValue<DType>(SmoothL1(static_cast<C>(v), s2)); });
  });
}

// Backward inputs: (ograd, data).
void SmoothL1GradCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const double s = Param<SmoothL1Param>(attrs).scalar;
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, DType, {
    using C = FloatComputeOf<DType>;
    const C s2 = static_cast<C>(s * s);
    const DType* g = in[0].dptr<DType>();
    const DType* x = in[1].dptr<DType>();
    DType* dx = out[0].dptr<DType>();
    ParallelFor(static_cast<index_t>(in[1].Size()), [&](index_t i) {
      Assign(dx + i, req[0], DType(static_cast<C>(g[i]) * SmoothL1Slope(static_cast<C>(x[i]), s2)));
    });
  });
}

std::vector<NodeEntry> SmoothL1Grad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {MakeNode("_backward_smooth_l1", GradName(n), {og[0], n->inputs[0]}, n->attrs.dict)};
}

}  // namespace

NNVM_REGISTER_OP(SVMOutput)
    .describe(R"doc(Computes support vector machine based transformation of the input.

Forward passes the data through. Backward gives the gradient of the multi-class hinge loss
(squared with the default L2-SVM, plain with ``use_linear``) for the class labels, one per
row of the data's axis 0; the head gradient is not used.
)doc")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<SVMOutputParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data for SVM transformation.")
    .add_argument("label", "NDArray-or-Symbol", "Class label for the input data.")
    .add_arguments(SVMOutputParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data", "label"}))
    .set_attr<FInferShape>("FInferShape", SVMOutputShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput)
    .set_attr<FCompute>("FCompute<cpu>", CopyCompute)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>&) {
      return LabelAndOutputGrad("_backward_SVMOutput", n);
    });

NNVM_REGISTER_OP(_backward_SVMOutput)
    .describe("Gradient of SVMOutput's hinge loss (label gets zeros).")
    .set_num_inputs(2)
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<SVMOutputParam>)
    .add_argument("label", "NDArray-or-Symbol", "The label")
    .add_argument("output", "NDArray-or-Symbol", "The forward output")
    .add_arguments(SVMOutputParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", LabelAndOutputGradShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", SVMOutputGradCompute);

NNVM_REGISTER_OP(smooth_l1)
    .describe(R"doc(Calculate Smooth L1 Loss(lhs, scalar) by summing

.. math::

    f(x) =
    \begin{cases}
    (\sigma x)^2/2,& \text{if }x < 1/\sigma^2\\
    |x|-0.5/\sigma^2,& \text{otherwise}
    \end{cases}

where :math:`x` is an element of the tensor *lhs* and :math:`\sigma` is the scalar.

Example::

  smooth_l1([1, 2, 3, 4]) = [0.5, 1.5, 2.5, 3.5]
  smooth_l1([1, 2, 3, 4], scalar=1) = [0.5, 1.5, 2.5, 3.5]
)doc")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<SmoothL1Param>)
    .add_argument("data", "NDArray-or-Symbol", "source input")
    .add_argument("scalar", "float", "scalar input")
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", NumericElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput)
    .set_attr<FCompute>("FCompute<cpu>", SmoothL1Compute)
    .set_attr<FGradient>("FGradient", SmoothL1Grad);

NNVM_REGISTER_OP(_backward_smooth_l1)
    .describe("Gradient of smooth_l1 from the head gradient and its input.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<SmoothL1Param>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output")
    .add_argument("data", "NDArray-or-Symbol", "Input of smooth_l1")
    .add_arguments(SmoothL1Param::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", SmoothL1GradCompute);

}  // namespace op
}  // namespace mxnet
