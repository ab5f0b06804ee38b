// Random sampling with scalar parameters: _random_uniform, _random_normal, _random_gamma,
// _random_exponential, _random_poisson, _random_negative_binomial,
// _random_generalized_negative_binomial, _random_randint and the _random_*_like forms.
#include <string>
#include <type_traits>
#include <vector>

#include "operator/random/sampler.h"
#include "operator/tuple_args.h"

namespace mxnet {
namespace op {

// Fields every scalar-parameter sampler has after its distribution parameters.
#define MXNET_SAMPLE_OUTPUT_FIELDS_()                                                       \
  DMLC_DECLARE_FIELD(shape).set_default(ShapeArg()).describe("Shape of the output.");       \
  DMLC_DECLARE_FIELD(ctx).set_default("").describe(                                         \
      "Context of output, in format [cpu|gpu|cpu_pinned](n). Only used for imperative calls."); \
  AddDTypeEnums(DMLC_DECLARE_FIELD(dtype).add_enum("None", -1),                            \
                {kFloat32, kFloat64, kFloat16})                                             \
      .set_default(-1)                                                                      \
      .describe("DType of the output in case this can't be inferred. Defaults to float32 if " \
                "not defined (dtype=None).")

#define MXNET_SAMPLE_PARAM_(Name, T1, f1, d1, doc1, T2, f2, d2, doc2)                        \
  struct Name : public dmlc::Parameter<Name> {                                              \
    T1 f1;                                                                                  \
    T2 f2;                                                                                  \
    ShapeArg shape;                                                                         \
    std::string ctx;                                                                        \
    int dtype;                                                                              \
    double P1() const { return f1; }                                                        \
    double P2() const { return f2; }                                                        \
    static const char* N1() { return #f1; }                                                 \
    static const char* N2() { return #f2; }                                                 \
    DMLC_DECLARE_PARAMETER(Name) {                                                          \
      DMLC_DECLARE_FIELD(f1).set_default(d1).describe(doc1);                                \
      DMLC_DECLARE_FIELD(f2).set_default(d2).describe(doc2);                                \
      MXNET_SAMPLE_OUTPUT_FIELDS_();                                                        \
    }                                                                                       \
  };                                                                                        \
  struct Name##Like : public dmlc::Parameter<Name##Like> {                                  \
    T1 f1;                                                                                  \
    T2 f2;                                                                                  \
    double P1() const { return f1; }                                                        \
    double P2() const { return f2; }                                                        \
    static const char* N1() { return #f1; }                                                 \
    static const char* N2() { return #f2; }                                                 \
    DMLC_DECLARE_PARAMETER(Name##Like) {                                                    \
      DMLC_DECLARE_FIELD(f1).set_default(d1).describe(doc1);                                \
      DMLC_DECLARE_FIELD(f2).set_default(d2).describe(doc2);                                \
    }                                                                                       \
  };                                                                                        \
  DMLC_REGISTER_PARAMETER(Name);                                                            \
  DMLC_REGISTER_PARAMETER(Name##Like)

#define MXNET_SAMPLE_PARAM1_(Name, f1, d1, doc1)                                             \
  struct Name : public dmlc::Parameter<Name> {                                              \
    float f1;                                                                               \
    ShapeArg shape;                                                                         \
    std::string ctx;                                                                        \
    int dtype;                                                                              \
    double P1() const { return f1; }                                                        \
    double P2() const { return 0; }                                                         \
    static const char* N1() { return #f1; }                                                 \
    static const char* N2() { return ""; }                                                  \
    DMLC_DECLARE_PARAMETER(Name) {                                                          \
      DMLC_DECLARE_FIELD(f1).set_default(d1).describe(doc1);                                \
      MXNET_SAMPLE_OUTPUT_FIELDS_();                                                        \
    }                                                                                       \
  };                                                                                        \
  struct Name##Like : public dmlc::Parameter<Name##Like> {                                  \
    float f1;                                                                               \
    double P1() const { return f1; }                                                        \
    double P2() const { return 0; }                                                         \
    static const char* N1() { return #f1; }                                                 \
    static const char* N2() { return ""; }                                                  \
    DMLC_DECLARE_PARAMETER(Name##Like) {                                                    \
      DMLC_DECLARE_FIELD(f1).set_default(d1).describe(doc1);                                \
    }                                                                                       \
  };                                                                                        \
  DMLC_REGISTER_PARAMETER(Name);                                                            \
  DMLC_REGISTER_PARAMETER(Name##Like)

MXNET_SAMPLE_PARAM_(SampleUniformParam, float, low, 0.0f, "Lower bound of the distribution.",
                    float, high, 1.0f, "Upper bound of the distribution.");
MXNET_SAMPLE_PARAM_(SampleNormalParam, float, loc, 0.0f, "Mean of the distribution.",
                    float, scale, 1.0f, "Standard deviation of the distribution.");
MXNET_SAMPLE_PARAM_(SampleGammaParam, float, alpha, 1.0f,
                    "Alpha parameter (shape) of the gamma distribution.",
                    float, beta, 1.0f, "Beta parameter (scale) of the gamma distribution.");
MXNET_SAMPLE_PARAM1_(SampleExponentialParam, lam, 1.0f,
                     "Lambda parameter (rate) of the exponential distribution.");
MXNET_SAMPLE_PARAM1_(SamplePoissonParam, lam, 1.0f,
                     "Lambda parameter (rate) of the Poisson distribution.");
MXNET_SAMPLE_PARAM_(SampleNegBinomialParam, int, k, 1, "Limit of unsuccessful experiments.",
                    float, p, 1.0f, "Failure probability in each experiment.");
MXNET_SAMPLE_PARAM_(SampleGenNegBinomialParam, float, mu, 1.0f,
                    "Mean of the negative binomial distribution.",
                    float, alpha, 1.0f,
                    "Alpha (dispersion) parameter of the negative binomial distribution.");

struct SampleRandIntParam : public dmlc::Parameter<SampleRandIntParam> {
  int64_t low;
  int64_t high;
  ShapeArg shape;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(SampleRandIntParam) {
    DMLC_DECLARE_FIELD(low).describe("Lower bound of the distribution.");
    DMLC_DECLARE_FIELD(high).describe("Upper bound of the distribution.");
    DMLC_DECLARE_FIELD(shape).set_default(ShapeArg()).describe("Shape of the output.");
    DMLC_DECLARE_FIELD(ctx).set_default("").describe(
        "Context of output, in format [cpu|gpu|cpu_pinned](n). Only used for imperative calls.");
    DMLC_DECLARE_FIELD(dtype)
        .add_enum("None", -1).add_enum("int32", kInt32).add_enum("int64", kInt64)
        .set_default(-1)
        .describe("DType of the output in case this can't be inferred. Defaults to int32 if not "
                  "defined (dtype=None).");
  }
};
DMLC_REGISTER_PARAMETER(SampleRandIntParam);

namespace {

template <typename PType>
bool SampleShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const ShapeArg& s = Param<PType>(attrs).shape;
  if (s.ndim() >= 0) {
    for (dim_t d : s) {
      CHECK_GE(d, 0) << "Operator " << attrs.op->name << ": argument shape must not have "
                     << "negative dimensions, given " << static_cast<const TShape&>(s);
    }
    AssignShape(attrs, "output", &(*out)[0], s);
  } else if ((*out)[0].ndim() < 0) {
    (*out)[0] = TShape{1};  // no shape and no out= array: one sample, as MXNet's front gives
  }
  return (*out)[0].IsKnown();
}

/*! \brief Output dtype: the out= array's, else argument dtype, else def; must be allowed. */
bool SampleOutputType(const NodeAttrs& attrs, int param_dtype, int def, bool integer,
                      std::vector<int>* out) {
  int& o = (*out)[0];
  if (o != -1 && param_dtype != -1) {
    CHECK_EQ(o, param_dtype) << "Operator " << attrs.op->name << ": output dtype "
                             << DTypeName(o) << " does not match argument dtype "
                             << DTypeName(param_dtype);
  }
  if (o == -1) o = param_dtype != -1 ? param_dtype : def;
  if (integer) {
    CHECK(o == kInt32 || o == kInt64) << "Operator " << attrs.op->name
                                      << ": output dtype must be int32 or int64, given "
                                      << DTypeName(o);
  } else {
    CHECK(IsFloatDType(o)) << "Operator " << attrs.op->name
                           << ": output dtype must be float16, float32 or float64, given "
                           << DTypeName(o);
  }
  return true;
}

template <typename PType>
bool SampleType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  return SampleOutputType(attrs, Param<PType>(attrs).dtype, kFloat32, false, out);
}

bool LikeType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  if (!ElemwiseType(attrs, in, out)) return false;
  CHECK(IsFloatDType((*out)[0])) << "Operator " << attrs.op->name
                                 << ": data must be float16, float32 or float64, given "
                                 << DTypeName((*out)[0]);
  return true;
}

template <typename Dist, typename PType>
void SampleCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const PType& p = Param<PType>(attrs);
  const double a = p.P1(), b = p.P2();
  const std::string err = Dist::Check(a, b);
  if (!err.empty()) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": " << err << ", given " << PType::N1() << "="
               << a << (Dist::kParams == 2 ? std::string(", ") + PType::N2() + "=" : "")
               << (Dist::kParams == 2 ? std::to_string(b) : "");
  }
  MXNET_REAL_TYPE_SWITCH(out[0].type_flag_, OType, {
    using R = typename std::conditional<std::is_same<OType, double>::value, double, float>::type;
    sampler::Fill(ctx, out[0].dptr<OType>(), out[0].Size(), req[0],
                  [&](RandomStream* rs, index_t) { return Dist::template Draw<R>(rs, R(a), R(b)); });
  });
  if (std::is_same<Dist, sampler::Uniform>::value && out[0].type_flag_ == kFloat16 &&
      req[0] != kAddTo) {
    sampler::KeepHalfBelowHigh(out[0].dptr<half_t>(), out[0].Size(),
                               [&](index_t, double* lo, double* hi) { *lo = a; *hi = b; });
  }
}

void RandIntCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const SampleRandIntParam& p = Param<SampleRandIntParam>(attrs);
  CHECK_LT(p.low, p.high) << "Operator " << attrs.op->name
                          << ": low must be less than high, given low=" << p.low
                          << ", high=" << p.high;
  const uint64_t range = static_cast<uint64_t>(p.high) - static_cast<uint64_t>(p.low);
  const int64_t low = p.low;
  auto draw = [&](RandomStream* rs, index_t) {
    return static_cast<int64_t>(static_cast<uint64_t>(low) + rs->NextU64() % range);
  };
  if (out[0].type_flag_ == kInt64) {
    sampler::Fill(ctx, out[0].dptr<int64_t>(), out[0].Size(), req[0], draw);
  } else {
    sampler::Fill(ctx, out[0].dptr<int32_t>(), out[0].Size(), req[0], draw);
  }
}

std::vector<ResourceRequest> RandomResource(const NodeAttrs&) {
  return {ResourceRequest::kRandom};
}


template <typename Dist, typename PType>
void RegisterSample(const char* name, const char* doc, std::vector<const char*> aliases) {
  nnvm::Op& op = nnvm::Op::Register(name);
  for (const char* a : aliases) op.add_alias(a);
  op.describe(doc)
      .set_num_inputs(0)
      .set_num_outputs(1)
      .set_attr_parser(ParamParser<PType>);
  op.add_arguments(PType::__FIELDS__());
  op.set_attr<FInferShape>("FInferShape", SampleShape<PType>);
  op.set_attr<FInferType>("FInferType", SampleType<PType>);
  op.set_attr<FResourceRequest>("FResourceRequest", RandomResource);
  op.set_attr<FCompute>("FCompute<cpu>", SampleCompute<Dist, PType>);
}

template <typename Dist, typename PType>
void RegisterSampleLike(const char* name, const char* doc) {
  nnvm::Op& op = nnvm::Op::Register(name);
  op.describe(doc)
      .set_num_inputs(1)
      .set_num_outputs(1)
      .set_attr_parser(ParamParser<PType>)
      .add_argument("data", "NDArray-or-Symbol", "The input");
  op.add_arguments(PType::__FIELDS__());
  op.set_attr<FInferShape>("FInferShape", ElemwiseShape);
  op.set_attr<FInferType>("FInferType", LikeType);
  op.set_attr<FResourceRequest>("FResourceRequest", RandomResource);
  op.set_attr<FCompute>("FCompute<cpu>", SampleCompute<Dist, PType>);
  op.set_attr<FGradient>("FGradient", NoGradient);
}

const bool registered [[maybe_unused]] = [] {
  RegisterSample<sampler::Uniform, SampleUniformParam>(
      "_random_uniform",
      "Draw random samples from a uniform distribution over the half-open interval "
      "[low, high).",
      {"uniform", "random_uniform"});
  RegisterSample<sampler::Normal, SampleNormalParam>(
      "_random_normal",
      "Draw random samples from a normal (Gaussian) distribution with mean loc and standard "
      "deviation scale.",
      {"normal", "random_normal"});
  RegisterSample<sampler::GammaDist, SampleGammaParam>(
      "_random_gamma",
      "Draw random samples from a gamma distribution with shape alpha and scale beta.",
      {"random_gamma"});
  RegisterSample<sampler::Exponential, SampleExponentialParam>(
      "_random_exponential",
      "Draw random samples from an exponential distribution with rate lam.",
      {"random_exponential"});
  RegisterSample<sampler::PoissonDist, SamplePoissonParam>(
      "_random_poisson",
      "Draw random samples from a Poisson distribution with rate lam. Samples are returned as "
      "a floating point data type.",
      {"random_poisson"});
  RegisterSample<sampler::NegBinomial, SampleNegBinomialParam>(
      "_random_negative_binomial",
      "Draw random samples from a negative binomial distribution with k (limit of "
      "unsuccessful experiments) and p (failure probability in each experiment). Samples are "
      "returned as a floating point data type.",
      {"random_negative_binomial"});
  RegisterSample<sampler::GenNegBinomial, SampleGenNegBinomialParam>(
      "_random_generalized_negative_binomial",
      "Draw random samples from a generalized negative binomial distribution with mean mu and "
      "dispersion alpha (= 1/k). Samples are returned as a floating point data type.",
      {"random_generalized_negative_binomial"});

  RegisterSampleLike<sampler::Uniform, SampleUniformParamLike>(
      "_random_uniform_like",
      "Draw random samples from a uniform distribution over [low, high) with the shape of the "
      "input array.");
  RegisterSampleLike<sampler::Normal, SampleNormalParamLike>(
      "_random_normal_like",
      "Draw random samples from a normal distribution with the shape of the input array.");
  RegisterSampleLike<sampler::GammaDist, SampleGammaParamLike>(
      "_random_gamma_like",
      "Draw random samples from a gamma distribution with the shape of the input array.");
  RegisterSampleLike<sampler::Exponential, SampleExponentialParamLike>(
      "_random_exponential_like",
      "Draw random samples from an exponential distribution with the shape of the input array.");
  RegisterSampleLike<sampler::PoissonDist, SamplePoissonParamLike>(
      "_random_poisson_like",
      "Draw random samples from a Poisson distribution with the shape of the input array.");
  RegisterSampleLike<sampler::NegBinomial, SampleNegBinomialParamLike>(
      "_random_negative_binomial_like",
      "Draw random samples from a negative binomial distribution with the shape of the input "
      "array.");
  RegisterSampleLike<sampler::GenNegBinomial, SampleGenNegBinomialParamLike>(
      "_random_generalized_negative_binomial_like",
      "Draw random samples from a generalized negative binomial distribution with the shape of "
      "the input array.");

  nnvm::Op::Register("_random_randint")
      .add_alias("random_randint")
      .describe("Draw random integers uniformly distributed over the half-open interval "
                "[low, high).")
      .set_num_inputs(0)
      .set_num_outputs(1)
      .set_attr_parser(ParamParser<SampleRandIntParam>)
      .add_arguments(SampleRandIntParam::__FIELDS__())
      .set_attr<FInferShape>("FInferShape", SampleShape<SampleRandIntParam>)
      .set_attr<FInferType>("FInferType",
                            [](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
                              return SampleOutputType(attrs, Param<SampleRandIntParam>(attrs).dtype,
                                                      kInt32, true, out);
                            })
      .set_attr<FResourceRequest>("FResourceRequest", RandomResource)
      .set_attr<FCompute>("FCompute<cpu>", RandIntCompute);
  return true;
}();

}  // namespace
}  // namespace op
}  // namespace mxnet
