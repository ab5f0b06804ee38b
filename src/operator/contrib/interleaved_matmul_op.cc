// The fused multi-head attention matmuls of MXNet 1.9.1 (_contrib_interleaved_matmul_selfatt_qk,
// _selfatt_valatt, _encdec_qk, _encdec_valatt) and their gradients, as batched GEMMs on strided
// views (linalg::Gemm).
//
// Layout: sequences are time-major, (length, batch, features). A projection of E = heads * D
// features per step is "interleaved": for attention batch a = b * heads + h (sequence b, head h)
// the self-attention input holds q, k, v of a at features a*3D + [0, D), + [D, 2D), + [2D, 3D) of a
// step's row of batch * 3E values; the enc-dec keys_values hold k, v at a*2D + [0, D), + [D, 2D);
// queries hold q at a*D. So the (length x D) matrix of one (a, part) is a row-major view with
// leading dimension = the row length. Attention maps are (batch * heads, query length, key length);
// the qk ops scale scores by 1 / sqrt(D).
#include <cmath>
#include <cstring>
#include <string>

#include "operator/nn/nn_common.h"
#include "operator/tensor/linalg.h"

namespace mxnet {
namespace op {

struct InterleavedMatMulParam : public dmlc::Parameter<InterleavedMatMulParam> {
  int heads;
  DMLC_DECLARE_PARAMETER(InterleavedMatMulParam) {
    DMLC_DECLARE_FIELD(heads).describe("Set number of heads");
  }
};
DMLC_REGISTER_PARAMETER(InterleavedMatMulParam);

namespace {

using linalg::Mat;

// One interleaved (length, batch, parts * heads * D) array: matrix (a, part) of it.
struct Interleaved {
  index_t length, parts, head_dim, row;  // row: values per time step
  Interleaved(const TShape& s, index_t parts_, int heads)
      : length(s[0]), parts(parts_), head_dim(s[2] / parts_ / heads), row(s[1] * s[2]) {}
  template <typename DType>
  Mat<DType> At(DType* base, index_t a, index_t part) const {
    return {base + (a * parts + part) * head_dim, length, head_dim, row};
  }
};

// Attention maps (batches, rows, cols): matrix a.
template <typename DType>
Mat<DType> MapAt(DType* base, const TShape& s, index_t a) {
  return {base + a * s[1] * s[2], s[1], s[2], s[2]};
}

int Heads(const NodeAttrs& attrs) {
  const int h = Param<InterleavedMatMulParam>(attrs).heads;
  CHECK_GT(h, 0) << "Operator " << attrs.op->name << ": argument heads expected positive, given "
                 << h;
  return h;
}

// The projection input `arg` (length, batch, parts * E): checks it and returns E.
index_t CheckProjection(const NodeAttrs& attrs, const char* arg, const TShape& s, int parts) {
  const std::string& op = attrs.op->name;
  CHECK_EQ(s.ndim(), 3) << "Operator " << op << ": " << arg << " expected 3 dims (seq_length, "
                        << "batch, features), given shape " << s;
  const index_t unit = static_cast<index_t>(parts) * Heads(attrs);
  CHECK_EQ(s[2] % unit, 0) << "Operator " << op << ": " << arg << ".shape[2] expected a multiple "
                           << "of " << (parts > 1 ? std::to_string(parts) + " * " : "")
                           << "heads = " << unit << ", given shape " << s;
  return s[2] / parts;
}

void CheckMaps(const NodeAttrs& attrs, const TShape& att, const TShape& expected) {
  if (att != expected) ShapeError(attrs, "attention", expected, att);
}

bool SelfAttQKShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& qkv = (*in)[0];
  if (!qkv.IsKnown()) return false;
  CheckProjection(attrs, "queries_keys_values", qkv, 3);
  AssignShape(attrs, "output", &(*out)[0], TShape({Heads(attrs) * qkv[1], qkv[0], qkv[0]}));
  return true;
}

bool SelfAttValAttShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape &qkv = (*in)[0], &att = (*in)[1];
  if (!qkv.IsKnown() || !att.IsKnown()) return false;
  const index_t E = CheckProjection(attrs, "queries_keys_values", qkv, 3);
  CheckMaps(attrs, att, TShape({Heads(attrs) * qkv[1], qkv[0], qkv[0]}));
  AssignShape(attrs, "output", &(*out)[0], TShape({qkv[0], qkv[1], E}));
  return true;
}

bool EncDecQKShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape &q = (*in)[0], &kv = (*in)[1];
  if (!q.IsKnown() || !kv.IsKnown()) return false;
  const index_t E = CheckProjection(attrs, "queries", q, 1);
  CheckProjection(attrs, "keys_values", kv, 2);
  if (kv[1] != q[1] || kv[2] != 2 * E) {
    ShapeError(attrs, "keys_values", TShape({kv[0], q[1], 2 * E}), kv);
  }
  AssignShape(attrs, "output", &(*out)[0], TShape({Heads(attrs) * q[1], q[0], kv[0]}));
  return true;
}

bool EncDecValAttShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape &kv = (*in)[0], &att = (*in)[1];
  if (!kv.IsKnown() || !att.IsKnown()) return false;
  const index_t E = CheckProjection(attrs, "keys_values", kv, 2);
  CHECK_EQ(att.ndim(), 3) << "Operator " << attrs.op->name << ": attention expected 3 dims "
                          << "(batch * heads, query length, key length), given shape " << att;
  CheckMaps(attrs, att, TShape({Heads(attrs) * kv[1], att[1], kv[0]}));
  AssignShape(attrs, "output", &(*out)[0], TShape({att[1], kv[1], E}));
  return true;
}

// C (req) = alpha * op(A) op(B) for every attention batch; kWriteTo writes, kAddTo adds.
template <typename DType, typename AFn, typename BFn, typename CFn>
void BatchedGemm(index_t batches, bool ta, bool tb, DType alpha, OpReqType req, AFn A, BFn B,
                 CFn C) {
  if (req == kNullOp) return;
  const DType beta = req == kAddTo ? DType(1) : DType(0);
  for (index_t a = 0; a < batches; ++a) linalg::Gemm(ta, tb, alpha, A(a), B(a), beta, C(a));
}

// Where one of q, k, v lives: forward input `input`, an array of `parts` interleaved parts,
// part `part` of it.
struct Part {
  size_t input;
  index_t parts, part;
};
// Self attention: q, k, v in input 0; enc-dec: q alone in input 0, k, v in input 1, and for
// valatt (keys_values, attention) v in input 0.
constexpr Part kSelfQ{0, 3, 0}, kSelfK{0, 3, 1}, kSelfV{0, 3, 2};
constexpr Part kEncDecQ{0, 1, 0}, kEncDecK{1, 2, 0}, kEncDecV{0, 2, 1};

// The (length x D) matrices of part p of blob b, per attention batch.
template <typename DType>
struct PartViews {
  DType* base;
  Interleaved layout;
  index_t part;
  PartViews(DType* b, const TShape& s, Part p, int heads)
      : base(b), layout(s, p.parts, heads), part(p.part) {}
  Mat<DType> operator()(index_t a) const { return layout.At(base, a, part); }
};

// The attention maps of blob b, per attention batch.
template <typename DType>
struct MapViews {
  DType* base;
  TShape shape;
  Mat<DType> operator()(index_t a) const { return MapAt(base, shape, a); }
};

// A gradient of an interleaved input: kWriteTo zeroes it first (parts no gemm writes), so
// each part then adds (PartReq).
void PrepareInterleavedGrad(const TBlob& g, OpReqType req) {
  if (req == kWriteTo || req == kWriteInplace) {
    std::memset(g.dptr_, 0, g.Size() * DTypeSize(g.type_flag_));
  }
}
inline OpReqType PartReq(OpReqType req) { return req == kNullOp ? kNullOp : kAddTo; }

#define INTERLEAVED_TYPE_SWITCH(attrs, t, DType, ...)                                          \
  switch (t) {                                                                                 \
    case kFloat32: {                                                                           \
      using DType = float;                                                                     \
      __VA_ARGS__                                                                              \
    } break;                                                                                   \
    case kFloat64: {                                                                           \
      using DType = double;                                                                    \
      __VA_ARGS__                                                                              \
    } break;                                                                                   \
    default:                                                                                   \
      LOG(FATAL) << "Operator " << (attrs).op->name << ": expected dtype float32 or float64, " \
                 << "given " << DTypeName(t);                                                  \
  }

// scores[a] = Q_a K_a^T / sqrt(D).
template <const Part& Q, const Part& K>
void QKForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
               const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const int heads = Heads(attrs);
  INTERLEAVED_TYPE_SWITCH(attrs, in[0].type_flag_, DType, {
    const PartViews<const DType> q(in[Q.input].dptr<DType>(), in[Q.input].shape_, Q, heads);
    const PartViews<const DType> k(in[K.input].dptr<DType>(), in[K.input].shape_, K, heads);
    const DType scale = DType(1) / std::sqrt(static_cast<DType>(q.layout.head_dim));
    BatchedGemm<DType>(out[0].shape_[0], false, true, scale, req[0], q, k,
                       MapViews<DType>{out[0].dptr<DType>(), out[0].shape_});
  })
}

// inputs (ograd, the forward's); dQ = G K / sqrt(D), dK = G^T Q / sqrt(D).
template <const Part& Q, const Part& K>
void QKBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const int heads = Heads(attrs);
  for (size_t i = 0; i < out.size(); ++i) PrepareInterleavedGrad(out[i], req[i]);
  INTERLEAVED_TYPE_SWITCH(attrs, in[0].type_flag_, DType, {
    const TBlob &qb = in[Q.input + 1], &kb = in[K.input + 1];
    const PartViews<const DType> q(qb.dptr<DType>(), qb.shape_, Q, heads);
    const PartViews<const DType> k(kb.dptr<DType>(), kb.shape_, K, heads);
    const PartViews<DType> dq(out[Q.input].dptr<DType>(), qb.shape_, Q, heads);
    const PartViews<DType> dk(out[K.input].dptr<DType>(), kb.shape_, K, heads);
    const MapViews<const DType> g{in[0].dptr<DType>(), in[0].shape_};
    const DType scale = DType(1) / std::sqrt(static_cast<DType>(q.layout.head_dim));
    BatchedGemm<DType>(in[0].shape_[0], false, false, scale, PartReq(req[Q.input]), g, k, dq);
    BatchedGemm<DType>(in[0].shape_[0], true, false, scale, PartReq(req[K.input]), g, q, dk);
  })
}

// out[i, b, h*D + d] = sum_j attention[a, i, j] * V[a, j, d]; attention is input 1.
template <const Part& V>
void ValAttForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const int heads = Heads(attrs);
  INTERLEAVED_TYPE_SWITCH(attrs, in[0].type_flag_, DType, {
    const PartViews<const DType> v(in[V.input].dptr<DType>(), in[V.input].shape_, V, heads);
    const PartViews<DType> o(out[0].dptr<DType>(), out[0].shape_, Part{0, 1, 0}, heads);
    BatchedGemm<DType>(in[1].shape_[0], false, false, DType(1), req[0],
                       MapViews<const DType>{in[1].dptr<DType>(), in[1].shape_}, v, o);
  })
}

// inputs (ograd, the forward's); dV = attention^T G, d attention = G V^T.
template <const Part& V>
void ValAttBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const int heads = Heads(attrs);
  PrepareInterleavedGrad(out[V.input], req[V.input]);
  INTERLEAVED_TYPE_SWITCH(attrs, in[0].type_flag_, DType, {
    const TBlob& vb = in[V.input + 1];
    const PartViews<const DType> v(vb.dptr<DType>(), vb.shape_, V, heads);
    const PartViews<DType> dv(out[V.input].dptr<DType>(), vb.shape_, V, heads);
    const PartViews<const DType> g(in[0].dptr<DType>(), in[0].shape_, Part{0, 1, 0}, heads);
    const MapViews<const DType> att{in[2].dptr<DType>(), in[2].shape_};
    const index_t batches = in[2].shape_[0];
    BatchedGemm<DType>(batches, true, false, DType(1), PartReq(req[V.input]), att, g, dv);
    BatchedGemm<DType>(batches, false, true, DType(1), req[1], g, v,
                       MapViews<DType>{out[1].dptr<DType>(), out[1].shape_});
  })
}

#undef INTERLEAVED_TYPE_SWITCH

// The gradient: one _backward_ node fed (ograd, the forward inputs), an output per input.
template <const char* kBackward>
std::vector<NodeEntry> InterleavedGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return GradOfEachInput(kBackward, n, og);
}
constexpr char kSelfAttQKGrad[] = "_backward_interleaved_matmul_selfatt_qk";
constexpr char kSelfAttValAttGrad[] = "_backward_interleaved_matmul_selfatt_valatt";
constexpr char kEncDecQKGrad[] = "_backward_interleaved_matmul_encdec_qk";
constexpr char kEncDecValAttGrad[] = "_backward_interleaved_matmul_encdec_valatt";

}  // namespace

NNVM_REGISTER_OP(_contrib_interleaved_matmul_selfatt_qk)
    .describe(R"doc(Compute the matrix multiplication between the projections of
queries and keys in multihead attention use as self attention.

the input must be a single tensor of interleaved projections
of queries, keys and values following the layout:
(seq_length, batch_size, num_heads * head_dim * 3)

the equivalent code would be:
tmp = mx.nd.reshape(queries_keys_values, shape=(0, 0, num_heads, 3, -1))
q_proj = mx.nd.transpose(tmp[:,:,:,0,:], axes=(1, 2, 0, 3))
q_proj = mx.nd.reshape(q_proj, shape=(-1, 0, 0), reverse=True)
q_proj = mx.nd.contrib.div_sqrt_dim(q_proj)
k_proj = mx.nd.transpose(tmp[:,:,:,1,:], axes=(1, 2, 0, 3))
k_proj = mx.nd.reshape(k_proj, shape=(-1, 0, 0), reverse=True)
output = mx.nd.batch_dot(q_proj, k_proj, transpose_b=True)
)doc")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<InterleavedMatMulParam>)
    .add_argument("queries_keys_values", "NDArray-or-Symbol",
                  "Interleaved queries, keys and values")
    .add_arguments(InterleavedMatMulParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"queries_keys_values"}))
    .set_attr<FInferShape>("FInferShape", SelfAttQKShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", QKForward<kSelfQ, kSelfK>)
    .set_attr<FGradient>("FGradient", InterleavedGrad<kSelfAttQKGrad>);

NNVM_REGISTER_OP(_backward_interleaved_matmul_selfatt_qk)
    .describe(
        "Gradient of _contrib_interleaved_matmul_selfatt_qk (inputs: "
        "ograd, then the forward's).")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<InterleavedMatMulParam>)
    .add_arguments(InterleavedMatMulParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"ograd", "queries_keys_values"}))
    .set_attr<FInferShape>("FInferShape", ForwardInputShapes)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", QKBackward<kSelfQ, kSelfK>);

NNVM_REGISTER_OP(_contrib_interleaved_matmul_selfatt_valatt)
    .describe(R"doc(Compute the matrix multiplication between the projections of
values and the attention weights in multihead attention use as self attention.

the inputs must be a tensor of interleaved projections
of queries, keys and values following the layout:
(seq_length, batch_size, num_heads * head_dim * 3)

and the attention weights following the layout:
(batch_size * num_heads, seq_length, seq_length)

the equivalent code would be:
tmp = mx.nd.reshape(queries_keys_values, shape=(0, 0, num_heads, 3, -1))
v_proj = mx.nd.transpose(tmp[:,:,:,2,:], axes=(1, 2, 0, 3))
v_proj = mx.nd.reshape(v_proj, shape=(-1, 0, 0), reverse=True)
output = mx.nd.batch_dot(attention, v_proj)
output = mx.nd.reshape(output, shape=(-1, num_heads, 0, 0), reverse=True)
output = mx.nd.transpose(output, axes=(2, 0, 1, 3))
output = mx.nd.reshape(output, shape=(0, 0, -1))
)doc")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<InterleavedMatMulParam>)
    .add_argument("queries_keys_values", "NDArray-or-Symbol",
                  "Queries, keys and values interleaved")
    .add_argument("attention", "NDArray-or-Symbol", "Attention maps")
    .add_arguments(InterleavedMatMulParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"queries_keys_values", "attention"}))
    .set_attr<FInferShape>("FInferShape", SelfAttValAttShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", ValAttForward<kSelfV>)
    .set_attr<FGradient>("FGradient", InterleavedGrad<kSelfAttValAttGrad>);

NNVM_REGISTER_OP(_backward_interleaved_matmul_selfatt_valatt)
    .describe(
        "Gradient of _contrib_interleaved_matmul_selfatt_valatt (inputs: "
        "ograd, then the forward's).")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<InterleavedMatMulParam>)
    .add_arguments(InterleavedMatMulParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames",
                               InputNames({"ograd", "queries_keys_values", "attention"}))
    .set_attr<FInferShape>("FInferShape", ForwardInputShapes)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", ValAttBackward<kSelfV>);

NNVM_REGISTER_OP(_contrib_interleaved_matmul_encdec_qk)
    .describe(R"doc(Compute the matrix multiplication between the projections of
queries and keys in multihead attention use as encoder-decoder.

the inputs must be a tensor of projections of queries following the layout:
(seq_length, batch_size, num_heads * head_dim)

and a tensor of interleaved projections of values and keys following the layout:
(seq_length, batch_size, num_heads * head_dim * 2)

the equivalent code would be:
q_proj = mx.nd.transpose(queries, axes=(1, 2, 0, 3))
q_proj = mx.nd.reshape(q_proj, shape=(-1, 0, 0), reverse=True)
q_proj = mx.nd.contrib.div_sqrt_dim(q_proj)
tmp = mx.nd.reshape(keys_values, shape=(0, 0, num_heads, 2, -1))
k_proj = mx.nd.transpose(tmp[:,:,:,0,:], axes=(1, 2, 0, 3))
k_proj = mx.nd.reshape(k_proj, shape=(-1, 0, 0), reverse=True)
output = mx.nd.batch_dot(q_proj, k_proj, transpose_b=True)
)doc")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<InterleavedMatMulParam>)
    .add_argument("queries", "NDArray-or-Symbol", "Queries")
    .add_argument("keys_values", "NDArray-or-Symbol", "Keys and values interleaved")
    .add_arguments(InterleavedMatMulParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"queries", "keys_values"}))
    .set_attr<FInferShape>("FInferShape", EncDecQKShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", QKForward<kEncDecQ, kEncDecK>)
    .set_attr<FGradient>("FGradient", InterleavedGrad<kEncDecQKGrad>);

NNVM_REGISTER_OP(_backward_interleaved_matmul_encdec_qk)
    .describe(
        "Gradient of _contrib_interleaved_matmul_encdec_qk (inputs: "
        "ograd, then the forward's).")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<InterleavedMatMulParam>)
    .add_arguments(InterleavedMatMulParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"ograd", "queries", "keys_values"}))
    .set_attr<FInferShape>("FInferShape", ForwardInputShapes)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", QKBackward<kEncDecQ, kEncDecK>);

NNVM_REGISTER_OP(_contrib_interleaved_matmul_encdec_valatt)
    .describe(R"doc(Compute the matrix multiplication between the projections of
values and the attention weights in multihead attention use as encoder-decoder.

the inputs must be a tensor of interleaved projections of
keys and values following the layout:
(seq_length, batch_size, num_heads * head_dim * 2)

and the attention weights following the layout:
(batch_size * num_heads, query_length, key_length)

the equivalent code would be:
tmp = mx.nd.reshape(keys_values, shape=(0, 0, num_heads, 2, -1))
v_proj = mx.nd.transpose(tmp[:,:,:,1,:], axes=(1, 2, 0, 3))
v_proj = mx.nd.reshape(v_proj, shape=(-1, 0, 0), reverse=True)
output = mx.nd.batch_dot(attention, v_proj)
output = mx.nd.reshape(output, shape=(-1, num_heads, 0, 0), reverse=True)
output = mx.nd.transpose(output, axes=(2, 0, 1, 3))
output = mx.nd.reshape(output, shape=(0, 0, -1))
)doc")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<InterleavedMatMulParam>)
    .add_argument("keys_values", "NDArray-or-Symbol", "Keys and values interleaved")
    .add_argument("attention", "NDArray-or-Symbol", "Attention maps")
    .add_arguments(InterleavedMatMulParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"keys_values", "attention"}))
    .set_attr<FInferShape>("FInferShape", EncDecValAttShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", ValAttForward<kEncDecV>)
    .set_attr<FGradient>("FGradient", InterleavedGrad<kEncDecValAttGrad>);

NNVM_REGISTER_OP(_backward_interleaved_matmul_encdec_valatt)
    .describe(
        "Gradient of _contrib_interleaved_matmul_encdec_valatt (inputs: "
        "ograd, then the forward's).")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<InterleavedMatMulParam>)
    .add_arguments(InterleavedMatMulParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"ograd", "keys_values", "attention"}))
    .set_attr<FInferShape>("FInferShape", ForwardInputShapes)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", ValAttBackward<kEncDecV>);

}  // namespace op
}  // namespace mxnet
