// GridGenerator: the sampling grid of an affine transform (N, 6) or of an optical flow
// (N, 2, H, W), normalized for BilinearSampler; with backward. The affine kernels also serve
// SpatialTransformer (spatial_sampling.h).
#include <string>

#include "operator/nn/float_op_helpers.h"
#include "operator/nn/spatial_sampling.h"
#include "operator/tuple_args.h"

namespace mxnet {
namespace op {

namespace grid {
enum TransformType { kAffine = 0, kWarp = 1 };
}  // namespace grid

struct GridGeneratorParam : public dmlc::Parameter<GridGeneratorParam> {
  int transform_type;
  ShapeArg target_shape;
  DMLC_DECLARE_PARAMETER(GridGeneratorParam) {
    DMLC_DECLARE_FIELD(transform_type)
        .add_enum("affine", grid::kAffine)
        .add_enum("warp", grid::kWarp)
        .describe("The type of transformation. For `affine`, input data should be an affine "
                  "matrix of size (batch, 6). For `warp`, input data should be an optical flow "
                  "of size (batch, 2, h, w).");
    DMLC_DECLARE_FIELD(target_shape).set_default(ShapeArg(TShape({0, 0}))).describe(
        "Specifies the output shape (H, W). This is required if transformation type is "
        "`affine`. If transformation type is `warp`, this parameter is ignored.");
  }
};
DMLC_REGISTER_PARAMETER(GridGeneratorParam);

namespace {

// The normalized target coordinate of pixel i of n: -1 + i * 2 / (n - 1).
template <typename C>
inline C TargetCoord(index_t i, index_t n) {
  return C(-1) + C(i) * static_cast<C>(2.0 / static_cast<double>(n - 1));
}

template <typename DType>
void AffineForward(const TBlob& theta, const TBlob& grid, OpReqType req) {
  using C = FloatComputeOf<DType>;
  const index_t N = grid.shape_[0], H = grid.shape_[2], W = grid.shape_[3];
  const DType* t = theta.dptr<DType>();
  DType* g = grid.dptr<DType>();
  ParallelFor(N * 2 * H, [&](index_t row) {
    const index_t n = row / (2 * H), r = row / H % 2, i = row % H;
    const DType* m = t + n * 6 + r * 3;
    const C a = C(m[0]), b = C(m[1]), c = C(m[2]);
    const C y = TargetCoord<C>(i, H);
    DType* o = g + row * W;
    for (index_t j = 0; j < W; ++j) Assign(o + j, req, DType(a * TargetCoord<C>(j, W) + b * y + c));
  });
}

template <typename DType>
void AffineBackward(const TBlob& dgrid, const TBlob& dtheta, OpReqType req) {
  const index_t N = dgrid.shape_[0], H = dgrid.shape_[2], W = dgrid.shape_[3];
  const DType* dg = dgrid.dptr<DType>();
  DType* dt = dtheta.dptr<DType>();
  ParallelFor(N * 2, [&](index_t nr) {
    double sx = 0, sy = 0, s1 = 0;
    const DType* d = dg + nr * H * W;
    for (index_t i = 0; i < H; ++i) {
      const double y = TargetCoord<double>(i, H);
      for (index_t j = 0; j < W; ++j) {
        const double v = static_cast<double>(d[i * W + j]);
        sx += v * TargetCoord<double>(j, W);
        sy += v * y;
        s1 += v;
      }
    }
    Assign(dt + nr * 3, req, DType(sx));
    Assign(dt + nr * 3 + 1, req, DType(sy));
    Assign(dt + nr * 3 + 2, req, DType(s1));
  });
}

// grid = (flow + pixel index) / ((size - 1) / 2) - 1, per channel (x: width, y: height).
template <typename DType>
void WarpForward(const TBlob& flow, const TBlob& grid, OpReqType req) {
  using C = FloatComputeOf<DType>;
  const index_t N = flow.shape_[0], H = flow.shape_[2], W = flow.shape_[3];
  const DType* f = flow.dptr<DType>();
  DType* g = grid.dptr<DType>();
  const C half_w = C((W - 1) / 2.0), half_h = C((H - 1) / 2.0);
  ParallelFor(N * 2 * H, [&](index_t row) {
    const bool is_y = row / H % 2 == 1;
    const index_t i = row % H;
    for (index_t j = 0; j < W; ++j) {
      const index_t k = row * W + j;
      const C v = is_y ? (C(f[k]) + C(i)) / half_h : (C(f[k]) + C(j)) / half_w;
      Assign(g + k, req, DType(v - C(1)));
    }
  });
}

template <typename DType>
void WarpBackward(const TBlob& dgrid, const TBlob& dflow, OpReqType req) {
  using C = FloatComputeOf<DType>;
  const index_t H = dgrid.shape_[2], W = dgrid.shape_[3];
  const C half_w = C((W - 1) / 2.0), half_h = C((H - 1) / 2.0);
  const DType* dg = dgrid.dptr<DType>();
  DType* df = dflow.dptr<DType>();
  ParallelFor(dgrid.shape_[0] * 2 * H, [&](index_t row) {
    const C scale = row / H % 2 == 1 ? half_h : half_w;
    for (index_t k = row * W; k < (row + 1) * W; ++k) Assign(df + k, req, DType(C(dg[k]) / scale));
  });
}

bool GridGeneratorShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                        std::vector<TShape>* out) {
  const GridGeneratorParam& p = Param<GridGeneratorParam>(attrs);
  const std::string& op = attrs.op->name;
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  if (p.transform_type == grid::kAffine) {
    CHECK(d.ndim() == 2 && d[1] == 6) << "Operator " << op << ": with transform_type='affine' "
                                      << "data expected shape (batch, 6), given " << d;
    CHECK(p.target_shape.ndim() == 2 && p.target_shape[0] > 0 && p.target_shape[1] > 0)
        << "Operator " << op << ": with transform_type='affine' argument target_shape expected "
        << "(H, W) of positive sizes, given " << p.target_shape;
    AssignShape(attrs, "output", &(*out)[0],
                TShape({d[0], 2, p.target_shape[0], p.target_shape[1]}));
  } else {
    CHECK(d.ndim() == 4 && d[1] == 2) << "Operator " << op << ": with transform_type='warp' "
                                      << "data expected an optical flow of shape "
                                      << "(batch, 2, H, W), given " << d;
    AssignShape(attrs, "output", &(*out)[0], d);
  }
  return true;
}

void GridGeneratorForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  if (Param<GridGeneratorParam>(attrs).transform_type == grid::kAffine) {
    AffineGridForward(in[0], out[0], req[0]);
    return;
  }
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, { WarpForward<DType>(in[0], out[0], req[0]); });
}

// _backward_GridGenerator: input ograd; output the data gradient.
void GridGeneratorBackward(const NodeAttrs& attrs, const OpContext&,
                           const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                           const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  if (Param<GridGeneratorParam>(attrs).transform_type == grid::kAffine) {
    AffineGridBackward(in[0], out[0], req[0]);
    return;
  }
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, { WarpBackward<DType>(in[0], out[0], req[0]); });
}

bool GridGeneratorBackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                                std::vector<TShape>* out) {
  const TShape& g = (*in)[0];
  if (!g.IsKnown()) return false;
  const bool affine = Param<GridGeneratorParam>(attrs).transform_type == grid::kAffine;
  AssignShape(attrs, "data gradient", &(*out)[0], affine ? TShape({g[0], 6}) : g);
  return true;
}

}  // namespace

void AffineGridForward(const TBlob& theta, const TBlob& grid, OpReqType req) {
  if (req == kNullOp) return;
  MXNET_REAL_TYPE_SWITCH(theta.type_flag_, DType, { AffineForward<DType>(theta, grid, req); });
}

void AffineGridBackward(const TBlob& dgrid, const TBlob& dtheta, OpReqType req) {
  if (req == kNullOp) return;
  MXNET_REAL_TYPE_SWITCH(dgrid.type_flag_, DType, { AffineBackward<DType>(dgrid, dtheta, req); });
}

NNVM_REGISTER_OP(GridGenerator)
    .describe(R"doc(Generates 2D sampling grid for bilinear sampling.

With ``transform_type='affine'`` data is ``(batch, 6)``, each row a 2x3 matrix ``A``; the
output ``(batch, 2, H, W)`` (``H, W = target_shape``) holds ``A @ (x_t, y_t, 1)`` for the
target points, ``x_t = -1 + 2 * j / (W - 1)`` and ``y_t = -1 + 2 * i / (H - 1)``.
With ``transform_type='warp'`` data is an optical flow ``(batch, 2, H, W)`` and the output
is ``(flow_x + j) / ((W - 1) / 2) - 1`` and ``(flow_y + i) / ((H - 1) / 2) - 1``.
)doc")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<GridGeneratorParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data to the function.")
    .add_arguments(GridGeneratorParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data"}))
    .set_attr<FInferShape>("FInferShape", GridGeneratorShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", GridGeneratorForward)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return GradOfEachInput("_backward_GridGenerator", n, og, 0);
    });

NNVM_REGISTER_OP(_backward_GridGenerator)
    .describe("Gradient of GridGenerator with respect to its data.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<GridGeneratorParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output")
    .add_arguments(GridGeneratorParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", GridGeneratorBackwardShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", GridGeneratorBackward);

}  // namespace op
}  // namespace mxnet
