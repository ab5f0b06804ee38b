// _histogram: counts of the data's values per bin, as numpy.histogram (MXNet 1.9.1's op):
// either bin_cnt equal bins over range, or the bin edges as a second input.
#include <dmlc/optional.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/type_switch.h"
#include "operator/optimizer/update_common.h"
#include "operator/tensor/matrix_op_common.h"

namespace mxnet {
namespace op {

struct HistogramParam : public dmlc::Parameter<HistogramParam> {
  dmlc::optional<int> bin_cnt;
  update::FloatTuple range;
  DMLC_DECLARE_PARAMETER(HistogramParam) {
    DMLC_DECLARE_FIELD(bin_cnt).set_default(dmlc::optional<int>())
        .describe("Number of bins for uniform case");
    DMLC_DECLARE_FIELD(range).set_default(update::FloatTuple())
        .describe("The lower and upper range of the bins. if not provided, range is simply "
                  "(a.min(), a.max()). values outside the range are ignored. the first element "
                  "of the range must be less than or equal to the second. range affects the "
                  "automatic bin computation as well. while bin width is computed to be "
                  "optimal based on the actual data within range, the bin count will fill the "
                  "entire range including portions containing no data.");
  }
};
DMLC_REGISTER_PARAMETER(HistogramParam);

namespace {

bool Uniform(const NodeAttrs& attrs) { return Param<HistogramParam>(attrs).bin_cnt.has_value(); }

uint32_t HistogramNumInputs(const NodeAttrs& attrs) { return Uniform(attrs) ? 1 : 2; }

bool HistogramShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const HistogramParam& p = Param<HistogramParam>(attrs);
  if (Uniform(attrs)) {
    const int n = p.bin_cnt.value();
    CHECK_GT(n, 0) << "Operator " << attrs.op->name << ": argument bin_cnt expected a positive "
                   << "count, given " << n;
    CHECK_EQ(p.range.ndim(), 2) << "Operator " << attrs.op->name << ": argument range expected "
                                << "(lower, upper) with bin_cnt, given " << p.range.ndim()
                                << " values";
    CHECK_LE(p.range[0], p.range[1]) << "Operator " << attrs.op->name
                                     << ": argument range expected lower <= upper";
    AssignShape(attrs, "histogram", &(*out)[0], TShape({n}));
    AssignShape(attrs, "bin_edges", &(*out)[1], TShape({n + 1}));
    return true;
  }
  const TShape& bins = (*in)[1];
  if (!bins.IsKnown()) return false;
  CHECK(bins.ndim() == 1 && bins[0] >= 2) << "Operator " << attrs.op->name << ": argument bins "
                                          << "expected a 1-D array of at least 2 edges, given "
                                          << bins;
  AssignShape(attrs, "histogram", &(*out)[0], TShape({bins[0] - 1}));
  AssignShape(attrs, "bin_edges", &(*out)[1], bins);
  return true;
}

bool HistogramType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, "histogram", &(*out)[0], kInt64);
  AssignType(attrs, "bin_edges", &(*out)[1], (*in)[0]);
  if (!Uniform(attrs)) AssignInputType(attrs, 1, &(*in)[1], (*in)[0]);
  return (*in)[0] >= 0;
}

// The bin of v among ascending edges[0..n], numpy's rule (the last bin includes its upper
// edge); -1 outside.
template <typename DType>
int64_t BinOf(const std::vector<double>& edges, double v) {
  const size_t n = edges.size() - 1;
  if (!(v >= edges[0] && v <= edges[n])) return -1;
  if (v == edges[n]) return static_cast<int64_t>(n) - 1;
  return static_cast<int64_t>(std::upper_bound(edges.begin(), edges.end(), v) - edges.begin()) - 1;
}

void HistogramForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const HistogramParam& p = Param<HistogramParam>(attrs);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    const index_t size = static_cast<index_t>(in[0].Size());
    std::vector<double> edges;
    if (Uniform(attrs)) {
      const int n = p.bin_cnt.value();
      const double lo = p.range[0], hi = p.range[1];
      for (int i = 0; i <= n; ++i) edges.push_back(lo + (hi - lo) * i / n);
    } else {
      const DType* b = in[1].dptr<DType>();
      for (index_t i = 0; i < static_cast<index_t>(in[1].Size()); ++i) {
        edges.push_back(static_cast<double>(b[i]));
      }
    }
    std::vector<int64_t> counts(edges.size() - 1, 0);
    for (index_t i = 0; i < size; ++i) {
      const int64_t k = BinOf<DType>(edges, static_cast<double>(x[i]));
      if (k >= 0) ++counts[k];
    }
    int64_t* h = out[0].dptr<int64_t>();
    for (size_t k = 0; k < counts.size(); ++k) Assign(h + k, req[0], counts[k]);
    DType* e = out[1].dptr<DType>();
    for (size_t k = 0; k < edges.size(); ++k) Assign(e + k, req[1], static_cast<DType>(edges[k]));
  });
}

}  // namespace

NNVM_REGISTER_OP(_histogram)
    .describe("Compute the histogram of the input data (numpy.histogram): with bin_cnt, "
              "bin_cnt equal bins over range; else the bin edges given as `bins`. Outputs "
              "the counts (int64) and the bin edges.")
    .set_num_inputs(HistogramNumInputs)
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<HistogramParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input ndarray")
    .add_argument("bins", "NDArray-or-Symbol", "Input ndarray")
    .add_arguments(HistogramParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", [](const NodeAttrs& attrs) {
      return Uniform(attrs) ? std::vector<std::string>{"data"}
                            : std::vector<std::string>{"data", "bins"};
    })
    .set_attr<FInferShape>("FInferShape", HistogramShape)
    .set_attr<FInferType>("FInferType", HistogramType)
    .set_attr<FCompute>("FCompute<cpu>", HistogramForward)
    .set_attr<FGradient>("FGradient", NoGradient);

}  // namespace op
}  // namespace mxnet
