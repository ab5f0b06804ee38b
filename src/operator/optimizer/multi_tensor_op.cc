// Helpers optimizers run over many arrays at once: multi_sum_sq (sum of squares of each
// array), multi_lars (LARS learning rates from those sums), all_finite and multi_all_finite
// (the AMP overflow check) and reset_arrays (zero arrays in place).
#include <cmath>
#include <cstring>
#include <type_traits>

#include "operator/optimizer/update_common.h"

namespace mxnet {
namespace op {
namespace update {

struct MultiSumSqParam : public dmlc::Parameter<MultiSumSqParam> {
  int num_arrays;
  DMLC_DECLARE_PARAMETER(MultiSumSqParam) {
    DMLC_DECLARE_FIELD(num_arrays).set_lower_bound(1).describe("number of input arrays.");
  }
};
DMLC_REGISTER_PARAMETER(MultiSumSqParam);

struct LARSParam : public dmlc::Parameter<LARSParam> {
  float eta, eps, rescale_grad;
  DMLC_DECLARE_PARAMETER(LARSParam) {
    DMLC_DECLARE_FIELD(eta).describe("LARS eta");
    DMLC_DECLARE_FIELD(eps).describe("LARS eps");
    DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0f).describe("Gradient rescaling factor");
  }
};
DMLC_REGISTER_PARAMETER(LARSParam);

struct AllFiniteParam : public dmlc::Parameter<AllFiniteParam> {
  bool init_output;
  DMLC_DECLARE_PARAMETER(AllFiniteParam) {
    DMLC_DECLARE_FIELD(init_output).set_default(true).describe("Initialize output to 1.");
  }
};
DMLC_REGISTER_PARAMETER(AllFiniteParam);

struct MultiAllFiniteParam : public dmlc::Parameter<MultiAllFiniteParam> {
  int num_arrays;
  bool init_output;
  DMLC_DECLARE_PARAMETER(MultiAllFiniteParam) {
    DMLC_DECLARE_FIELD(num_arrays).set_default(1).set_lower_bound(1).describe(
        "Number of arrays.");
    DMLC_DECLARE_FIELD(init_output).set_default(true).describe("Initialize output to 1.");
  }
};
DMLC_REGISTER_PARAMETER(MultiAllFiniteParam);

struct ResetArraysParam : public dmlc::Parameter<ResetArraysParam> {
  int num_arrays;
  DMLC_DECLARE_PARAMETER(ResetArraysParam) {
    DMLC_DECLARE_FIELD(num_arrays).set_lower_bound(1).describe("number of input arrays.");
  }
};
DMLC_REGISTER_PARAMETER(ResetArraysParam);

namespace {

template <typename P>
uint32_t NumArrays(const NodeAttrs& attrs) {
  return static_cast<uint32_t>(Param<P>(attrs).num_arrays);
}

// ---------------------------------------------------------------- multi_sum_sq
void MultiSumSqCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  float* o = out[0].dptr<float>();
  ParallelFor(static_cast<index_t>(in.size()), [&](index_t k) {
    float s = 0.f;
    MXNET_REAL_TYPE_SWITCH(in[k].type_flag_, DType, { s = SumOfSquares<DType>(in[k]); });
    Store(o + k, req[0], s);
  });
}

bool MultiSumSqShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  AssignShape(attrs, "output", &(*out)[0], TShape({static_cast<int64_t>(in->size())}));
  for (const TShape& s : *in) {
    if (!s.IsKnown()) return false;
  }
  return true;
}

// Inputs share one real dtype; the output is float32.
bool SharedRealInFloatOut(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  int t = -1;
  for (size_t i = 0; i < in->size(); ++i) AssignInputType(attrs, i, &t, (*in)[i]);
  CheckRealType(attrs, 0, t);
  for (auto& x : *in) x = t;
  RequireOutputType(attrs, kFloat32, out);
  return t != -1;
}

// ---------------------------------------------------------------- multi_lars
void MultiLarsCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const LARSParam& p = Param<LARSParam>(attrs);
  const float* lrs = in[0].dptr<float>();
  const float* w_sum_sq = in[1].dptr<float>();
  const float* g_sum_sq = in[2].dptr<float>();
  const float* wds = in[3].dptr<float>();
  float* o = out[0].dptr<float>();
  const float eta = p.eta, eps = p.eps, rescale = p.rescale_grad;
  const OpReqType r = req[0];
  ParallelFor(NumElements(in), [=](index_t i) {
    const float w_norm = std::sqrt(w_sum_sq[i]);
    const bool valid = w_norm > 0.f && g_sum_sq[i] > 0.f;
    Store(o + i, r,
          valid ? lrs[i] * eta * w_norm / (std::sqrt(g_sum_sq[i]) * rescale + wds[i] * w_norm + eps)
                : lrs[i]);
  });
}

bool Float32Only(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  for (size_t i = 0; i < in->size(); ++i) RequireInputType(attrs, i, kFloat32, in);
  RequireOutputType(attrs, kFloat32, out);
  return true;
}

// ---------------------------------------------------------------- all_finite
/*! \brief Sets *flag to 0 when b holds an Inf or NaN (tested as float, as MXNet does). */
void ClearIfNotFinite(const TBlob& b, float* flag) {
  MXNET_REAL_TYPE_SWITCH(b.type_flag_, DType, {
    const DType* x = b.dptr<DType>();
    for (size_t i = 0, n = b.Size(); i < n; ++i) {
      if (!std::isfinite(static_cast<float>(x[i]))) {
        *flag = 0.f;
        return;
      }
    }
  });
}

template <typename P>
void AllFiniteCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>&, const std::vector<TBlob>& out) {
  float* flag = out[0].dptr<float>();
  if (Param<P>(attrs).init_output) *flag = 1.f;
  for (const TBlob& b : in) ClearIfNotFinite(b, flag);
}

bool FlagShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  AssignShape(attrs, "output", &(*out)[0], TShape({1}));
  return true;
}

bool RealInFloatOut(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  for (size_t i = 0; i < in->size(); ++i) CheckRealType(attrs, i, (*in)[i]);
  RequireOutputType(attrs, kFloat32, out);
  for (int t : *in) {
    if (t == -1) return false;
  }
  return true;
}

// ---------------------------------------------------------------- reset_arrays
void ResetArraysCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>&, const std::vector<TBlob>&) {
  for (const TBlob& b : in) std::memset(b.dptr_, 0, b.Size() * DTypeSize(b.type_flag_));
}

bool KnownShapes(const NodeAttrs&, std::vector<TShape>* in, std::vector<TShape>*) {
  for (const TShape& s : *in) {
    if (!s.IsKnown()) return false;
  }
  return true;
}

bool KnownTypes(const NodeAttrs&, std::vector<int>* in, std::vector<int>*) {
  for (int t : *in) {
    if (t == -1) return false;
  }
  return true;
}

// ---------------------------------------------------------------- registration
const bool kRegistered [[maybe_unused]] = [] {
  MultiOpSpec sum_sq;
  sum_sq.name = "multi_sum_sq";
  sum_sq.doc = "Compute the sums of squares of multiple arrays: a float32 array of "
               "num_arrays values.";
  sum_sq.data_doc = "Arrays";
  sum_sq.group = {"array_"};
  sum_sq.count = NumArrays<MultiSumSqParam>;
  sum_sq.shape = MultiSumSqShape;
  sum_sq.type = SharedRealInFloatOut;
  sum_sq.compute = MultiSumSqCompute;
  sum_sq.num_outputs = 1;
  RegisterMulti<MultiSumSqParam>(sum_sq);

  MultiOpSpec all_finite = sum_sq;
  all_finite.name = "multi_all_finite";
  all_finite.doc = "Check if all the float numbers in all the arrays are finite (used for AMP): "
                   "an array (1,) holding 1 if so, else 0.";
  all_finite.count = NumArrays<MultiAllFiniteParam>;
  all_finite.shape = FlagShape;
  all_finite.type = RealInFloatOut;
  all_finite.compute = AllFiniteCompute<MultiAllFiniteParam>;
  RegisterMulti<MultiAllFiniteParam>(all_finite);

  MultiOpSpec reset = sum_sq;
  reset.name = "reset_arrays";
  reset.doc = "Set to zero multiple arrays, in place (no outputs).";
  reset.mutated = {0};
  reset.count = NumArrays<ResetArraysParam>;
  reset.shape = KnownShapes;
  reset.type = KnownTypes;
  reset.compute = ResetArraysCompute;
  reset.num_outputs = 0;
  RegisterMulti<ResetArraysParam>(reset);

  nnvm::Op::Register("all_finite")
      .describe("Check if all the float numbers in the array are finite (used for AMP): an "
                "array (1,) holding 1 if so, else 0.")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .set_attr_parser(ParamParser<AllFiniteParam>)
      .add_argument("data", "NDArray", "Array")
      .add_arguments(AllFiniteParam::__FIELDS__())
      .set_attr<FListInputNames>("FListInputNames", InputNames({"data"}))
      .set_attr<FInferShape>("FInferShape", FlagShape)
      .set_attr<FInferType>("FInferType", RealInFloatOut)
      .set_attr<FCompute>("FCompute<cpu>", AllFiniteCompute<AllFiniteParam>);

  RegisterUpdate<LARSParam>({"multi_lars",
                             "Compute the LARS coefficients of multiple weights and grads from "
                             "their sums of square:\n\n"
                             "    lr = lrs * eta * w_norm / (g_norm * rescale_grad + wds * "
                             "w_norm + eps)\n\n"
                             "where w_norm = sqrt(weights_sum_sq), g_norm = "
                             "sqrt(grads_sum_sq); lrs where either norm is 0. float32 only.",
                             {"lrs", "weights_sum_sq", "grads_sum_sq", "wds"}, {}, nullptr,
                             Float32Only, MultiLarsCompute});
  return true;
}();

}  // namespace
}  // namespace update
}  // namespace op
}  // namespace mxnet
