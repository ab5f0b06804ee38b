// Sampling with array parameters (_sample_uniform, _sample_normal, _sample_gamma,
// _sample_exponential, _sample_poisson, _sample_negative_binomial,
// _sample_generalized_negative_binomial): `shape` samples per parameter element.
#include <string>
#include <type_traits>
#include <vector>

#include "operator/random/sampler.h"
#include "operator/tuple_args.h"

namespace mxnet {
namespace op {

struct MultiSampleParam : public dmlc::Parameter<MultiSampleParam> {
  ShapeArg shape;
  int dtype;
  DMLC_DECLARE_PARAMETER(MultiSampleParam) {
    DMLC_DECLARE_FIELD(shape).set_default(ShapeArg())
        .describe("Shape to be sampled from each random distribution.");
    AddDTypeEnums(DMLC_DECLARE_FIELD(dtype).add_enum("None", -1),
                  {kFloat16, kFloat32, kFloat64})
        .set_default(-1)
        .describe("DType of the output in case this can't be inferred. Defaults to float32 if "
                  "not defined (dtype=None).");
  }
};
DMLC_REGISTER_PARAMETER(MultiSampleParam);

namespace {

/*! \brief Sample shape of the argument (empty when unset). */
std::vector<dim_t> SampleDims(const NodeAttrs& attrs) {
  const ShapeArg& s = Param<MultiSampleParam>(attrs).shape;
  if (s.ndim() < 0) return {};
  for (dim_t d : s) {
    CHECK_GE(d, 0) << "Operator " << attrs.op->name << ": argument shape must not have negative "
                   << "dimensions, given " << static_cast<const TShape&>(s);
  }
  return std::vector<dim_t>(s.begin(), s.end());
}

bool MultiSampleShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  TShape p;
  for (size_t i = 0; i < in->size(); ++i) AssignInputShape(attrs, i, &p, (*in)[i]);
  if (!p.IsKnown()) return false;
  for (auto& s : *in) s = p;
  std::vector<dim_t> o(p.begin(), p.end());
  for (dim_t d : SampleDims(attrs)) o.push_back(d);
  AssignShape(attrs, "output", &(*out)[0], TShape(o.begin(), o.end()));
  return true;
}

bool MultiSampleType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  int t = -1;
  for (size_t i = 0; i < in->size(); ++i) AssignInputType(attrs, i, &t, (*in)[i]);
  if (t < 0) return false;
  for (auto& x : *in) x = t;
  CHECK(t != kBool) << "Operator " << attrs.op->name << ": parameters must be numeric, given bool";
  const int want = Param<MultiSampleParam>(attrs).dtype;
  int& o = (*out)[0];
  if (o != -1 && want != -1) {
    CHECK_EQ(o, want) << "Operator " << attrs.op->name << ": output dtype " << DTypeName(o)
                      << " does not match argument dtype " << DTypeName(want);
  }
  if (o == -1) o = want != -1 ? want : kFloat32;
  CHECK(IsFloatDType(o)) << "Operator " << attrs.op->name
                         << ": output dtype must be float16, float32 or float64, given "
                         << DTypeName(o);
  return true;
}

void ToDouble(const TBlob& b, double* dst) {
  MXNET_NUMERIC_TYPE_SWITCH(b.type_flag_, DType, {
    const DType* src = b.dptr<DType>();
    for (size_t i = 0; i < b.Size(); ++i) dst[i] = static_cast<double>(src[i]);
  });
}

template <typename Dist>
void MultiSampleCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const index_t nparam = in[0].Size(), n = out[0].Size();
  if (n == 0 || req[0] == kNullOp) return;
  const index_t per = n / nparam;
  double* p = static_cast<double*>(ctx.RequestTempSpace(2 * nparam * sizeof(double)));
  double* p1 = p;
  double* p2 = p + nparam;
  ToDouble(in[0], p1);
  if (in.size() > 1) ToDouble(in[1], p2);
  else std::fill(p2, p2 + nparam, 0.0);
  for (index_t j = 0; j < nparam; ++j) {
    const std::string err = Dist::Check(p1[j], p2[j]);
    if (!err.empty()) {
      LOG(FATAL) << "Operator " << attrs.op->name << ": " << err << ", given " << InputName(attrs, 0)
                 << "[" << j << "]=" << p1[j]
                 << (in.size() > 1 ? ", " + InputName(attrs, 1) + "[" + std::to_string(j) +
                                         "]=" + std::to_string(p2[j])
                                   : std::string());
    }
  }
  MXNET_REAL_TYPE_SWITCH(out[0].type_flag_, OType, {
    using R = typename std::conditional<std::is_same<OType, double>::value, double, float>::type;
    sampler::Fill(ctx, out[0].dptr<OType>(), n, req[0], [&](RandomStream* rs, index_t i) {
      const index_t j = i / per;
      return Dist::template Draw<R>(rs, R(p1[j]), R(p2[j]));
    });
  });
  if (std::is_same<Dist, sampler::Uniform>::value && out[0].type_flag_ == kFloat16 &&
      req[0] != kAddTo) {
    sampler::KeepHalfBelowHigh(out[0].dptr<half_t>(), n, [&](index_t i, double* lo, double* hi) {
      *lo = p1[i / per];
      *hi = p2[i / per];
    });
  }
}


template <typename Dist>
void RegisterMultiSample(const char* name, const char* alias, const std::string& doc,
                         std::vector<std::string> inputs, std::vector<const char*> input_docs) {
  nnvm::Op& op = nnvm::Op::Register(name);
  op.add_alias(alias)
      .describe(doc)
      .set_num_inputs(static_cast<uint32_t>(inputs.size()))
      .set_num_outputs(1)
      .set_attr_parser(ParamParser<MultiSampleParam>);
  for (size_t i = 0; i < inputs.size(); ++i) {
    op.add_argument(inputs[i], "NDArray-or-Symbol", input_docs[i]);
  }
  op.add_arguments(MultiSampleParam::__FIELDS__());
  op.set_attr<FListInputNames>("FListInputNames", [inputs](const NodeAttrs&) { return inputs; });
  op.set_attr<FInferShape>("FInferShape", MultiSampleShape);
  op.set_attr<FInferType>("FInferType", MultiSampleType);
  op.set_attr<FResourceRequest>("FResourceRequest", [](const NodeAttrs&) {
    return std::vector<ResourceRequest>{ResourceRequest::kRandom, ResourceRequest::kTempSpace};
  });
  op.set_attr<FCompute>("FCompute<cpu>", MultiSampleCompute<Dist>);
  op.set_attr<FGradient>("FGradient", NoGradient);
}

const char* const kShapeDoc =
    " The output has the shape of the parameter arrays followed by `shape`; element "
    "[i..., j...] is drawn from the distribution of parameter element [i...].";

const bool registered [[maybe_unused]] = [] {
  const std::string s = kShapeDoc;
  RegisterMultiSample<sampler::Uniform>(
      "_sample_uniform", "sample_uniform",
      ("Concurrent sampling from multiple uniform distributions on [low, high)." + s),
      {"low", "high"}, {"Lower bounds of the distributions.", "Upper bounds of the distributions."});
  RegisterMultiSample<sampler::Normal>(
      "_sample_normal", "sample_normal",
      ("Concurrent sampling from multiple normal distributions with means mu and standard "
              "deviations sigma." + s),
      {"mu", "sigma"}, {"Means of the distributions.", "Standard deviations of the distributions."});
  RegisterMultiSample<sampler::GammaDist>(
      "_sample_gamma", "sample_gamma",
      ("Concurrent sampling from multiple gamma distributions with shapes alpha and scales "
              "beta." + s),
      {"alpha", "beta"}, {"Alpha (shape) parameters of the distributions.",
                          "Beta (scale) parameters of the distributions."});
  RegisterMultiSample<sampler::Exponential>(
      "_sample_exponential", "sample_exponential",
      ("Concurrent sampling from multiple exponential distributions with rates lam." + s),
      {"lam"}, {"Lambda (rate) parameters of the distributions."});
  RegisterMultiSample<sampler::PoissonDist>(
      "_sample_poisson", "sample_poisson",
      ("Concurrent sampling from multiple Poisson distributions with rates lam. Samples are "
              "returned as a floating point data type." + s),
      {"lam"}, {"Lambda (rate) parameters of the distributions."});
  RegisterMultiSample<sampler::NegBinomial>(
      "_sample_negative_binomial", "sample_negative_binomial",
      ("Concurrent sampling from multiple negative binomial distributions with limits k "
              "and failure probabilities p." + s),
      {"k", "p"}, {"Limits of unsuccessful experiments.",
                   "Failure probabilities in each experiment."});
  RegisterMultiSample<sampler::GenNegBinomial>(
      "_sample_generalized_negative_binomial", "sample_generalized_negative_binomial",
      ("Concurrent sampling from multiple generalized negative binomial distributions with "
              "means mu and dispersions alpha." + s),
      {"mu", "alpha"}, {"Means of the distributions.", "Alpha (dispersion) parameters of the "
                                                       "distributions."});
  return true;
}();

}  // namespace
}  // namespace op
}  // namespace mxnet
