// Correlation (FlowNet): for each position of data1 and each displacement within
// max_displacement (in steps of stride2), the mean over a kernel_size window and all channels
// of data1 * data2 (is_multiply) or |data1 - data2|, on the pad_size-padded inputs; backward
// for both inputs.
#include <cmath>
#include <cstdlib>
#include <string>

#include "operator/nn/float_op_helpers.h"

namespace mxnet {
namespace op {

struct CorrelationParam : public dmlc::Parameter<CorrelationParam> {
  uint32_t kernel_size;
  uint32_t max_displacement;
  uint32_t stride1;
  uint32_t stride2;
  uint32_t pad_size;
  bool is_multiply;
  DMLC_DECLARE_PARAMETER(CorrelationParam) {
    DMLC_DECLARE_FIELD(kernel_size).set_default(1).describe(
        "kernel size for Correlation must be an odd number");
    DMLC_DECLARE_FIELD(max_displacement).set_default(1).describe(
        "Max displacement of Correlation ");
    DMLC_DECLARE_FIELD(stride1).set_default(1).describe("stride1 quantize data1 globally");
    DMLC_DECLARE_FIELD(stride2).set_default(1).describe(
        "stride2 quantize data2 within the neighborhood centered around data1");
    DMLC_DECLARE_FIELD(pad_size).set_default(0).describe("pad for Correlation");
    DMLC_DECLARE_FIELD(is_multiply).set_default(true).describe(
        "operation type is either multiplication or subduction");
  }
};
DMLC_REGISTER_PARAMETER(CorrelationParam);

namespace {

// The output grid and the displacements, from the arguments and data (N, C, H, W).
struct CorrGeometry {
  index_t N, C, H, W;       // data
  index_t out_h, out_w;     // output positions
  index_t radius, grid_w;   // displacement grid: (2 * radius + 1)^2 channels
  index_t k, pad, stride1, stride2, max_disp;
  index_t Channels() const { return grid_w * grid_w; }
};

CorrGeometry MakeCorrGeometry(const NodeAttrs& attrs, const TShape& d) {
  const CorrelationParam& p = Param<CorrelationParam>(attrs);
  const std::string& op = attrs.op->name;
  CHECK_EQ(d.ndim(), 4) << "Operator " << op << ": data1 expected 4 dims (NCHW), given shape " << d;
  CHECK(p.kernel_size % 2 == 1) << "Operator " << op << ": argument kernel_size expected an odd "
                                << "number, given " << p.kernel_size;
  CHECK(p.stride1 >= 1 && p.stride2 >= 1) << "Operator " << op << ": arguments stride1 and "
                                          << "stride2 expected >= 1, given " << p.stride1
                                          << " and " << p.stride2;
  CorrGeometry g;
  g.N = d[0], g.C = d[1], g.H = d[2], g.W = d[3];
  g.k = p.kernel_size, g.pad = p.pad_size, g.stride1 = p.stride1, g.stride2 = p.stride2;
  g.max_disp = p.max_displacement;
  const index_t border = g.max_disp + (g.k - 1) / 2;
  const index_t span_h = g.H + 2 * g.pad - 2 * border, span_w = g.W + 2 * g.pad - 2 * border;
  CHECK(span_h >= 1 && span_w >= 1)
      << "Operator " << op << ": max_displacement=" << g.max_disp << " and kernel_size=" << g.k
      << " do not fit in data of shape " << d << " padded by pad_size=" << g.pad;
  g.out_h = (span_h + g.stride1 - 1) / g.stride1;
  g.out_w = (span_w + g.stride1 - 1) / g.stride1;
  g.radius = g.max_disp / g.stride2;
  g.grid_w = 2 * g.radius + 1;
  return g;
}

bool CorrelationShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) {
    if (!(*in)[1].IsKnown()) return false;
    AssignInputShape(attrs, 0, &(*in)[0], (*in)[1]);
  }
  AssignInputShape(attrs, 1, &(*in)[1], (*in)[0]);
  const CorrGeometry g = MakeCorrGeometry(attrs, (*in)[0]);
  AssignShape(attrs, "output", &(*out)[0], TShape({g.N, g.Channels(), g.out_h, g.out_w}));
  return true;
}

// Visits every (output position, displacement, window tap, channel) of sample n: fn(out
// index, offset into data1's sample, offset into data2's sample), for taps inside both inputs
// (padding reads 0; a tap outside one input still pairs with the other's value).
template <typename Fn>
void ForEachPair(const CorrGeometry& g, index_t n, Fn fn) {
  const index_t HW = g.H * g.W;
  for (index_t i = 0; i < g.out_h; ++i) {
    for (index_t j = 0; j < g.out_w; ++j) {
      const index_t y1 = i * g.stride1 + g.max_disp - g.pad, x1 = j * g.stride1 + g.max_disp - g.pad;
      for (index_t tc = 0; tc < g.Channels(); ++tc) {
        const index_t y2 = y1 + (tc / g.grid_w - g.radius) * g.stride2;
        const index_t x2 = x1 + (tc % g.grid_w - g.radius) * g.stride2;
        const index_t o = ((n * g.Channels() + tc) * g.out_h + i) * g.out_w + j;
        for (index_t h = 0; h < g.k; ++h) {
          for (index_t w = 0; w < g.k; ++w) {
            const bool in1 = y1 + h >= 0 && y1 + h < g.H && x1 + w >= 0 && x1 + w < g.W;
            const bool in2 = y2 + h >= 0 && y2 + h < g.H && x2 + w >= 0 && x2 + w < g.W;
            const index_t a = in1 ? (y1 + h) * g.W + x1 + w : -1;
            const index_t b = in2 ? (y2 + h) * g.W + x2 + w : -1;
            for (index_t c = 0; c < g.C; ++c) fn(o, a < 0 ? -1 : a + c * HW, b < 0 ? -1 : b + c * HW);
          }
        }
      }
    }
  }
}

template <typename DType>
void CorrForward(const CorrGeometry& g, bool multiply, const TBlob& d1, const TBlob& d2,
                 const TBlob& out, OpReqType req) {
  using C = FloatComputeOf<DType>;
  const index_t per = g.C * g.H * g.W, per_out = g.Channels() * g.out_h * g.out_w;
  const C norm = C(g.k * g.k * g.C);
  LoopMaybeParallel(g.N * per_out * g.k * g.k * g.C >= ParallelGrain(), g.N, [&](index_t n) {
    const DType* x1 = d1.dptr<DType>() + n * per;
    const DType* x2 = d2.dptr<DType>() + n * per;
    std::vector<C> acc(per_out, C(0));
    const index_t base = n * per_out;
    ForEachPair(g, n, [&](index_t o, index_t a, index_t b) {
      const C u = a < 0 ? C(0) : C(x1[a]), v = b < 0 ? C(0) : C(x2[b]);
      acc[o - base] += multiply ? u * v : std::abs(u - v);
    });
    DType* y = out.dptr<DType>() + base;
    for (index_t o = 0; o < per_out; ++o) Assign(y + o, req, DType(acc[o] / norm));
  });
}

template <typename DType>
void CorrBackward(const CorrGeometry& g, bool multiply, const TBlob& ograd, const TBlob& d1,
                  const TBlob& d2, const TBlob& g1, OpReqType req1, const TBlob& g2,
                  OpReqType req2) {
  using C = FloatComputeOf<DType>;
  const index_t per = g.C * g.H * g.W, per_out = g.Channels() * g.out_h * g.out_w;
  const C norm = C(g.k * g.k * g.C);
  ZeroGradient(g1, req1);
  ZeroGradient(g2, req2);
  LoopMaybeParallel(g.N * per_out * g.k * g.k * g.C >= ParallelGrain(), g.N, [&](index_t n) {
    const DType* x1 = d1.dptr<DType>() + n * per;
    const DType* x2 = d2.dptr<DType>() + n * per;
    const DType* dy = ograd.dptr<DType>();
    DType* dx1 = req1 == kNullOp ? nullptr : g1.dptr<DType>() + n * per;
    DType* dx2 = req2 == kNullOp ? nullptr : g2.dptr<DType>() + n * per;
    ForEachPair(g, n, [&](index_t o, index_t a, index_t b) {
      const C d = C(dy[o]) / norm;
      const C u = a < 0 ? C(0) : C(x1[a]), v = b < 0 ? C(0) : C(x2[b]);
      const C sign = u >= v ? C(1) : C(-1);
      if (dx1 && a >= 0) dx1[a] = DType(C(dx1[a]) + d * (multiply ? v : sign));
      if (dx2 && b >= 0) dx2[b] = DType(C(dx2[b]) + d * (multiply ? u : -sign));
    });
  });
}

void CorrelationForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const CorrGeometry g = MakeCorrGeometry(attrs, in[0].shape_);
  const bool multiply = Param<CorrelationParam>(attrs).is_multiply;
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    CorrForward<DType>(g, multiply, in[0], in[1], out[0], req[0]);
  });
}

// _backward_Correlation: inputs (ograd, data1, data2); outputs their gradients.
void CorrelationBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const CorrGeometry g = MakeCorrGeometry(attrs, in[1].shape_);
  const bool multiply = Param<CorrelationParam>(attrs).is_multiply;
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    CorrBackward<DType>(g, multiply, in[0], in[1], in[2], out[0], req[0], out[1], req[1]);
  });
}

}  // namespace

NNVM_REGISTER_OP(Correlation)
    .describe(R"doc(Applies correlation to inputs.

The correlation layer of FlowNet compares patches of two NCHW maps of one shape. With
``k = kernel_size`` (odd), both inputs padded by ``pad_size``, output position ``(i, j)``
anchors a ``k x k`` window at ``(i * stride1 + max_displacement, j * stride1 +
max_displacement)`` in data1 and compares it with the window displaced by ``(dy, dx)`` in
data2, ``dy, dx`` in ``-d .. d`` steps of ``stride2`` (``d = max_displacement // stride2``
steps): ``mean(data1 * data2)`` over the windows and channels when ``is_multiply``, else
``mean(|data1 - data2|)``. The output is ``(N, (2d + 1)^2, out_h, out_w)``, ``out_h =
ceil((H + 2 * pad_size - 2 * (max_displacement + k // 2)) / stride1)``.
)doc")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<CorrelationParam>)
    .add_argument("data1", "NDArray-or-Symbol", "Input data1 to the correlation.")
    .add_argument("data2", "NDArray-or-Symbol", "Input data2 to the correlation.")
    .add_arguments(CorrelationParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data1", "data2"}))
    .set_attr<FInferShape>("FInferShape", CorrelationShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", CorrelationForward)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return GradOfEachInput("_backward_Correlation", n, og);
    });

NNVM_REGISTER_OP(_backward_Correlation)
    .describe("Gradients of Correlation with respect to data1 and data2.")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<CorrelationParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output")
    .add_argument("data1", "NDArray-or-Symbol", "data1 of the forward call")
    .add_argument("data2", "NDArray-or-Symbol", "data2 of the forward call")
    .add_arguments(CorrelationParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"ograd", "data1", "data2"}))
    .set_attr<FInferShape>("FInferShape", ForwardInputShapes)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", CorrelationBackward);

}  // namespace op
}  // namespace mxnet
