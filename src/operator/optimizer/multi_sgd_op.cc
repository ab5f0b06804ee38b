// SGD over many weights in one call: multi_sgd_update, multi_sgd_mom_update and their
// mixed-precision forms multi_mp_sgd_update, multi_mp_sgd_mom_update (learning rates and weight
// decays as tuple arguments), and the preloaded_multi_* forms that read them from two float32
// arrays given after the weights. Inputs come in groups per weight (weight, grad[, mom]
// [, weight32]); num_weights says how many.
#include <type_traits>

#include "operator/isa_clones.h"
#include "operator/optimizer/sgd_step.h"

namespace mxnet {
namespace op {
namespace update {

#define MXNET_UPDATE_FIELD_NUM_WEIGHTS \
  DMLC_DECLARE_FIELD(num_weights).set_default(1).set_lower_bound(1).describe( \
      "Number of updated weights.")
#define MXNET_UPDATE_FIELD_RATES                                                           \
  DMLC_DECLARE_FIELD(lrs).describe("Learning rates.");                                     \
  DMLC_DECLARE_FIELD(wds).describe(                                                        \
      "Weight decays: each adds a penalty on large weights (proportional to the square of " \
      "each weight) to the objective function.")

struct MultiSGDParam : public dmlc::Parameter<MultiSGDParam> {
  FloatTuple lrs, wds;
  float rescale_grad, clip_gradient;
  int num_weights;
  DMLC_DECLARE_PARAMETER(MultiSGDParam) {
    MXNET_UPDATE_FIELD_RATES;
    MXNET_UPDATE_FIELD_RESCALE_GRAD;
    MXNET_UPDATE_FIELD_CLIP(clip_gradient);
    MXNET_UPDATE_FIELD_NUM_WEIGHTS;
  }
};
DMLC_REGISTER_PARAMETER(MultiSGDParam);

struct MultiSGDMomParam : public dmlc::Parameter<MultiSGDMomParam> {
  FloatTuple lrs, wds;
  float momentum, rescale_grad, clip_gradient;
  int num_weights;
  DMLC_DECLARE_PARAMETER(MultiSGDMomParam) {
    MXNET_UPDATE_FIELD_RATES;
    MXNET_UPDATE_FIELD_MOMENTUM;
    MXNET_UPDATE_FIELD_RESCALE_GRAD;
    MXNET_UPDATE_FIELD_CLIP(clip_gradient);
    MXNET_UPDATE_FIELD_NUM_WEIGHTS;
  }
};
DMLC_REGISTER_PARAMETER(MultiSGDMomParam);

struct PreloadedMultiSGDParam : public dmlc::Parameter<PreloadedMultiSGDParam> {
  float rescale_grad, clip_gradient;
  int num_weights;
  DMLC_DECLARE_PARAMETER(PreloadedMultiSGDParam) {
    MXNET_UPDATE_FIELD_RESCALE_GRAD;
    MXNET_UPDATE_FIELD_CLIP(clip_gradient);
    MXNET_UPDATE_FIELD_NUM_WEIGHTS;
  }
};
DMLC_REGISTER_PARAMETER(PreloadedMultiSGDParam);

struct PreloadedMultiSGDMomParam : public dmlc::Parameter<PreloadedMultiSGDMomParam> {
  float momentum, rescale_grad, clip_gradient;
  int num_weights;
  DMLC_DECLARE_PARAMETER(PreloadedMultiSGDMomParam) {
    MXNET_UPDATE_FIELD_MOMENTUM;
    MXNET_UPDATE_FIELD_RESCALE_GRAD;
    MXNET_UPDATE_FIELD_CLIP(clip_gradient);
    MXNET_UPDATE_FIELD_NUM_WEIGHTS;
  }
};
DMLC_REGISTER_PARAMETER(PreloadedMultiSGDMomParam);

namespace {

template <typename P>
constexpr bool kPreloaded = std::is_same<P, PreloadedMultiSGDParam>::value ||
                            std::is_same<P, PreloadedMultiSGDMomParam>::value;

template <typename P>
uint32_t NumWeights(const NodeAttrs& attrs) {
  return static_cast<uint32_t>(Param<P>(attrs).num_weights);
}

// ---------------------------------------------------------------- kernel
/*!
 * \brief One weight's step. The momentum form updates mom in place; the plain form is the
 *  same step from a zero momentum (MXNet's multi kernels compute both that way, which rounds
 *  differently from sgd_update). Mixed precision computes in float on weight32. L is the
 *  type of the rates (see SgdCoef).
 */
template <typename DType, bool kMom, bool kMp, typename L>
struct SgdArrays {
  using MS = std::conditional_t<kMp, float, DType>;  // how mom and weight32 are stored
  using M = Real<MS>;
  SgdCoef<M, L> c;
  const DType* w;
  const DType* g;
  MS* mom;
  float* w32;
  DType* o;
  OpReqType req;
};

/*! \brief Elements [begin, end) of one weight's step. Every element is read before it is
 *  written and no element reads another (out may be weight), so the loop is free of
 *  loop-carried dependences (ivdep) and vectorizes; built for AVX2 (without FMA, so it
 *  rounds as MXNet's kernel) as well. */
template <typename DType, bool kMom, bool kMp, typename L>
MXNET_AVX2_NOFMA_CLONES void MultiSgdRange(const SgdArrays<DType, kMom, kMp, L>& a, index_t begin,
                                     index_t end) {
  using S = SgdArrays<DType, kMom, kMp, L>;
  using M = typename S::M;
  const auto c = a.c;
  const DType* w = a.w;
  const DType* g = a.g;
  typename S::MS* mom = a.mom;
  float* w32 = a.w32;
  DType* o = a.o;
  const OpReqType req = a.req;
#pragma GCC ivdep
  for (index_t i = begin; i < end; ++i) {
    M wi;
    if constexpr (kMp) wi = w32[i]; else wi = M(w[i]);
    M m = kMom ? M(mom[i]) : M(0.f);
    m = SgdMomentum(c, m, wi, M(g[i]));
    if constexpr (kMom) mom[i] = static_cast<typename S::MS>(m);
    wi = wi + m;
    if constexpr (kMp) w32[i] = wi;
    Store(o + i, req, wi);
  }
}

template <typename DType, bool kMom, bool kMp, typename L>
void MultiSgdOne(const TBlob* group, const TBlob& out, OpReqType req, L lr, L wd, float rescale,
                 float clip, float momentum) {
  using S = SgdArrays<DType, kMom, kMp, L>;
  using M = typename S::M;
  const S a{SgdCoef<M, L>(lr, wd, M(rescale), M(clip), M(momentum)),
            group[0].dptr<DType>(),
            group[1].dptr<DType>(),
            kMom ? group[2].dptr<typename S::MS>() : nullptr,
            kMp ? group[kMom ? 3 : 2].dptr<float>() : nullptr,
            out.dptr<DType>(),
            req};
  UpdateRanges(static_cast<index_t>(out.Size()),
               [&](index_t begin, index_t end) { MultiSgdRange(a, begin, end); });
}

template <typename P, bool kMom, bool kMp>
void MultiSgdCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const P& p = Param<P>(attrs);
  const size_t stride = 2 + kMom + kMp;
  float momentum = 0.f;
  if constexpr (kMom) momentum = p.momentum;
  MXNET_REAL_TYPE_SWITCH(out[0].type_flag_, DType, {
    using M = Real<std::conditional_t<kMp, float, DType>>;
    for (size_t k = 0; k < out.size(); ++k) {
      const TBlob* group = &in[k * stride];
      if constexpr (kPreloaded<P>) {
        const float lr = in[out.size() * stride].dptr<float>()[k];
        const float wd = in[out.size() * stride + 1].dptr<float>()[k];
        MultiSgdOne<DType, kMom, kMp, float>(group, out[k], req[k], lr, wd, p.rescale_grad,
                                             p.clip_gradient, momentum);
      } else {
        MultiSgdOne<DType, kMom, kMp, M>(group, out[k], req[k], M(p.lrs[k]), M(p.wds[k]),
                                         p.rescale_grad, p.clip_gradient, momentum);
      }
    }
  });
}

// ---------------------------------------------------------------- inference rules
// The inputs of weight k share output k's shape; the learning rates and weight decays (tuple
// arguments, or the two arrays after the groups) hold one value per weight.
template <typename P>
bool MultiSgdShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const P& p = Param<P>(attrs);
  const size_t n = out->size(), tail = kPreloaded<P> ? 2 : 0;
  const size_t stride = (in->size() - tail) / n;
  if constexpr (kPreloaded<P>) {
    for (size_t j = 0; j < 2; ++j) {
      const TShape& s = (*in)[n * stride + j];
      CHECK(!s.IsKnown() || s.Size() == n)
          << "Operator " << attrs.op->name << ": argument " << (j ? "wds" : "lrs")
          << " expected " << n << " values (one per weight, num_weights=" << n << "), given "
          << s.Size();
    }
  } else {
    CHECK_EQ(p.lrs.ndim(), p.num_weights)
        << "Operator " << attrs.op->name << ": argument lrs expected " << p.num_weights
        << " learning rates (num_weights), given " << p.lrs.ndim();
    CHECK_EQ(p.wds.ndim(), p.num_weights)
        << "Operator " << attrs.op->name << ": argument wds expected " << p.num_weights
        << " weight decays (num_weights), given " << p.wds.ndim();
  }
  return GroupShapes(attrs, stride, in, out);
}

// Every weight, gradient and output shares one real dtype; mom and weight32 of the mixed-
// precision forms (positions from float_from in each group) and lrs, wds are float32.
FInferType MultiSgdType(size_t float_from, size_t tail) {
  return [float_from, tail](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
    const size_t n = out->size();
    const size_t stride = (in->size() - tail) / n;
    int t = -1;
    for (size_t i = 0; i < n * stride; ++i) {
      if (i % stride < float_from) AssignInputType(attrs, i, &t, (*in)[i]);
    }
    for (auto& o : *out) AssignType(attrs, "output", &t, o);
    CheckRealType(attrs, 0, t);
    for (size_t i = 0; i < in->size(); ++i) {
      const bool f32 = i >= n * stride || i % stride >= float_from;
      if (f32) RequireInputType(attrs, i, kFloat32, in); else (*in)[i] = t;
    }
    for (auto& o : *out) o = t;
    return t != -1;
  };
}

template <typename P, bool kMom, bool kMp>
void RegisterMultiSgd(const char* name, const char* doc) {
  MultiOpSpec spec;
  spec.name = name;
  spec.doc = doc;
  spec.data_doc = kPreloaded<P> ? "Weights, gradients, learning rates and weight decays"
                                : "Weights, gradients (and momenta, master weights)";
  spec.group = {"weight_", "grad_"};
  if (kMom) spec.group.push_back("mom_");
  if (kMp) spec.group.push_back("weight32_");
  for (uint32_t j = 2; j < spec.group.size(); ++j) spec.mutated.push_back(j);
  if (kPreloaded<P>) spec.tail = {"lrs", "wds"};
  spec.count = NumWeights<P>;
  spec.shape = MultiSgdShape<P>;
  spec.type = MultiSgdType(kMp ? 2 : spec.group.size(), spec.tail.size());
  spec.compute = MultiSgdCompute<P, kMom, kMp>;
  RegisterMulti<P>(spec);
}

const char kSgdDoc[] =
    "Update function for Stochastic Gradient Descent (SGD) over num_weights weights:\n\n"
    "    weight = weight - lr * (rescale_grad * grad + wd * weight)\n\n"
    "for each weight with its own lr and wd; one output per weight.";
const char kSgdMomDoc[] =
    "Momentum update for Stochastic Gradient Descent (SGD) over num_weights weights:\n\n"
    "    mom = momentum * mom - lr * (rescale_grad * grad + wd * weight)\n"
    "    weight = weight + mom\n\n"
    "for each weight with its own lr and wd; mom is updated in place.";
const char kMpNote[] =
    "\n\nMixed precision: the step is computed in float32 on weight32 (and mom), which are "
    "float32 and updated in place.";
const char kPreloadedNote[] =
    "\n\nThe learning rates and weight decays are the two float32 arrays lrs and wds given "
    "after the weights.";

const bool kRegistered [[maybe_unused]] = [] {
  static const std::string mp_sgd = std::string(kSgdDoc) + kMpNote;
  static const std::string mp_sgd_mom = std::string(kSgdMomDoc) + kMpNote;
  static const std::string pre_sgd = std::string(kSgdDoc) + kPreloadedNote;
  static const std::string pre_sgd_mom = std::string(kSgdMomDoc) + kPreloadedNote;
  static const std::string pre_mp_sgd = mp_sgd + kPreloadedNote;
  static const std::string pre_mp_sgd_mom = mp_sgd_mom + kPreloadedNote;
  RegisterMultiSgd<MultiSGDParam, false, false>("multi_sgd_update", kSgdDoc);
  RegisterMultiSgd<MultiSGDMomParam, true, false>("multi_sgd_mom_update", kSgdMomDoc);
  RegisterMultiSgd<MultiSGDParam, false, true>("multi_mp_sgd_update", mp_sgd.c_str());
  RegisterMultiSgd<MultiSGDMomParam, true, true>("multi_mp_sgd_mom_update", mp_sgd_mom.c_str());
  RegisterMultiSgd<PreloadedMultiSGDParam, false, false>("preloaded_multi_sgd_update",
                                                         pre_sgd.c_str());
  RegisterMultiSgd<PreloadedMultiSGDMomParam, true, false>("preloaded_multi_sgd_mom_update",
                                                           pre_sgd_mom.c_str());
  RegisterMultiSgd<PreloadedMultiSGDParam, false, true>("preloaded_multi_mp_sgd_update",
                                                        pre_mp_sgd.c_str());
  RegisterMultiSgd<PreloadedMultiSGDMomParam, true, true>("preloaded_multi_mp_sgd_mom_update",
                                                          pre_mp_sgd_mom.c_str());
  return true;
}();

}  // namespace
}  // namespace update
}  // namespace op
}  // namespace mxnet
