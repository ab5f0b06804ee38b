// _sample_unique_zipfian: per batch row, distinct classes drawn from the approximately
// log-uniform (Zipfian) distribution over [0, range_max), and how many draws that took.
#include <cmath>
#include <unordered_set>
#include <vector>

#include "operator/random/sampler.h"
#include "operator/tuple_args.h"

namespace mxnet {
namespace op {

struct SampleUniqueZipfianParam : public dmlc::Parameter<SampleUniqueZipfianParam> {
  int range_max;
  ShapeArg shape;
  DMLC_DECLARE_PARAMETER(SampleUniqueZipfianParam) {
    DMLC_DECLARE_FIELD(range_max).describe("The number of possible classes.");
    DMLC_DECLARE_FIELD(shape).set_default(ShapeArg()).describe(
        "2-D shape of the output, where shape[0] is the batch size, and shape[1] is the number "
        "of candidates to sample for each batch.");
  }
};
DMLC_REGISTER_PARAMETER(SampleUniqueZipfianParam);

namespace {

bool UniqueZipfianShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                        std::vector<TShape>* out) {
  const TShape& s = Param<SampleUniqueZipfianParam>(attrs).shape;
  if (s.ndim() < 0 && (*out)[0].ndim() == 2) {  // shape taken from the out= array
    AssignShape(attrs, "num_trials", &(*out)[1], TShape{(*out)[0][0]});
    return true;
  }
  CHECK_EQ(s.ndim(), 2) << "Operator " << attrs.op->name
                        << ": argument shape must be 2-D (batch_size, num_sampled), given "
                        << static_cast<const TShape&>(s);
  CHECK(s[0] >= 0 && s[1] >= 0) << "Operator " << attrs.op->name
                                << ": argument shape must not have negative dimensions, given "
                                << static_cast<const TShape&>(s);
  AssignShape(attrs, "samples", &(*out)[0], s);
  AssignShape(attrs, "num_trials", &(*out)[1], TShape{s[0]});
  return true;
}

bool UniqueZipfianType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, "samples", &(*out)[0], kInt64);
  AssignType(attrs, "num_trials", &(*out)[1], kInt64);
  return true;
}

void UniqueZipfianCompute(const NodeAttrs& attrs, const OpContext& ctx,
                          const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                          const std::vector<TBlob>& out) {
  const SampleUniqueZipfianParam& p = Param<SampleUniqueZipfianParam>(attrs);
  const index_t batch = out[0].shape_[0];
  const index_t num_sampled = out[0].shape_[1];
  CHECK_GE(p.range_max, 1) << "Operator " << attrs.op->name
                           << ": argument range_max must be at least 1, given " << p.range_max;
  CHECK_LE(num_sampled, p.range_max)
      << "Operator " << attrs.op->name << ": the number of samples per row (shape[1]="
      << num_sampled << ") cannot exceed the number of classes (range_max=" << p.range_max << ")";
  const double log_range_max = std::log(static_cast<double>(p.range_max));
  int64_t* samples = out[0].dptr<int64_t>();
  int64_t* num_trials = out[1].dptr<int64_t>();
  // One stream per row: the result depends only on the seed, not on the thread count.
  auto draw_row = [&](index_t row) {
    RandomStream rs(ctx.random_seed, ctx.random_stream, static_cast<uint64_t>(row));
    std::unordered_set<int64_t> seen;
    seen.reserve(static_cast<size_t>(num_sampled) * 2);
    int64_t* dst = samples + row * num_sampled;
    int64_t tries = 0;
    while (static_cast<index_t>(seen.size()) < num_sampled) {
      // exp(u * log(range_max)) lies in [1, range_max): P(class k) ~ log((k + 2) / (k + 1))
      const int64_t value = std::lround(std::exp(rs.Uniform<double>() * log_range_max)) - 1;
      if (seen.insert(value).second) dst[seen.size() - 1] = value;
      ++tries;
    }
    num_trials[row] = tries;
  };
#if MXNET_USE_OPENMP
  if (batch > 1 && batch * num_sampled >= ParallelGrain()) {
#pragma omp parallel for schedule(dynamic)
    for (index_t row = 0; row < batch; ++row) draw_row(row);
    return;
  }
#endif
  for (index_t row = 0; row < batch; ++row) draw_row(row);
}

}  // namespace

NNVM_REGISTER_OP(_sample_unique_zipfian)
    .describe(R"doc(Samples distinct classes from [0, range_max), without replacement, under
the approximately log-uniform (Zipfian) distribution
P(k) = (log(k + 2) - log(k + 1)) / log(range_max + 1).

shape is (batch_size, num_sampled): each of the batch_size rows gets num_sampled distinct
classes (int64). The second output (int64, batch_size) counts the draws each row needed,
repeats included, as candidate samplers need for their expected counts.
)doc")
    .set_num_inputs(0)
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<SampleUniqueZipfianParam>)
    .add_arguments(SampleUniqueZipfianParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", UniqueZipfianShape)
    .set_attr<FInferType>("FInferType", UniqueZipfianType)
    .set_attr<FResourceRequest>("FResourceRequest", [](const NodeAttrs&) {
      return std::vector<ResourceRequest>{ResourceRequest::kRandom};
    })
    .set_attr<FCompute>("FCompute<cpu>", UniqueZipfianCompute)
    .set_attr<TIsNonDifferentiable>("TIsNonDifferentiable", true);

}  // namespace op
}  // namespace mxnet
