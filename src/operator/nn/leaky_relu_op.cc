// LeakyReLU family (leaky, prelu with a learnt gamma, rrelu with a random slope, elu, selu,
// gelu) and its backward op.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "operator/nn/float_op_helpers.h"
#include "operator/nn/onednn/onednn_eltwise.h"
#include "operator/random/philox.h"
#include "operator/tensor/elemwise_unary_functors.h"
#include "operator/tensor/elemwise_unary_kernel.h"

namespace mxnet {
namespace op {

enum class LeakyType { kLeaky = 0, kPReLU = 1, kRReLU = 2, kELU = 3, kSELU = 4, kGELU = 5 };

struct LeakyReLUParam : public dmlc::Parameter<LeakyReLUParam> {
  int act_type;
  float slope;
  float lower_bound;
  float upper_bound;
  DMLC_DECLARE_PARAMETER(LeakyReLUParam) {
    DMLC_DECLARE_FIELD(act_type)
        .add_enum("rrelu", static_cast<int>(LeakyType::kRReLU))
        .add_enum("leaky", static_cast<int>(LeakyType::kLeaky))
        .add_enum("prelu", static_cast<int>(LeakyType::kPReLU))
        .add_enum("elu", static_cast<int>(LeakyType::kELU))
        .add_enum("selu", static_cast<int>(LeakyType::kSELU))
        .add_enum("gelu", static_cast<int>(LeakyType::kGELU))
        .set_default(static_cast<int>(LeakyType::kLeaky))
        .describe("Activation function to be applied.");
    DMLC_DECLARE_FIELD(slope).set_default(0.25f)
        .describe("Init slope for the activation. (For leaky and elu only)");
    DMLC_DECLARE_FIELD(lower_bound).set_default(0.125f)
        .describe("Lower bound of random slope. (For rrelu only)");
    DMLC_DECLARE_FIELD(upper_bound).set_default(0.334f)
        .describe("Upper bound of random slope. (For rrelu only)");
  }
};
DMLC_REGISTER_PARAMETER(LeakyReLUParam);

namespace {

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluLambda = 1.0507009873554804934193349852946;

LeakyType TypeOf(const NodeAttrs& attrs) {
  return static_cast<LeakyType>(Param<LeakyReLUParam>(attrs).act_type);
}
bool HasGamma(const NodeAttrs& attrs) { return TypeOf(attrs) == LeakyType::kPReLU; }
bool HasMask(const NodeAttrs& attrs) { return TypeOf(attrs) == LeakyType::kRReLU; }

/*! \brief gamma of prelu broadcast over data: gamma's dims line up with data's axes 0 and 1
 *  from the right, each equal to data's or 1 (MXNet's rule). Element e of data reads
 *  gamma[Index(e)]. */
struct GammaMap {
  index_t k{1}, rest{1};   // data viewed as (n, k, rest)
  index_t g0{1}, g1{1};    // gamma's extent on axes 0 and 1 (1: broadcast)
  index_t Index(index_t e) const {
    const index_t a = e / (k * rest), b = (e / rest) % k;
    return (g0 == 1 ? 0 : a) * g1 + (g1 == 1 ? 0 : b);
  }
};

/*! \brief The map of gamma shape g over data shape d; raises when gamma does not fit. */
GammaMap MapGamma(const NodeAttrs& attrs, const TShape& d, const TShape& g) {
  GammaMap m;
  const int nd = d.ndim();
  m.k = nd > 1 ? d[1] : 1;
  m.rest = nd > 0 && d[0] * m.k > 0 ? static_cast<index_t>(d.Size() / (d[0] * m.k)) : 1;
  std::vector<dim_t> expanded(2, 1);  // gamma's extents on axes 0 and 1
  int s = g.ndim() - 1;
  for (int i = std::min(nd - 1, 1); i >= 0 && s >= 0; --i) {
    if (d[i] == g[s] || g[s] == 1) expanded[i] = g[s--];
  }
  CHECK(s == -1 && g.ndim() > 0)
      << "Operator " << attrs.op->name << ": argument gamma of shape " << g
      << " cannot be broadcast to data of shape " << d
      << " (expected gamma to match data's axes 0 and 1, or be 1 there)";
  m.g0 = expanded[0];
  m.g1 = expanded[1];
  return m;
}

bool LeakyReLUShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  TShape d = (*in)[0];
  AssignShape(attrs, "output", &d, (*out)[0]);
  for (auto& o : *out) AssignShape(attrs, "output", &o, d);
  (*in)[0] = d;
  if (!d.IsKnown()) return false;
  if (HasGamma(attrs)) {
    TShape& g = (*in)[1];
    if (g.ndim() < 0) g = TShape{d.ndim() > 1 ? d[1] : 1};
    if (!g.IsKnown()) return false;
    MapGamma(attrs, d, g);
  }
  return true;
}

/*! \brief 1 + erf(x), the Gaussian CDF's shape. For float: Numerical Recipes' fit of erfc
 *  (relative error below 1.2e-7) with the float exp of the elementwise ops, so gelu's loops
 *  vectorize, taken as erfc(|x|) for x < 0 so small tails keep their relative precision. */
template <typename C>
C OnePlusErf(C x) {
  if constexpr (std::is_same<C, float>::value) {
    const float z = std::fabs(x), t = 1.0f / (1.0f + 0.5f * z);
    const float p = -1.26551223f + t * (1.00002368f + t * (0.37409196f + t * (0.09678418f +
                    t * (-0.18628806f + t * (0.27886807f + t * (-1.13520398f + t * (1.48851587f +
                    t * (-0.82215223f + t * 0.17087277f))))))));
    const float erfc_z = t * unary_op::ExpF32(p - z * z);
    const float positive = static_cast<float>(x >= 0.0f);  // arithmetic, not a branch
    return erfc_z + positive * (2.0f - 2.0f * erfc_z);
  } else {
    return C(1) + std::erf(x);
  }
}

template <typename C>
C Gelu(C x) {
  return C(0.5) * x * OnePlusErf(x * C(M_SQRT1_2));
}
template <typename C>
C GeluSlope(C x) {
  const C e = std::is_same<C, float>::value ? C(unary_op::ExpF32(float(C(-0.5) * x * x)))
                                            : std::exp(C(-0.5) * x * x);
  return C(0.5) * OnePlusErf(x * C(M_SQRT1_2)) + x * e * C(0.3989422804014327);  // 1/sqrt(2pi)
}

template <typename DType>
void Forward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
             const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  using C = FloatComputeOf<DType>;
  const LeakyReLUParam& p = Param<LeakyReLUParam>(attrs);
  const LeakyType t = static_cast<LeakyType>(p.act_type);
  const DType* x = in[0].dptr<DType>();
  DType* y = out[0].dptr<DType>();
  const index_t n = static_cast<index_t>(in[0].Size());
  const OpReqType r = req[0];
  const C slope = static_cast<C>(p.slope);
  switch (t) {
    case LeakyType::kLeaky:
      // Selects written as min/max: GCC keeps branches around a multiply that may trap.
      MapFloat(x, y, n, r, [slope](C c) { return std::max(c, C(0)) + slope * std::min(c, C(0)); });
      break;
    case LeakyType::kPReLU: {
      const GammaMap m = MapGamma(attrs, in[0].shape_, in[1].shape_);
      const DType* gamma = in[1].dptr<DType>();
      ParallelFor(n, [&](index_t i) {
        const C c = static_cast<C>(x[i]);
        Assign(y + i, r, DType(c > C(0) ? c : c * static_cast<C>(gamma[m.Index(i)])));
      });
      break;
    }
    case LeakyType::kRReLU: {
      DType* mask = out[1].dptr<DType>();
      const C lo = static_cast<C>(p.lower_bound), hi = static_cast<C>(p.upper_bound);
      const bool train = ctx.is_train;
      const uint64_t seed = ctx.random_seed, stream = ctx.random_stream;
      ParallelFor(n, [&](index_t i) {
        C s = (lo + hi) / C(2);  // the mean slope outside training
        if (train) {
          RandomStream rs(seed, stream, static_cast<uint64_t>(i));
          s = lo + (hi - lo) * rs.Uniform<C>();
        }
        if (req[1] != kNullOp) Assign(mask + i, req[1], DType(s));
        const C c = static_cast<C>(x[i]);
        Assign(y + i, r, DType(c > C(0) ? c : c * s));
      });
      break;
    }
    case LeakyType::kELU:
      MapFloat(x, y, n, r,
               [slope](C c) { return std::max(c, C(0)) + slope * std::expm1(std::min(c, C(0))); });
      break;
    case LeakyType::kSELU:
      MapFloat(x, y, n, r, [](C c) {
        return C(kSeluLambda) * (std::max(c, C(0)) + C(kSeluAlpha) * std::expm1(std::min(c, C(0))));
      });
      break;
    case LeakyType::kGELU:
      MapFloat(x, y, n, r, [](C c) { return Gelu(c); });
      break;
  }
}

/*! \brief The oneDNN function of leaky, elu and gelu (selu, prelu, rrelu have none). */
bool OneDNNFn(const NodeAttrs& attrs, EltwiseFn* f) {
  const LeakyReLUParam& p = Param<LeakyReLUParam>(attrs);
  switch (static_cast<LeakyType>(p.act_type)) {
    case LeakyType::kLeaky: *f = {EltwiseKind::kLeaky, p.slope}; return true;
    case LeakyType::kELU: *f = {EltwiseKind::kELU, p.slope}; return true;
    case LeakyType::kGELU: *f = {EltwiseKind::kGELU}; return true;
    default: return false;
  }
}

void LeakyReLUCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (in[0].Size() == 0) return;
  EltwiseFn f{EltwiseKind::kLeaky};
  if (OneDNNFn(attrs, &f) && EltwiseUsesOneDNN(f, in[0].type_flag_, in[0].Size(), req[0])) {
    return EltwiseForwardOneDNN(f, in[0], out[0]);
  }
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, { Forward<DType>(attrs, ctx, in, req, out); });
}

// Backward inputs: (ograd, data, [gamma], output, [mask]); outputs: (data grad, [gamma grad]).
template <typename DType>
void Backward(const NodeAttrs& attrs, const std::vector<TBlob>& in,
              const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  using C = FloatComputeOf<DType>;
  const LeakyReLUParam& p = Param<LeakyReLUParam>(attrs);
  const LeakyType t = static_cast<LeakyType>(p.act_type);
  const bool has_gamma = t == LeakyType::kPReLU;
  const DType* g = in[0].dptr<DType>();
  const DType* x = in[1].dptr<DType>();
  const DType* gamma = has_gamma ? in[2].dptr<DType>() : nullptr;
  const DType* y = in[has_gamma ? 3 : 2].dptr<DType>();
  const DType* mask = t == LeakyType::kRReLU ? in[3].dptr<DType>() : nullptr;
  DType* dx = out[0].dptr<DType>();
  const index_t n = static_cast<index_t>(in[1].Size());
  const C slope = static_cast<C>(p.slope);
  GammaMap m;
  if (has_gamma) m = MapGamma(attrs, in[1].shape_, in[2].shape_);
  auto dydx = [&](index_t i) -> C {
    const C yi = static_cast<C>(y[i]);
    switch (t) {
      case LeakyType::kLeaky: return yi > C(0) ? C(1) : slope;
      case LeakyType::kPReLU:
        return static_cast<C>(x[i]) > C(0) ? C(1) : static_cast<C>(gamma[m.Index(i)]);
      case LeakyType::kRReLU: return yi > C(0) ? C(1) : static_cast<C>(mask[i]);
      case LeakyType::kELU: return yi > C(0) ? C(1) : yi + slope;
      // lambda * alpha * exp(x) = y + lambda * alpha for x <= 0 (MXNet 1.9.1 has
      // lambda * (alpha + y) there, which is not the derivative).
      case LeakyType::kSELU: return yi > C(0) ? C(kSeluLambda) : yi + C(kSeluLambda * kSeluAlpha);
      case LeakyType::kGELU: return GeluSlope(static_cast<C>(x[i]));
    }
    return C(1);
  };
  switch (t) {  // the common cases as vector loops, the others element by element
    case LeakyType::kLeaky:
      MapFloat2(g, y, dx, n, req[0], [slope](C gi, C yi) {
        const C pos = C(yi > C(0));
        return gi * (pos + (C(1) - pos) * slope);
      });
      break;
    case LeakyType::kELU:
      MapFloat2(g, y, dx, n, req[0], [slope](C gi, C yi) {
        const C pos = C(yi > C(0));
        return gi * (pos + (C(1) - pos) * (yi + slope));
      });
      break;
    case LeakyType::kGELU:
      MapFloat2(g, x, dx, n, req[0], [](C gi, C xi) { return gi * GeluSlope(xi); });
      break;
    default:
      if (req[0] != kNullOp) {
        ParallelFor(n, [&](index_t i) {
          Assign(dx + i, req[0], DType(static_cast<C>(g[i]) * dydx(i)));
        });
      }
  }
  if (has_gamma && req[1] != kNullOp) {
    const TBlob& dgamma = out[1];
    std::vector<C> acc(dgamma.Size(), C(0));
    for (index_t i = 0; i < n; ++i) {
      const C xi = static_cast<C>(x[i]);
      if (!(xi > C(0))) acc[m.Index(i)] += static_cast<C>(g[i]) * xi;
    }
    DType* dg = dgamma.dptr<DType>();
    for (size_t j = 0; j < acc.size(); ++j) Assign(dg + j, req[1], DType(acc[j]));
  }
}

void LeakyReLUGradCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  EltwiseFn f{EltwiseKind::kLeaky};
  if (OneDNNFn(attrs, &f) && EltwiseUsesOneDNN(f, in[0].type_flag_, in[1].Size(), req[0])) {
    return EltwiseBackwardOneDNN(f, in[0], in[1], out[0]);  // (ograd, data) of leaky/elu/gelu
  }
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, { Backward<DType>(attrs, in, req, out); });
}

std::vector<NodeEntry> LeakyReLUGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  std::vector<NodeEntry> inputs{og[0], n->inputs[0]};
  if (HasGamma(n->attrs)) inputs.push_back(n->inputs[1]);
  inputs.push_back(Out(n, 0));
  if (HasMask(n->attrs)) inputs.push_back(Out(n, 1));
  NodeEntry bw = MakeNode("_backward_LeakyReLU", GradName(n), inputs, n->attrs.dict);
  if (HasGamma(n->attrs)) return {bw, NodeEntry(bw.node, 1, 0)};
  return {bw};
}

bool LeakyReLUGradShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                        std::vector<TShape>* out) {
  return GradShapesFromInputs(attrs, in, out, {1, 2});
}

}  // namespace

NNVM_REGISTER_OP(LeakyReLU)
    .describe(R"doc(Applies Leaky rectified linear unit activation element-wise to the input.

Leaky ReLUs attempt to fix the "dying ReLU" problem by allowing a small `slope`
when the input is negative and has a slope of one when input is positive.

The following modified ReLU Activation functions are supported:

- *elu*: Exponential Linear Unit. `y = x > 0 ? x : slope * (exp(x)-1)`
- *selu*: Scaled Exponential Linear Unit. `y = lambda * (x > 0 ? x : alpha * (exp(x) - 1))` where
  *lambda = 1.0507009873554804934193349852946* and *alpha = 1.6732632423543772848170429916717*.
- *leaky*: Leaky ReLU. `y = x > 0 ? x : slope * x`
- *prelu*: Parametric ReLU. This is same as *leaky* except that `slope` is learnt during training:
  it is the second input `gamma`, broadcast over the data's axes 0 and 1 (one slope per channel
  with gamma of shape (C,)).
- *rrelu*: Randomized ReLU. same as *leaky* but the `slope` is uniformly and randomly chosen from
  *[lower_bound, upper_bound)* for training, while fixed to be
  *(lower_bound+upper_bound)/2* for inference. It has a second output, the slopes used.
- *gelu*: Gaussian Error Linear Unit. `y = 0.5 * x * (1 + erf(x / sqrt(2)))`
)doc")
    .set_num_inputs([](const NodeAttrs& a) { return HasGamma(a) ? 2u : 1u; })
    .set_num_outputs([](const NodeAttrs& a) { return HasMask(a) ? 2u : 1u; })
    .set_attr_parser(ParamParser<LeakyReLUParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data to activation function.")
    .add_argument("gamma", "NDArray-or-Symbol", "Input data to activation function.")
    .add_arguments(LeakyReLUParam::__FIELDS__())
    .set_attr<FSetInputVarAttrOnCompose>(
        "FSetInputVarAttrOnCompose",
        [](const NodeAttrs&, nnvm::ObjectPtr var, int index) {  // prelu's slope starts at 0.25
          if (index == 1 && !var->attrs.dict.count("__init__")) {
            var->attrs.dict["__init__"] = "[\"Constant\", {\"value\": 0.25}]";
          }
        })
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs& a) {
                                 return HasGamma(a) ? std::vector<std::string>{"data", "gamma"}
                                                    : std::vector<std::string>{"data"};
                               })
    .set_attr<FListOutputNames>("FListOutputNames",
                                [](const NodeAttrs& a) {
                                  return HasMask(a) ? std::vector<std::string>{"output", "mask"}
                                                    : std::vector<std::string>{"output"};
                                })
    .set_attr<FInferShape>("FInferShape", LeakyReLUShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FResourceRequest>("FResourceRequest",
                                [](const NodeAttrs& a) {
                                  std::vector<ResourceRequest> r;
                                  if (HasMask(a)) r.push_back(ResourceRequest::kRandom);
                                  return r;
                                })
    .set_attr<FCompute>("FCompute<cpu>", LeakyReLUCompute)
    .set_attr<FGradient>("FGradient", LeakyReLUGrad);

NNVM_REGISTER_OP(_backward_LeakyReLU)
    .describe("Gradient of LeakyReLU with respect to data (and gamma for prelu).")
    .set_num_inputs([](const NodeAttrs& a) { return 3u + HasGamma(a) + HasMask(a); })
    .set_num_outputs([](const NodeAttrs& a) { return HasGamma(a) ? 2u : 1u; })
    .set_attr_parser(ParamParser<LeakyReLUParam>)
    .add_argument("args", "NDArray-or-Symbol[]", "ograd, data, [gamma], output, [mask]")
    .add_arguments(LeakyReLUParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", LeakyReLUGradShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", LeakyReLUGradCompute);

}  // namespace op
}  // namespace mxnet
