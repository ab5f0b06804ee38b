// _contrib_allclose: 1 (uint8 scalar) when every element pair of two arrays is close,
// |a - b| <= atol + rtol * |b|, NaNs equal when equal_nan; else 0.
#include <cmath>
#include <vector>

#include "operator/nn/float_op_helpers.h"

namespace mxnet {
namespace op {

struct AllCloseParam : public dmlc::Parameter<AllCloseParam> {
  float rtol, atol;
  bool equal_nan;
  DMLC_DECLARE_PARAMETER(AllCloseParam) {
    DMLC_DECLARE_FIELD(rtol).set_default(1e-05).describe("Relative tolerance.");
    DMLC_DECLARE_FIELD(atol).set_default(1e-08).describe("Absolute tolerance.");
    DMLC_DECLARE_FIELD(equal_nan).set_default(true).describe(
        "Whether to compare NaN's as equal. If True, NaN's in A will be considered equal to "
        "NaN's in B in the output array.");
  }
};
DMLC_REGISTER_PARAMETER(AllCloseParam);

namespace {

bool AllCloseShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  AssignShape(attrs, "output", &(*out)[0], TShape(0));
  if (!(*in)[0].IsKnown() || !(*in)[1].IsKnown()) return false;
  CHECK((*in)[0] == (*in)[1]) << "Operator " << attrs.op->name << ": inputs a and b must have "
                              << "one shape, given " << (*in)[0] << " and " << (*in)[1];
  return true;
}

bool AllCloseType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const int t = (*in)[0] >= 0 ? (*in)[0] : (*in)[1];
  if (t >= 0) {
    AssignInputType(attrs, 0, &(*in)[0], t);
    AssignInputType(attrs, 1, &(*in)[1], t);
  }
  AssignType(attrs, "output", &(*out)[0], kUint8);
  return t >= 0;
}

void AllCloseForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const AllCloseParam& p = Param<AllCloseParam>(attrs);
  bool close = true;
  MXNET_NUMERIC_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* a = in[0].dptr<DType>();
    const DType* b = in[1].dptr<DType>();
    for (size_t i = 0, n = in[0].Size(); i < n && close; ++i) {
      const double x = static_cast<double>(a[i]), y = static_cast<double>(b[i]);
      if (std::isnan(x) || std::isnan(y)) {
        close = p.equal_nan && std::isnan(x) && std::isnan(y);
      } else {
        close = x == y || std::fabs(x - y) <= p.atol + p.rtol * std::fabs(y);
      }
    }
  });
  out[0].dptr<uint8_t>()[0] = close ? 1 : 0;
}

}  // namespace

NNVM_REGISTER_OP(_contrib_allclose)
    .describe(R"doc(Whether two arrays are element-wise equal within a tolerance, as
numpy.allclose: every pair satisfies ``|a - b| <= atol + rtol * |b|`` (defaults rtol=1e-05,
atol=1e-08); with ``equal_nan`` (the default here) NaNs in the same places count as equal.
``a`` and ``b`` share shape and dtype. The output is a uint8 scalar: 1 when all are close,
else 0.

Example::

  allclose([1e10, 1e-7], [1.00001e10, 1e-8]) = 0
  allclose([1e10, 1e-8], [1.00001e10, 1e-9]) = 1
)doc")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<AllCloseParam>)
    .add_argument("a", "NDArray-or-Symbol", "Input array a")
    .add_argument("b", "NDArray-or-Symbol", "Input array b")
    .add_arguments(AllCloseParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"a", "b"}))
    .set_attr<FInferShape>("FInferShape", AllCloseShape)
    .set_attr<FInferType>("FInferType", AllCloseType)
    .set_attr<FCompute>("FCompute<cpu>", AllCloseForward)
    .set_attr<TIsNonDifferentiable>("TIsNonDifferentiable", true);

}  // namespace op
}  // namespace mxnet
