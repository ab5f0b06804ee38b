// _contrib_AdaptiveAvgPooling2D: average pooling of NCHW data onto a fixed output grid, bin
// (i, j) covering rows [floor(i*H/oh), ceil((i+1)*H/oh)) and the like for columns; backward.
#include <cstring>
#include <string>

#include "operator/nn/float_op_helpers.h"
#include "operator/tuple_args.h"

namespace mxnet {
namespace op {

struct AdaptiveAvgPoolParam : public dmlc::Parameter<AdaptiveAvgPoolParam> {
  ShapeArg output_size;
  DMLC_DECLARE_PARAMETER(AdaptiveAvgPoolParam) {
    DMLC_DECLARE_FIELD(output_size).set_default(ShapeArg(TShape(0, 0))).describe(
        "int (output size) or a tuple of int for output (height, width).");
  }
};
DMLC_REGISTER_PARAMETER(AdaptiveAvgPoolParam);

namespace {

inline index_t BinStart(index_t i, index_t in, index_t out) { return i * in / out; }
inline index_t BinEnd(index_t i, index_t in, index_t out) { return ((i + 1) * in + out - 1) / out; }

bool AdaptiveAvgPoolShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                          std::vector<TShape>* out) {
  const AdaptiveAvgPoolParam& p = Param<AdaptiveAvgPoolParam>(attrs);
  const std::string& op = attrs.op->name;
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  CHECK_EQ(d.ndim(), 4) << "Operator " << op << ": data expected 4 dims (NCHW), given shape " << d;
  const TShape& s = p.output_size;
  CHECK(s.ndim() <= 2) << "Operator " << op << ": argument output_size expected an int or "
                       << "(height, width), given " << s;
  const index_t oh = s.ndim() <= 0 ? 1 : s[0], ow = s.ndim() <= 0 ? 1 : s[s.ndim() - 1];
  CHECK(oh > 0 && ow > 0) << "Operator " << op << ": argument output_size expected positive "
                          << "sizes, given " << s;
  AssignShape(attrs, "output", &(*out)[0], TShape({d[0], d[1], oh, ow}));
  return true;
}

template <typename DType>
void PoolForward(const TBlob& data, const TBlob& out, OpReqType req) {
  using C = FloatComputeOf<DType>;
  const index_t planes = data.shape_[0] * data.shape_[1], H = data.shape_[2], W = data.shape_[3];
  const index_t oh = out.shape_[2], ow = out.shape_[3];
  LoopMaybeParallel(planes * H * W >= ParallelGrain(), planes, [&](index_t pl) {
    const DType* x = data.dptr<DType>() + pl * H * W;
    DType* y = out.dptr<DType>() + pl * oh * ow;
    for (index_t i = 0; i < oh; ++i) {
      const index_t h0 = BinStart(i, H, oh), h1 = BinEnd(i, H, oh);
      for (index_t j = 0; j < ow; ++j) {
        const index_t w0 = BinStart(j, W, ow), w1 = BinEnd(j, W, ow);
        C sum = 0;
        for (index_t h = h0; h < h1; ++h) {
          for (index_t w = w0; w < w1; ++w) sum += C(x[h * W + w]);
        }
        Assign(y + i * ow + j, req, DType(sum / C((h1 - h0) * (w1 - w0))));
      }
    }
  });
}

template <typename DType>
void PoolBackward(const TBlob& ograd, const TBlob& dx, OpReqType req) {
  using C = FloatComputeOf<DType>;
  const index_t planes = dx.shape_[0] * dx.shape_[1], H = dx.shape_[2], W = dx.shape_[3];
  const index_t oh = ograd.shape_[2], ow = ograd.shape_[3];
  ZeroGradient(dx, req);
  LoopMaybeParallel(planes * H * W >= ParallelGrain(), planes, [&](index_t pl) {
    const DType* dy = ograd.dptr<DType>() + pl * oh * ow;
    DType* g = dx.dptr<DType>() + pl * H * W;
    for (index_t i = 0; i < oh; ++i) {
      const index_t h0 = BinStart(i, H, oh), h1 = BinEnd(i, H, oh);
      for (index_t j = 0; j < ow; ++j) {
        const index_t w0 = BinStart(j, W, ow), w1 = BinEnd(j, W, ow);
        const C share = C(dy[i * ow + j]) / C((h1 - h0) * (w1 - w0));
        for (index_t h = h0; h < h1; ++h) {
          for (index_t w = w0; w < w1; ++w) g[h * W + w] = DType(C(g[h * W + w]) + share);
        }
      }
    }
  });
}

void AdaptiveAvgPoolForward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                            const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, { PoolForward<DType>(in[0], out[0], req[0]); });
}

// _backward_contrib_AdaptiveAvgPooling2D: inputs (ograd, data); output the data gradient.
void AdaptiveAvgPoolBackward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                             const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, { PoolBackward<DType>(in[0], out[0], req[0]); });
}

}  // namespace

NNVM_REGISTER_OP(_contrib_AdaptiveAvgPooling2D)
    .describe(R"doc(Applies a 2D adaptive average pooling over a 4D input with the shape of
(batch_size, channels, height, width). The output size is (batch_size, channels,
output_size[0], output_size[1]); an int gives a square output and no output_size (1, 1).
Output bin ``(i, j)`` averages input rows ``floor(i * H / oh)`` to ``ceil((i + 1) * H / oh)``
(exclusive) and the matching columns.
)doc")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<AdaptiveAvgPoolParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data")
    .add_arguments(AdaptiveAvgPoolParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data"}))
    .set_attr<FInferShape>("FInferShape", AdaptiveAvgPoolShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", AdaptiveAvgPoolForward)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return GradOfEachInput("_backward_contrib_AdaptiveAvgPooling2D", n, og);
    });

NNVM_REGISTER_OP(_backward_contrib_AdaptiveAvgPooling2D)
    .describe("Gradient of _contrib_AdaptiveAvgPooling2D with respect to data.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<AdaptiveAvgPoolParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output")
    .add_argument("data", "NDArray-or-Symbol", "data of the forward call")
    .add_arguments(AdaptiveAvgPoolParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"ograd", "data"}))
    .set_attr<FInferShape>("FInferShape", ForwardInputShapes)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", AdaptiveAvgPoolBackward);

}  // namespace op
}  // namespace mxnet
