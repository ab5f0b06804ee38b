// SpatialTransformer: an affine GridGenerator followed by BilinearSampler, as one op with
// gradients for data and loc; the grid lives in temp space.
#include <string>

#include "operator/nn/nn_common.h"
#include "operator/nn/spatial_sampling.h"
#include "operator/tuple_args.h"

namespace mxnet {
namespace op {

namespace st {
enum TransformType { kAffine = 0 };
enum SamplerType { kBilinear = 0 };
}  // namespace st

struct SpatialTransformerParam : public dmlc::Parameter<SpatialTransformerParam> {
  ShapeArg target_shape;
  int transform_type;
  int sampler_type;
  dmlc::optional<bool> cudnn_off;
  DMLC_DECLARE_PARAMETER(SpatialTransformerParam) {
    DMLC_DECLARE_FIELD(target_shape).set_default(ShapeArg(TShape({0, 0}))).describe(
        "output shape(h, w) of spatial transformer: (y, x)");
    DMLC_DECLARE_FIELD(transform_type).add_enum("affine", st::kAffine).describe(
        "transformation type");
    DMLC_DECLARE_FIELD(sampler_type).add_enum("bilinear", st::kBilinear).describe(
        "sampling type");
    DMLC_DECLARE_FIELD(cudnn_off).set_default(dmlc::optional<bool>()).describe(
        "whether to turn cudnn off");
  }
};
DMLC_REGISTER_PARAMETER(SpatialTransformerParam);

namespace {

bool SpatialTransformerShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                             std::vector<TShape>* out) {
  const SpatialTransformerParam& p = Param<SpatialTransformerParam>(attrs);
  const std::string& op = attrs.op->name;
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  CHECK_EQ(d.ndim(), 4) << "Operator " << op << ": data expected 4 dims (NCHW), given shape " << d;
  CHECK(p.target_shape.ndim() == 2 && p.target_shape[0] > 0 && p.target_shape[1] > 0)
      << "Operator " << op << ": argument target_shape expected (H, W) of positive sizes, given "
      << p.target_shape;
  AssignInputShape(attrs, 1, &(*in)[1], TShape({d[0], 6}));
  AssignShape(attrs, "output", &(*out)[0],
              TShape({d[0], d[1], p.target_shape[0], p.target_shape[1]}));
  return true;
}

// The sampling grid (N, 2, H, W) of out's size in temp space, with room for its gradient.
TBlob GridIn(const OpContext& ctx, const TShape& out_shape, int dtype, bool with_gradient) {
  const TShape s({out_shape[0], 2, out_shape[2], out_shape[3]});
  const size_t bytes = s.Size() * DTypeSize(dtype);
  void* p = ctx.RequestTempSpace(with_gradient ? 2 * bytes : bytes);
  return TBlob(p, s, dtype, Context::CPU());
}

TBlob SecondHalf(const TBlob& grid) {
  return TBlob(static_cast<char*>(grid.dptr_) + grid.Size() * DTypeSize(grid.type_flag_),
               grid.shape_, grid.type_flag_, grid.ctx);
}

void SpatialTransformerForward(const NodeAttrs&, const OpContext& ctx,
                               const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                               const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const TBlob grid = GridIn(ctx, out[0].shape_, in[0].type_flag_, false);
  AffineGridForward(in[1], grid, kWriteTo);
  BilinearSampleForward(in[0], grid, out[0], req[0]);
}

// _backward_SpatialTransformer: inputs (ograd, data, loc); outputs their gradients.
void SpatialTransformerBackward(const NodeAttrs&, const OpContext& ctx,
                                const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                                const std::vector<TBlob>& out) {
  const TBlob grid = GridIn(ctx, in[0].shape_, in[1].type_flag_, true);
  const TBlob dgrid = SecondHalf(grid);
  AffineGridForward(in[2], grid, kWriteTo);
  BilinearSampleBackward(in[0], in[1], grid, out[0], req[0], dgrid,
                         req[1] == kNullOp ? kNullOp : kWriteTo);
  AffineGridBackward(dgrid, out[1], req[1]);
}

}  // namespace

NNVM_REGISTER_OP(SpatialTransformer)
    .describe(R"doc(Applies a spatial transformer to input feature map.

Each sample of ``loc`` ``(batch, 6)`` is a 2x3 affine matrix; the output
``(batch, channels, target_shape[0], target_shape[1])`` is
``BilinearSampler(data, GridGenerator(loc, transform_type='affine', target_shape))``:
points outside the input read 0. Both data and loc get gradients.
)doc")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<SpatialTransformerParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data to the SpatialTransformerOp.")
    .add_argument("loc", "NDArray-or-Symbol",
                  "localisation net, the output dim should be 6 when transform_type is affine. "
                  "You shold initialize the weight and bias with identity tranform.")
    .add_arguments(SpatialTransformerParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data", "loc"}))
    .set_attr<FInferShape>("FInferShape", SpatialTransformerShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", SpatialTransformerForward)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return GradOfEachInput("_backward_SpatialTransformer", n, og);
    });

NNVM_REGISTER_OP(_backward_SpatialTransformer)
    .describe("Gradients of SpatialTransformer with respect to data and loc.")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<SpatialTransformerParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output")
    .add_argument("data", "NDArray-or-Symbol", "data of the forward call")
    .add_argument("loc", "NDArray-or-Symbol", "loc of the forward call")
    .add_arguments(SpatialTransformerParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"ograd", "data", "loc"}))
    .set_attr<FInferShape>("FInferShape", ForwardInputShapes)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", SpatialTransformerBackward);

}  // namespace op
}  // namespace mxnet
