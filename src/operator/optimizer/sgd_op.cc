// SGD-family update operators: sgd_update, sgd_mom_update, their mixed-precision forms
// mp_sgd_update and mp_sgd_mom_update (float16 weight, float32 master copy weight32),
// nag_mom_update, mp_nag_mom_update, signsgd_update and signum_update.
#include "operator/optimizer/lazy_update.h"
#include "operator/optimizer/sgd_step.h"

namespace mxnet {
namespace op {
namespace update {

struct SGDParam : public dmlc::Parameter<SGDParam> {
  float lr, wd, rescale_grad, clip_gradient;
  bool lazy_update;
  DMLC_DECLARE_PARAMETER(SGDParam) {
    MXNET_UPDATE_FIELD_LR;
    MXNET_UPDATE_FIELD_WD;
    MXNET_UPDATE_FIELD_RESCALE_GRAD;
    MXNET_UPDATE_FIELD_CLIP(clip_gradient);
    MXNET_UPDATE_FIELD_LAZY;
  }
};
DMLC_REGISTER_PARAMETER(SGDParam);

struct SGDMomParam : public dmlc::Parameter<SGDMomParam> {
  float lr, momentum, wd, rescale_grad, clip_gradient;
  bool lazy_update;
  DMLC_DECLARE_PARAMETER(SGDMomParam) {
    MXNET_UPDATE_FIELD_LR;
    MXNET_UPDATE_FIELD_MOMENTUM;
    MXNET_UPDATE_FIELD_WD;
    MXNET_UPDATE_FIELD_RESCALE_GRAD;
    MXNET_UPDATE_FIELD_CLIP(clip_gradient);
    MXNET_UPDATE_FIELD_LAZY;
  }
};
DMLC_REGISTER_PARAMETER(SGDMomParam);

// nag_mom_update: sgd_mom_update's arguments without lazy_update.
struct NAGMomParam : public dmlc::Parameter<NAGMomParam> {
  float lr, momentum, wd, rescale_grad, clip_gradient;
  DMLC_DECLARE_PARAMETER(NAGMomParam) {
    MXNET_UPDATE_FIELD_LR;
    MXNET_UPDATE_FIELD_MOMENTUM;
    MXNET_UPDATE_FIELD_WD;
    MXNET_UPDATE_FIELD_RESCALE_GRAD;
    MXNET_UPDATE_FIELD_CLIP(clip_gradient);
  }
};
DMLC_REGISTER_PARAMETER(NAGMomParam);

// signsgd_update: sgd_update's arguments without lazy_update.
struct SignSGDParam : public dmlc::Parameter<SignSGDParam> {
  float lr, wd, rescale_grad, clip_gradient;
  DMLC_DECLARE_PARAMETER(SignSGDParam) {
    MXNET_UPDATE_FIELD_LR;
    MXNET_UPDATE_FIELD_WD;
    MXNET_UPDATE_FIELD_RESCALE_GRAD;
    MXNET_UPDATE_FIELD_CLIP(clip_gradient);
  }
};
DMLC_REGISTER_PARAMETER(SignSGDParam);

struct SignumParam : public dmlc::Parameter<SignumParam> {
  float lr, momentum, wd, rescale_grad, clip_gradient, wd_lh;
  DMLC_DECLARE_PARAMETER(SignumParam) {
    MXNET_UPDATE_FIELD_LR;
    MXNET_UPDATE_FIELD_MOMENTUM;
    MXNET_UPDATE_FIELD_WD;
    MXNET_UPDATE_FIELD_RESCALE_GRAD;
    MXNET_UPDATE_FIELD_CLIP(clip_gradient);
    DMLC_DECLARE_FIELD(wd_lh).set_default(0.0f).describe(
        "Decoupled weight decay (Loshchilov and Hutter): applied to the weight directly and "
        "kept out of the momentum.");
  }
};
DMLC_REGISTER_PARAMETER(SignumParam);

namespace {

// ---------------------------------------------------------------- kernels
struct SgdKernel {
  template <typename DType>
  static void Run(const SGDParam& p, const std::vector<TBlob>& in, OpReqType req,
                  const TBlob& out) {
    using R = Real<DType>;
    const SgdCoef<R> c(R(p.lr), R(p.wd), R(p.rescale_grad), R(p.clip_gradient));
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* o = out.dptr<DType>();
    UpdateFor(NumElements(in),
                [=](index_t i) { Store(o + i, req, SgdWeight(c, R(w[i]), R(g[i]))); });
  }
};

template <typename P>
struct SgdMomKernel {
  template <typename DType>
  static void Run(const P& p, const std::vector<TBlob>& in, OpReqType req, const TBlob& out) {
    using R = Real<DType>;
    const SgdCoef<R> c(R(p.lr), R(p.wd), R(p.rescale_grad), R(p.clip_gradient), R(p.momentum));
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* mom = in[2].dptr<DType>();
    DType* o = out.dptr<DType>();
    UpdateFor(NumElements(in), [=](index_t i) {
      const R m = SgdMomentum(c, R(mom[i]), R(w[i]), R(g[i]));
      const R wi = R(w[i]);
      mom[i] = static_cast<DType>(m);
      Store(o + i, req, wi + m);
    });
  }
};

// Mixed precision: the step runs in float on weight32, which keeps the result; the weight
// (float16 usually) gets it rounded.
struct MpSgdKernel {
  template <typename DType>
  static void Run(const SGDParam& p, const std::vector<TBlob>& in, OpReqType req,
                  const TBlob& out) {
    const SgdCoef<float> c(p.lr, p.wd, p.rescale_grad, p.clip_gradient);
    const DType* g = in[1].dptr<DType>();
    float* w32 = in[2].dptr<float>();
    DType* o = out.dptr<DType>();
    UpdateFor(NumElements(in), [=](index_t i) {
      const float w = SgdWeight(c, w32[i], static_cast<float>(g[i]));
      w32[i] = w;
      Store(o + i, req, w);
    });
  }
};

struct MpSgdMomKernel {
  template <typename DType>
  static void Run(const SGDMomParam& p, const std::vector<TBlob>& in, OpReqType req,
                  const TBlob& out) {
    const SgdCoef<float> c(p.lr, p.wd, p.rescale_grad, p.clip_gradient, p.momentum);
    const DType* g = in[1].dptr<DType>();
    float* mom = in[2].dptr<float>();
    float* w32 = in[3].dptr<float>();
    DType* o = out.dptr<DType>();
    UpdateFor(NumElements(in), [=](index_t i) {
      const float m = SgdMomentum(c, mom[i], w32[i], static_cast<float>(g[i]));
      const float w = w32[i] + m;
      mom[i] = m;
      w32[i] = w;
      Store(o + i, req, w);
    });
  }
};

// Nesterov momentum. As in MXNet, the momentum's weight-decay term reads the weight after the
// new weight is written, so with out=weight (how optimizers call it) it uses the new weight.
struct NagMomKernel {
  template <typename DType>
  static void Run(const NAGMomParam& p, const std::vector<TBlob>& in, OpReqType req,
                  const TBlob& out) {
    using R = Real<DType>;
    const R lr(p.lr), momentum(p.momentum), wd(p.wd), rescale(p.rescale_grad),
        clip(p.clip_gradient);
    const bool clipping = clip >= 0.0f;
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* mom = in[2].dptr<DType>();
    DType* o = out.dptr<DType>();
    UpdateFor(NumElements(in), [=](index_t i) {
      const R grad = clipping ? Clip(rescale * R(g[i]), clip) : rescale * R(g[i]);
      const R m = momentum * R(mom[i]);
      mom[i] = static_cast<DType>(m);
      Store(o + i, req, R(w[i]) - m + (momentum + 1) * (m - lr * (grad + wd * R(w[i]))));
      mom[i] = static_cast<DType>(m - lr * (grad + wd * R(w[i])));
    });
  }
};

struct MpNagMomKernel {
  template <typename DType>
  static void Run(const NAGMomParam& p, const std::vector<TBlob>& in, OpReqType req,
                  const TBlob& out) {
    const float lr = p.lr, momentum = p.momentum, wd = p.wd, rescale = p.rescale_grad,
                clip = p.clip_gradient;
    const DType* g = in[1].dptr<DType>();
    float* mom = in[2].dptr<float>();
    float* w32 = in[3].dptr<float>();
    DType* o = out.dptr<DType>();
    UpdateFor(NumElements(in), [=](index_t i) {
      const float gi = static_cast<float>(g[i]);
      const float grad = clip >= 0.0f ? Clip(rescale * gi, clip) : rescale * gi;
      const float m = momentum * mom[i];
      const float w = w32[i] - m + (momentum + 1) * (m - lr * (grad + wd * w32[i]));
      // MXNet's decay term here uses the new weight.
      mom[i] = m - lr * (grad + wd * w);
      w32[i] = w;
      Store(o + i, req, w);
    });
  }
};

// signSGD: the step is the sign of the raw gradient (rescale_grad and clip_gradient have no
// effect on a sign).
struct SignSgdKernel {
  template <typename DType>
  static void Run(const SignSGDParam& p, const std::vector<TBlob>& in, OpReqType req,
                  const TBlob& out) {
    using R = Real<DType>;
    const R lr(p.lr), wd(p.wd);
    const R decay = 1.f - lr * wd;
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* o = out.dptr<DType>();
    UpdateFor(NumElements(in), [=](index_t i) {
      Store(o + i, req, decay * R(w[i]) - lr * SignOf(R(g[i])));
    });
  }
};

struct SignumKernel {
  template <typename DType>
  static void Run(const SignumParam& p, const std::vector<TBlob>& in, OpReqType req,
                  const TBlob& out) {
    using R = Real<DType>;
    const R lr(p.lr), momentum(p.momentum), wd(p.wd), rescale(p.rescale_grad),
        clip(p.clip_gradient), wd_lh(p.wd_lh);
    const R keep = 1 - momentum;
    const R keep_wd = keep * wd, keep_rescale = keep * rescale, decay = 1.f - lr * wd_lh;
    const bool clipping = clip >= 0.0f;
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* mom = in[2].dptr<DType>();
    DType* o = out.dptr<DType>();
    UpdateFor(NumElements(in), [=](index_t i) {
      const R wi = R(w[i]);
      const R m = clipping
                      ? momentum * R(mom[i]) - keep_wd * wi - keep * Clip(rescale * R(g[i]), clip)
                      : momentum * R(mom[i]) - keep_wd * wi - keep_rescale * R(g[i]);
      mom[i] = static_cast<DType>(m);
      Store(o + i, req, decay * wi + lr * SignOf(m));
    });
  }
};

// ---------------------------------------------------------------- registration
const bool kRegistered [[maybe_unused]] = [] {
  WithLazyUpdate(RegisterUpdate<SGDParam>({"sgd_update",
                            "Update function for Stochastic Gradient Descent (SGD):\n\n"
                            "    weight = weight - lr * (rescale_grad * grad + wd * weight)\n\n"
                            "with the rescaled gradient clipped to [-clip_gradient, "
                            "clip_gradient] when clip_gradient >= 0.",
                            {"weight", "grad"}, {}, nullptr, nullptr,
                            UpdateCompute<SGDParam, SgdKernel>})
      .add_alias("_sparse_sgd_update"));
  WithLazyUpdate(RegisterUpdate<SGDMomParam>({"sgd_mom_update",
                               "Momentum update for Stochastic Gradient Descent (SGD):\n\n"
                               "    mom = momentum * mom - lr * (rescale_grad * grad + wd * "
                               "weight)\n    weight = weight + mom\n\n"
                               "mom is updated in place.",
                               {"weight", "grad", "mom"}, {2}, nullptr, nullptr,
                               UpdateCompute<SGDMomParam, SgdMomKernel<SGDMomParam>>})
      .add_alias("_sparse_sgd_mom_update"));
  RegisterUpdate<SGDParam>({"mp_sgd_update",
                            "Updater function for multi-precision SGD: as sgd_update, "
                            "computed in float32 on weight32 (updated in place); weight gets "
                            "the result in its own dtype.",
                            {"weight", "grad", "weight32"}, {2}, nullptr, SharedTypeOfFirst(2),
                            UpdateCompute<SGDParam, MpSgdKernel>});
  RegisterUpdate<SGDMomParam>({"mp_sgd_mom_update",
                               "Updater function for multi-precision SGD with momentum: as "
                               "sgd_mom_update, computed in float32 on mom and weight32 (both "
                               "float32, updated in place).",
                               {"weight", "grad", "mom", "weight32"}, {2, 3}, nullptr,
                               SharedTypeOfFirst(2), UpdateCompute<SGDMomParam, MpSgdMomKernel>});
  RegisterUpdate<NAGMomParam>({"nag_mom_update",
                               "Update function for Nesterov Accelerated Gradient (NAG):\n\n"
                               "    grad = rescale_grad * grad + wd * weight\n"
                               "    mom = momentum * mom - lr * grad\n"
                               "    weight = weight + momentum * mom - lr * grad\n\n"
                               "mom is updated in place.",
                               {"weight", "grad", "mom"}, {2}, nullptr, nullptr,
                               UpdateCompute<NAGMomParam, NagMomKernel>});
  RegisterUpdate<NAGMomParam>({"mp_nag_mom_update",
                               "Update function for multi-precision Nesterov Accelerated "
                               "Gradient: as nag_mom_update, computed in float32 on mom and "
                               "weight32 (both float32, updated in place).",
                               {"weight", "grad", "mom", "weight32"}, {2, 3}, nullptr,
                               SharedTypeOfFirst(2), UpdateCompute<NAGMomParam, MpNagMomKernel>});
  RegisterUpdate<SignSGDParam>({"signsgd_update",
                                "Update function for SignSGD:\n\n"
                                "    weight = (1 - lr * wd) * weight - lr * sign(grad)\n\n"
                                "rescale_grad and clip_gradient do not change a sign.",
                                {"weight", "grad"}, {}, nullptr, nullptr,
                                UpdateCompute<SignSGDParam, SignSgdKernel>});
  RegisterUpdate<SignumParam>({"signum_update",
                               "Update function for Signum (SIGN momentUM):\n\n"
                               "    mom = momentum * mom - (1 - momentum) * (rescale_grad * "
                               "grad + wd * weight)\n"
                               "    weight = (1 - lr * wd_lh) * weight + lr * sign(mom)\n\n"
                               "mom is updated in place.",
                               {"weight", "grad", "mom"}, {2}, nullptr, nullptr,
                               UpdateCompute<SignumParam, SignumKernel>});
  return true;
}();

}  // namespace
}  // namespace update
}  // namespace op
}  // namespace mxnet
