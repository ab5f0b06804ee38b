// khatri_rao: the column-wise Khatri-Rao product of n matrices (M_i, N) -> (M_1 ... M_n, N),
// and its backward (MXNet 1.9.1 has none; here each input gets its gradient).
#include <string>
#include <vector>

#include "operator/nn/float_op_helpers.h"

namespace mxnet {
namespace op {

struct KhatriRaoParam : public dmlc::Parameter<KhatriRaoParam> {
  int num_args;
  DMLC_DECLARE_PARAMETER(KhatriRaoParam) {
    DMLC_DECLARE_FIELD(num_args).set_lower_bound(1).describe("Number of input matrices.");
  }
};
DMLC_REGISTER_PARAMETER(KhatriRaoParam);

namespace {

size_t NumArgs(const NodeAttrs& attrs) {
  return static_cast<size_t>(Param<KhatriRaoParam>(attrs).num_args);
}

std::vector<std::string> ArgNames(const NodeAttrs& attrs) {
  std::vector<std::string> names;
  for (size_t i = 0; i < NumArgs(attrs); ++i) names.push_back("arg" + std::to_string(i));
  return names;
}

// Every input (M_i, N) with one N; the output (prod M_i, N).
bool KhatriRaoShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  index_t rows = 1, cols = -1;
  for (size_t i = 0; i < in->size(); ++i) {
    const TShape& s = (*in)[i];
    if (!s.IsKnown()) return false;
    CHECK_EQ(s.ndim(), 2) << "Operator " << attrs.op->name << ": input " << InputName(attrs, i)
                          << " expected a matrix (2 dims), given shape " << s;
    if (cols < 0) cols = s[1];
    CHECK_EQ(s[1], cols) << "Operator " << attrs.op->name << ": every input must have the "
                         << "columns of arg0 (" << cols << "), given " << InputName(attrs, i)
                         << " of shape " << s;
    rows *= s[0];
  }
  AssignShape(attrs, "output", &(*out)[0], TShape({rows, cols}));
  return true;
}

// Row r of the output is the tuple (r_0, ..., r_{n-1}) with r_0 most significant.
void SplitRow(index_t r, const std::vector<index_t>& dims, std::vector<index_t>* idx) {
  for (size_t i = dims.size(); i-- > 0;) {
    (*idx)[i] = r % dims[i];
    r /= dims[i];
  }
}

template <typename DType>
void ProductForward(const std::vector<TBlob>& in, const TBlob& out, OpReqType req) {
  using C = FloatComputeOf<DType>;
  const size_t n = in.size();
  const index_t cols = out.shape_[1], rows = out.shape_[0];
  std::vector<index_t> dims(n);
  for (size_t i = 0; i < n; ++i) dims[i] = in[i].shape_[0];
  LoopMaybeParallel(rows * cols * static_cast<index_t>(n) >= ParallelGrain(), rows,
                    [&](index_t r) {
    std::vector<index_t> idx(n);
    SplitRow(r, dims, &idx);
    for (index_t k = 0; k < cols; ++k) {
      C v = 1;
      for (size_t i = 0; i < n; ++i) v *= C(in[i].dptr<DType>()[idx[i] * cols + k]);
      Assign(out.dptr<DType>() + r * cols + k, req, DType(v));
    }
  });
}

// grad_i[r_i, k] = sum over output rows with that r_i of ograd[row, k] * prod_{j != i} A_j.
template <typename DType>
void ProductBackward(const TBlob& ograd, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& grads) {
  using C = FloatComputeOf<DType>;
  const size_t n = in.size();
  const index_t cols = ograd.shape_[1], rows = ograd.shape_[0];
  std::vector<index_t> dims(n);
  for (size_t i = 0; i < n; ++i) dims[i] = in[i].shape_[0];
  for (size_t i = 0; i < n; ++i) {
    if (req[i] == kNullOp) continue;
    std::vector<C> acc(static_cast<size_t>(dims[i] * cols), C(0));
    std::vector<index_t> idx(n);
    for (index_t r = 0; r < rows; ++r) {
      SplitRow(r, dims, &idx);
      for (index_t k = 0; k < cols; ++k) {
        C v = C(ograd.dptr<DType>()[r * cols + k]);
        for (size_t j = 0; j < n; ++j) {
          if (j != i) v *= C(in[j].dptr<DType>()[idx[j] * cols + k]);
        }
        acc[idx[i] * cols + k] += v;
      }
    }
    DType* g = grads[i].dptr<DType>();
    for (size_t e = 0; e < acc.size(); ++e) Assign(g + e, req[i], DType(acc[e]));
  }
}

void KhatriRaoForward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  MXNET_REAL_TYPE_SWITCH(out[0].type_flag_, DType, { ProductForward<DType>(in, out[0], req[0]); });
}

// _backward_khatri_rao: inputs (ograd, arg0, ..., arg{n-1}); outputs the n gradients.
void KhatriRaoBackward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const std::vector<TBlob> args(in.begin() + 1, in.end());
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType,
                         { ProductBackward<DType>(in[0], args, req, out); });
}

bool KhatriRaoBackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                            std::vector<TShape>* out) {
  bool known = true;
  for (size_t i = 0; i < out->size(); ++i) {
    AssignShape(attrs, "gradient of arg" + std::to_string(i), &(*out)[i], (*in)[i + 1]);
    known = known && (*out)[i].IsKnown();
  }
  return known;
}

}  // namespace

NNVM_REGISTER_OP(khatri_rao)
    .describe(R"doc(Computes the Khatri-Rao product of the input matrices.

Given n input matrices ``A_i`` of shape *(M_i, N)*, the column-wise Khatri-Rao product is the
*(M_1 * ... * M_n, N)* matrix whose k-th column is the outer product of the k-th columns of
``A_1``, ..., ``A_n``: row ``(r_1, ..., r_n)`` (``r_1`` most significant) of column k is
``A_1[r_1, k] * ... * A_n[r_n, k]``.

Example::

  A = [[1, -1], [2, -3]]
  B = [[1, 4], [2, 5], [3, 6]]
  khatri_rao(A, B) = [[1, -4], [2, -5], [3, -6], [2, -12], [4, -15], [6, -18]]

Each input gets its gradient (MXNet 1.9.1 defines none).
)doc")
    .set_num_inputs([](const NodeAttrs& attrs) { return static_cast<uint32_t>(NumArgs(attrs)); })
    .set_num_outputs(1)
    .set_key_var_num_args("num_args")
    .set_attr_parser(ParamParser<KhatriRaoParam>)
    .add_argument("args", "NDArray-or-Symbol[]", "Positional input matrices")
    .add_arguments(KhatriRaoParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", ArgNames)
    .set_attr<FInferShape>("FInferShape", KhatriRaoShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", KhatriRaoForward)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return GradOfEachInput("_backward_khatri_rao", n, og);
    });

NNVM_REGISTER_OP(_backward_khatri_rao)
    .describe("Gradients of khatri_rao with respect to each input matrix.")
    .set_num_inputs([](const NodeAttrs& attrs) {
      return static_cast<uint32_t>(NumArgs(attrs) + 1);
    })
    .set_num_outputs([](const NodeAttrs& attrs) { return static_cast<uint32_t>(NumArgs(attrs)); })
    .set_attr_parser(ParamParser<KhatriRaoParam>)
    .add_arguments(KhatriRaoParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", KhatriRaoBackwardShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", KhatriRaoBackward);

}  // namespace op
}  // namespace mxnet
