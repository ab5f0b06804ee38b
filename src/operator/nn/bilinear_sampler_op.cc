// BilinearSampler: samples NCHW data at a normalized grid (N, 2, H, W) with bilinear
// interpolation, zero outside the input; gradients for data and grid. The kernels also serve
// SpatialTransformer (spatial_sampling.h).
#include <cmath>
#include <cstring>
#include <string>

#include "operator/nn/float_op_helpers.h"
#include "operator/nn/spatial_sampling.h"

namespace mxnet {
namespace op {

struct BilinearSamplerParam : public dmlc::Parameter<BilinearSamplerParam> {
  dmlc::optional<bool> cudnn_off;
  DMLC_DECLARE_PARAMETER(BilinearSamplerParam) {
    DMLC_DECLARE_FIELD(cudnn_off).set_default(dmlc::optional<bool>()).describe(
        "whether to turn cudnn off");
  }
};
DMLC_REGISTER_PARAMETER(BilinearSamplerParam);

namespace {

// Where one output pixel reads: the top-left tap (x0, y0), its weights (wx, wy: the share of
// the left column and top row), and which of the four taps lie inside the h x w input.
template <typename C>
struct Taps {
  index_t x0, y0;
  C wx, wy;
  bool in[4];  // top-left, top-right, bottom-left, bottom-right
  Taps(C gx, C gy, index_t h, index_t w) {
    const C x = (gx + C(1)) * C(w - 1) / C(2), y = (gy + C(1)) * C(h - 1) / C(2);
    const C fx = std::floor(x), fy = std::floor(y);
    x0 = static_cast<index_t>(fx);
    y0 = static_cast<index_t>(fy);
    wx = C(1) - (x - fx);
    wy = C(1) - (y - fy);
    const bool x_in[2] = {x0 >= 0 && x0 < w, x0 + 1 >= 0 && x0 + 1 < w};
    const bool y_in[2] = {y0 >= 0 && y0 < h, y0 + 1 >= 0 && y0 + 1 < h};
    for (int k = 0; k < 4; ++k) in[k] = y_in[k / 2] && x_in[k % 2];
  }
  C Weight(int k) const { return (k / 2 ? C(1) - wy : wy) * (k % 2 ? C(1) - wx : wx); }
  index_t Offset(int k, index_t w) const { return (y0 + k / 2) * w + x0 + k % 2; }
};

template <typename DType>
void SampleForward(const TBlob& data, const TBlob& grid, const TBlob& out, OpReqType req) {
  using C = FloatComputeOf<DType>;
  const index_t N = out.shape_[0], ch = out.shape_[1], H = out.shape_[2], W = out.shape_[3];
  const index_t h = data.shape_[2], w = data.shape_[3];
  const DType* x = data.dptr<DType>();
  const DType* g = grid.dptr<DType>();
  DType* y = out.dptr<DType>();
  LoopMaybeParallel(N * ch * H * W >= ParallelGrain(), N * H, [&](index_t row) {
    const index_t n = row / H, i = row % H;
    for (index_t j = 0; j < W; ++j) {
      const index_t p = i * W + j;
      const Taps<C> t(C(g[(n * 2) * H * W + p]), C(g[(n * 2 + 1) * H * W + p]), h, w);
      for (index_t c = 0; c < ch; ++c) {
        const DType* plane = x + (n * ch + c) * h * w;
        C v = 0;
        for (int k = 0; k < 4; ++k) {
          if (t.in[k]) v += t.Weight(k) * C(plane[t.Offset(k, w)]);
        }
        Assign(y + (n * ch + c) * H * W + p, req, DType(v));
      }
    }
  });
}

// d out / d wy and d out / d wx give the grid gradient: wy = 1 - frac(y), y = (gy + 1)(h - 1)/2.
template <typename DType>
void SampleBackward(const TBlob& ograd, const TBlob& data, const TBlob& grid, const TBlob& ddata,
                    OpReqType data_req, const TBlob& dgrid, OpReqType grid_req) {
  using C = FloatComputeOf<DType>;
  const index_t N = ograd.shape_[0], ch = ograd.shape_[1], H = ograd.shape_[2];
  const index_t W = ograd.shape_[3], h = data.shape_[2], w = data.shape_[3];
  const DType* dy = ograd.dptr<DType>();
  const DType* x = data.dptr<DType>();
  const DType* g = grid.dptr<DType>();
  if (data_req != kNullOp && data_req != kAddTo) ZeroGradient(ddata, data_req);
  // Sample n writes only ddata[n]: the batch splits across threads without races.
  LoopMaybeParallel(N * ch * H * W >= ParallelGrain(), N, [&](index_t n) {
    for (index_t p = 0; p < H * W; ++p) {
      const Taps<C> t(C(g[(n * 2) * H * W + p]), C(g[(n * 2 + 1) * H * W + p]), h, w);
      C gwx = 0, gwy = 0;
      for (index_t c = 0; c < ch; ++c) {
        const C d = C(dy[(n * ch + c) * H * W + p]);
        const DType* plane = x + (n * ch + c) * h * w;
        C v[4];
        for (int k = 0; k < 4; ++k) {
          v[k] = t.in[k] ? C(plane[t.Offset(k, w)]) : C(0);
          if (t.in[k] && data_req != kNullOp) {
            DType* dx = ddata.dptr<DType>() + (n * ch + c) * h * w + t.Offset(k, w);
            *dx = DType(C(*dx) + d * t.Weight(k));
          }
        }
        gwy += d * ((v[0] - v[2]) * t.wx + (v[1] - v[3]) * (C(1) - t.wx));
        gwx += d * ((v[0] - v[1]) * t.wy + (v[2] - v[3]) * (C(1) - t.wy));
      }
      if (grid_req != kNullOp) {
        DType* dg = dgrid.dptr<DType>();
        Assign(dg + (n * 2) * H * W + p, grid_req, DType(-gwx * C(w - 1) / C(2)));
        Assign(dg + (n * 2 + 1) * H * W + p, grid_req, DType(-gwy * C(h - 1) / C(2)));
      }
    }
  });
}

bool BilinearSamplerShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                          std::vector<TShape>* out) {
  const std::string& op = attrs.op->name;
  const TShape &d = (*in)[0], &g = (*in)[1];
  if (!d.IsKnown() || !g.IsKnown()) return false;
  CHECK_EQ(d.ndim(), 4) << "Operator " << op << ": data expected 4 dims (NCHW), given shape " << d;
  CHECK(g.ndim() == 4 && g[1] == 2) << "Operator " << op << ": grid expected shape "
                                    << "(batch, 2, H, W), given " << g;
  CHECK_EQ(g[0], d[0]) << "Operator " << op << ": grid (shape " << g << ") and data (shape "
                       << d << ") need the same batch size";
  AssignShape(attrs, "output", &(*out)[0], TShape({d[0], d[1], g[2], g[3]}));
  return true;
}

void BilinearSamplerForward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                            const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  BilinearSampleForward(in[0], in[1], out[0], req[0]);
}

// _backward_BilinearSampler: inputs (ograd, data, grid); outputs their gradients.
void BilinearSamplerBackward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                             const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  BilinearSampleBackward(in[0], in[1], in[2], out[0], req[0], out[1], req[1]);
}

}  // namespace

void BilinearSampleForward(const TBlob& data, const TBlob& grid, const TBlob& out,
                           OpReqType req) {
  if (req == kNullOp) return;
  MXNET_REAL_TYPE_SWITCH(data.type_flag_, DType, {
    SampleForward<DType>(data, grid, out, req);
  });
}

void BilinearSampleBackward(const TBlob& ograd, const TBlob& data, const TBlob& grid,
                            const TBlob& ddata, OpReqType data_req, const TBlob& dgrid,
                            OpReqType grid_req) {
  MXNET_REAL_TYPE_SWITCH(data.type_flag_, DType, {
    SampleBackward<DType>(ograd, data, grid, ddata, data_req, dgrid, grid_req);
  });
}

NNVM_REGISTER_OP(BilinearSampler)
    .describe(R"doc(Applies bilinear sampling to input feature map.

``output[n, c, i, j]`` is ``data[n, c]`` (NCHW) interpolated bilinearly at
``x = (grid[n, 0, i, j] + 1) * (width - 1) / 2`` and ``y = (grid[n, 1, i, j] + 1) *
(height - 1) / 2``; taps outside the input read 0. The output is
``(data.shape[0], data.shape[1], grid.shape[2], grid.shape[3])``. GridGenerator makes such
grids. Both data and grid get gradients.
)doc")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<BilinearSamplerParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data to the BilinearsamplerOp.")
    .add_argument("grid", "NDArray-or-Symbol",
                  "Input grid to the BilinearsamplerOp.grid has two channels: x_src, y_src")
    .add_arguments(BilinearSamplerParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data", "grid"}))
    .set_attr<FInferShape>("FInferShape", BilinearSamplerShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", BilinearSamplerForward)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return GradOfEachInput("_backward_BilinearSampler", n, og);
    });

NNVM_REGISTER_OP(_backward_BilinearSampler)
    .describe("Gradients of BilinearSampler with respect to data and grid.")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<BilinearSamplerParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output")
    .add_argument("data", "NDArray-or-Symbol", "data of the forward call")
    .add_argument("grid", "NDArray-or-Symbol", "grid of the forward call")
    .add_arguments(BilinearSamplerParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"ograd", "data", "grid"}))
    .set_attr<FInferShape>("FInferShape", ForwardInputShapes)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", BilinearSamplerBackward);

}  // namespace op
}  // namespace mxnet
