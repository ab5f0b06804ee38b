// softmax, log_softmax and softmin along an axis (temperature, output dtype, optional length
// mask) and the older SoftmaxActivation (instance / channel modes), with their backward ops.
#include <string>
#include <vector>

#include "operator/nn/float_op_helpers.h"
#include "operator/nn/softmax_kernel.h"

namespace mxnet {
namespace op {

struct SoftmaxParam : public dmlc::Parameter<SoftmaxParam> {
  int axis;
  dmlc::optional<double> temperature;
  dmlc::optional<int> dtype;
  dmlc::optional<bool> use_length;
  DMLC_DECLARE_PARAMETER(SoftmaxParam) {
    DMLC_DECLARE_FIELD(axis).set_default(-1).describe("The axis along which to compute softmax.");
    DMLC_DECLARE_FIELD(temperature).set_default(dmlc::optional<double>())
        .describe("Temperature parameter in softmax");
    AddDTypeEnums(DMLC_DECLARE_FIELD(dtype), {kFloat16, kFloat32, kFloat64})
        .set_default(dmlc::optional<int>())
        .describe("DType of the output in case this can't be inferred. Defaults to the same as "
                  "input's dtype if not defined (dtype=None).");
    DMLC_DECLARE_FIELD(use_length).set_default(dmlc::optional<bool>(false))
        .describe("Whether to use the length input as a mask over the data input.");
  }
  bool UseLength() const { return use_length.has_value() && use_length.value(); }
  bool HasDType() const { return dtype.has_value() && dtype.value() != -1; }
};
DMLC_REGISTER_PARAMETER(SoftmaxParam);

struct SoftmaxActivationParam : public dmlc::Parameter<SoftmaxActivationParam> {
  int mode;
  DMLC_DECLARE_PARAMETER(SoftmaxActivationParam) {
    DMLC_DECLARE_FIELD(mode).add_enum("instance", 0).add_enum("channel", 1).set_default(0)
        .describe("Specifies how to compute the softmax. If set to ``instance``, it computes "
                  "softmax for each instance. If set to ``channel``, It computes cross channel "
                  "softmax for each position of each instance.");
  }
};
DMLC_REGISTER_PARAMETER(SoftmaxActivationParam);

namespace {

// ------------------------------------------------------------------ softmax / log / softmin
int SoftmaxAxis(const NodeAttrs& attrs, int ndim) {
  const int axis = Param<SoftmaxParam>(attrs).axis;
  const int a = axis < 0 ? axis + ndim : axis;
  CHECK(a >= 0 && a < ndim) << "Operator " << attrs.op->name << ": argument axis expected in ["
                            << -ndim << ", " << ndim - 1 << "], given " << axis;
  return a;
}

SoftmaxOptions OptionsOf(const NodeAttrs& attrs, bool log, bool negate) {
  const SoftmaxParam& p = Param<SoftmaxParam>(attrs);
  SoftmaxOptions o;
  o.log = log;
  o.negate = negate;
  o.temperature = p.temperature.has_value() ? p.temperature.value() : 1.0;
  return o;
}

bool SoftmaxShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  AssignShape(attrs, "output", &(*out)[0], (*in)[0]);
  AssignInputShape(attrs, 0, &(*in)[0], (*out)[0]);
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  CHECK_GT(d.ndim(), 0) << "Operator " << attrs.op->name
                        << ": argument data must have at least one axis, given a scalar";
  const int axis = SoftmaxAxis(attrs, d.ndim());
  if (Param<SoftmaxParam>(attrs).UseLength()) {
    CHECK_EQ(in->size(), 2U) << "Operator " << attrs.op->name
                             << ": use_length=True is supported by softmax only (it takes the "
                                "length input)";
    std::vector<dim_t> l;
    for (int i = 0; i < d.ndim(); ++i) {
      if (i != axis) l.push_back(d[i]);
    }
    if (l.empty()) l.push_back(1);
    AssignInputShape(attrs, 1, &(*in)[1], TShape(l.begin(), l.end()));
  }
  return true;
}

bool SoftmaxType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const SoftmaxParam& p = Param<SoftmaxParam>(attrs);
  if (p.HasDType()) {
    AssignType(attrs, "output", &(*out)[0], p.dtype.value());
  } else {
    AssignType(attrs, "output", &(*out)[0], (*in)[0]);
    AssignInputType(attrs, 0, &(*in)[0], (*out)[0]);
  }
  if ((*in)[0] >= 0) {
    CHECK(IsFloatDType((*in)[0])) << "Operator " << attrs.op->name
                                  << ": argument data expected float16, float32 or float64, given "
                                  << DTypeName((*in)[0]);
  }
  // The length's dtype is checked when the op runs (MXNet 1.9.1 infers types without it, so
  // simple_bind's default float32 for every argument binds).
  const bool has_length = p.UseLength() && in->size() > 1;
  return (*in)[0] >= 0 && (*out)[0] >= 0 && (!has_length || (*in)[1] >= 0);
}

// The length input of a use_length softmax, checked to be of an integer dtype; else null.
const TBlob* LengthInput(const NodeAttrs& attrs, const std::vector<TBlob>& in, size_t i) {
  if (!Param<SoftmaxParam>(attrs).UseLength()) return nullptr;
  CHECK(in[i].type_flag_ == kInt32 || in[i].type_flag_ == kInt64)
      << "Operator " << attrs.op->name << ": argument length expected int32 or int64, given "
      << DTypeName(in[i].type_flag_);
  return &in[i];
}

template <bool kLog, bool kNegate>
void SoftmaxCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const int axis = SoftmaxAxis(attrs, in[0].ndim());
  const TBlob* length = LengthInput(attrs, in, 1);
  SoftmaxForward(in[0], out[0], req[0], SoftmaxLayout::Along(in[0].shape_, axis),
                 OptionsOf(attrs, kLog, kNegate), length);
}

// The backward op's inputs, as MXNet orders them: (ograd, output) plainly; the input data
// joins when the output dtype may differ from it, and the length when it is used.
std::vector<std::string> SoftmaxGradInputNames(const NodeAttrs& attrs) {
  const SoftmaxParam& p = Param<SoftmaxParam>(attrs);
  if (p.UseLength()) return {"ograd", "data", "length", "output"};
  if (p.HasDType()) return {"ograd", "data", "output"};
  return {"ograd", "output"};
}

template <bool kLog, bool kNegate>
void SoftmaxGradCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const SoftmaxParam& p = Param<SoftmaxParam>(attrs);
  const TBlob& output = in.back();
  const TBlob* length = LengthInput(attrs, in, 2);
  if (p.UseLength()) ZeroGradient(out[1], req[1]);
  const int axis = SoftmaxAxis(attrs, output.ndim());
  SoftmaxBackward(in[0], output, out[0], req[0], SoftmaxLayout::Along(output.shape_, axis),
                  OptionsOf(attrs, kLog, kNegate), length);
}

bool SoftmaxGradShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  TShape s;
  AssignShape(attrs, "output", &s, in->back());
  AssignShape(attrs, "ograd", &s, (*in)[0]);
  AssignShape(attrs, "data_grad", &s, (*out)[0]);
  (*in)[0] = s;
  in->back() = s;
  (*out)[0] = s;
  if (Param<SoftmaxParam>(attrs).UseLength()) {
    AssignShape(attrs, "length_grad", &(*out)[1], (*in)[2]);
    (*in)[2] = (*out)[1];
    return s.IsKnown() && (*out)[1].IsKnown();
  }
  return s.IsKnown();
}

bool SoftmaxGradType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const SoftmaxParam& p = Param<SoftmaxParam>(attrs);
  AssignType(attrs, "ograd", &(*in)[0], in->back());
  const int data_type = in->size() > 2 ? (*in)[1] : in->back();
  AssignType(attrs, "data_grad", &(*out)[0], data_type);
  if (p.UseLength()) AssignType(attrs, "length_grad", &(*out)[1], (*in)[2]);
  for (int t : *out) {
    if (t < 0) return false;
  }
  return true;
}

std::vector<NodeEntry> SoftmaxGrad(const char* backward, const ObjectPtr& n,
                                   const std::vector<NodeEntry>& og) {
  const SoftmaxParam& p = Param<SoftmaxParam>(n->attrs);
  std::vector<NodeEntry> inputs{og[0]};
  if (p.UseLength()) inputs.insert(inputs.end(), {n->inputs[0], n->inputs[1]});
  else if (p.HasDType()) inputs.push_back(n->inputs[0]);
  inputs.push_back(Out(n));
  NodeEntry bw = MakeNode(backward, GradName(n), inputs, n->attrs.dict);
  if (p.UseLength()) return {bw, NodeEntry(bw.node, 1, 0)};
  return {bw};
}

/*! \brief 2 with use_length (data and length; their gradients), else 1. */
uint32_t OneMoreWithLength(const NodeAttrs& a) {
  return Param<SoftmaxParam>(a).UseLength() ? 2 : 1;
}

// Only softmax takes the length input (MXNet 1.9.1's log_softmax and softmin list data alone, so
// their second positional argument is axis); they refuse use_length=True.
void RegisterSoftmax(const char* name, const char* backward, FCompute forward_fn,
                     FCompute backward_fn, const char* doc) {
  const bool takes_length = std::string(name) == "softmax";
  nnvm::Op& op = nnvm::Op::Register(name);
  op.describe(doc)
      .set_num_outputs(1)
      .set_attr_parser(ParamParser<SoftmaxParam>)
      .add_argument("data", "NDArray-or-Symbol", "The input array.");
  if (takes_length) {
    op.set_num_inputs(OneMoreWithLength)
        .add_argument("length", "NDArray-or-Symbol", "The length array.")
        .set_attr<FListInputNames>("FListInputNames", [](const NodeAttrs& a) {
          return Param<SoftmaxParam>(a).UseLength() ? std::vector<std::string>{"data", "length"}
                                                    : std::vector<std::string>{"data"};
        });
  } else {
    op.set_num_inputs(1).set_attr<FListInputNames>("FListInputNames", InputNames({"data"}));
  }
  op.add_arguments(SoftmaxParam::__FIELDS__())
      .set_attr<FListOutputNames>("FListOutputNames", InputNames({"output"}))
      .set_attr<FInferShape>("FInferShape", SoftmaxShape)
      .set_attr<FInferType>("FInferType", SoftmaxType)
      .set_attr<FCompute>("FCompute<cpu>", forward_fn)
      .set_attr<FGradient>("FGradient", [backward](const ObjectPtr& n,
                                                   const std::vector<NodeEntry>& og) {
        return SoftmaxGrad(backward, n, og);
      });
  nnvm::Op::Register(backward)
      .describe(std::string("Gradient of ") + name + " from its output.")
      .set_num_inputs([](const NodeAttrs& a) {
        return static_cast<uint32_t>(SoftmaxGradInputNames(a).size());
      })
      .set_num_outputs(OneMoreWithLength)
      .set_attr_parser(ParamParser<SoftmaxParam>)
      .add_argument("args", "NDArray-or-Symbol[]", "Positional input arguments")
      .add_arguments(SoftmaxParam::__FIELDS__())
      .set_attr<FListInputNames>("FListInputNames", SoftmaxGradInputNames)
      .set_attr<FInferShape>("FInferShape", SoftmaxGradShape)
      .set_attr<FInferType>("FInferType", SoftmaxGradType)
      .set_attr<FCompute>("FCompute<cpu>", backward_fn);
}

const bool reg_softmax_ [[maybe_unused]] = (RegisterSoftmax(
    "softmax", "_backward_softmax", SoftmaxCompute<false, false>, SoftmaxGradCompute<false, false>,
    R"doc(Applies the softmax function.

The resulting array contains elements in the range (0,1) and the elements along the given axis
sum up to 1: softmax(z)_j = exp(z_j / t) / sum_k exp(z_k / t), with t the temperature
(1 by default).

With ``use_length=True`` the second input ``length`` (int32 or int64, the data's shape without
``axis``) keeps only the first length[i] elements of each row; the rest of the row is 0.

Example::

  x = [[ 1.  1.  1.]
       [ 1.  1.  1.]]

  softmax(x,axis=0) = [[ 0.5  0.5  0.5]
                       [ 0.5  0.5  0.5]]

  softmax(x,axis=1) = [[ 0.33333334,  0.33333334,  0.33333334],
                       [ 0.33333334,  0.33333334,  0.33333334]]
)doc"), true);

const bool reg_log_softmax_ [[maybe_unused]] = (RegisterSoftmax(
    "log_softmax", "_backward_log_softmax", SoftmaxCompute<true, false>,
    SoftmaxGradCompute<true, false>,
    R"doc(Computes the log softmax of the input. This is equivalent to computing softmax followed
by log, computed more stably.

Examples::

  >>> x = mx.nd.array([1, 2, .1])
  >>> mx.nd.log_softmax(x).asnumpy()
  array([-1.41702998, -0.41702995, -2.31702995], dtype=float32)

  >>> x = mx.nd.array( [[1, 2, .1],[.1, 2, 1]] )
  >>> mx.nd.log_softmax(x, axis=0).asnumpy()
  array([[-0.34115392, -0.69314718, -1.24115396],
         [-1.24115396, -0.69314718, -0.34115392]], dtype=float32)
)doc"), true);

const bool reg_softmin_ [[maybe_unused]] = (RegisterSoftmax(
    "softmin", "_backward_softmin", SoftmaxCompute<false, true>, SoftmaxGradCompute<false, true>,
    R"doc(Applies the softmin function: the softmax of the negated input.

The resulting array contains elements in the range (0,1) and the elements along the given axis
sum up to 1: softmin(z)_j = exp(-z_j / t) / sum_k exp(-z_k / t), with t the temperature.

Example::

  x = [[ 1.  2.  3.]
       [ 3.  2.  1.]]

  softmin(x,axis=0) = [[ 0.88079703,  0.5,  0.11920292],
                       [ 0.11920292,  0.5,  0.88079703]]
)doc"), true);

// ------------------------------------------------------------------------- SoftmaxActivation
SoftmaxLayout ActivationLayout(const NodeAttrs& attrs, const TShape& s) {
  SoftmaxLayout l;
  if (Param<SoftmaxActivationParam>(attrs).mode == 0) {  // instance: along the last axis
    l = SoftmaxLayout::Along(s, s.ndim() - 1);
  } else {  // channel: across axis 1 at each position
    CHECK_GE(s.ndim(), 3) << "Operator " << attrs.op->name
                          << ": mode='channel' expects data with at least 3 dimensions, given "
                          << s;
    l = SoftmaxLayout::Along(s, 1);
  }
  return l;
}

bool SoftmaxActivationShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                            std::vector<TShape>* out) {
  if (!ElemwiseShape(attrs, in, out)) return false;
  CHECK_GT((*in)[0].ndim(), 0) << "Operator " << attrs.op->name
                               << ": argument data must have at least one axis, given a scalar";
  ActivationLayout(attrs, (*in)[0]);  // checks the mode's rank
  return true;
}

void SoftmaxActivationCompute(const NodeAttrs& attrs, const OpContext&,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  SoftmaxForward(in[0], out[0], req[0], ActivationLayout(attrs, in[0].shape_), SoftmaxOptions(),
                 nullptr);
}

void SoftmaxActivationGradCompute(const NodeAttrs& attrs, const OpContext&,
                                  const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                                  const std::vector<TBlob>& out) {
  SoftmaxBackward(in[0], in[1], out[0], req[0], ActivationLayout(attrs, in[1].shape_),
                  SoftmaxOptions(), nullptr);
}

std::vector<NodeEntry> SoftmaxActivationGrad(const ObjectPtr& n,
                                             const std::vector<NodeEntry>& og) {
  return {MakeNode("_backward_SoftmaxActivation", GradName(n), {og[0], Out(n)}, n->attrs.dict)};
}

}  // namespace

NNVM_REGISTER_OP(SoftmaxActivation)
    .describe(R"doc(Applies softmax activation to input. This is intended for internal layers.

.. note::

  This operator has been deprecated, please use `softmax`.

If `mode` = ``instance``, this operator will compute a softmax for each instance in the batch
(along the last axis, as MXNet does). This is the default mode.

If `mode` = ``channel``, this operator will compute a k-class softmax at each position
of each instance, where `k` = ``num_channel``. This mode can only be used when the input array
has at least 3 dimensions.
)doc")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<SoftmaxActivationParam>)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .add_arguments(SoftmaxActivationParam::__FIELDS__())
    .set_attr<FListOutputNames>("FListOutputNames", InputNames({"output"}))
    .set_attr<FInferShape>("FInferShape", SoftmaxActivationShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", SoftmaxActivationCompute)
    .set_attr<FGradient>("FGradient", SoftmaxActivationGrad);

NNVM_REGISTER_OP(_backward_SoftmaxActivation)
    .describe("Gradient of SoftmaxActivation from its output.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<SoftmaxActivationParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output")
    .add_argument("output", "NDArray-or-Symbol", "Output of SoftmaxActivation")
    .add_arguments(SoftmaxActivationParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", SoftmaxActivationGradCompute);

}  // namespace op
}  // namespace mxnet
