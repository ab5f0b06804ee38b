// Sorting along an axis: topk, sort, argsort, and the scatter/gather pair (_topk_scatter,
// _topk_gather) that their gradients are built from.
//
// Order: ascending puts NaN last, descending puts NaN first; equal keys keep their index order
// (the sort is stable), so results are fully determined.
#include <dmlc/parameter.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "operator/tensor/reduce_kernel.h"

namespace mxnet {
namespace op {
namespace {

enum TopKReturn { kReturnValue = 0, kReturnIndices = 1, kReturnMask = 2, kReturnBoth = 3 };

#define MXNET_INDEX_DTYPE_ENUM_(field)                                                   \
  AddDTypeEnums(field, {kFloat16, kFloat32, kFloat64, kInt32, kInt64, kUint8})           \
      .set_default(kFloat32)

struct TopKParam : public dmlc::Parameter<TopKParam> {
  dmlc::optional<int> axis;
  int k;
  int ret_typ;
  bool is_ascend;
  int dtype;
  DMLC_DECLARE_PARAMETER(TopKParam) {
    DMLC_DECLARE_FIELD(axis).set_default(dmlc::optional<int>(-1)).describe(
        "Axis along which to choose the top k elements; None uses the flattened array.");
    DMLC_DECLARE_FIELD(k).set_default(1).describe(
        "Number of elements to select, at most the axis length; k < 1 selects all (a sort).");
    DMLC_DECLARE_FIELD(ret_typ)
        .set_default(kReturnIndices)
        .add_enum("value", kReturnValue)
        .add_enum("indices", kReturnIndices)
        .add_enum("mask", kReturnMask)
        .add_enum("both", kReturnBoth)
        .describe("What to return: the top k values, their indices, a 0/1 mask of the input's "
                  "shape marking them, or both values and indices.");
    DMLC_DECLARE_FIELD(is_ascend).set_default(false).describe(
        "Select the k smallest elements instead of the k largest.");
    MXNET_INDEX_DTYPE_ENUM_(DMLC_DECLARE_FIELD(dtype))
        .describe("DType of the indices (ret_typ indices or both); it must represent every "
                  "index exactly.");
  }
};

struct SortParam : public dmlc::Parameter<SortParam> {
  dmlc::optional<int> axis;
  bool is_ascend;
  DMLC_DECLARE_PARAMETER(SortParam) {
    DMLC_DECLARE_FIELD(axis).set_default(dmlc::optional<int>(-1)).describe(
        "Axis along which to sort; None sorts the flattened array.");
    DMLC_DECLARE_FIELD(is_ascend).set_default(true).describe(
        "Sort in ascending (True) or descending order.");
  }
};

struct ArgSortParam : public dmlc::Parameter<ArgSortParam> {
  dmlc::optional<int> axis;
  bool is_ascend;
  int dtype;
  DMLC_DECLARE_PARAMETER(ArgSortParam) {
    DMLC_DECLARE_FIELD(axis).set_default(dmlc::optional<int>(-1)).describe(
        "Axis along which to sort; None sorts the flattened array.");
    DMLC_DECLARE_FIELD(is_ascend).set_default(true).describe(
        "Sort in ascending (True) or descending order.");
    MXNET_INDEX_DTYPE_ENUM_(DMLC_DECLARE_FIELD(dtype))
        .describe("DType of the indices; it must represent every index exactly.");
  }
};

struct SortAxisParam : public dmlc::Parameter<SortAxisParam> {
  dmlc::optional<int> axis;
  DMLC_DECLARE_PARAMETER(SortAxisParam) {
    DMLC_DECLARE_FIELD(axis).set_default(dmlc::optional<int>(-1)).describe(
        "Axis the indices run along; None means indices into the flattened array.");
  }
};

DMLC_REGISTER_PARAMETER(TopKParam);
DMLC_REGISTER_PARAMETER(SortParam);
DMLC_REGISTER_PARAMETER(ArgSortParam);
DMLC_REGISTER_PARAMETER(SortAxisParam);

/*! \brief An array seen as (outer, n, inner) around the sorted axis (1, size, 1 when flat). */
struct SortLayout {
  index_t outer{1}, n{1}, inner{1};
  int axis{-1};  // normalized axis; -1 when flat
};

SortLayout MakeLayout(const NodeAttrs& attrs, const TShape& s, const dmlc::optional<int>& axis) {
  SortLayout l;
  if (!axis.has_value()) {
    l.n = static_cast<index_t>(s.Size());
    return l;
  }
  const int nd = s.ndim();
  int a = axis.value();
  if (a < -nd || a >= nd) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument axis is " << a
               << ", expected an axis in [" << -nd << ", " << nd << ") for an input of shape " << s;
  }
  if (a < 0) a += nd;
  l.axis = a;
  l.outer = static_cast<index_t>(s.ProdShape(0, a));
  l.n = s[a];
  l.inner = static_cast<index_t>(s.ProdShape(a + 1, nd));
  return l;
}

/*! \brief Shape s with the sorted axis cut to k elements ((k,) when flat). */
TShape CutShape(const TShape& s, const SortLayout& l, index_t k) {
  if (l.axis < 0) return TShape({k});
  TShape o = s;
  o[l.axis] = k;
  return o;
}

void CheckIndexDType(const NodeAttrs& attrs, int dtype, index_t n) {
  double limit = 0;
  switch (dtype) {
    case kUint8: limit = 255; break;
    case kFloat16: limit = 2048; break;
    case kFloat32: limit = 16777216.0; break;
    case kInt32: limit = 2147483647.0; break;
    default: return;
  }
  if (n > 0 && static_cast<double>(n - 1) > limit) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument dtype is " << DTypeName(dtype)
               << ", which cannot represent index " << (n - 1)
               << " exactly; expected a wider dtype such as int64";
  }
}

void CheckSortable(const NodeAttrs& attrs, int dtype) {
  if (dtype == kBool) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument data has dtype bool, expected a "
               << "numeric dtype (float16, float32, float64, uint8, int8, int32 or int64)";
  }
}

// ---------------------------------------------------------------- the row kernel
template <typename C>
struct Keyed {
  C v;
  index_t i;
};

template <bool kAscend, typename C>
inline bool Before(const Keyed<C>& a, const Keyed<C>& b) {
  if constexpr (std::is_floating_point<C>::value) {
    const bool an = a.v != a.v, bn = b.v != b.v;
    if (an || bn) {
      if (an && bn) return a.i < b.i;
      return kAscend ? bn : an;
    }
  }
  if (a.v != b.v) return kAscend ? a.v < b.v : a.v > b.v;
  return a.i < b.i;
}

/*! \brief Outputs of one sorting call; null pointers are not produced. */
template <typename D>
struct SortOutputs {
  D* value{nullptr};
  OpReqType value_req{kWriteTo};
  int64_t* index{nullptr};  // written as plain int64, converted by the caller
  D* mask{nullptr};
  OpReqType mask_req{kWriteTo};
};

// Dtypes of at most 32 bits sort as packed 64-bit integers: an order-preserving 32-bit key
// (NaN above +inf, -0 equal to +0, complemented for descending order) above the 32-bit index,
// so one integer comparison decides, ties fall to the lower index, and the sort is stable.
template <typename D>
constexpr bool kPackedKey = std::is_same<D, float>::value || std::is_same<D, half_t>::value ||
                            std::is_same<D, int32_t>::value || std::is_same<D, int8_t>::value ||
                            std::is_same<D, uint8_t>::value;

template <bool kAscend, typename D>
inline uint64_t PackedKey(D x, index_t j) {
  uint32_t key;
  if constexpr (std::is_same<D, float>::value || std::is_same<D, half_t>::value) {
    float f = static_cast<float>(x);
    if (f != f) {
      key = 0xFFFFFFFFu;
    } else {
      if (f == 0.0f) f = 0.0f;
      uint32_t u;
      std::memcpy(&u, &f, sizeof(u));
      key = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    }
  } else if constexpr (std::is_same<D, uint8_t>::value) {
    key = x;
  } else {
    key = static_cast<uint32_t>(static_cast<int32_t>(x)) ^ 0x80000000u;
  }
  if (!kAscend) key = ~key;
  return (static_cast<uint64_t>(key) << 32) | static_cast<uint64_t>(j);
}

/*! \brief Stable LSD radix sort of packed keys by their upper 32 bits (bytes that are the
 *  same in every key are skipped). The lower 32 bits (positions) were written in increasing
 *  order, so equal keys stay in position order. tmp has room for n keys. */
inline void RadixSortPacked(uint64_t* a, uint64_t* tmp, index_t n) {
  uint64_t* src = a;
  uint64_t* dst = tmp;
  for (int shift = 32; shift < 64; shift += 8) {
    index_t count[256] = {0};
    for (index_t i = 0; i < n; ++i) ++count[(src[i] >> shift) & 0xFF];
    if (count[(src[0] >> shift) & 0xFF] == n) continue;
    index_t pos = 0;
    for (int b = 0; b < 256; ++b) {
      const index_t c = count[b];
      count[b] = pos;
      pos += c;
    }
    for (index_t i = 0; i < n; ++i) dst[count[(src[i] >> shift) & 0xFF]++] = src[i];
    std::swap(src, dst);
  }
  if (src != a) std::memcpy(a, src, sizeof(uint64_t) * n);
}

template <typename D, typename C>
inline void EmitRow(const SortOutputs<D>& out, const D* src, index_t I, index_t o, index_t i,
                    index_t n, index_t k, index_t j, index_t pos) {
  const index_t dst = o * k * I + j * I + i;
  if (out.value != nullptr) {
    const D v = src[pos * I];
    out.value[dst] = out.value_req == kAddTo
                         ? static_cast<D>(static_cast<C>(out.value[dst]) + static_cast<C>(v))
                         : v;
  }
  if (out.index != nullptr) out.index[dst] = pos;
  if (out.mask != nullptr) {
    D* m = out.mask + o * n * I + pos * I + i;
    *m = static_cast<D>(static_cast<C>(*m) + C(1));
  }
}

template <bool kAscend, typename D>
void SortRowsTyped(const D* in, const SortLayout& l, index_t k, const SortOutputs<D>& out) {
  using C = typename std::conditional<std::is_same<D, half_t>::value, float, D>::type;
  const index_t rows = l.outer * l.inner, n = l.n, I = l.inner;
  if (out.mask != nullptr && out.mask_req != kAddTo) {
    std::fill(out.mask, out.mask + rows * n, D(0));
  }
  const bool need_order = out.value != nullptr || out.index != nullptr;
  const bool packed = kPackedKey<D> && n <= static_cast<index_t>(0xFFFFFFFFu);
  // Each thread sorts whole rows in its own scratch (an orphaned `omp for` runs every row
  // in this thread when called outside a parallel region).
  auto sort_rows = [&]() {
    std::vector<uint64_t> keys(packed ? 2 * n : 0);  // keys, then radix scratch
    std::vector<Keyed<C>> buf(packed ? 0 : n);
    auto cmp = [](const Keyed<C>& a, const Keyed<C>& b) { return Before<kAscend>(a, b); };
#if MXNET_USE_OPENMP
#pragma omp for schedule(static)
#endif
    for (index_t r = 0; r < rows; ++r) {
      const index_t o = r / I, i = r % I;
      const D* src = in + o * n * I + i;
      if (packed) {
        for (index_t j = 0; j < n; ++j) keys[j] = PackedKey<kAscend>(src[j * I], j);
        if (need_order && n >= 256 && 4 * k >= n) {
          RadixSortPacked(keys.data(), keys.data() + n, n);
        } else {
          if (k < n) std::nth_element(keys.begin(), keys.begin() + k, keys.begin() + n);
          if (need_order) std::sort(keys.begin(), keys.begin() + k);
        }
        for (index_t j = 0; j < k; ++j) {
          EmitRow<D, C>(out, src, I, o, i, n, k, j, static_cast<index_t>(keys[j] & 0xFFFFFFFFu));
        }
      } else {
        for (index_t j = 0; j < n; ++j) buf[j] = Keyed<C>{static_cast<C>(src[j * I]), j};
        if (k < n) std::nth_element(buf.begin(), buf.begin() + k, buf.end(), cmp);
        if (need_order) std::sort(buf.begin(), buf.begin() + k, cmp);
        for (index_t j = 0; j < k; ++j) EmitRow<D, C>(out, src, I, o, i, n, k, j, buf[j].i);
      }
    }
  };
#if MXNET_USE_OPENMP
  if (rows > 1 && rows * n >= ParallelGrain()) {
#pragma omp parallel
    sort_rows();
    return;
  }
#endif
  sort_rows();
}

/*! \brief Sort the rows of in (layout l), producing the first k of each in the given order.
 *  Indices go to idx_out in its own dtype (through int64 scratch when it is not int64). */
void SortRows(const OpContext& ctx, const TBlob& in, const SortLayout& l, index_t k,
              bool ascend, const TBlob* value_out, OpReqType value_req, const TBlob* idx_out,
              OpReqType idx_req, const TBlob* mask_out, OpReqType mask_req) {
  if (value_out && value_req == kNullOp) value_out = nullptr;
  if (idx_out && idx_req == kNullOp) idx_out = nullptr;
  if (mask_out && mask_req == kNullOp) mask_out = nullptr;
  if (!value_out && !idx_out && !mask_out) return;
  int64_t* idx = nullptr;
  const index_t n_idx = l.outer * l.inner * k;
  const bool idx_direct = idx_out && idx_out->type_flag_ == kInt64 && idx_req != kAddTo;
  if (idx_out) {
    idx = idx_direct ? idx_out->dptr<int64_t>()
                     : static_cast<int64_t*>(ctx.RequestTempSpace(sizeof(int64_t) * std::max<index_t>(1, n_idx)));
  }
  MXNET_NUMERIC_TYPE_SWITCH(in.type_flag_, D, {
    SortOutputs<D> o;
    o.value = value_out ? value_out->dptr<D>() : nullptr;
    o.value_req = value_req;
    o.index = idx;
    o.mask = mask_out ? mask_out->dptr<D>() : nullptr;
    o.mask_req = mask_req;
    if (ascend) SortRowsTyped<true>(in.dptr<D>(), l, k, o);
    else SortRowsTyped<false>(in.dptr<D>(), l, k, o);
  });
  if (idx_out && !idx_direct) {
    CastScaleCompute(TBlob(idx, idx_out->shape_, kInt64, idx_out->ctx), 1.0, idx_req, *idx_out);
  }
}

// ---------------------------------------------------------------- topk
index_t TopKCount(const NodeAttrs& attrs, const TopKParam& p, const SortLayout& l) {
  if (p.k < 1) return l.n;
  if (p.k > l.n) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument k is " << p.k
               << ", expected at most " << l.n << ", the number of elements along the axis";
  }
  return p.k;
}

uint32_t TopKNumOutputs(const NodeAttrs& attrs) {
  return Param<TopKParam>(attrs).ret_typ == kReturnBoth ? 2 : 1;
}

bool TopKShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& s = (*in)[0];
  if (!s.IsKnown()) return false;
  const auto& p = Param<TopKParam>(attrs);
  SortLayout l = MakeLayout(attrs, s, p.axis);
  const index_t k = TopKCount(attrs, p, l);
  if (p.ret_typ == kReturnMask) {
    AssignShape(attrs, "output", &(*out)[0], s);
    return true;
  }
  if (p.ret_typ != kReturnValue) CheckIndexDType(attrs, p.dtype, l.n);
  for (auto& o : *out) AssignShape(attrs, "output", &o, CutShape(s, l, k));
  return true;
}

bool TopKType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const auto& p = Param<TopKParam>(attrs);
  const int t = (*in)[0];
  if (t >= 0) CheckSortable(attrs, t);
  switch (p.ret_typ) {
    case kReturnIndices: AssignType(attrs, "output", &(*out)[0], p.dtype); break;
    case kReturnBoth:
      AssignType(attrs, "output", &(*out)[0], t);
      AssignType(attrs, "output", &(*out)[1], p.dtype);
      break;
    default: AssignType(attrs, "output", &(*out)[0], t);
  }
  return t >= 0;
}

void TopKForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = Param<TopKParam>(attrs);
  SortLayout l = MakeLayout(attrs, in[0].shape_, p.axis);
  const index_t k = TopKCount(attrs, p, l);
  switch (p.ret_typ) {
    case kReturnValue:
      return SortRows(ctx, in[0], l, k, p.is_ascend, &out[0], req[0], nullptr, kNullOp, nullptr,
                      kNullOp);
    case kReturnIndices:
      return SortRows(ctx, in[0], l, k, p.is_ascend, nullptr, kNullOp, &out[0], req[0], nullptr,
                      kNullOp);
    case kReturnMask:
      return SortRows(ctx, in[0], l, k, p.is_ascend, nullptr, kNullOp, nullptr, kNullOp, &out[0],
                      req[0]);
    default:
      return SortRows(ctx, in[0], l, k, p.is_ascend, &out[0], req[0], &out[1], req[1], nullptr,
                      kNullOp);
  }
}


std::unordered_map<std::string, std::string> Copy(const ObjectPtr& n,
                                                  std::initializer_list<const char*> keys) {
  std::unordered_map<std::string, std::string> d;
  for (const char* k : keys) {
    auto it = n->attrs.dict.find(k);
    if (it != n->attrs.dict.end()) d[k] = it->second;
  }
  return d;
}

NodeEntry Scatter(const ObjectPtr& n, NodeEntry og, NodeEntry indices) {
  return MakeNode("_topk_scatter", GradName(n), {og, indices, n->inputs[0]}, Copy(n, {"axis"}));
}

// The values are data gathered at the indices, so their gradient scatters back there.
std::vector<NodeEntry> TopKGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const auto& p = Param<TopKParam>(n->attrs);
  if (p.ret_typ == kReturnBoth) return {Scatter(n, og[0], Out(n, 1))};
  if (p.ret_typ == kReturnValue) {
    auto d = Copy(n, {"axis", "k", "is_ascend"});
    d["ret_typ"] = "indices";
    d["dtype"] = "int64";
    return {Scatter(n, og[0], MakeNode("topk", GradName(n), {n->inputs[0]}, d))};
  }
  return {NodeEntry()};  // indices and masks are piecewise constant
}

// ---------------------------------------------------------------- sort, argsort
bool SortShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& s = (*in)[0];
  if (!s.IsKnown()) return false;
  const bool is_sort = attrs.op->name == "sort";
  dmlc::optional<int> axis = is_sort ? Param<SortParam>(attrs).axis : Param<ArgSortParam>(attrs).axis;
  SortLayout l = MakeLayout(attrs, s, axis);
  if (!is_sort) CheckIndexDType(attrs, Param<ArgSortParam>(attrs).dtype, l.n);
  AssignShape(attrs, "output", &(*out)[0], CutShape(s, l, l.n));
  return true;
}

bool SortType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  if ((*in)[0] >= 0) CheckSortable(attrs, (*in)[0]);
  return ElemwiseType(attrs, in, out);
}

bool ArgSortType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  if ((*in)[0] >= 0) CheckSortable(attrs, (*in)[0]);
  AssignType(attrs, "output", &(*out)[0], Param<ArgSortParam>(attrs).dtype);
  return (*in)[0] >= 0;
}

void SortForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = Param<SortParam>(attrs);
  SortLayout l = MakeLayout(attrs, in[0].shape_, p.axis);
  SortRows(ctx, in[0], l, l.n, p.is_ascend, &out[0], req[0], nullptr, kNullOp, nullptr, kNullOp);
}

void ArgSortForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = Param<ArgSortParam>(attrs);
  SortLayout l = MakeLayout(attrs, in[0].shape_, p.axis);
  SortRows(ctx, in[0], l, l.n, p.is_ascend, nullptr, kNullOp, &out[0], req[0], nullptr, kNullOp);
}

std::vector<NodeEntry> SortGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  auto d = Copy(n, {"axis", "is_ascend"});
  d["dtype"] = "int64";
  return {Scatter(n, og[0], MakeNode("argsort", GradName(n), {n->inputs[0]}, d))};
}

// ---------------------------------------------------------------- _topk_scatter / _topk_gather
/*! \brief Layout of data (the full array) for indices running along axis; checks that indices
 *  has data's shape except along the axis. */
SortLayout IndexLayout(const NodeAttrs& attrs, const TShape& data, const TShape& indices,
                       index_t* k) {
  SortLayout l = MakeLayout(attrs, data, Param<SortAxisParam>(attrs).axis);
  if (l.axis < 0) {
    *k = static_cast<index_t>(indices.Size());
    return l;
  }
  bool ok = indices.ndim() == data.ndim();
  for (int i = 0; ok && i < data.ndim(); ++i) ok = i == l.axis || indices[i] == data[i];
  if (!ok) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument indices has shape " << indices
               << ", expected the shape of " << data << " except along axis " << l.axis;
  }
  *k = indices[l.axis];
  return l;
}

/*! \brief The indices as int64 (in scratch unless already int64), each checked in [0, n). */
const int64_t* IndicesAsInt64(const NodeAttrs& attrs, const OpContext& ctx, const TBlob& idx,
                              index_t n, size_t scratch_offset) {
  const int64_t* p = idx.dptr<int64_t>();
  const index_t m = static_cast<index_t>(idx.Size());
  if (idx.type_flag_ != kInt64) {
    char* base = static_cast<char*>(ctx.RequestTempSpace(scratch_offset + sizeof(int64_t) * std::max<index_t>(1, m)));
    int64_t* tmp = reinterpret_cast<int64_t*>(base + scratch_offset);
    CastScaleCompute(idx, 1.0, kWriteTo, TBlob(tmp, idx.shape_, kInt64, idx.ctx));
    p = tmp;
  }
  for (index_t j = 0; j < m; ++j) {
    if (p[j] < 0 || p[j] >= n) {
      LOG(FATAL) << "Operator " << attrs.op->name << ": argument indices holds " << p[j]
                 << ", expected indices in [0, " << n << ")";
    }
  }
  return p;
}

bool ScatterShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& like = (*in)[2];
  if (!like.IsKnown() || !(*in)[1].IsKnown()) return false;
  index_t k;
  IndexLayout(attrs, like, (*in)[1], &k);
  AssignShape(attrs, "data", &(*in)[0], (*in)[1]);
  AssignShape(attrs, "output", &(*out)[0], like);
  return true;
}

bool ScatterType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, "output", &(*out)[0], (*in)[0]);
  if ((*in)[0] < 0) (*in)[0] = (*out)[0];
  return (*in)[0] >= 0 && (*in)[1] >= 0 && (*in)[2] >= 0;
}

void ScatterForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  index_t k;
  SortLayout l = IndexLayout(attrs, out[0].shape_, in[1].shape_, &k);
  const int64_t* idx = IndicesAsInt64(attrs, ctx, in[1], l.n, 0);
  const index_t I = l.inner, n = l.n;
  MXNET_TYPE_SWITCH(out[0].type_flag_, D, {
    const D* g = in[0].dptr<D>();
    D* o = out[0].dptr<D>();
    if (req[0] != kAddTo) std::fill(o, o + out[0].Size(), D(0));
    ParallelForWork(l.outer * I, k, [&](index_t r) {
      const index_t oo = r / I, i = r % I;
      for (index_t j = 0; j < k; ++j) {
        const index_t src = oo * k * I + j * I + i;
        D* dst = o + oo * n * I + idx[src] * I + i;
        *dst = static_cast<D>(*dst + g[src]);
      }
    });
  });
}

bool GatherShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[0].IsKnown() || !(*in)[1].IsKnown()) return false;
  index_t k;
  IndexLayout(attrs, (*in)[0], (*in)[1], &k);
  AssignShape(attrs, "output", &(*out)[0], (*in)[1]);
  return true;
}

bool GatherType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, "output", &(*out)[0], (*in)[0]);
  if ((*in)[0] < 0) (*in)[0] = (*out)[0];
  return (*in)[0] >= 0 && (*in)[1] >= 0;
}

void GatherForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  index_t k;
  SortLayout l = IndexLayout(attrs, in[0].shape_, in[1].shape_, &k);
  const int64_t* idx = IndicesAsInt64(attrs, ctx, in[1], l.n, 0);
  const index_t I = l.inner, n = l.n;
  MXNET_TYPE_SWITCH(out[0].type_flag_, D, {
    const D* x = in[0].dptr<D>();
    D* o = out[0].dptr<D>();
    const OpReqType r0 = req[0];
    ParallelForWork(l.outer * k * I, 1, [&](index_t t) {
      const index_t oo = t / (k * I), i = t % I;
      Assign(o + t, r0, x[oo * n * I + idx[t] * I + i]);
    });
  });
}

std::vector<NodeEntry> ScatterGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {MakeNode("_topk_gather", GradName(n), {og[0], n->inputs[1]}, Copy(n, {"axis"})),
          NodeEntry(), NodeEntry()};
}

std::vector<NodeEntry> GatherGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {MakeNode("_topk_scatter", GradName(n), {og[0], n->inputs[1], n->inputs[0]},
                   Copy(n, {"axis"})),
          NodeEntry()};
}

// ---------------------------------------------------------------- registration
const bool kRegistered [[maybe_unused]] = [] {
  nnvm::Op::Register("topk")
      .describe("Returns the k largest (or smallest, is_ascend=True) elements along an axis: "
                "their values, indices, a mask, or values and indices. Ties keep index order.")
      .set_num_inputs(1)
      .set_num_outputs(TopKNumOutputs)
      .add_argument("data", "NDArray-or-Symbol", "The input array")
      .add_arguments(TopKParam::__FIELDS__())
      .set_attr_parser(ParamParser<TopKParam>)
      .set_attr<FInferShape>("FInferShape", TopKShape)
      .set_attr<FInferType>("FInferType", TopKType)
      .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
      .set_attr<FCompute>("FCompute<cpu>", TopKForward)
      .set_attr<FGradient>("FGradient", TopKGrad);

  nnvm::Op::Register("sort")
      .describe("Returns the input sorted along an axis (stable; NaN sorts as the largest).")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The input array")
      .add_arguments(SortParam::__FIELDS__())
      .set_attr_parser(ParamParser<SortParam>)
      .set_attr<FInferShape>("FInferShape", SortShape)
      .set_attr<FInferType>("FInferType", SortType)
      .set_attr<FCompute>("FCompute<cpu>", SortForward)
      .set_attr<FGradient>("FGradient", SortGrad);

  nnvm::Op::Register("argsort")
      .describe("Returns the indices that sort the input along an axis (stable; NaN sorts as "
                "the largest).")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The input array")
      .add_arguments(ArgSortParam::__FIELDS__())
      .set_attr_parser(ParamParser<ArgSortParam>)
      .set_attr<FInferShape>("FInferShape", SortShape)
      .set_attr<FInferType>("FInferType", ArgSortType)
      .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
      .set_attr<FCompute>("FCompute<cpu>", ArgSortForward)
      .set_attr<TIsNonDifferentiable>("TIsNonDifferentiable", true);

  nnvm::Op::Register("_topk_scatter")
      .describe("Adds data[..., j, ...] into a zero array shaped like `like` at position "
                "indices[..., j, ...] along axis (flat positions when axis is None). The "
                "gradient of topk and sort.")
      .set_num_inputs(3)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "Values to scatter")
      .add_argument("indices", "NDArray-or-Symbol", "Positions along axis, shaped like data")
      .add_argument("like", "NDArray-or-Symbol", "An array with the output shape")
      .add_arguments(SortAxisParam::__FIELDS__())
      .set_attr_parser(ParamParser<SortAxisParam>)
      .set_attr<FListInputNames>("FListInputNames", InputNames({"data", "indices", "like"}))
      .set_attr<FInferShape>("FInferShape", ScatterShape)
      .set_attr<FInferType>("FInferType", ScatterType)
      .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
      .set_attr<FCompute>("FCompute<cpu>", ScatterForward)
      .set_attr<FGradient>("FGradient", ScatterGrad);

  nnvm::Op::Register("_topk_gather")
      .describe("Picks data at position indices[..., j, ...] along axis (flat positions when "
                "axis is None); the adjoint of _topk_scatter.")
      .set_num_inputs(2)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The source array")
      .add_argument("indices", "NDArray-or-Symbol", "Positions along axis")
      .add_arguments(SortAxisParam::__FIELDS__())
      .set_attr_parser(ParamParser<SortAxisParam>)
      .set_attr<FListInputNames>("FListInputNames", InputNames({"data", "indices"}))
      .set_attr<FInferShape>("FInferShape", GatherShape)
      .set_attr<FInferType>("FInferType", GatherType)
      .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
      .set_attr<FCompute>("FCompute<cpu>", GatherForward)
      .set_attr<FGradient>("FGradient", GatherGrad);
  return true;
}();

}  // namespace
}  // namespace op
}  // namespace mxnet
