// Update operators with per-coordinate learning rates: rmsprop_update (Tieleman & Hinton),
// rmspropalex_update (Graves), ftrl_update, ftml_update and _sparse_adagrad_update (AdaGrad;
// only dense storage exists here, so it takes dense arrays).
#include "operator/optimizer/lazy_update.h"
#include "operator/optimizer/update_common.h"

namespace mxnet {
namespace op {
namespace update {

#define MXNET_UPDATE_FIELD_CLIP_WEIGHTS                                                       \
  DMLC_DECLARE_FIELD(clip_weights).set_default(-1.0f).describe(                               \
      "Clip weights to the range of [-clip_weights, clip_weights]. If clip_weights <= 0, "     \
      "weight clipping is turned off: weights = max(min(weights, clip_weights), "              \
      "-clip_weights).")

struct RMSPropParam : public dmlc::Parameter<RMSPropParam> {
  float lr, gamma1, epsilon, wd, rescale_grad, clip_gradient, clip_weights;
  DMLC_DECLARE_PARAMETER(RMSPropParam) {
    MXNET_UPDATE_FIELD_LR;
    DMLC_DECLARE_FIELD(gamma1).set_default(0.95f).describe(
        "The decay rate of momentum estimates.");
    DMLC_DECLARE_FIELD(epsilon).set_default(1e-8f).describe(
        "A small constant for numerical stability.");
    MXNET_UPDATE_FIELD_WD;
    MXNET_UPDATE_FIELD_RESCALE_GRAD;
    MXNET_UPDATE_FIELD_CLIP(clip_gradient);
    MXNET_UPDATE_FIELD_CLIP_WEIGHTS;
  }
};
DMLC_REGISTER_PARAMETER(RMSPropParam);

struct RMSPropAlexParam : public dmlc::Parameter<RMSPropAlexParam> {
  float lr, gamma1, gamma2, epsilon, wd, rescale_grad, clip_gradient, clip_weights;
  DMLC_DECLARE_PARAMETER(RMSPropAlexParam) {
    MXNET_UPDATE_FIELD_LR;
    DMLC_DECLARE_FIELD(gamma1).set_default(0.95f).describe("Decay rate.");
    DMLC_DECLARE_FIELD(gamma2).set_default(0.9f).describe("Decay rate.");
    DMLC_DECLARE_FIELD(epsilon).set_default(1e-8f).describe(
        "A small constant for numerical stability.");
    MXNET_UPDATE_FIELD_WD;
    MXNET_UPDATE_FIELD_RESCALE_GRAD;
    MXNET_UPDATE_FIELD_CLIP(clip_gradient);
    MXNET_UPDATE_FIELD_CLIP_WEIGHTS;
  }
};
DMLC_REGISTER_PARAMETER(RMSPropAlexParam);

struct FtrlParam : public dmlc::Parameter<FtrlParam> {
  float lr, lamda1, beta, wd, rescale_grad, clip_gradient;
  DMLC_DECLARE_PARAMETER(FtrlParam) {
    MXNET_UPDATE_FIELD_LR;
    DMLC_DECLARE_FIELD(lamda1).set_default(0.01f).describe("The L1 regularization coefficient.");
    DMLC_DECLARE_FIELD(beta).set_default(1.0f).describe("Per-Coordinate Learning Rate beta.");
    MXNET_UPDATE_FIELD_WD;
    MXNET_UPDATE_FIELD_RESCALE_GRAD;
    MXNET_UPDATE_FIELD_CLIP(clip_gradient);
  }
};
DMLC_REGISTER_PARAMETER(FtrlParam);

struct FTMLParam : public dmlc::Parameter<FTMLParam> {
  float lr, beta1, beta2;
  double epsilon;
  int t;
  float wd, rescale_grad, clip_grad;
  DMLC_DECLARE_PARAMETER(FTMLParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(beta1).set_default(0.6f).set_range(0.0f, 1.0f).describe(
        "Generally close to 0.5.");
    DMLC_DECLARE_FIELD(beta2).set_default(0.999f).set_range(0.0f, 1.0f).describe(
        "Generally close to 1.");
    DMLC_DECLARE_FIELD(epsilon).set_default(1e-8f).describe("Epsilon to prevent div 0.");
    DMLC_DECLARE_FIELD(t).describe("Number of update.");
    MXNET_UPDATE_FIELD_WD;
    MXNET_UPDATE_FIELD_RESCALE_GRAD;
    MXNET_UPDATE_FIELD_CLIP(clip_grad);
  }
};
DMLC_REGISTER_PARAMETER(FTMLParam);

struct AdagradParam : public dmlc::Parameter<AdagradParam> {
  float lr, epsilon, wd, rescale_grad, clip_gradient;
  DMLC_DECLARE_PARAMETER(AdagradParam) {
    MXNET_UPDATE_FIELD_LR;
    DMLC_DECLARE_FIELD(epsilon).set_default(1.0e-7).describe("epsilon");
    DMLC_DECLARE_FIELD(wd).set_default(0.0f).describe(
        "weight decay (must be 0: this update does not support it)");
    MXNET_UPDATE_FIELD_RESCALE_GRAD;
    MXNET_UPDATE_FIELD_CLIP(clip_gradient);
  }
};
DMLC_REGISTER_PARAMETER(AdagradParam);

namespace {

/*! \brief rescale * g + wd * w, clipped when clip >= 0 (RMSProp, FTML). */
template <typename R>
inline R DecayedGrad(R g, R w, R rescale, R wd, R clip) {
  const R grad = rescale * g + wd * w;
  return clip >= 0.0f ? Clip(grad, clip) : grad;
}

/*! \brief g * rescale, clipped when clip >= 0 (FTRL, AdaGrad). */
template <typename R>
inline R ScaledGrad(R g, R rescale, R clip) {
  const R grad = g * rescale;
  return clip >= 0.0f ? Clip(grad, clip) : grad;
}

struct RMSPropKernel {
  template <typename DType>
  static void Run(const RMSPropParam& p, const std::vector<TBlob>& in, OpReqType req,
                  const TBlob& out) {
    using R = Real<DType>;
    const R lr(p.lr), gamma1(p.gamma1), eps(p.epsilon), wd(p.wd), rescale(p.rescale_grad),
        clip(p.clip_gradient), clip_weights(p.clip_weights), keep = 1.f - gamma1;
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* n = in[2].dptr<DType>();
    DType* o = out.dptr<DType>();
    ParallelFor(NumElements(in), [=](index_t i) {
      const R wi = R(w[i]);
      const R grad = DecayedGrad(R(g[i]), wi, rescale, wd, clip);
      const R ni = keep * (grad * grad) + gamma1 * R(n[i]);
      n[i] = static_cast<DType>(ni);
      R weight = wi - lr * (grad / Sqrt(ni + eps));
      if (clip_weights >= 0.0f) weight = Clip(weight, clip_weights);
      Store(o + i, req, weight);
    });
  }
};

struct RMSPropAlexKernel {
  template <typename DType>
  static void Run(const RMSPropAlexParam& p, const std::vector<TBlob>& in, OpReqType req,
                  const TBlob& out) {
    using R = Real<DType>;
    const R lr(p.lr), gamma1(p.gamma1), gamma2(p.gamma2), eps(p.epsilon), wd(p.wd),
        rescale(p.rescale_grad), clip(p.clip_gradient), clip_weights(p.clip_weights),
        keep = 1.f - gamma1;
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* n = in[2].dptr<DType>();
    DType* gs = in[3].dptr<DType>();
    DType* delta = in[4].dptr<DType>();
    DType* o = out.dptr<DType>();
    ParallelFor(NumElements(in), [=](index_t i) {
      const R wi = R(w[i]);
      const R grad = DecayedGrad(R(g[i]), wi, rescale, wd, clip);
      const R ni = keep * grad * grad + gamma1 * R(n[i]);
      const R gi = keep * grad + gamma1 * R(gs[i]);
      const R di = gamma2 * R(delta[i]) - (lr * grad / (Sqrt(ni - gi * gi + eps)));
      n[i] = static_cast<DType>(ni);
      gs[i] = static_cast<DType>(gi);
      delta[i] = static_cast<DType>(di);
      Store(o + i, req, clip_weights >= 0.0f ? Clip(wi + di, clip_weights) : wi + di);
    });
  }
};

struct FtrlKernel {
  template <typename DType>
  static void Run(const FtrlParam& p, const std::vector<TBlob>& in, OpReqType req,
                  const TBlob& out) {
    using R = Real<DType>;
    const R lr(p.lr), lamda1(p.lamda1), beta(p.beta), wd(p.wd), rescale(p.rescale_grad),
        clip(p.clip_gradient);
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* z = in[2].dptr<DType>();
    DType* n = in[3].dptr<DType>();
    DType* o = out.dptr<DType>();
    ParallelFor(NumElements(in), [=](index_t i) {
      const R grad = ScaledGrad(R(g[i]), rescale, clip);
      const R ni = R(n[i]), sq = grad * grad;
      const R zi = R(z[i]) + (grad - (Sqrt(ni + sq) - Sqrt(ni)) * R(w[i]) / lr);
      const R n_new = ni + sq;
      z[i] = static_cast<DType>(zi);
      n[i] = static_cast<DType>(n_new);
      const R sign = R(SignOf(zi));
      const R active = R((zi > 0 ? zi : -zi) > lamda1 ? 1 : 0);
      Store(o + i, req, (sign * lamda1 - zi) / ((beta + Sqrt(n_new)) / lr + wd) * active);
    });
  }
};

struct FtmlKernel {
  template <typename DType>
  static void Run(const FTMLParam& p, const std::vector<TBlob>& in, OpReqType req,
                  const TBlob& out) {
    using R = Real<DType>;
    const R lr(p.lr), beta1(p.beta1), beta2(p.beta2), eps(p.epsilon), t(p.t), wd(p.wd),
        rescale(p.rescale_grad), clip(p.clip_grad);
    // Both bias corrections depend on t only.
    const R keep1_t = 1 - Pow(beta1, t), keep2_t = 1 - Pow(beta2, t);
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* d = in[2].dptr<DType>();
    DType* v = in[3].dptr<DType>();
    DType* z = in[4].dptr<DType>();
    DType* o = out.dptr<DType>();
    ParallelFor(NumElements(in), [=](index_t i) {
      const R wi = R(w[i]);
      const R grad = DecayedGrad(R(g[i]), wi, rescale, wd, clip);
      const R vi = beta2 * R(v[i]) + (1 - beta2) * (grad * grad);
      const R d_t = keep1_t / lr * (Sqrt(vi / keep2_t) + eps);
      const R zi = beta1 * R(z[i]) + (1 - beta1) * grad - (d_t - beta1 * R(d[i])) * wi;
      v[i] = static_cast<DType>(vi);
      z[i] = static_cast<DType>(zi);
      d[i] = static_cast<DType>(d_t);
      Store(o + i, req, -zi / d_t);
    });
  }
};

struct AdagradKernel {
  template <typename DType>
  static void Run(const AdagradParam& p, const std::vector<TBlob>& in, OpReqType req,
                  const TBlob& out) {
    using R = Real<DType>;
    const R lr(p.lr), eps(p.epsilon), rescale(p.rescale_grad), clip(p.clip_gradient);
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* history = in[2].dptr<DType>();
    DType* o = out.dptr<DType>();
    ParallelFor(NumElements(in), [=](index_t i) {
      const R grad = ScaledGrad(R(g[i]), rescale, clip);
      const R h = R(history[i]) + grad * grad;
      history[i] = static_cast<DType>(h);
      Store(o + i, req, R(w[i]) - grad / Sqrt(h + eps) * lr);
    });
  }
};

// AdaGrad here has no weight decay (as MXNet's): refuse wd rather than ignore it.
bool AdagradShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const float wd = Param<AdagradParam>(attrs).wd;
  CHECK_EQ(wd, 0.0f) << "Operator " << attrs.op->name
                     << ": argument wd expected 0 (adagrad_update does not support weight "
                        "decay), given "
                     << wd;
  return ElemwiseShape(attrs, in, out);
}

// ---------------------------------------------------------------- registration
const bool kRegistered [[maybe_unused]] = [] {
  RegisterUpdate<RMSPropParam>(
      {"rmsprop_update",
       "Update function for RMSProp (Tieleman & Hinton, 2012):\n\n"
       "    grad = clip(rescale_grad * grad + wd * weight)\n"
       "    n = (1 - gamma1) * grad**2 + gamma1 * n\n"
       "    weight = clip_weights(weight - lr * grad / sqrt(n + epsilon))\n\n"
       "n is updated in place.",
       {"weight", "grad", "n"}, {2}, nullptr, nullptr,
       UpdateCompute<RMSPropParam, RMSPropKernel>});
  RegisterUpdate<RMSPropAlexParam>(
      {"rmspropalex_update",
       "Update function for RMSProp as in Graves (2013), Eq. 38-45:\n\n"
       "    grad = clip(rescale_grad * grad + wd * weight)\n"
       "    n = (1 - gamma1) * grad**2 + gamma1 * n\n"
       "    g = (1 - gamma1) * grad + gamma1 * g\n"
       "    delta = gamma2 * delta - lr * grad / sqrt(n - g**2 + epsilon)\n"
       "    weight = clip_weights(weight + delta)\n\n"
       "n, g and delta are updated in place.",
       {"weight", "grad", "n", "g", "delta"}, {2, 3, 4}, nullptr, nullptr,
       UpdateCompute<RMSPropAlexParam, RMSPropAlexKernel>});
  WithLazyUpdate(RegisterUpdate<FtrlParam>(
      {"ftrl_update",
       "Update function for Follow the Regularized Leader (FTRL):\n\n"
       "    grad = clip(rescale_grad * grad)\n"
       "    z += grad - (sqrt(n + grad**2) - sqrt(n)) * weight / lr\n"
       "    n += grad**2\n"
       "    weight = (sign(z) * lamda1 - z) / ((beta + sqrt(n)) / lr + wd) * (abs(z) > lamda1)"
       "\n\nz and n are updated in place.",
       {"weight", "grad", "z", "n"}, {2, 3}, nullptr, nullptr,
       UpdateCompute<FtrlParam, FtrlKernel>})
      .add_alias("_sparse_ftrl_update"));
  RegisterUpdate<FTMLParam>(
      {"ftml_update",
       "Update function for Follow the Moving Leader (FTML):\n\n"
       "    grad = clip(rescale_grad * grad + wd * weight)\n"
       "    v = beta2 * v + (1 - beta2) * grad**2\n"
       "    d_t = (1 - beta1**t) / lr * (sqrt(v / (1 - beta2**t)) + epsilon)\n"
       "    z = beta1 * z + (1 - beta1) * grad - (d_t - beta1 * d) * weight\n"
       "    d = d_t\n"
       "    weight = -z / d_t\n\n"
       "d, v and z are updated in place.",
       {"weight", "grad", "d", "v", "z"}, {2, 3, 4}, nullptr, nullptr,
       UpdateCompute<FTMLParam, FtmlKernel>});
  WithLazyUpdate(RegisterUpdate<AdagradParam>(
      {"_sparse_adagrad_update",
       "Update function for AdaGrad:\n\n"
       "    grad = clip(rescale_grad * grad)\n"
       "    history += grad**2\n"
       "    weight = weight - lr * grad / sqrt(history + epsilon)\n\n"
       "history is updated in place; wd must be 0.",
       {"weight", "grad", "history"}, {2}, AdagradShape, nullptr,
       UpdateCompute<AdagradParam, AdagradKernel>}));
  return true;
}();

}  // namespace
}  // namespace update
}  // namespace op
}  // namespace mxnet
