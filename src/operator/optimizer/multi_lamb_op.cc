// LAMB over many weights in one call: _multi_lamb_update and _multi_mp_lamb_update (the
// Python front's mx.nd.contrib.multi_lamb_update / multi_mp_lamb_update). For each weight:
// r1 = norm of the weight, the Adam-style direction g (mean and var updated in place),
// r2 = norm of g, then weight -= lr * r1 / r2 * g (ratio 1 when r1 or r2 is 0).
#include "operator/optimizer/update_common.h"
#include "operator/tuple_args.h"

namespace mxnet {
namespace op {
namespace update {

struct MultiLAMBParam : public dmlc::Parameter<MultiLAMBParam> {
  FloatTuple learning_rates;
  float beta1, beta2, epsilon;
  FloatTuple wds;
  float rescale_grad, lower_bound, upper_bound, clip_gradient;
  bool bias_correction;
  tuple_args::IntTuple step_count;
  int num_tensors;
  DMLC_DECLARE_PARAMETER(MultiLAMBParam) {
    DMLC_DECLARE_FIELD(learning_rates).describe("List of learning rates");
    DMLC_DECLARE_FIELD(beta1).set_default(0.9f).describe(
        "Exponential decay rate for the first moment estimates.");
    DMLC_DECLARE_FIELD(beta2).set_default(0.999f).describe(
        "Exponential decay rate for the second moment estimates.");
    DMLC_DECLARE_FIELD(epsilon).set_default(1e-6f).describe(
        "Small value to avoid division by 0.");
    DMLC_DECLARE_FIELD(wds).describe(
        "List of Weight decays: each adds a penalty on large weights (proportional to the "
        "square of each weight) to the objective function.");
    DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0f).describe("Gradient rescaling factor");
    DMLC_DECLARE_FIELD(lower_bound).set_default(-1.0f).describe(
        "Lower limit of norm of weight. If lower_bound <= 0, Lower limit is not set");
    DMLC_DECLARE_FIELD(upper_bound).set_default(-1.0f).describe(
        "Upper limit of norm of weight. If upper_bound <= 0, Upper limit is not set");
    MXNET_UPDATE_FIELD_CLIP(clip_gradient);
    DMLC_DECLARE_FIELD(bias_correction).set_default(true).describe(
        "Whether to use bias correction.");
    DMLC_DECLARE_FIELD(step_count).describe("Step count for each tensor");
    DMLC_DECLARE_FIELD(num_tensors).set_default(1).set_lower_bound(1).describe(
        "Number of tensors");
  }
};
DMLC_REGISTER_PARAMETER(MultiLAMBParam);

namespace {

uint32_t NumTensors(const NodeAttrs& attrs) {
  return static_cast<uint32_t>(Param<MultiLAMBParam>(attrs).num_tensors);
}

/*!
 * \brief One tensor's update, computing in M (the weight's type, or float for the mixed-
 *  precision form, which steps weight32). g is scratch for the direction (float, as MXNet).
 */
template <typename DType, typename MS>
void MultiLambOne(const MultiLAMBParam& p, size_t k, const TBlob* group, bool mp,
                  const TBlob& out, OpReqType req, float* g) {
  using M = Real<MS>;
  const index_t n = static_cast<index_t>(out.Size());
  const float r1_sum = SumOfSquares<DType>(group[0]);
  const DType* w = group[0].dptr<DType>();
  const DType* grad = group[1].dptr<DType>();
  MS* mean = group[2].dptr<MS>();
  MS* var = group[3].dptr<MS>();
  float* w32 = mp ? group[4].dptr<float>() : nullptr;
  const M beta1(p.beta1), beta2(p.beta2), eps(p.epsilon), clip(p.clip_gradient),
      wd(p.wds[k]), lr(p.learning_rates[k]), step(static_cast<float>(p.step_count[k]));
  const float rescale = p.rescale_grad;
  const bool clipping = p.clip_gradient >= 0.0f, bias_correction = p.bias_correction;
  auto weight = [=](index_t i) { return mp ? M(w32[i]) : M(w[i]); };
  ParallelFor(n, [=](index_t i) {
    M sg = M(grad[i]) * rescale;
    if (clipping) sg = Clip(sg, clip);
    const M m = beta1 * M(mean[i]) + (M(1.0f) - beta1) * sg;
    const M v = beta2 * M(var[i]) + (M(1.0f) - beta2) * sg * sg;
    mean[i] = static_cast<MS>(m);
    var[i] = static_cast<MS>(v);
    const M m_hat = bias_correction ? m / (M(1.0f) - Pow(beta1, step)) : m;
    const M v_hat = bias_correction ? v / (M(1.0f) - Pow(beta2, step)) : v;
    // MXNet takes this square root in double, so for float32 the direction is computed in
    // double and rounded once.
    const double root = std::sqrt(static_cast<double>(v_hat));
    g[i] = static_cast<float>(M(m_hat / (root + eps) + wd * weight(i)));
  });
  TBlob g_blob(g, out.shape_, kFloat32, out.ctx);
  float r1 = std::sqrt(r1_sum), r2 = std::sqrt(SumOfSquares<float>(g_blob));
  if (p.lower_bound >= 0) r1 = std::max(r1, p.lower_bound);
  if (p.upper_bound >= 0) r1 = std::min(r1, p.upper_bound);
  const M ratio = (r1 == 0.0f || r2 == 0.0f) ? M(1.0f) : M(r1 / r2);
  const M lr_adjusted = lr * ratio;
  DType* o = out.dptr<DType>();
  ParallelFor(n, [=](index_t i) {
    const M wi = weight(i) - lr_adjusted * g[i];
    if (mp) w32[i] = static_cast<float>(wi);
    Store(o + i, req, wi);
  });
}

template <bool kMp>
void MultiLambCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const MultiLAMBParam& p = Param<MultiLAMBParam>(attrs);
  const size_t stride = kMp ? 5 : 4;
  size_t largest = 1;
  for (const TBlob& o : out) largest = std::max(largest, o.Size());
  // the direction of one tensor at a time
  float* g = static_cast<float*>(ctx.RequestTempSpace(largest * sizeof(float)));
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    using MS = std::conditional_t<kMp, float, DType>;
    for (size_t k = 0; k < out.size(); ++k) {
      MultiLambOne<DType, MS>(p, k, &in[k * stride], kMp, out[k], req[k], g);
    }
  });
}

// The four (five) inputs of tensor k share output k's shape; one rate, decay and step count
// per tensor.
bool MultiLambShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const MultiLAMBParam& p = Param<MultiLAMBParam>(attrs);
  const auto check_count = [&](const char* arg, int given) {
    CHECK_EQ(given, p.num_tensors) << "Operator " << attrs.op->name << ": argument " << arg
                                   << " expected " << p.num_tensors
                                   << " values (num_tensors), given " << given;
  };
  check_count("learning_rates", p.learning_rates.ndim());
  check_count("wds", p.wds.ndim());
  check_count("step_count", p.step_count.ndim());
  return GroupShapes(attrs, in->size() / out->size(), in, out);
}

template <bool kMp>
void RegisterMultiLamb(const char* name, const char* doc) {
  MultiOpSpec spec = MomentGroupsSpec(name, doc, kMp, false);
  spec.count = NumTensors;
  spec.shape = MultiLambShape;
  spec.compute = MultiLambCompute<kMp>;
  RegisterMulti<MultiLAMBParam>(spec).set_attr<FResourceRequest>("FResourceRequest",
                                                                 TempSpaceRequest);
}

const bool kRegistered [[maybe_unused]] = [] {
  RegisterMultiLamb<false>("_multi_lamb_update",
                           "Compute the LAMB coefficients of multiple weights and grads, and "
                           "update the weights (mean and var in place); one output per weight.");
  RegisterMultiLamb<true>("_multi_mp_lamb_update",
                          "Compute the LAMB coefficients of multiple weights and grads with "
                          "Mix Precision: as _multi_lamb_update, computed in float32 on mean, "
                          "var and weight32 (all float32, updated in place).");
  return true;
}();

}  // namespace
}  // namespace update
}  // namespace op
}  // namespace mxnet
