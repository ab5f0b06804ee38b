// Indexing along one axis: take, batch_take, pick, one_hot, and the scatter-add adjoints
// _take_grad and _pick_grad that the gradients of take and pick use.
#include <algorithm>

#include "operator/tensor/index_blocks.h"
#include "operator/tensor/matrix_op_common.h"
#include "operator/tensor/sparse_ops.h"

namespace mxnet {
namespace op {
namespace {

// ---------------------------------------------------------------- index modes
namespace take_mode {
enum Mode { kRaise = 0, kWrap = 1, kClip = 2 };
}

/*! \brief Position k along an axis of size n for index value v, per mode. */
inline int64_t MapIndex(const NodeAttrs& attrs, int64_t v, int64_t n, int mode) {
  if (mode == take_mode::kClip) return v < 0 ? 0 : (v >= n ? n - 1 : v);
  if (mode == take_mode::kWrap) {
    int64_t k = v % n;
    return k < 0 ? k + n : k;
  }
  if (v < 0 || v >= n) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument indices contains index " << v
               << ", out of bounds for an axis of size " << n << " (mode='raise')";
  }
  return v;
}

void CheckNonEmptyAxis(const NodeAttrs& attrs, int64_t n, size_t num_indices) {
  if (n == 0 && num_indices > 0) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": cannot index into an axis of size 0";
  }
}

// ================================================================ take
struct TakeParam : public dmlc::Parameter<TakeParam> {
  int axis;
  int mode;
  DMLC_DECLARE_PARAMETER(TakeParam) {
    DMLC_DECLARE_FIELD(axis).set_default(0).describe(
        "The axis of input array to be taken.For input tensor of rank r, it could be in the "
        "range of [-r, r-1]");
    DMLC_DECLARE_FIELD(mode)
        .add_enum("raise", take_mode::kRaise)
        .add_enum("wrap", take_mode::kWrap)
        .add_enum("clip", take_mode::kClip)
        .set_default(take_mode::kClip)
        .describe("Specify how out-of-bound indices bahave. Default is \"clip\". \"clip\" means "
                  "clip to the range. So, if all indices mentioned are too large, they are "
                  "replaced by the index that addresses the last element along an axis. "
                  "\"wrap\" means to wrap around. \"raise\" means to raise an error when index "
                  "out of range.");
  }
};
DMLC_REGISTER_PARAMETER(TakeParam);

// Output of take: data.shape[:axis] + indices.shape + data.shape[axis+1:].
TShape TakeOutShape(const NodeAttrs& attrs, const TShape& d, const TShape& idx, int* axis) {
  if (d.ndim() == 0) LOG(FATAL) << "Operator " << attrs.op->name << ": argument a cannot be 0-d";
  *axis = CheckAxis(attrs, "axis", Param<TakeParam>(attrs).axis, d.ndim());
  std::vector<dim_t> o(d.begin(), d.begin() + *axis);
  o.insert(o.end(), idx.begin(), idx.end());
  o.insert(o.end(), d.begin() + *axis + 1, d.end());
  return ShapeOf(o);
}

bool TakeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[0].IsKnown() || !(*in)[1].IsKnown()) return false;
  int axis;
  AssignShape(attrs, "output", &(*out)[0], TakeOutShape(attrs, (*in)[0], (*in)[1], &axis));
  return true;
}

bool TakeType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, "output", &(*out)[0], (*in)[0]);
  AssignInputType(attrs, 0, &(*in)[0], (*out)[0]);
  return (*out)[0] >= 0 && (*in)[1] >= 0;  // the index dtype is free but must be known
}

// Offsets (into the array of shape `full`) of the blocks picked by take along axis.
std::vector<int64_t> TakeOffsets(const NodeAttrs& attrs, const TShape& full, int axis,
                                 const TBlob& idx, index_t* block) {
  const int mode = Param<TakeParam>(attrs).mode;
  const int64_t n = full[axis];
  const index_t pre = full.ProdShape(0, axis);
  *block = full.ProdShape(axis + 1, full.ndim());
  std::vector<int64_t> k = ReadIndices(idx);
  CheckNonEmptyAxis(attrs, n, k.size());
  for (int64_t& v : k) v = MapIndex(attrs, v, n, mode);
  std::vector<int64_t> off(pre * k.size());
  for (index_t p = 0; p < pre; ++p) {
    for (size_t j = 0; j < k.size(); ++j) off[p * k.size() + j] = (p * n + k[j]) * *block;
  }
  return off;
}

void TakeCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  int axis = CheckAxis(attrs, "axis", Param<TakeParam>(attrs).axis, in[0].ndim());
  index_t block;
  std::vector<int64_t> off = TakeOffsets(attrs, in[0].shape_, axis, in[1], &block);
  GatherBlocks(out[0].type_flag_, in[0].dptr_, off, block, out[0].dptr_, req[0]);
}

// take(csr, indices, axis=0) with mode 'clip' or 'wrap' gives a csr array (MXNet 1.9.1);
// other sparse cases fall back to the dense kernel.
bool TakeStorage(const NodeAttrs& attrs, int, DispatchMode* mode, std::vector<int>* in,
                 std::vector<int>* out) {
  const TakeParam& p = Param<TakeParam>(attrs);
  if ((*in)[0] == kDefaultStorage && (*in)[1] == kDefaultStorage) {
    (*out)[0] = kDefaultStorage;
    *mode = DispatchMode::kFCompute;
  } else if ((*in)[0] == kCSRStorage && (*in)[1] == kDefaultStorage && p.axis == 0 &&
             p.mode != take_mode::kRaise) {
    (*out)[0] = kCSRStorage;
    *mode = DispatchMode::kFComputeEx;
  } else {
    *mode = DispatchMode::kFComputeFallback;
  }
  return true;
}

void TakeCsrCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<NDArray>& in,
                    const std::vector<OpReqType>& req, const std::vector<NDArray>& outs) {
  if (req[0] == kNullOp) return;
  CHECK_NE(req[0], kAddTo) << "Operator " << attrs.op->name
                           << ": req 'add' is not supported for a csr output";
  std::vector<int64_t> rows = ReadIndices(in[1].data());
  const int64_t n = in[0].shape()[0];
  CheckNonEmptyAxis(attrs, n, rows.size());
  for (int64_t& r : rows) r = MapIndex(attrs, r, n, Param<TakeParam>(attrs).mode);
  NDArray out = DistinctOutput(outs[0], in);
  TakeCsrRows(in[0], rows, out);
  if (out.chunk_id() != outs[0].chunk_id()) CastStorageSync(out, outs[0]);
}

// _take_grad(ograd, indices, like): zeros shaped like `like`, each taken block summed back.
bool TakeGradShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& like = (*in)[2];
  if (!like.IsKnown() || !(*in)[1].IsKnown()) return false;
  int axis;
  AssignShape(attrs, "ograd", &(*in)[0], TakeOutShape(attrs, like, (*in)[1], &axis));
  AssignShape(attrs, "output", &(*out)[0], like);
  return true;
}

void TakeGradCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const TShape& s = out[0].shape_;
  int axis = CheckAxis(attrs, "axis", Param<TakeParam>(attrs).axis, s.ndim());
  index_t block;
  std::vector<int64_t> off = TakeOffsets(attrs, s, axis, in[1], &block);
  if (req[0] != kAddTo) FillElements(out[0].type_flag_, 0, out[0].dptr_, out[0].Size(), kWriteTo);
  ScatterBlocks<false>(out[0].type_flag_, in[0].dptr_, off, block, out[0].dptr_, false);
}

std::unordered_map<std::string, std::string> TakeDict(const NodeAttrs& attrs) {
  std::unordered_map<std::string, std::string> d;
  for (const char* k : {"axis", "mode"}) {
    auto it = attrs.dict.find(k);
    if (it != attrs.dict.end()) d[k] = it->second;
  }
  return d;
}

NNVM_REGISTER_OP(take)
    .describe("Takes elements from an input array along the given axis: the output is "
              "a.shape[:axis] + indices.shape + a.shape[axis+1:].")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<TakeParam>)
    .add_argument("a", "NDArray-or-Symbol", "The input array.")
    .add_argument("indices", "NDArray-or-Symbol", "The indices of the values to be extracted.")
    .add_arguments(TakeParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames",
                               InputNames({"a", "indices"}))
    .set_attr<FInferShape>("FInferShape", TakeShape)
    .set_attr<FInferType>("FInferType", TakeType)
    .set_attr<FCompute>("FCompute<cpu>", TakeCompute)
    .set_attr<FInferStorageType>("FInferStorageType", TakeStorage)
    .set_attr<FComputeEx>("FComputeEx<cpu>", TakeCsrCompute)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{
          GradNode(n, "_take_grad", {og[0], n->inputs[1], n->inputs[0]}, TakeDict(n->attrs)),
          ZeroGradOf(n, 1)};
    });

NNVM_REGISTER_OP(_take_grad)
    .describe("Internal: gradient of take (scatter-adds ograd into zeros shaped like `like`).")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<TakeParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of take's output.")
    .add_argument("indices", "NDArray-or-Symbol", "take's indices.")
    .add_argument("like", "NDArray-or-Symbol", "take's input array (for its shape).")
    .add_arguments(TakeParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"ograd", "indices", "like"}))
    .set_attr<FInferShape>("FInferShape", TakeGradShape)
    .set_attr<FInferType>("FInferType", TakeType)
    .set_attr<FCompute>("FCompute<cpu>", TakeGradCompute)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{GradNode(n, "take", {og[0], n->inputs[1]}, TakeDict(n->attrs)),
                                    ZeroGradOf(n, 1), ZeroGradOf(n, 2)};
    });

// ================================================================ batch_take
bool BatchTakeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& a = (*in)[0];
  const TShape& idx = (*in)[1];
  if (!a.IsKnown() || !idx.IsKnown()) return false;
  if (a.ndim() < 2) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument a must have at least 2 "
               << "dimensions, given shape " << a;
  }
  if (a.ProdShape(0, a.ndim() - 1) != idx.Size()) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument indices of shape " << idx
               << " must have one entry per row of a " << a << " ("
               << a.ProdShape(0, a.ndim() - 1) << ")";
  }
  AssignShape(attrs, "output", &(*out)[0], idx);
  return true;
}

void BatchTakeCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const int64_t m = in[0].shape_[in[0].ndim() - 1];
  std::vector<int64_t> off = ReadIndices(in[1]);
  CheckNonEmptyAxis(attrs, m, off.size());
  for (size_t i = 0; i < off.size(); ++i) {
    off[i] = static_cast<int64_t>(i) * m + MapIndex(attrs, off[i], m, take_mode::kClip);
  }
  GatherBlocks(out[0].type_flag_, in[0].dptr_, off, 1, out[0].dptr_, req[0]);
}

NNVM_REGISTER_OP(batch_take)
    .describe("Takes elements from a data batch: out[i] = a[i, indices[i]] (indices clipped to "
              "the last axis). Deprecated in MXNet in favour of pick.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("a", "NDArray-or-Symbol", "The input array")
    .add_argument("indices", "NDArray-or-Symbol", "The index array")
    .set_attr<FListInputNames>("FListInputNames",
                               InputNames({"a", "indices"}))
    .set_attr<FInferShape>("FInferShape", BatchTakeShape)
    .set_attr<FInferType>("FInferType", TakeType)
    .set_attr<FCompute>("FCompute<cpu>", BatchTakeCompute);

// ================================================================ pick
struct PickParam : public dmlc::Parameter<PickParam> {
  dmlc::optional<int> axis;
  int mode;
  bool keepdims;
  DMLC_DECLARE_PARAMETER(PickParam) {
    DMLC_DECLARE_FIELD(axis).set_default(dmlc::optional<int>(-1)).describe(
        "int or None. The axis to picking the elements. Negative values means indexing from "
        "right to left. If is `None`, the elements in the index w.r.t the flattened input "
        "will be picked.");
    DMLC_DECLARE_FIELD(keepdims).set_default(false).describe(
        "If true, the axis where we pick the elements is left in the result as dimension with "
        "size one.");
    DMLC_DECLARE_FIELD(mode)
        .add_enum("wrap", take_mode::kWrap)
        .add_enum("clip", take_mode::kClip)
        .set_default(take_mode::kClip)
        .describe("Specify how out-of-bound indices behave. Default is \"clip\". \"clip\" means "
                  "clip to the range. So, if all indices mentioned are too large, they are "
                  "replaced by the index that addresses the last element along an axis.  "
                  "\"wrap\" means to wrap around.");
  }
};
DMLC_REGISTER_PARAMETER(PickParam);

int PickAxis(const NodeAttrs& attrs, int ndim) {
  const PickParam& p = Param<PickParam>(attrs);
  if (!p.axis.has_value()) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": axis=None is not supported by pick; "
               << "argument axis must be an integer";
  }
  return CheckAxis(attrs, "axis", p.axis.value(), ndim);
}

// data's shape with axis removed (keepdims: set to 1).
TShape PickReduced(const TShape& d, int axis, bool keepdims) {
  std::vector<dim_t> o(d.begin(), d.end());
  if (keepdims) o[axis] = 1; else o.erase(o.begin() + axis);
  return ShapeOf(o);
}

// Shapes of pick's output and index for data shape d; checks the given index shape.
TShape PickShapes(const NodeAttrs& attrs, const TShape& d, TShape* idx) {
  if (d.ndim() == 0) LOG(FATAL) << "Operator " << attrs.op->name << ": argument data cannot be 0-d";
  int axis = PickAxis(attrs, d.ndim());
  const bool keep = Param<PickParam>(attrs).keepdims;
  if (!idx->is_none()) {
    AssignShape(attrs, "index", idx, PickReduced(d, axis, idx->ndim() == d.ndim()));
  }
  return PickReduced(d, axis, keep);
}

bool PickShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if ((*in)[0].ndim() < 0) return false;  // unknown dims of data propagate (partial inference)
  AssignShape(attrs, "output", &(*out)[0], PickShapes(attrs, (*in)[0], &(*in)[1]));
  return (*in)[0].IsKnown() && (*in)[1].IsKnown();
}

// Element offsets into data (shape d) of the picked elements, in output order.
std::vector<int64_t> PickOffsets(const NodeAttrs& attrs, const TShape& d, const TBlob& idx) {
  int axis = PickAxis(attrs, d.ndim());
  const int mode = Param<PickParam>(attrs).mode;
  const int64_t n = d[axis];
  const index_t inner = d.ProdShape(axis + 1, d.ndim());
  std::vector<int64_t> off = ReadIndices(idx);
  CheckNonEmptyAxis(attrs, n, off.size());
  ParallelFor(static_cast<index_t>(off.size()), [&](index_t i) {
    index_t p = i / inner, q = i % inner;
    off[i] = (p * n + MapIndex(attrs, off[i], n, mode)) * inner + q;
  });
  return off;
}

void PickCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  std::vector<int64_t> off = PickOffsets(attrs, in[0].shape_, in[1]);
  GatherBlocks(out[0].type_flag_, in[0].dptr_, off, 1, out[0].dptr_, req[0]);
}

// _pick_grad(ograd, index, like): zeros shaped like `like` with ograd at the picked places.
bool PickGradShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& like = (*in)[2];
  if (!like.IsKnown()) return false;
  AssignShape(attrs, "ograd", &(*in)[0], PickShapes(attrs, like, &(*in)[1]));
  AssignShape(attrs, "output", &(*out)[0], like);
  return true;
}

void PickGradCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  std::vector<int64_t> off = PickOffsets(attrs, out[0].shape_, in[1]);
  if (req[0] != kAddTo) FillElements(out[0].type_flag_, 0, out[0].dptr_, out[0].Size(), kWriteTo);
  ScatterBlocks<false>(out[0].type_flag_, in[0].dptr_, off, 1, out[0].dptr_, true);
}

NNVM_REGISTER_OP(pick)
    .describe("Picks elements from an input array according to the input indices along the "
              "given axis: out[i, j] = data[i, index[i, j], j] for axis=1.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<PickParam>)
    .add_argument("data", "NDArray-or-Symbol", "The input array")
    .add_argument("index", "NDArray-or-Symbol", "The index array")
    .add_arguments(PickParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames",
                               InputNames({"data", "index"}))
    .set_attr<FInferShape>("FInferShape", PickShape)
    .set_attr<FInferType>("FInferType", TakeType)
    .set_attr<FCompute>("FCompute<cpu>", PickCompute)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{
          GradNode(n, "_pick_grad", {og[0], n->inputs[1], n->inputs[0]}, n->attrs.dict),
          ZeroGradOf(n, 1)};
    });

NNVM_REGISTER_OP(_pick_grad)
    .describe("Internal: gradient of pick (ograd placed at the picked elements of zeros "
              "shaped like `like`).")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<PickParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of pick's output.")
    .add_argument("index", "NDArray-or-Symbol", "pick's index.")
    .add_argument("like", "NDArray-or-Symbol", "pick's data (for its shape).")
    .add_arguments(PickParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"ograd", "index", "like"}))
    .set_attr<FInferShape>("FInferShape", PickGradShape)
    .set_attr<FInferType>("FInferType", TakeType)
    .set_attr<FCompute>("FCompute<cpu>", PickGradCompute)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{GradNode(n, "pick", {og[0], n->inputs[1]}, n->attrs.dict),
                                    ZeroGradOf(n, 1), ZeroGradOf(n, 2)};
    });

// ================================================================ one_hot
struct OneHotParam : public dmlc::Parameter<OneHotParam> {
  int64_t depth;
  double on_value;
  double off_value;
  int dtype;
  DMLC_DECLARE_PARAMETER(OneHotParam) {
    DMLC_DECLARE_FIELD(depth).describe("Depth of the one hot dimension.");
    DMLC_DECLARE_FIELD(on_value).set_default(1.0).describe(
        "The value assigned to the locations represented by indices.");
    DMLC_DECLARE_FIELD(off_value).set_default(0.0).describe(
        "The value assigned to the locations not represented by indices.");
    AddDTypeEnums(DMLC_DECLARE_FIELD(dtype), kAllDTypes)
        .set_default(kFloat32)
        .describe("DType of the output");
  }
};
DMLC_REGISTER_PARAMETER(OneHotParam);

bool OneHotShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& idx = (*in)[0];
  if (!idx.IsKnown()) return false;
  const int64_t depth = Param<OneHotParam>(attrs).depth;
  if (depth < 0) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument depth must be non-negative, "
               << "given " << depth;
  }
  std::vector<dim_t> o(idx.begin(), idx.end());
  o.push_back(depth);
  AssignShape(attrs, "output", &(*out)[0], ShapeOf(o));
  return true;
}

bool OneHotType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, "output", &(*out)[0], Param<OneHotParam>(attrs).dtype);
  return (*in)[0] >= 0;
}

void OneHotCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const OneHotParam& p = Param<OneHotParam>(attrs);
  std::vector<int64_t> idx = ReadIndices(in[0]);
  const int64_t depth = p.depth;
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    DType* o = out[0].dptr<DType>();
    const DType on = ScalarAs<DType>(p.on_value), off = ScalarAs<DType>(p.off_value);
    const OpReqType r = req[0];
    ParallelFor(static_cast<index_t>(idx.size()), [&](index_t i) {
      DType* row = o + i * depth;
      for (int64_t j = 0; j < depth; ++j) Assign(row + j, r, j == idx[i] ? on : off);
    });
  });
}

NNVM_REGISTER_OP(one_hot)
    .describe("Returns a one-hot array: the output has shape indices.shape + (depth,), with "
              "on_value where the last index equals the index value and off_value elsewhere "
              "(indices outside [0, depth) give rows of off_value).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<OneHotParam>)
    .add_argument("indices", "NDArray-or-Symbol", "array of locations where to set on_value")
    .add_arguments(OneHotParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames",
                               InputNames({"indices"}))
    .set_attr<FInferShape>("FInferShape", OneHotShape)
    .set_attr<FInferType>("FInferType", OneHotType)
    .set_attr<FCompute>("FCompute<cpu>", OneHotCompute)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>&) {
      return ZeroGrads(n);
    });

}  // namespace
}  // namespace op
}  // namespace mxnet
