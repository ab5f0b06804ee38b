// Adam-family update operators: adam_update, _adamw_update and _mp_adamw_update (rescale_grad
// given as an array) and their multi-weight forms _multi_adamw_update and
// _multi_mp_adamw_update, and the two phases of LAMB, lamb_update_phase1/2 and their
// mixed-precision forms mp_lamb_update_phase1/2.
#include <cmath>
#include <cstring>

#include "operator/optimizer/lazy_update.h"
#include "operator/optimizer/update_common.h"

namespace mxnet {
namespace op {
namespace update {

#define MXNET_UPDATE_FIELD_BETAS(eps)                                                   \
  DMLC_DECLARE_FIELD(beta1).set_default(0.9f).describe(                                 \
      "The decay rate for the 1st moment estimates.");                                  \
  DMLC_DECLARE_FIELD(beta2).set_default(0.999f).describe(                               \
      "The decay rate for the 2nd moment estimates.");                                  \
  DMLC_DECLARE_FIELD(epsilon).set_default(eps).describe(                                \
      "A small constant for numerical stability.")

struct AdamParam : public dmlc::Parameter<AdamParam> {
  float lr, beta1, beta2, epsilon, wd, rescale_grad, clip_gradient;
  bool lazy_update;
  DMLC_DECLARE_PARAMETER(AdamParam) {
    MXNET_UPDATE_FIELD_LR;
    MXNET_UPDATE_FIELD_BETAS(1e-8f);
    MXNET_UPDATE_FIELD_WD;
    MXNET_UPDATE_FIELD_RESCALE_GRAD;
    MXNET_UPDATE_FIELD_CLIP(clip_gradient);
    MXNET_UPDATE_FIELD_LAZY;
  }
};
DMLC_REGISTER_PARAMETER(AdamParam);

struct AdamWParam : public dmlc::Parameter<AdamWParam> {
  float lr, beta1, beta2, epsilon, wd, eta, clip_gradient;
  DMLC_DECLARE_PARAMETER(AdamWParam) {
    MXNET_UPDATE_FIELD_LR;
    MXNET_UPDATE_FIELD_BETAS(1e-8f);
    MXNET_UPDATE_FIELD_WD;
    DMLC_DECLARE_FIELD(eta).describe("Learning rate schedule multiplier");
    MXNET_UPDATE_FIELD_CLIP(clip_gradient);
  }
};
DMLC_REGISTER_PARAMETER(AdamWParam);

struct MultiAdamWParam : public dmlc::Parameter<MultiAdamWParam> {
  FloatTuple lrs;
  float beta1, beta2, epsilon;
  FloatTuple wds, etas;
  float clip_gradient;
  int num_weights;
  DMLC_DECLARE_PARAMETER(MultiAdamWParam) {
    DMLC_DECLARE_FIELD(lrs).describe("Learning rates");
    MXNET_UPDATE_FIELD_BETAS(1e-8f);
    DMLC_DECLARE_FIELD(wds).describe(
        "Weight decays: each adds a penalty on large weights (proportional to the square of "
        "each weight) to the objective function.");
    DMLC_DECLARE_FIELD(etas).describe("Learning rates schedule multiplier");
    MXNET_UPDATE_FIELD_CLIP(clip_gradient);
    DMLC_DECLARE_FIELD(num_weights).set_default(1).set_lower_bound(1).describe(
        "Number of updated weights.");
  }
};
DMLC_REGISTER_PARAMETER(MultiAdamWParam);

struct LambPhaseOneParam : public dmlc::Parameter<LambPhaseOneParam> {
  float beta1, beta2, epsilon;
  int t;
  bool bias_correction;
  float wd, rescale_grad, clip_gradient;
  DMLC_DECLARE_PARAMETER(LambPhaseOneParam) {
    MXNET_UPDATE_FIELD_BETAS(1e-6f);
    DMLC_DECLARE_FIELD(t).describe("Index update count.");
    DMLC_DECLARE_FIELD(bias_correction).set_default(true).describe(
        "Whether to use bias correction.");
    DMLC_DECLARE_FIELD(wd).describe(
        "Weight decay: adds a penalty on large weights (proportional to the square of each "
        "weight) to the objective function.");
    MXNET_UPDATE_FIELD_RESCALE_GRAD;
    MXNET_UPDATE_FIELD_CLIP(clip_gradient);
  }
};
DMLC_REGISTER_PARAMETER(LambPhaseOneParam);

struct LambPhaseTwoParam : public dmlc::Parameter<LambPhaseTwoParam> {
  float lr, lower_bound, upper_bound;
  DMLC_DECLARE_PARAMETER(LambPhaseTwoParam) {
    MXNET_UPDATE_FIELD_LR;
    DMLC_DECLARE_FIELD(lower_bound).set_default(-1.0f).describe(
        "Lower limit of norm of weight. If lower_bound <= 0, Lower limit is not set");
    DMLC_DECLARE_FIELD(upper_bound).set_default(-1.0f).describe(
        "Upper limit of norm of weight. If upper_bound <= 0, Upper limit is not set");
  }
};
DMLC_REGISTER_PARAMETER(LambPhaseTwoParam);

namespace {

// ---------------------------------------------------------------- adam
struct AdamKernel {
  template <typename DType>
  static void Run(const AdamParam& p, const std::vector<TBlob>& in, OpReqType req,
                  const TBlob& out) {
    using R = Real<DType>;
    const R lr(p.lr), beta1(p.beta1), beta2(p.beta2), eps(p.epsilon), wd(p.wd),
        rescale(p.rescale_grad), clip(p.clip_gradient);
    const R keep1 = 1.f - beta1, keep2 = 1.f - beta2;
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* mean = in[2].dptr<DType>();
    DType* var = in[3].dptr<DType>();
    DType* o = out.dptr<DType>();
    ParallelFor(NumElements(in), [=](index_t i) {
      const R wi = R(w[i]);
      R grad = R(g[i]) * rescale + wi * wd;
      if (clip >= 0.f) grad = Clip(grad, clip);
      const R m = beta1 * R(mean[i]) + keep1 * grad;
      const R v = beta2 * R(var[i]) + keep2 * grad * grad;
      mean[i] = static_cast<DType>(m);
      var[i] = static_cast<DType>(v);
      Store(o + i, req, wi - lr * m / (Sqrt(v) + eps));
    });
  }
};

// ---------------------------------------------------------------- adamw
/*! \brief The rescale_grad array's first element; false when the update is to be skipped
 *  (NaN, Inf or 0), after giving a separate out the weight unchanged. */
bool ReadRescale(const std::vector<TBlob>& in, const TBlob& out, float* rescale) {
  MXNET_REAL_TYPE_SWITCH(in.back().type_flag_, SType,
                         { *rescale = static_cast<float>(*in.back().dptr<SType>()); });
  if (std::isfinite(*rescale) && *rescale != 0.f) return true;
  // MXNet leaves out untouched; for out=weight that is the same, for a fresh out this gives
  // the unchanged weight rather than uninitialized memory.
  if (out.dptr_ != in[0].dptr_) {
    std::memcpy(out.dptr_, in[0].dptr_, in[0].Size() * DTypeSize(in[0].type_flag_));
  }
  return false;
}

struct AdamWKernel {
  template <typename DType>
  static void Run(const AdamWParam& p, const std::vector<TBlob>& in, OpReqType req,
                  const TBlob& out) {
    using R = Real<DType>;
    float scale;
    if (!ReadRescale(in, out, &scale)) return;
    const R lr(p.lr), beta1(p.beta1), beta2(p.beta2), eps(p.epsilon), wd(p.wd), eta(p.eta),
        rescale(scale), clip(p.clip_gradient), keep1(1.f - p.beta1), keep2(1.f - p.beta2);
    const bool clipping = p.clip_gradient >= 0.0f;
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* mean = in[2].dptr<DType>();
    DType* var = in[3].dptr<DType>();
    DType* o = out.dptr<DType>();
    // MXNet also overwrites grad with the rescaled, clipped gradient (an input it does not
    // declare as mutated); grad is left as given here.
    ParallelFor(NumElements(in), [=](index_t i) {
      R grad = rescale * R(g[i]);
      if (clipping) grad = Clip(grad, clip);
      const R m = beta1 * R(mean[i]) + keep1 * grad;
      const R v = beta2 * R(var[i]) + keep2 * (grad * grad);
      mean[i] = static_cast<DType>(m);
      var[i] = static_cast<DType>(v);
      const R wi = R(w[i]);
      Store(o + i, req, wi - eta * (lr * m / (Sqrt(v) + eps) + wd * wi));
    });
  }
};

struct MpAdamWKernel {
  template <typename DType>
  static void Run(const AdamWParam& p, const std::vector<TBlob>& in, OpReqType req,
                  const TBlob& out) {
    float rescale;
    if (!ReadRescale(in, out, &rescale)) return;
    const float lr = p.lr, beta1 = p.beta1, beta2 = p.beta2, eps = p.epsilon, wd = p.wd,
                eta = p.eta, clip = p.clip_gradient;
    const DType* g = in[1].dptr<DType>();
    float* mean = in[2].dptr<float>();
    float* var = in[3].dptr<float>();
    float* w32 = in[4].dptr<float>();
    DType* o = out.dptr<DType>();
    ParallelFor(NumElements(in), [=](index_t i) {
      float grad = rescale * static_cast<float>(g[i]);
      if (clip >= 0.0f) grad = Clip(grad, clip);
      const float m = mean[i] = beta1 * mean[i] + (1.0f - beta1) * grad;
      const float v = var[i] = beta2 * var[i] + (1.0f - beta2) * (grad * grad);
      const float w = w32[i] - eta * (lr * m / (std::sqrt(v) + eps) + wd * w32[i]);
      w32[i] = w;
      Store(o + i, req, w);
    });
  }
};

// ---------------------------------------------------------------- multi-weight adamw

/*!
 * \brief One weight of _multi_(mp_)adamw_update, computing in M (the weight's type, float for
 *  mixed precision, which steps weight32). Its moments are written as
 *  mean = beta1 * (mean - grad) + grad, as MXNet's multi-weight kernel does.
 */
template <typename DType, bool kMp>
void MultiAdamWOne(const MultiAdamWParam& p, size_t k, const TBlob* group, float scale,
                   const TBlob& out, OpReqType req) {
  using MS = std::conditional_t<kMp, float, DType>;
  using M = Real<MS>;
  const M beta1(p.beta1), beta2(p.beta2), eps(p.epsilon), clip(p.clip_gradient), lr(p.lrs[k]),
      wd(p.wds[k]), eta(p.etas[k]), rescale(scale);
  const bool clipping = p.clip_gradient >= 0.0f;
  const DType* w = group[0].dptr<DType>();
  const DType* g = group[1].dptr<DType>();
  MS* mean = group[2].dptr<MS>();
  MS* var = group[3].dptr<MS>();
  float* w32 = kMp ? group[4].dptr<float>() : nullptr;
  DType* o = out.dptr<DType>();
  ParallelFor(static_cast<index_t>(out.Size()), [=](index_t i) {
    M wi;
    if constexpr (kMp) wi = w32[i]; else wi = M(w[i]);
    M grad = rescale * M(g[i]);
    if (clipping) grad = Clip(grad, clip);
    const M m = beta1 * (M(mean[i]) - grad) + grad;
    const M sq = grad * grad;
    const M v = beta2 * (M(var[i]) - sq) + sq;
    mean[i] = static_cast<MS>(m);
    var[i] = static_cast<MS>(v);
    wi = wi - eta * (lr * m / (Sqrt(v) + eps) + wd * wi);
    if constexpr (kMp) w32[i] = wi;
    Store(o + i, req, wi);
  });
}

template <bool kMp>
void MultiAdamWCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const MultiAdamWParam& p = Param<MultiAdamWParam>(attrs);
  const size_t stride = kMp ? 5 : 4;
  float scale = 0.f;
  bool run = true;
  for (size_t k = 0; k < out.size(); ++k) {
    run = ReadRescale({in[k * stride], in.back()}, out[k], &scale);
  }
  if (!run) return;
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    for (size_t k = 0; k < out.size(); ++k) {
      MultiAdamWOne<DType, kMp>(p, k, &in[k * stride], scale, out[k], req[k]);
    }
  });
}

// Inputs of weight k share output k's shape; one rate, decay and multiplier per weight; the
// trailing rescale_grad is read at its first element.
bool MultiAdamWShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const MultiAdamWParam& p = Param<MultiAdamWParam>(attrs);
  for (const auto& arg : {std::make_pair("lrs", p.lrs.ndim()), std::make_pair("wds", p.wds.ndim()),
                          std::make_pair("etas", p.etas.ndim())}) {
    CHECK_EQ(arg.second, p.num_weights)
        << "Operator " << attrs.op->name << ": argument " << arg.first << " expected "
        << p.num_weights << " values (num_weights), given " << arg.second;
  }
  return GroupShapes(attrs, (in->size() - 1) / out->size(), in, out);
}

template <bool kMp>
void RegisterMultiAdamW(const char* name, const char* doc) {
  MultiOpSpec spec = MomentGroupsSpec(name, doc, kMp, true);
  spec.count = [](const NodeAttrs& a) {
    return static_cast<uint32_t>(Param<MultiAdamWParam>(a).num_weights);
  };
  spec.shape = MultiAdamWShape;
  spec.compute = MultiAdamWCompute<kMp>;
  RegisterMulti<MultiAdamWParam>(spec);
}

// ---------------------------------------------------------------- lamb
// Phase 1 (and its float32 form: M is the type of mean, var and the output, W32 the weight
// the decay term reads): the moments, then g = mean_hat / (sqrt(var_hat) + epsilon) + wd*w.
template <typename M, typename B>
inline M LambDirection(M mean, M var, M w, M eps, M wd, bool bias_correction, B beta1_t,
                       B beta2_t) {
  if (!bias_correction) return mean / (Sqrt(var) + eps) + wd * w;
  // MXNet divides the mean by (1. - beta1^t), a double: float means round once at the end.
  const M mean_hat = M(mean / (1. - beta1_t));
  const M var_hat = var / (1 - beta2_t);
  return mean_hat / (Sqrt(var_hat) + eps) + wd * w;
}

struct LambPhaseOneKernel {
  template <typename DType>
  static void Run(const LambPhaseOneParam& p, const std::vector<TBlob>& in, OpReqType req,
                  const TBlob& out) {
    using R = Real<DType>;
    const R beta1(p.beta1), beta2(p.beta2), eps(p.epsilon), wd(p.wd), rescale(p.rescale_grad),
        clip(p.clip_gradient), keep1 = 1.f - beta1, keep2 = 1.f - beta2;
    const R beta1_t(std::pow(p.beta1, p.t)), beta2_t(std::pow(p.beta2, p.t));
    const bool bias_correction = p.bias_correction;
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* mean = in[2].dptr<DType>();
    DType* var = in[3].dptr<DType>();
    DType* o = out.dptr<DType>();
    ParallelFor(NumElements(in), [=](index_t i) {
      R grad = R(g[i]) * rescale;
      if (clip >= 0.f) grad = Clip(grad, clip);
      const R m = beta1 * R(mean[i]) + keep1 * grad;
      const R v = beta2 * R(var[i]) + keep2 * grad * grad;
      mean[i] = static_cast<DType>(m);
      var[i] = static_cast<DType>(v);
      Store(o + i, req, LambDirection(m, v, R(w[i]), eps, wd, bias_correction, beta1_t, beta2_t));
    });
  }
};

struct MpLambPhaseOneKernel {
  template <typename DType>
  static void Run(const LambPhaseOneParam& p, const std::vector<TBlob>& in, OpReqType req,
                  const TBlob& out) {
    using R = Real<DType>;
    const float beta1 = p.beta1, beta2 = p.beta2, eps = p.epsilon, wd = p.wd,
                rescale = p.rescale_grad, clip = p.clip_gradient;
    const float beta1_t = std::pow(p.beta1, p.t), beta2_t = std::pow(p.beta2, p.t);
    const bool bias_correction = p.bias_correction;
    const DType* g = in[1].dptr<DType>();
    float* mean = in[2].dptr<float>();
    float* var = in[3].dptr<float>();
    const float* w32 = in[4].dptr<float>();
    float* o = out.dptr<float>();
    ParallelFor(NumElements(in), [=](index_t i) {
      // MXNet multiplies the float16 gradient by the scale in float16.
      float grad = static_cast<float>(R(g[i]) * rescale);
      if (clip >= 0.f) grad = Clip(grad, clip);
      const float m = mean[i] = beta1 * mean[i] + (1.f - beta1) * grad;
      const float v = var[i] = beta2 * var[i] + (1.f - beta2) * grad * grad;
      Store(o + i, req, LambDirection(m, v, w32[i], eps, wd, bias_correction, beta1_t, beta2_t));
    });
  }
};

/*! \brief Phase 2's learning rate: lr * r1 / r2 with r1 held to [lower_bound, upper_bound]
 *  (each when >= 0), or lr when r1 or r2 is 0. */
template <typename R>
inline R LambLearningRate(R lr, R r1, R r2, R lower, R upper) {
  if (lower >= 0) r1 = r1 > lower ? r1 : lower;
  if (upper >= 0) r1 = r1 < upper ? r1 : upper;
  if (r1 == 0.0f || r2 == 0.0f) return lr * 1.0f;
  return lr * r1 / r2;
}

struct LambPhaseTwoKernel {
  template <typename DType>
  static void Run(const LambPhaseTwoParam& p, const std::vector<TBlob>& in, OpReqType req,
                  const TBlob& out) {
    using R = Real<DType>;
    const R lr = LambLearningRate(R(p.lr), R(in[2].dptr<DType>()[0]), R(in[3].dptr<DType>()[0]),
                                  R(p.lower_bound), R(p.upper_bound));
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* o = out.dptr<DType>();
    ParallelFor(NumElements(in), [=](index_t i) { Store(o + i, req, R(w[i]) - lr * R(g[i])); });
  }
};

struct MpLambPhaseTwoKernel {
  template <typename DType>
  static void Run(const LambPhaseTwoParam& p, const std::vector<TBlob>& in, OpReqType req,
                  const TBlob& out) {
    const float lr = LambLearningRate(p.lr, in[2].dptr<float>()[0], in[3].dptr<float>()[0],
                                      p.lower_bound, p.upper_bound);
    const float* g = in[1].dptr<float>();
    const float* w32 = in[4].dptr<float>();
    DType* o = out.dptr<DType>();
    ParallelFor(NumElements(in), [=](index_t i) { Store(o + i, req, w32[i] - lr * g[i]); });
  }
};

// ---------------------------------------------------------------- inference rules
// Phase 2: weight, g (and weight32) share the output's shape; r1 and r2 hold one value each
// in their first dimension.
bool LambPhaseTwoShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  for (size_t i : {size_t(2), size_t(3)}) {
    const TShape& r = (*in)[i];
    CHECK(!r.IsKnown() || (r.ndim() >= 1 && r[0] == 1))
        << "Operator " << attrs.op->name << ": argument " << InputName(attrs, i)
        << " expected shape (1,), given " << r;
  }
  std::vector<TShape> shared{(*in)[0], (*in)[1]};
  if (in->size() == 5) shared.push_back((*in)[4]);
  TShape s;
  for (size_t k = 0; k < shared.size(); ++k) {
    AssignInputShape(attrs, k < 2 ? k : 4, &s, shared[k]);
  }
  AssignShape(attrs, "output", &s, (*out)[0]);
  (*in)[0] = (*in)[1] = (*out)[0] = s;
  if (in->size() == 5) (*in)[4] = s;
  return s.IsKnown();
}

// mp_lamb_update_phase1: float16 weight and grad; float32 states and output.
bool MpLambPhaseOneType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  for (size_t i = 0; i < in->size(); ++i) {
    RequireInputType(attrs, i, i < 2 ? kFloat16 : kFloat32, in);
  }
  RequireOutputType(attrs, kFloat32, out);
  return true;
}

// ---------------------------------------------------------------- registration
const char kAdamWDoc[] =
    "Update function for AdamW: Adam with the weight decay decoupled from the gradient:\n\n"
    "    grad = clip(rescale_grad * grad)\n"
    "    mean = beta1 * mean + (1 - beta1) * grad\n"
    "    var = beta2 * var + (1 - beta2) * grad**2\n"
    "    weight = weight - eta * (lr * mean / (sqrt(var) + epsilon) + wd * weight)\n\n"
    "rescale_grad is an array (its first element is read); if it is NaN, Inf or 0 the "
    "update is skipped. mean and var are updated in place.";

const bool kRegistered [[maybe_unused]] = [] {
  WithLazyUpdate(RegisterUpdate<AdamParam>({"adam_update",
                             "Update function for Adam:\n\n"
                             "    grad = clip(rescale_grad * grad + wd * weight)\n"
                             "    mean = beta1 * mean + (1 - beta1) * grad\n"
                             "    var = beta2 * var + (1 - beta2) * grad**2\n"
                             "    weight = weight - lr * mean / (sqrt(var) + epsilon)\n\n"
                             "mean and var are updated in place.",
                             {"weight", "grad", "mean", "var"}, {2, 3}, nullptr, nullptr,
                             UpdateCompute<AdamParam, AdamKernel>})
      .add_alias("_sparse_adam_update"));
  RegisterUpdate<AdamWParam>({"_adamw_update", kAdamWDoc,
                              {"weight", "grad", "mean", "var", "rescale_grad"}, {2, 3},
                              SharedShapeOfFirst(4), SharedTypeOfFirst(4),
                              UpdateCompute<AdamWParam, AdamWKernel>});
  RegisterUpdate<AdamWParam>({"_mp_adamw_update",
                              "Update function for multi-precision AdamW: as _adamw_update, "
                              "computed in float32 on mean, var and weight32 (all float32, "
                              "updated in place).",
                              {"weight", "grad", "mean", "var", "weight32", "rescale_grad"},
                              {2, 3, 4}, SharedShapeOfFirst(5), SharedTypeOfFirst(2),
                              UpdateCompute<AdamWParam, MpAdamWKernel>});
  RegisterMultiAdamW<false>("_multi_adamw_update",
                            "AdamW update (as _adamw_update) of num_weights weights in one "
                            "call, each with its own lr, wd and eta; one output per weight.");
  RegisterMultiAdamW<true>("_multi_mp_adamw_update",
                           "Multi-precision AdamW update of num_weights weights in one call: "
                           "as _multi_adamw_update, computed in float32 on mean, var and "
                           "weight32 (all float32, updated in place).");
  RegisterUpdate<LambPhaseOneParam>(
      {"lamb_update_phase1",
       "Phase 1 of LAMB: updates mean and var in place (as Adam, on rescale_grad * grad "
       "clipped) and returns the direction\n\n"
       "    g = mean_hat / (sqrt(var_hat) + epsilon) + wd * weight\n\n"
       "with mean_hat = mean / (1 - beta1**t), var_hat = var / (1 - beta2**t) when "
       "bias_correction, else mean and var.",
       {"weight", "grad", "mean", "var"}, {2, 3}, nullptr, nullptr,
       UpdateCompute<LambPhaseOneParam, LambPhaseOneKernel>});
  RegisterUpdate<LambPhaseTwoParam>(
      {"lamb_update_phase2",
       "Phase 2 of LAMB: weight = weight - lr * r1 / r2 * g, with r1 (the weight's norm) held "
       "to [lower_bound, upper_bound] where those are >= 0, and the ratio 1 when r1 or r2 is 0.",
       {"weight", "g", "r1", "r2"}, {}, LambPhaseTwoShape, nullptr,
       UpdateCompute<LambPhaseTwoParam, LambPhaseTwoKernel>});
  RegisterUpdate<LambPhaseOneParam>(
      {"mp_lamb_update_phase1",
       "Mixed-precision phase 1 of LAMB: as lamb_update_phase1 for a float16 weight and "
       "gradient, with float32 mean, var (updated in place), weight32 and output.",
       {"weight", "grad", "mean", "var", "weight32"}, {2, 3}, nullptr, MpLambPhaseOneType,
       UpdateCompute<LambPhaseOneParam, MpLambPhaseOneKernel>});
  RegisterUpdate<LambPhaseTwoParam>(
      {"mp_lamb_update_phase2",
       "Mixed-precision phase 2 of LAMB: weight = weight32 - lr * r1 / r2 * g computed in "
       "float32 (g, r1, r2 and weight32 are float32); weight32 itself is not changed.",
       {"weight", "g", "r1", "r2", "weight32"}, {4}, LambPhaseTwoShape, SharedTypeOfFirst(1),
       UpdateCompute<LambPhaseTwoParam, MpLambPhaseTwoKernel>});
  return true;
}();

}  // namespace
}  // namespace update
}  // namespace op
}  // namespace mxnet
