// _contrib_index_copy: a copy of old_tensor whose rows index_vector[i] are new_tensor[i]; its
// backward sends the output gradient of those rows to new_tensor and of the others to
// old_tensor.
#include <algorithm>
#include <string>
#include <vector>

#include "operator/nn/float_op_helpers.h"

namespace mxnet {
namespace op {

namespace {

// old (N, ...), index (M,), new (M, ...) with the trailing shape of old.
bool IndexCopyShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& old_t = (*in)[0];
  const TShape& idx = (*in)[1];
  const TShape& new_t = (*in)[2];
  if (!old_t.IsKnown() || !idx.IsKnown() || !new_t.IsKnown()) return false;
  const std::string& op = attrs.op->name;
  CHECK_EQ(idx.ndim(), 1) << "Operator " << op << ": input index_vector expected 1 dim, given "
                          << "shape " << idx;
  bool fits = old_t.ndim() >= 1 && new_t.ndim() == old_t.ndim() && new_t[0] == idx[0];
  for (int i = 1; fits && i < old_t.ndim(); ++i) fits = new_t[i] == old_t[i];
  CHECK(fits) << "Operator " << op << ": input new_tensor expected one row (shaped like the "
              << "rows of old_tensor " << old_t << ") per index (" << idx[0] << "), given shape "
              << new_t;
  AssignShape(attrs, "output", &(*out)[0], old_t);
  return true;
}

// old and new share the output's dtype; the index may be any numeric dtype.
bool IndexCopyType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const int t = (*in)[0] >= 0 ? (*in)[0] : (*in)[2];
  if (t < 0) return false;
  AssignInputType(attrs, 0, &(*in)[0], t);
  AssignInputType(attrs, 2, &(*in)[2], t);
  AssignType(attrs, "output", &(*out)[0], t);
  return (*in)[1] >= 0;
}

// The row of old_tensor each index names, checked against N.
std::vector<index_t> Rows(const std::string& op, const TBlob& idx, index_t n) {
  std::vector<index_t> rows(idx.Size());
  MXNET_TYPE_SWITCH(idx.type_flag_, IType, {
    const IType* p = idx.dptr<IType>();
    for (size_t i = 0; i < rows.size(); ++i) {
      rows[i] = static_cast<index_t>(static_cast<double>(p[i]));
      CHECK(rows[i] >= 0 && rows[i] < n) << "Operator " << op << ": index_vector[" << i
                                         << "] = " << rows[i] << " is not a row of "
                                         << "old_tensor (" << n << " rows)";
    }
  });
  return rows;
}

void IndexCopyForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const index_t n = in[0].shape_[0], row = in[0].Size() / std::max<index_t>(1, n);
  const std::vector<index_t> rows = Rows(attrs.op->name, in[1], n);
  MXNET_NUMERIC_TYPE_SWITCH(out[0].type_flag_, DType, {
    std::vector<DType> result(in[0].dptr<DType>(), in[0].dptr<DType>() + in[0].Size());
    for (size_t i = 0; i < rows.size(); ++i) {
      std::copy(in[2].dptr<DType>() + i * row, in[2].dptr<DType>() + (i + 1) * row,
                result.begin() + rows[i] * row);
    }
    DType* o = out[0].dptr<DType>();
    for (size_t e = 0; e < result.size(); ++e) Assign(o + e, req[0], result[e]);
  });
}

// _backward_contrib_index_copy: inputs (ograd, index_vector); outputs the gradients of
// old_tensor, index_vector (zeros) and new_tensor.
void IndexCopyBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TBlob& g = in[0];
  const index_t n = g.shape_[0], row = g.Size() / std::max<index_t>(1, n);
  const std::vector<index_t> rows = Rows(attrs.op->name, in[1], n);
  MXNET_NUMERIC_TYPE_SWITCH(g.type_flag_, DType, {
    const DType* gp = g.dptr<DType>();
    if (req[0] != kNullOp) {
      std::vector<DType> d_old(gp, gp + g.Size());
      for (index_t r : rows) {
        std::fill(d_old.begin() + r * row, d_old.begin() + (r + 1) * row, DType(0));
      }
      DType* o = out[0].dptr<DType>();
      for (size_t e = 0; e < d_old.size(); ++e) Assign(o + e, req[0], d_old[e]);
    }
    if (req[2] != kNullOp) {
      DType* o = out[2].dptr<DType>();
      for (size_t i = 0; i < rows.size(); ++i) {
        for (index_t k = 0; k < row; ++k) Assign(o + i * row + k, req[2], gp[rows[i] * row + k]);
      }
    }
  });
  ZeroGradient(out[1], req[1]);
}

bool IndexCopyBackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                            std::vector<TShape>* out) {
  const TShape& g = (*in)[0];
  const TShape& idx = (*in)[1];
  if (!g.IsKnown() || !idx.IsKnown()) return false;
  TShape new_t = g;
  new_t[0] = idx[0];
  AssignShape(attrs, "old_tensor gradient", &(*out)[0], g);
  AssignShape(attrs, "index_vector gradient", &(*out)[1], idx);
  AssignShape(attrs, "new_tensor gradient", &(*out)[2], new_t);
  return true;
}

bool IndexCopyBackwardType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, "old_tensor gradient", &(*out)[0], (*in)[0]);
  AssignType(attrs, "index_vector gradient", &(*out)[1], (*in)[1]);
  AssignType(attrs, "new_tensor gradient", &(*out)[2], (*in)[0]);
  return (*in)[0] >= 0 && (*in)[1] >= 0;
}

std::vector<NodeEntry> IndexCopyGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  NodeEntry bwd = MakeNode("_backward_contrib_index_copy", GradName(n), {og[0], n->inputs[1]},
                           n->attrs.dict, &n);
  return {NodeEntry(bwd.node, 0, 0), NodeEntry(bwd.node, 1, 0), NodeEntry(bwd.node, 2, 0)};
}

}  // namespace

NNVM_REGISTER_OP(_contrib_index_copy)
    .add_alias("_npx_index_copy")
    .describe(R"doc(Copies the elements of a `new_tensor` into the `old_tensor`.

This operator copies the elements by selecting the indices in the order given in `index`.
The output will be a new tensor containing the rest elements of old tensor and
the copied elements of new tensor.
For example, if `index[i] == j`, then the `i` th row of `new_tensor` is copied to the
`j` th row of output.

The `index` must be a vector and it must have the same size with the `0` th dimension of
`new_tensor`. Also, the `0` th dimension of old_tensor must `>=` the `0` th dimension of
`new_tensor`, or an error will be raised.

Examples::

    x = mx.nd.zeros((5,3))
    t = mx.nd.array([[1,2,3],[4,5,6],[7,8,9]])
    index = mx.nd.array([0,4,2])

    mx.nd.contrib.index_copy(x, index, t)

    [[1. 2. 3.]
     [0. 0. 0.]
     [7. 8. 9.]
     [0. 0. 0.]
     [4. 5. 6.]]
    <NDArray 5x3 @cpu(0)>
)doc")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .add_argument("old_tensor", "NDArray-or-Symbol", "Old tensor")
    .add_argument("index_vector", "NDArray-or-Symbol", "Index vector")
    .add_argument("new_tensor", "NDArray-or-Symbol", "New tensor to be copied")
    .set_attr<FListInputNames>("FListInputNames",
                               InputNames({"old_tensor", "index_vector", "new_tensor"}))
    .set_attr<FInferShape>("FInferShape", IndexCopyShape)
    .set_attr<FInferType>("FInferType", IndexCopyType)
    .set_attr<FCompute>("FCompute<cpu>", IndexCopyForward)
    .set_attr<FGradient>("FGradient", IndexCopyGrad);

NNVM_REGISTER_OP(_backward_contrib_index_copy)
    .describe("Gradients of _contrib_index_copy.")
    .set_num_inputs(2)
    .set_num_outputs(3)
    .set_attr<FInferShape>("FInferShape", IndexCopyBackwardShape)
    .set_attr<FInferType>("FInferType", IndexCopyBackwardType)
    .set_attr<FCompute>("FCompute<cpu>", IndexCopyBackward);

}  // namespace op
}  // namespace mxnet
