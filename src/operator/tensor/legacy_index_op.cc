// MXNet 1.x's legacy row-element operators: choose_element_0index, fill_element_0index and
// _onehot_encode (behind mx.nd.onehot_encode). Each works on a 2-D array with one index per row.
#include "operator/tensor/index_blocks.h"
#include "operator/tensor/matrix_op_common.h"

namespace mxnet {
namespace op {
namespace {

// The 2-D array argument `arg` (input `pos`) and the 1-D index argument must agree on rows.
void CheckRowIndex(const NodeAttrs& attrs, const TShape& mat, const char* mat_name,
                   TShape* index) {
  if (mat.ndim() != 2) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument " << mat_name
               << " expected a 2-D array, given shape " << mat;
  }
  AssignShape(attrs, "rhs", index, TShape({mat[0]}));
}

// Flat offsets of (i, index[i]) in a rows x cols matrix; an index outside [0, cols) raises.
std::vector<int64_t> RowElementOffsets(const NodeAttrs& attrs, const TBlob& index, int64_t cols) {
  std::vector<int64_t> off = ReadIndices(index);
  for (size_t i = 0; i < off.size(); ++i) {
    if (off[i] < 0 || off[i] >= cols) {
      LOG(FATAL) << "Operator " << attrs.op->name << ": argument rhs has index " << off[i]
                 << " at row " << i << ", expected in [0, " << cols << ")";
    }
    off[i] += static_cast<int64_t>(i) * cols;
  }
  return off;
}

// ================================================================ choose_element_0index
bool ChooseShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[0].IsKnown()) return false;
  CheckRowIndex(attrs, (*in)[0], "lhs", &(*in)[1]);
  AssignShape(attrs, "output", &(*out)[0], TShape({(*in)[0][0]}));
  return true;
}

void ChooseCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  std::vector<int64_t> off = RowElementOffsets(attrs, in[1], in[0].shape_[1]);
  GatherBlocks(out[0].type_flag_, in[0].dptr_, off, 1, out[0].dptr_, req[0]);
}

NNVM_REGISTER_OP(choose_element_0index)
    .describe("Legacy: out[i] = lhs[i, rhs[i]] for a 2-D lhs and a 1-D index rhs with one "
              "entry per row (use pick in new code).")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("lhs", "NDArray-or-Symbol", "Left operand to the function.")
    .add_argument("rhs", "NDArray-or-Symbol", "Right operand to the function.")
    .set_attr<FListInputNames>("FListInputNames", InputNames({"lhs", "rhs"}))
    .set_attr<FInferShape>("FInferShape", ChooseShape)
    .set_attr<FInferType>("FInferType", FirstInputType)
    .set_attr<FCompute>("FCompute<cpu>", ChooseCompute);

// ================================================================ fill_element_0index
bool FillShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[0].IsKnown()) return false;
  CheckRowIndex(attrs, (*in)[0], "lhs", &(*in)[2]);
  AssignShape(attrs, "mhs", &(*in)[1], TShape({(*in)[0][0]}));
  AssignShape(attrs, "output", &(*out)[0], (*in)[0]);
  return true;
}

bool FillType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, "output", &(*out)[0], (*in)[0]);
  AssignType(attrs, "mhs", &(*in)[1], (*out)[0]);
  return (*out)[0] >= 0 && (*in)[2] >= 0;
}

void FillCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  std::vector<int64_t> off = RowElementOffsets(attrs, in[2], in[0].shape_[1]);
  const int dtype = out[0].type_flag_;
  if (out[0].dptr_ != in[0].dptr_) {
    CopyElements(dtype, in[0].dptr_, out[0].dptr_, out[0].Size(), kWriteTo);
  }
  ScatterBlocks<true>(dtype, in[1].dptr_, off, 1, out[0].dptr_, true);
}

NNVM_REGISTER_OP(fill_element_0index)
    .describe("Legacy: a copy of the 2-D lhs with out[i, rhs[i]] = mhs[i] (one index and one "
              "value per row).")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .add_argument("lhs", "NDArray-or-Symbol", "Left operand to the function.")
    .add_argument("mhs", "NDArray-or-Symbol", "Middle operand to the function.")
    .add_argument("rhs", "NDArray-or-Symbol", "Right operand to the function.")
    .set_attr<FListInputNames>("FListInputNames", InputNames({"lhs", "mhs", "rhs"}))
    .set_attr<FInferShape>("FInferShape", FillShape)
    .set_attr<FInferType>("FInferType", FillType)
    .set_attr<FCompute>("FCompute<cpu>", FillCompute);

// ================================================================ _onehot_encode
// _onehot_encode(index, like): zeros shaped like the 2-D `like` with ones at (i, index[i]);
// mx.nd.onehot_encode(indices, out) passes out as both `like` and the out= array.
bool OneHotEncodeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[1].IsKnown()) return false;
  CheckRowIndex(attrs, (*in)[1], "rhs", &(*in)[0]);
  AssignShape(attrs, "output", &(*out)[0], (*in)[1]);
  return true;
}

bool OneHotEncodeType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, "output", &(*out)[0], (*in)[1]);
  return (*out)[0] >= 0 && (*in)[0] >= 0;
}

void OneHotEncodeCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  std::vector<int64_t> off = RowElementOffsets(attrs, in[0], out[0].shape_[1]);
  const int dtype = out[0].type_flag_;
  FillElements(dtype, 0, out[0].dptr_, out[0].Size(), kWriteTo);
  MXNET_TYPE_SWITCH(dtype, DType, {
    DType* o = out[0].dptr<DType>();
    const DType one = ScalarAs<DType>(1.0);
    for (int64_t k : off) o[k] = one;
  });
}

NNVM_REGISTER_OP(_onehot_encode)
    .describe("Legacy: zeros shaped like the 2-D rhs with ones at (i, lhs[i]).")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("lhs", "NDArray-or-Symbol", "Left operand to the function.")
    .add_argument("rhs", "NDArray-or-Symbol", "Right operand to the function.")
    .set_attr<FListInputNames>("FListInputNames", InputNames({"lhs", "rhs"}))
    .set_attr<FInferShape>("FInferShape", OneHotEncodeShape)
    .set_attr<FInferType>("FInferType", OneHotEncodeType)
    .set_attr<FCompute>("FCompute<cpu>", OneHotEncodeCompute);

}  // namespace
}  // namespace op
}  // namespace mxnet
