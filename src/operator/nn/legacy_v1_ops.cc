// Convolution_v1 and Pooling_v1: MXNet's deprecated first versions, thin variants of Convolution
// and Pooling. Each checks its own (narrower) arguments, keeps the base op's parameters, and
// runs the base op's shape, type, kernel and gradient rules (Pooling_v1's max pooling differs
// at the padding, below).
#include <cstdint>
#include <string>
#include <vector>

#include "operator/nn/convolution_param.h"
#include "operator/nn/op_variant.h"
#include "operator/nn/pooling_op.h"

namespace mxnet {
namespace op {

namespace {

struct PoolingV1Param : public dmlc::Parameter<PoolingV1Param> {
  ShapeArg kernel;
  int pool_type;
  bool global_pool;
  int pooling_convention;
  ShapeArg stride;
  ShapeArg pad;
  DMLC_DECLARE_PARAMETER(PoolingV1Param) {
    DMLC_DECLARE_FIELD(kernel).set_default(ShapeArg(TShape(0, 0)))
        .describe("pooling kernel size: (y, x) or (d, y, x)");
    DMLC_DECLARE_FIELD(pool_type).set_default(static_cast<int>(PoolType::kMax))
        .add_enum("max", static_cast<int>(PoolType::kMax))
        .add_enum("avg", static_cast<int>(PoolType::kAvg))
        .add_enum("sum", static_cast<int>(PoolType::kSum))
        .describe("Pooling type to be applied.");
    DMLC_DECLARE_FIELD(global_pool).set_default(false)
        .describe("Ignore kernel size, do global pooling based on current input feature map. ");
    DMLC_DECLARE_FIELD(pooling_convention)
        .set_default(static_cast<int>(PoolConvention::kValid))
        .add_enum("full", static_cast<int>(PoolConvention::kFull))
        .add_enum("valid", static_cast<int>(PoolConvention::kValid))
        .describe("Pooling convention to be applied.");
    DMLC_DECLARE_FIELD(stride).set_default(ShapeArg(TShape(0, 0)))
        .describe("stride: for pooling (y, x) or (d, y, x)");
    DMLC_DECLARE_FIELD(pad).set_default(ShapeArg(TShape(0, 0)))
        .describe("pad for pooling: (y, x) or (d, y, x)");
  }
};

DMLC_REGISTER_PARAMETER(PoolingV1Param);

/*! \brief attr_parser: the variant's arguments are checked by VParam (so a value only the
 *  base op knows is refused), then parsed as the base op's BaseParam, which its rules read. */
template <typename VParam, typename BaseParam>
void NarrowedParser(NodeAttrs* attrs) {
  ParamParser<VParam>(attrs);
  ParamParser<BaseParam>(attrs);
}

/*! \brief Registers name as a variant of base: every rule is base's. */
nnvm::Op& RegisterThinVariant(const char* name, const char* base) {
  return ::nnvm::Op::Register(name)
      .set_num_outputs(1)
      .set_attr<FListInputNames>("FListInputNames",
                                 Delegate<FListInputNames>(base, "FListInputNames"))
      .set_attr<FInferShape>("FInferShape", Delegate<FInferShape>(base, "FInferShape"))
      .set_attr<FInferType>("FInferType", Delegate<FInferType>(base, "FInferType"))
      .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
      .set_attr<FCompute>("FCompute<cpu>", Delegate<FCompute>(base, "FCompute<cpu>"))
      .set_attr<FGradient>("FGradient", Delegate<FGradient>(base, "FGradient"));
}

/*! \brief Convolution_v1 takes Convolution's arguments, in 2-D or 3-D layouts only. */
void ConvolutionV1Parser(NodeAttrs* attrs) {
  ParamParser<ConvolutionParam>(attrs);
  const dmlc::optional<int>& layout = Param<ConvolutionParam>(*attrs).layout;
  CHECK(!layout.has_value() || layout.value() != conv::kNCW)
      << "Operator " << attrs->op->name << ": argument layout expected one of NCHW, NCDHW, "
      << "NHWC, NDHWC or None, given NCW";
}

uint32_t ConvNumInputs(const NodeAttrs& attrs) {
  return Param<ConvolutionParam>(attrs).no_bias ? 2 : 3;
}

// Pooling_v1's max pooling pads with zeros that take part in the maximum (Pooling's padding
// never wins): an output whose window reaches into the padding is at least 0, and when the
// padding wins (the output is 0 there) no gradient reaches the data.

/*! \brief fn(offset of the output, whether its window reaches into the padding), every output. */
template <typename Fn>
void ForEachOutputTouchingPad(const PoolGeometry& g, Fn fn) {
  auto touches = [&](int d, index_t o) {
    if (g.pad[d] == 0) return false;
    const index_t start = o * g.stride[d] - g.pad[d];
    return start < 0 || start + g.kernel[d] > g.in[d];
  };
  for (index_t n = 0; n < g.batch; ++n)
    for (index_t c = 0; c < g.channels; ++c)
      for (index_t a = 0; a < g.out[0]; ++a)
        for (index_t b = 0; b < g.out[1]; ++b)
          for (index_t e = 0; e < g.out[2]; ++e) {
            fn(n * g.out_n + c * g.out_c + a * g.out_s[0] + b * g.out_s[1] + e * g.out_s[2],
               touches(0, a) || touches(1, b) || touches(2, e));
          }
}

bool PadTakesPart(const PoolingParam& p, const PoolGeometry& g) {
  return p.pool_type == static_cast<int>(PoolType::kMax) && !p.global_pool &&
         (g.pad[0] > 0 || g.pad[1] > 0 || g.pad[2] > 0);
}

void PoolingV1Forward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  static const BaseAttr<FCompute> base("Pooling", "FCompute<cpu>");
  const PoolingParam& p = Param<PoolingParam>(attrs);
  const PoolGeometry g(attrs.op->name.c_str(), p, in[0].shape_);
  if (!PadTakesPart(p, g) || req[0] == kNullOp) {
    base.get()(attrs, ctx, in, req, out);
    return;
  }
  CHECK(req[0] != kAddTo) << "Operator " << attrs.op->name
                          << ": adding to the output (req 'add') is not supported with padding";
  base.get()(attrs, ctx, in, req, out);
  MXNET_REAL_TYPE_SWITCH(out[0].type_flag_, DType, {
    DType* y = out[0].dptr<DType>();
    ForEachOutputTouchingPad(g, [&](index_t k, bool pad) {
      if (pad && static_cast<float>(y[k]) < 0.0f) y[k] = DType(0);
    });
  });
}

// _backward_Pooling_v1: inputs (ograd, data, output).
void PoolingV1Backward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const PoolingParam& p = Param<PoolingParam>(attrs);
  const PoolGeometry g(attrs.op->name.c_str(), p, in[1].shape_);
  if (!PadTakesPart(p, g)) {
    PoolingBackwardPlain(p, g, in[0], in[1], in[2], out[0], req[0]);
    return;
  }
  const TBlob& og = in[0];
  std::vector<uint8_t> buf(og.Size() * DTypeSize(og.type_flag_));
  const TBlob kept(buf.data(), og.shape_, og.type_flag_, og.ctx);
  MXNET_REAL_TYPE_SWITCH(og.type_flag_, DType, {
    const DType* g_in = og.dptr<DType>();
    const DType* y = in[2].dptr<DType>();
    DType* g_kept = kept.dptr<DType>();
    ForEachOutputTouchingPad(g, [&](index_t k, bool pad) {
      g_kept[k] = pad && static_cast<float>(y[k]) == 0.0f ? DType(0) : g_in[k];
    });
  });
  PoolingBackwardPlain(p, g, kept, in[1], in[2], out[0], req[0]);
}

std::vector<NodeEntry> PoolingV1Grad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {MakeNode("_backward_Pooling_v1", GradName(n), {og[0], n->inputs[0], Out(n)},
                   n->attrs.dict, &n)};
}

const bool kRegistered [[maybe_unused]] = [] {
  RegisterThinVariant("Convolution_v1", "Convolution")
      .describe(R"doc(This operator is DEPRECATED. Apply convolution to input then add a bias.

The same computation, arguments and gradient as ``Convolution``, in 2-D or 3-D only (no NCW
layout); see it for the shapes.
)doc")
      .set_num_inputs(ConvNumInputs)
      .set_attr_parser(ConvolutionV1Parser)
      .add_argument("data", "NDArray-or-Symbol", "Input data to the ConvolutionV1Op.")
      .add_argument("weight", "NDArray-or-Symbol", "Weight matrix.")
      .add_argument("bias", "NDArray-or-Symbol", "Bias parameter.")
      .add_arguments(ConvolutionParam::__FIELDS__());
  RegisterThinVariant("Pooling_v1", "Pooling")
      .describe(R"doc(This operator is DEPRECATED.
Perform pooling on the input.

The shapes for 2-D pooling is

- **data**: *(batch_size, channel, height, width)*
- **out**: *(batch_size, num_filter, out_height, out_width)*, with::

    out_height = f(height, kernel[0], pad[0], stride[0])
    out_width = f(width, kernel[1], pad[1], stride[1])

The definition of *f* depends on ``pooling_convention``, which has two options:

- **valid** (default)::

    f(x, k, p, s) = floor((x+2*p-k)/s)+1

- **full**, which is compatibly with Caffe::

    f(x, k, p, s) = ceil((x+2*p-k)/s)+1

But ``global_pool`` is set to be true, then do a global pooling, namely reset
``kernel=(height, width)``.

Three pooling options are supported by ``pool_type``:

- **avg**: average pooling
- **max**: max pooling
- **sum**: sum pooling

1-D pooling is special case of 2-D pooling with *weight=1* and
*kernel[1]=1*.

For 3-D pooling, an additional *depth* dimension is added before
*height*. Namely the input data will have shape *(batch_size, channel, depth,
height, width)*.

The computation is Pooling's, except that max pooling pads with zeros which take part in the
maximum (an output whose window reaches into the padding is at least 0; where the padding wins,
no gradient reaches the data).
)doc")
      .set_num_inputs(1)
      .set_attr_parser(NarrowedParser<PoolingV1Param, PoolingParam>)
      .add_argument("data", "NDArray-or-Symbol", "Input data to the pooling operator.")
      .add_arguments(PoolingV1Param::__FIELDS__())
      .set_attr<FCompute>("FCompute<cpu>", PoolingV1Forward, 11)
      .set_attr<FGradient>("FGradient", PoolingV1Grad, 11);
  ::nnvm::Op::Register("_backward_Pooling_v1")
      .describe("Gradient of Pooling_v1 with respect to its data, given the output gradient.")
      .set_num_inputs(3)
      .set_num_outputs(1)
      .set_attr_parser(NarrowedParser<PoolingV1Param, PoolingParam>)
      .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output of Pooling_v1")
      .add_argument("data", "NDArray-or-Symbol", "The input of Pooling_v1")
      .add_argument("output", "NDArray-or-Symbol", "The output of Pooling_v1")
      .add_arguments(PoolingV1Param::__FIELDS__())
      .set_attr<FListInputNames>("FListInputNames", InputNames({"ograd", "data", "output"}))
      .set_attr<FInferShape>("FInferShape", Delegate<FInferShape>("_backward_Pooling",
                                                                  "FInferShape"))
      .set_attr<FInferType>("FInferType", Delegate<FInferType>("_backward_Pooling", "FInferType"))
      .set_attr<FCompute>("FCompute<cpu>", PoolingV1Backward);
  return true;
}();

}  // namespace

}  // namespace op
}  // namespace mxnet
