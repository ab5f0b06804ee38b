// N-dimensional indexing: gather_nd, scatter_nd, _scatter_set_nd (advanced-index
// __setitem__), and the scatter-add adjoints _gather_nd_grad and _backward_gather_nd.
#include <algorithm>

#include "operator/tensor/index_blocks.h"
#include "operator/tensor/matrix_op_common.h"

namespace mxnet {
namespace op {
namespace {

// ================================================================ gather_nd / scatter_nd
struct ScatterNDParam : public dmlc::Parameter<ScatterNDParam> {
  IntTuple shape;
  DMLC_DECLARE_PARAMETER(ScatterNDParam) {
    DMLC_DECLARE_FIELD(shape).describe("Shape of output.");
  }
};
DMLC_REGISTER_PARAMETER(ScatterNDParam);

// The gathered part of `full` for indices of shape (M, Y...): shape Y + full.shape[M:].
TShape GatherNDOf(const NodeAttrs& attrs, const TShape& full, const TShape& idx) {
  if (idx.ndim() < 2) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument indices must have at least 2 "
               << "dimensions (M, ...), given shape " << idx;
  }
  if (idx[0] > full.ndim()) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": indices of shape " << idx << " index "
               << idx[0] << " dimensions, more than the " << full.ndim() << " of " << full;
  }
  std::vector<dim_t> o(idx.begin() + 1, idx.end());
  o.insert(o.end(), full.begin() + idx[0], full.end());
  return ShapeOf(o);
}

// Offsets of the blocks addressed by indices (M, N) into `full`; negative indices count from
// the end, anything outside [-size, size) raises.
std::vector<int64_t> GatherNDOffsets(const NodeAttrs& attrs, const TShape& full, const TBlob& idx,
                                     index_t* block) {
  const int m = idx.shape_[0];
  const index_t n = idx.shape_.ProdShape(1, idx.ndim());
  *block = full.ProdShape(m, full.ndim());
  std::vector<int64_t> v = ReadIndices(idx);
  std::vector<int64_t> off(n, 0);
  index_t stride = *block;
  for (int j = m - 1; j >= 0; --j) {
    const int64_t size = full[j];
    for (index_t i = 0; i < n; ++i) {
      int64_t k = v[j * n + i];
      if (k < -size || k >= size) {
        LOG(FATAL) << "Operator " << attrs.op->name << ": IndexError: index " << k
                   << " is out of bounds for axis " << j << " with size " << size;
      }
      off[i] += (k < 0 ? k + size : k) * stride;
    }
    stride *= size;
  }
  return off;
}

bool GatherNDShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[0].IsKnown() || !(*in)[1].IsKnown()) return false;
  AssignShape(attrs, "output", &(*out)[0], GatherNDOf(attrs, (*in)[0], (*in)[1]));
  return true;
}

void GatherNDCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  index_t block;
  std::vector<int64_t> off = GatherNDOffsets(attrs, in[0].shape_, in[1], &block);
  GatherBlocks(out[0].type_flag_, in[0].dptr_, off, block, out[0].dptr_, req[0]);
}

// Scatters (kSet: assigns, else adds) data blocks into out at the indexed places.
template <bool kSet>
void ScatterND(const NodeAttrs& attrs, const TBlob& data, const TBlob& idx, const TBlob& out) {
  index_t block;
  std::vector<int64_t> off = GatherNDOffsets(attrs, out.shape_, idx, &block);
  ScatterBlocks<kSet>(out.type_flag_, data.dptr_, off, block, out.dptr_, false);
}

// Output of a scatter into `full`: data must be shaped like gather_nd(full, indices).
bool ScatterNDShapeOf(const NodeAttrs& attrs, TShape* data, const TShape& idx, const TShape& full,
                      const char* data_name) {
  if (!idx.IsKnown()) return false;
  TShape want = GatherNDOf(attrs, full, idx);
  if (data->IsKnown() && *data != want) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": invalid combination of " << data_name
               << " " << *data << ", indices " << idx << " and output shape " << full
               << "; expected " << data_name << " of shape " << want;
  }
  *data = want;
  return true;
}

TShape ParamShape(const NodeAttrs& attrs) {
  const IntTuple& s = Param<ScatterNDParam>(attrs).shape;
  return ShapeOf(std::vector<dim_t>(s.begin(), s.end()));
}

bool ScatterNDShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  TShape full = ParamShape(attrs);
  AssignShape(attrs, "output", &(*out)[0], full);
  return ScatterNDShapeOf(attrs, &(*in)[0], (*in)[1], full, "data");
}

void ScatterNDCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const int t = out[0].type_flag_;
  if (req[0] == kAddTo) {
    void* tmp = ctx.RequestTempSpace(out[0].Size() * DTypeSize(t));
    FillElements(t, 0, tmp, out[0].Size(), kWriteTo);
    TBlob tb(tmp, out[0].shape_, t, out[0].ctx);
    ScatterND<true>(attrs, in[0], in[1], tb);
    CopyElements(t, tmp, out[0].dptr_, out[0].Size(), kAddTo);
    return;
  }
  FillElements(t, 0, out[0].dptr_, out[0].Size(), kWriteTo);
  ScatterND<true>(attrs, in[0], in[1], out[0]);
}

// _backward_gather_nd / _gather_nd_grad: scatter-add into zeros of the output shape.
void ScatterAddCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  if (req[0] != kAddTo) FillElements(out[0].type_flag_, 0, out[0].dptr_, out[0].Size(), kWriteTo);
  ScatterND<false>(attrs, in[0], in[1], out[0]);
}

bool GatherNDGradShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& like = (*in)[2];
  if (!like.IsKnown()) return false;
  AssignShape(attrs, "output", &(*out)[0], like);
  return ScatterNDShapeOf(attrs, &(*in)[0], (*in)[1], like, "ograd");
}

// Output dtype follows data; the indices may have any (known) dtype.
bool DataTypeOut(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, "output", &(*out)[0], (*in)[0]);
  AssignInputType(attrs, 0, &(*in)[0], (*out)[0]);
  return (*out)[0] >= 0 && (*in)[1] >= 0;
}

std::vector<NodeEntry> ScatterAddGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  std::vector<NodeEntry> ret{GradNode(n, "gather_nd", {og[0], n->inputs[1]})};
  for (size_t i = 1; i < n->inputs.size(); ++i) ret.push_back(ZeroGradOf(n, i));
  return ret;
}

// _scatter_set_nd(lhs, rhs, indices): lhs with the indexed places set to rhs.
bool ScatterSetNDShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  TShape full = ParamShape(attrs);
  AssignShape(attrs, "lhs", &(*in)[0], full);
  AssignShape(attrs, "output", &(*out)[0], full);
  return ScatterNDShapeOf(attrs, &(*in)[1], (*in)[2], full, "rhs");
}

bool ScatterSetNDType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  int t = -1;
  AssignType(attrs, "lhs", &t, (*in)[0]);
  AssignType(attrs, "rhs", &t, (*in)[1]);
  AssignType(attrs, "output", &t, (*out)[0]);
  (*in)[0] = (*in)[1] = (*out)[0] = t;
  return t >= 0 && (*in)[2] >= 0;
}

void ScatterSetNDCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const int t = out[0].type_flag_;
  if (req[0] == kAddTo) {
    void* tmp = ctx.RequestTempSpace(out[0].Size() * DTypeSize(t));
    CopyElements(t, in[0].dptr_, tmp, out[0].Size(), kWriteTo);
    ScatterND<true>(attrs, in[1], in[2], TBlob(tmp, out[0].shape_, t, out[0].ctx));
    CopyElements(t, tmp, out[0].dptr_, out[0].Size(), kAddTo);
    return;
  }
  CopyElements(t, in[0].dptr_, out[0].dptr_, out[0].Size(), kWriteTo);  // no-op in place
  ScatterND<true>(attrs, in[1], in[2], out[0]);
}

std::vector<NodeEntry> ScatterSetNDGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  NodeEntry zeros_rhs = ZeroGradOf(n, 1);
  return {GradNode(n, "_scatter_set_nd", {og[0], zeros_rhs, n->inputs[2]}, n->attrs.dict),
          GradNode(n, "gather_nd", {og[0], n->inputs[2]}), ZeroGradOf(n, 2)};
}

std::vector<std::string> DataIndices(const NodeAttrs&) { return {"data", "indices"}; }

NNVM_REGISTER_OP(gather_nd)
    .describe("Gather elements or slices from data into an array of shape (Y_0, ..., Y_{K-1}, "
              "X_M, ..., X_{N-1}) using indices of shape (M, Y_0, ..., Y_{K-1}); negative "
              "indices count from the end.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "data")
    .add_argument("indices", "NDArray-or-Symbol", "indices")
    .set_attr<FListInputNames>("FListInputNames", DataIndices)
    .set_attr<FInferShape>("FInferShape", GatherNDShape)
    .set_attr<FInferType>("FInferType", DataTypeOut)
    .set_attr<FCompute>("FCompute<cpu>", GatherNDCompute)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{
          GradNode(n, "_gather_nd_grad", {og[0], n->inputs[1], n->inputs[0]}), ZeroGradOf(n, 1)};
    });

NNVM_REGISTER_OP(_gather_nd_grad)
    .describe("Internal: gradient of gather_nd (scatter-adds ograd into zeros shaped like "
              "`like`).")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of gather_nd's output.")
    .add_argument("indices", "NDArray-or-Symbol", "gather_nd's indices.")
    .add_argument("like", "NDArray-or-Symbol", "gather_nd's data (for its shape).")
    .set_attr<FListInputNames>("FListInputNames", InputNames({"ograd", "indices", "like"}))
    .set_attr<FInferShape>("FInferShape", GatherNDGradShape)
    .set_attr<FInferType>("FInferType", DataTypeOut)
    .set_attr<FCompute>("FCompute<cpu>", ScatterAddCompute)
    .set_attr<FGradient>("FGradient", ScatterAddGrad);

NNVM_REGISTER_OP(_backward_gather_nd)
    .describe("Accumulates data into an array of the given shape at the indexed places "
              "(scatter_nd that sums repeated indices).")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<ScatterNDParam>)
    .add_argument("data", "NDArray-or-Symbol", "data")
    .add_argument("indices", "NDArray-or-Symbol", "indices")
    .add_arguments(ScatterNDParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", DataIndices)
    .set_attr<FInferShape>("FInferShape", ScatterNDShape)
    .set_attr<FInferType>("FInferType", DataTypeOut)
    .set_attr<FCompute>("FCompute<cpu>", ScatterAddCompute)
    .set_attr<FGradient>("FGradient", ScatterAddGrad);

NNVM_REGISTER_OP(scatter_nd)
    .describe("Scatters data into a new tensor of the given shape according to indices (the "
              "inverse of gather_nd); places not indexed are 0, and for repeated indices the "
              "last write wins.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<ScatterNDParam>)
    .add_argument("data", "NDArray-or-Symbol", "data")
    .add_argument("indices", "NDArray-or-Symbol", "indices")
    .add_arguments(ScatterNDParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", DataIndices)
    .set_attr<FInferShape>("FInferShape", ScatterNDShape)
    .set_attr<FInferType>("FInferType", DataTypeOut)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", ScatterNDCompute)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{GradNode(n, "gather_nd", {og[0], n->inputs[1]}),
                                    ZeroGradOf(n, 1)};
    });

NNVM_REGISTER_OP(_scatter_set_nd)
    .describe("Sets the places of lhs addressed by indices to rhs (advanced-index __setitem__).")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<ScatterNDParam>)
    .add_argument("lhs", "NDArray-or-Symbol", "source input")
    .add_argument("rhs", "NDArray-or-Symbol", "value to assign")
    .add_argument("indices", "NDArray-or-Symbol", "indices")
    .add_arguments(ScatterNDParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"lhs", "rhs", "indices"}))
    .set_attr<FInferShape>("FInferShape", ScatterSetNDShape)
    .set_attr<FInferType>("FInferType", ScatterSetNDType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirst)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", ScatterSetNDCompute)
    .set_attr<FGradient>("FGradient", ScatterSetNDGrad);

}  // namespace
}  // namespace op
}  // namespace mxnet
