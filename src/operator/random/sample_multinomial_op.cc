// Sampling from categorical distributions: _sample_multinomial (optionally with the log
// probability of each draw) and _backward_sample_multinomial, its gradient through that output.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "operator/random/sampler.h"
#include "operator/tuple_args.h"

namespace mxnet {
namespace op {

struct SampleMultinomialParam : public dmlc::Parameter<SampleMultinomialParam> {
  ShapeArg shape;
  bool get_prob;
  int dtype;
  DMLC_DECLARE_PARAMETER(SampleMultinomialParam) {
    DMLC_DECLARE_FIELD(shape).set_default(ShapeArg())
        .describe("Shape to be sampled from each random distribution.");
    DMLC_DECLARE_FIELD(get_prob).set_default(false)
        .describe("Whether to also return the log probability of sampled result. This is usually "
                  "used for differentiating through stochastic variables, e.g. in reinforcement "
                  "learning.");
    AddDTypeEnums(DMLC_DECLARE_FIELD(dtype), {kUint8, kInt32, kFloat16, kFloat32, kFloat64})
        .set_default(kInt32)
        .describe("DType of the output in case this can't be inferred.");
  }
};
DMLC_REGISTER_PARAMETER(SampleMultinomialParam);

namespace {

bool MultinomialShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const SampleMultinomialParam& p = Param<SampleMultinomialParam>(attrs);
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  CHECK_GE(d.ndim(), 1) << "Operator " << attrs.op->name
                        << ": data must have at least one dimension, given shape " << d;
  std::vector<dim_t> o(d.begin(), d.end() - 1);
  if (p.shape.ndim() > 0) o.insert(o.end(), p.shape.begin(), p.shape.end());
  if (o.empty()) o.push_back(1);
  for (auto& s : *out) AssignShape(attrs, "output", &s, TShape(o.begin(), o.end()));
  return true;
}

bool MultinomialType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const int t = (*in)[0];
  if (t < 0) return false;
  CHECK(IsFloatDType(t)) << "Operator " << attrs.op->name
                         << ": data must be float16, float32 or float64, given " << DTypeName(t);
  AssignType(attrs, "output", &(*out)[0], Param<SampleMultinomialParam>(attrs).dtype);
  if (out->size() > 1) AssignType(attrs, "prob", &(*out)[1], t);
  return true;
}

void MultinomialCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TBlob& data = in[0];
  const index_t k = data.shape_[data.ndim() - 1];
  if (data.Size() == 0 || out[0].Size() == 0) return;
  const index_t rows = data.Size() / k, per = out[0].Size() / rows;
  double* cum = static_cast<double*>(ctx.RequestTempSpace(rows * k * sizeof(double)));
  MXNET_REAL_TYPE_SWITCH(data.type_flag_, DType, {
    const DType* p = data.dptr<DType>();
    for (index_t r = 0; r < rows; ++r) {
      double acc = 0;
      for (index_t c = 0; c < k; ++c) {
        const double v = static_cast<double>(p[r * k + c]);
        CHECK(v >= 0) << "Operator " << attrs.op->name << ": probabilities must be non-negative, "
                      << "given data[" << r << ", " << c << "]=" << v;
        acc += v;
        cum[r * k + c] = acc;
      }
      CHECK(acc > 0) << "Operator " << attrs.op->name << ": distribution " << r
                     << " of data has no positive probability";
    }
    const uint64_t seed = ctx.random_seed, stream = ctx.random_stream;
    MXNET_TYPE_SWITCH(out[0].type_flag_, OType, {
      OType* o = out[0].dptr<OType>();
      DType* logp = out.size() > 1 ? out[1].dptr<DType>() : nullptr;
      ParallelFor(out[0].Size(), [&](index_t i) {
        const index_t r = i / per;
        const double* row = cum + r * k;
        RandomStream rs(seed, stream, static_cast<uint64_t>(i));
        const double u = rs.UniformD() * row[k - 1];
        // First category whose cumulative mass exceeds u: never one of probability zero.
        index_t c = std::upper_bound(row, row + k, u) - row;
        if (c >= k) c = k - 1;
        if (req[0] != kNullOp) Assign(o + i, req[0], static_cast<OType>(c));
        if (logp != nullptr && req[1] != kNullOp) {
          Assign(logp + i, req[1], DType(std::log(static_cast<double>(p[r * k + c]))));
        }
      });
    });
  });
}

// Gradient of the log-probability output: d data[r, s] += ograd / data[r, s] per draw s.
void MultinomialBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const TBlob &og = in[0], &data = in[1], &sample = in[2];
  const index_t k = data.shape_[data.ndim() - 1];
  if (data.Size() == 0) return;
  const index_t rows = data.Size() / k, per = og.Size() / rows;
  MXNET_REAL_TYPE_SWITCH(data.type_flag_, DType, {
    const DType* g = og.dptr<DType>();
    const DType* p = data.dptr<DType>();
    DType* d = out[0].dptr<DType>();
    if (req[0] != kAddTo) std::fill(d, d + data.Size(), DType(0));
    MXNET_TYPE_SWITCH(sample.type_flag_, SType, {
      const SType* s = sample.dptr<SType>();
      ParallelFor(rows, [&](index_t r) {
        for (index_t j = 0; j < per; ++j) {
          const index_t c = static_cast<index_t>(s[r * per + j]);
          if (c < 0 || c >= k) continue;
          d[r * k + c] += DType(float(g[r * per + j]) / float(p[r * k + c]));
        }
      });
    });
  });
}

std::vector<NodeEntry> MultinomialGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  if (!Param<SampleMultinomialParam>(n->attrs).get_prob) return {NodeEntry()};
  return {MakeNode("_backward_sample_multinomial", n->attrs.name + "_backward",
                   {og[1], n->inputs[0], Out(n, 0)})};
}

}  // namespace

NNVM_REGISTER_OP(_sample_multinomial)
    .add_alias("sample_multinomial")
    .describe(R"doc(Concurrent sampling from multiple multinomial distributions.

*data* is an *n* dimensional array whose last axis has length *k*, the number of possible
outcomes of each distribution; *shape* samples (one when empty) are drawn from each, giving an
output of shape data.shape[:-1] + shape (shape, or (1,), for 1-D data). The probabilities must
be non-negative; they are normalised by their sum.

With *get_prob* a second output holds the log probability of each drawn sample, through which
a gradient (e.g. a reward in reinforcement learning) flows back to *data*.
)doc")
    .set_num_inputs(1)
    .set_num_outputs([](const NodeAttrs& attrs) {
      return Param<SampleMultinomialParam>(attrs).get_prob ? 2U : 1U;
    })
    .set_attr_parser(ParamParser<SampleMultinomialParam>)
    .add_argument("data", "NDArray-or-Symbol",
                  "Distribution probabilities. Must sum to one on the last axis.")
    .add_arguments(SampleMultinomialParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", MultinomialShape)
    .set_attr<FInferType>("FInferType", MultinomialType)
    .set_attr<FResourceRequest>("FResourceRequest", [](const NodeAttrs&) {
      return std::vector<ResourceRequest>{ResourceRequest::kRandom, ResourceRequest::kTempSpace};
    })
    .set_attr<FCompute>("FCompute<cpu>", MultinomialCompute)
    .set_attr<FGradient>("FGradient", MultinomialGrad);

NNVM_REGISTER_OP(_backward_sample_multinomial)
    .describe("Gradient of _sample_multinomial through its log-probability output.")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the log-probability output")
    .add_argument("data", "NDArray-or-Symbol", "Distribution probabilities")
    .add_argument("sample", "NDArray-or-Symbol", "The drawn samples")
    .set_attr<FListInputNames>("FListInputNames",
                               InputNames({"ograd", "data", "sample"}))
    .set_attr<FInferShape>("FInferShape",
                           [](const NodeAttrs& attrs, std::vector<TShape>* in,
                              std::vector<TShape>* out) {
                             AssignShape(attrs, "output", &(*out)[0], (*in)[1]);
                             return (*out)[0].IsKnown();
                           })
    .set_attr<FInferType>("FInferType",
                          [](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
                            AssignType(attrs, "output", &(*out)[0], (*in)[1]);
                            return (*out)[0] >= 0;
                          })
    .set_attr<FCompute>("FCompute<cpu>", MultinomialBackward);

}  // namespace op
}  // namespace mxnet
