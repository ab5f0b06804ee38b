// Dropout: zeroes elements with probability p and scales the rest by 1 / (1 - p) while
// training (or always); the scaled keep-mask is a hidden second output the gradient multiplies.
#include <dmlc/optional.h>

#include <string>
#include <vector>

#include "operator/nn/nn_common.h"
#include "operator/random/philox.h"
#include "operator/tuple_args.h"

namespace mxnet {
namespace op {

using tuple_args::IntTuple;

struct DropoutParam : public dmlc::Parameter<DropoutParam> {
  float p;
  int mode;
  IntTuple axes;
  dmlc::optional<bool> cudnn_off;
  enum Mode { kTraining = 0, kAlways = 1 };
  DMLC_DECLARE_PARAMETER(DropoutParam) {
    DMLC_DECLARE_FIELD(p).set_default(0.5).set_range(0, 1).describe(
        "Fraction of the input that gets dropped out during training time.");
    DMLC_DECLARE_FIELD(mode)
        .add_enum("training", kTraining)
        .add_enum("always", kAlways)
        .set_default(kTraining)
        .describe("Whether to only turn on dropout during training or to also turn on for "
                  "inference.");
    DMLC_DECLARE_FIELD(axes).set_default(IntTuple()).describe(
        "Axes for variational dropout kernel.");
    DMLC_DECLARE_FIELD(cudnn_off).set_default(dmlc::optional<bool>(false)).describe(
        "Whether to turn off cudnn in dropout operator. This option is ignored if axes is "
        "specified (no cuDNN on CPU: accepted and ignored).");
  }
};
DMLC_REGISTER_PARAMETER(DropoutParam);

namespace {

bool DropoutShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const DropoutParam& p = Param<DropoutParam>(attrs);
  const TShape& d = (*in)[0];
  if (d.ndim() < 0) return false;
  for (int64_t a : p.axes) {
    CHECK(a >= -d.ndim() && a < d.ndim())
        << "Operator " << attrs.op->name << ": argument axes has axis " << a
        << ", expected one in [" << -d.ndim() << ", " << d.ndim() << ") for data of shape " << d;
  }
  AssignShape(attrs, "output", &(*out)[0], d);
  AssignShape(attrs, "mask", &(*out)[1], d);
  return d.IsKnown();
}

/*! \brief Strides that map an element's flat index to its index in the mask drawn with the
 *  dropped axes collapsed to 1 (variational dropout shares one draw along those axes). */
struct SharedMaskIndex {
  std::vector<index_t> dims, keep_stride;
  SharedMaskIndex(const TShape& s, const IntTuple& axes) {
    const int nd = s.ndim();
    std::vector<bool> shared(nd, false);
    for (int64_t a : axes) shared[a < 0 ? a + nd : a] = true;
    dims.assign(s.begin(), s.end());
    keep_stride.assign(nd, 0);
    index_t stride = 1;
    for (int i = nd - 1; i >= 0; --i) {
      if (!shared[i]) {
        keep_stride[i] = stride;
        stride *= dims[i];
      }
    }
  }
  index_t operator()(index_t flat) const {
    index_t r = 0;
    for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
      r += (flat % dims[i]) * keep_stride[i];
      flat /= dims[i];
    }
    return r;
  }
};

template <typename DType>
void DropoutImpl(const DropoutParam& p, const OpContext& ctx, const TBlob& data,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const DType* x = data.dptr<DType>();
  DType* y = out[0].dptr<DType>();
  DType* mask = out[1].dptr<DType>();
  const index_t n = static_cast<index_t>(data.Size());
  const bool active = (p.mode == DropoutParam::kAlways || ctx.is_train) && p.p > 0;
  if (!active) {
    ParallelFor(n, [&](index_t i) {
      Assign(y + i, req[0], x[i]);
      if (req[1] != kNullOp) mask[i] = DType(1);
    });
    return;
  }
  // The mask is keep? * (1 / (1 - p)), as MXNet 1.9.1 computes it: with p == 1 that is
  // 0 * inf, so every output (and gradient) is NaN there, as in 1.9.1.
  const float keep = 1.0f - p.p;
  const float inv_keep = 1.0f / keep;
  const SharedMaskIndex draw_index(data.shape_, p.axes);
  const bool shared = p.axes.ndim() > 0;
  const uint64_t seed = ctx.random_seed, stream = ctx.random_stream;
  ParallelFor(n, [&](index_t i) {
    RandomStream rs(seed, stream, static_cast<uint64_t>(shared ? draw_index(i) : i));
    const DType m = DType((rs.UniformF() < keep ? 1.0f : 0.0f) * inv_keep);
    mask[i] = m;
    Assign(y + i, req[0], DType(x[i] * m));
  });
}

void DropoutForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const DropoutParam& p = Param<DropoutParam>(attrs);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    DropoutImpl<DType>(p, ctx, in[0], req, out);
  });
}

std::vector<NodeEntry> DropoutGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {MakeNode("elemwise_mul", GradName(n), {og[0], Out(n, 1)})};
}

}  // namespace

NNVM_REGISTER_OP(Dropout)
    .describe(R"doc(Applies dropout to the input.

While training (``autograd.is_training()``, or always with ``mode='always'``) each element is
zeroed with probability ``p`` and the others are scaled by ``1/(1-p)``, so the expected sum is
unchanged; otherwise the output is the input. ``axes`` shares one draw along the given axes
(variational dropout). Random numbers come from the operator's random stream, so
``mx.random.seed`` makes the mask reproducible.
)doc")
    .set_num_inputs(1)
    .set_num_outputs(2)
    .set_attr<FNumVisibleOutputs>("FNumVisibleOutputs", [](const NodeAttrs&) { return 1u; })
    .set_attr_parser(ParamParser<DropoutParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input array to which dropout will be applied.")
    .add_arguments(DropoutParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data"}))
    .set_attr<FListOutputNames>("FListOutputNames", InputNames({"output", "mask"}))
    .set_attr<FInferShape>("FInferShape", DropoutShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FResourceRequest>("FResourceRequest",
                                [](const NodeAttrs&) {
                                  return std::vector<ResourceRequest>{
                                      ResourceRequest::kParallelRandom};
                                })
    .set_attr<FCompute>("FCompute<cpu>", DropoutForward)
    .set_attr<FGradient>("FGradient", DropoutGrad);

}  // namespace op
}  // namespace mxnet
