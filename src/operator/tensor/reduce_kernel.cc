// Reduction loops: MXNet's axis rules, the staged (outer, reduce, inner) kernel with blocked
// accumulation, first-index arg-reductions and the dtype-converting copy.
//
// A reduction over any axis set is planned on the merged shape (size-1 dims dropped, neighbours
// that are both kept or both reduced merged). One reduced group is one stage; separated groups
// (e.g. axes 0 and 2 of (N, C, HW)) are reduced one after another, last group first, through
// accumulator-typed scratch. Work is split into fixed-size pieces whose partial results are
// combined in a fixed order, so results do not depend on the number of threads.
#include "operator/tensor/reduce_kernel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

namespace mxnet {
namespace op {

std::vector<bool> ReduceAxesMask(const NodeAttrs& attrs, const char* arg_name, const TShape& shape,
                                 const dmlc::optional<IntTuple>& axis, bool exclude) {
  const int nd = shape.ndim();
  std::vector<bool> mask(nd, true);
  if (!axis.has_value() || axis.value().ndim() == 0) return mask;
  std::vector<bool> listed(nd, false);
  for (int64_t a : axis.value().v) {
    int64_t b = a < 0 ? a + nd : a;
    if (b < 0 || b >= nd) {
      LOG(FATAL) << "Operator " << attrs.op->name << ": argument " << arg_name << " is "
                 << axis.value() << ", expected axes in [" << -nd << ", " << nd
                 << ") for an input of shape " << shape;
    }
    if (listed[b]) {
      LOG(FATAL) << "Operator " << attrs.op->name << ": argument " << arg_name << " is "
                 << axis.value() << ", expected distinct axes, but axis " << b
                 << " is given twice for an input of shape " << shape;
    }
    listed[b] = true;
  }
  for (int i = 0; i < nd; ++i) mask[i] = listed[i] != exclude;
  return mask;
}

TShape ReducedShape(const TShape& shape, const std::vector<bool>& mask, bool keepdims) {
  std::vector<dim_t> dims;
  for (int i = 0; i < shape.ndim(); ++i) {
    if (!mask[i]) dims.push_back(shape[i]);
    else if (keepdims) dims.push_back(1);
  }
  if (dims.empty()) dims.push_back(1);
  return TShape(dims.begin(), dims.end());
}

index_t ReducedCount(const TShape& shape, const std::vector<bool>& mask) {
  index_t n = 1;
  for (int i = 0; i < shape.ndim(); ++i) {
    if (mask[i]) n *= shape[i];
  }
  return n;
}

namespace {

// ---------------------------------------------------------------- element maps (first pass)
// Apply maps a value in place; it works on scalars and on GCC vectors of them (E is the
// element type). Do converts one input element to the accumulator type and maps it.
// kWide: the mapped values need the full accumulator range (squares), so no float lanes.
template <typename Self>
struct MapBase {
  template <typename A, typename T> static A Do(T x) {
    A v = static_cast<A>(x);
    Self::template Apply<A>(v);
    return v;
  }
};
struct MapId : MapBase<MapId> {
  static constexpr bool kWide = false;
  template <typename E, typename V> static void Apply(V&) {}
};
struct MapNanZero : MapBase<MapNanZero> {
  static constexpr bool kWide = false;
  template <typename E, typename V> static void Apply(V& v) { v = v != v ? V{} : v; }
};
struct MapNanOne : MapBase<MapNanOne> {
  static constexpr bool kWide = false;
  template <typename E, typename V> static void Apply(V& v) { v = v != v ? V{} + E(1) : v; }
};
struct MapAbs : MapBase<MapAbs> {
  static constexpr bool kWide = false;
  template <typename E, typename V> static void Apply(V& v) { v = v < V{} ? -v : v; }
};
struct MapSquare : MapBase<MapSquare> {
  static constexpr bool kWide = true;
  template <typename E, typename V> static void Apply(V& v) { v = v * v; }
};

// ---------------------------------------------------------------- accumulators
// kShortFloat: short runs of float terms may be accumulated in float before the accumulator
// type takes over (true for sums; products could under/overflow early).
// Red is exact (NaN sticky in max/min, as in numpy and MXNet); hot loops use RedFast, a plain
// select that vectorizes, and track NaN on the side when kNanFlag.
struct AccSum {
  static constexpr bool kShortFloat = true;
  static constexpr bool kNanFlag = false;
  template <typename A> static A Init() { return A(0); }
  template <typename A> static void Red(A& a, A b) { a += b; }  // NOLINT(runtime/references)
  template <typename V> static void RedFast(V& a, const V& b) { a += b; }  // NOLINT
};
struct AccProd {
  static constexpr bool kShortFloat = false;
  static constexpr bool kNanFlag = false;
  template <typename A> static A Init() { return A(1); }
  template <typename A> static void Red(A& a, A b) { a *= b; }  // NOLINT(runtime/references)
  template <typename V> static void RedFast(V& a, const V& b) { a *= b; }  // NOLINT
};
struct AccMax {
  static constexpr bool kShortFloat = false;
  static constexpr bool kNanFlag = true;
  template <typename A> static A Init() {
    return std::numeric_limits<A>::has_infinity ? -std::numeric_limits<A>::infinity()
                                                : std::numeric_limits<A>::lowest();
  }
  template <typename A> static void Red(A& a, A b) {  // NOLINT(runtime/references)
    if (a == a && !(a >= b)) a = b;
  }
  template <typename V> static void RedFast(V& a, const V& b) { a = a >= b ? a : b; }  // NOLINT
};
struct AccMin {
  static constexpr bool kShortFloat = false;
  static constexpr bool kNanFlag = true;
  template <typename A> static A Init() {
    return std::numeric_limits<A>::has_infinity ? std::numeric_limits<A>::infinity()
                                                : std::numeric_limits<A>::max();
  }
  template <typename A> static void Red(A& a, A b) {  // NOLINT(runtime/references)
    if (a == a && !(a <= b)) a = b;
  }
  template <typename V> static void RedFast(V& a, const V& b) { a = a <= b ? a : b; }  // NOLINT
};

// Accumulator types.
template <typename D> struct SumAcc { using type = int64_t; };
template <> struct SumAcc<half_t> { using type = float; };
template <> struct SumAcc<float> { using type = double; };
template <> struct SumAcc<double> { using type = double; };
template <typename D> struct MaxAcc { using type = D; };
template <> struct MaxAcc<half_t> { using type = float; };
template <> struct MaxAcc<bool> { using type = int64_t; };

/*! \brief Type of the innermost accumulators: float for short runs of float/half sums (4-8
 *  per SIMD op), whose results are then folded in the accumulator type A. */
template <typename Acc, typename Map, typename A, typename IT>
using LaneType = typename std::conditional<
    (std::is_same<IT, float>::value || std::is_same<IT, half_t>::value) && Acc::kShortFloat &&
        !Map::kWide && std::is_floating_point<A>::value,
    float, A>::type;

enum Finish { kFinNone, kFinDiv, kFinSqrt };

template <typename A>
inline A Finalize(A a, int fin, index_t count) {
  if (fin == kFinDiv) {
    if constexpr (std::is_integral<A>::value) {
      return count == 0 ? A(0) : A(a / static_cast<A>(count));
    } else {
      return a / static_cast<A>(count);
    }
  }
  if (fin == kFinSqrt) return static_cast<A>(std::sqrt(static_cast<double>(a)));
  return a;
}

/*! \brief Write v to *o in o's dtype, honouring req. */
template <typename OT, typename V>
inline void Put(OT* o, OpReqType req, V v) {
  if (req == kAddTo) *o = static_cast<OT>(static_cast<V>(*o) + v);
  else *o = static_cast<OT>(v);
}

constexpr index_t kBlock = 2048;    // row elements per partial result
constexpr index_t kTile = 256;      // inner elements per work item of a strided reduction
constexpr index_t kRowRun = 64;     // rows accumulated in lane type before folding into A

/*! \brief acc[b] (op)= map(row[b]) for b < w: one row folded into a tile of accumulators.
 *  The loop is what GCC's loop vectorizer handles best (independent lanes, selects); w is a
 *  runtime value so the loop is not unrolled away before vectorization. For max/min the
 *  plain select may drop a NaN, so NaN is tracked per lane in nan[]. */
template <typename Acc, typename Map, typename L, typename IT>
inline void FoldRow(L* acc, L* nan, const IT* row, index_t w) {
  if constexpr (Acc::kNanFlag && std::is_floating_point<L>::value) {
    for (index_t b = 0; b < w; ++b) {
      const L v = Map::template Do<L>(row[b]);
      Acc::RedFast(acc[b], v);
      nan[b] = v != v ? v : nan[b];
    }
  } else {
    for (index_t b = 0; b < w; ++b) Acc::RedFast(acc[b], Map::template Do<L>(row[b]));
  }
}

/*! \brief Exact combination of a tile's lanes (and its NaN record) into one value. */
template <typename Acc, typename L>
inline L CombineLanes(const L* acc, const L* nan, index_t w) {
  L r = Acc::template Init<L>();
  for (index_t b = 0; b < w; ++b) {
    Acc::Red(r, acc[b]);
    if (nan[b] != nan[b]) r = nan[b];
  }
  return r;
}

constexpr index_t kRowWidth = 64;  // lanes of a contiguous-row reduction

/*! \brief Reduction of a contiguous row, seen as rows of kRowWidth folded into as many
 *  independent lanes (each lane sees n / 64 terms), then combined. Built for AVX2 as well as
 *  the baseline ISA, picked at load time (the whole-array reductions are bandwidth-bound and
 *  the wider loads matter). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define MXNET_REDUCE_ISA_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define MXNET_REDUCE_ISA_CLONES
#endif
template <typename Acc, typename Map, typename L, typename IT>
MXNET_REDUCE_ISA_CLONES L RowReduce(const IT* x, index_t n) {
  L acc[kRowWidth], nan[kRowWidth];
  // Fewer lanes for short rows, where combining 64 lanes would cost more than the row.
  const index_t w = n >= 512 ? kRowWidth : n >= 128 ? 16 : n >= 32 ? 4 : 1;
  for (index_t b = 0; b < w; ++b) {
    acc[b] = Acc::template Init<L>();
    nan[b] = L(0);
  }
  index_t i = 0;
  for (; i + w <= n; i += w) FoldRow<Acc, Map>(acc, nan, x + i, w);
  FoldRow<Acc, Map>(acc, nan, x + i, n - i);  // the tail, into the first lanes
  return CombineLanes<Acc>(acc, nan, w);
}

/*! \brief out[o, i] = finish(reduce_r map(in[o, r, i])) for in seen as (O, R, I). */
template <typename Acc, typename Map, typename A, typename IT, typename OT>
void Stage(const IT* in, OT* out, index_t O, index_t R, index_t I, int fin, index_t count,
           OpReqType req) {
  using L = LaneType<Acc, Map, A, IT>;
  if (I == 1) {
    const index_t nb = (R + kBlock - 1) / kBlock;
    if (nb <= 1) {
      ParallelForWork(O, std::max<index_t>(R, 1), [&](index_t o) {
        A a = static_cast<A>(RowReduce<Acc, Map, L>(in + o * R, R));
        Put(out + o, req, Finalize(a, fin, count));
      });
      return;
    }
    std::vector<A> part(O * nb);
    ParallelForWork(O * nb, kBlock, [&](index_t t) {
      const index_t o = t / nb, beg = (t % nb) * kBlock;
      part[t] = static_cast<A>(RowReduce<Acc, Map, L>(in + o * R + beg, std::min(kBlock, R - beg)));
    });
    ParallelForWork(O, nb, [&](index_t o) {
      A a = part[o * nb];
      for (index_t b = 1; b < nb; ++b) Acc::Red(a, part[o * nb + b]);
      Put(out + o, req, Finalize(a, fin, count));
    });
    return;
  }
  // Strided: each work item owns a tile of up to kTile inner positions of one outer index and
  // accumulates whole rows into it (contiguous, vectorizable inner loop), kRowRun rows at a
  // time in the lane type.
  const index_t ntile = (I + kTile - 1) / kTile;
  const index_t items = O * ntile;
  const index_t width = std::min(I, kTile);
  // Few tiles and a long reduced axis: split the reduced axis into fixed chunks as well. The
  // chunking sets the summation order, so it is a constant: results must not depend on the
  // thread count or on the operator-tuning variables (ParallelGrain only decides threads).
  constexpr index_t kChunkElems = 2 * kForkCost;
  index_t rc = R;
  if (items < 64 && R * width >= 2 * kChunkElems) rc = std::max<index_t>(1, kChunkElems / width);
  const index_t nr = R == 0 ? 1 : (R + rc - 1) / rc;
  auto tile = [&](index_t o, index_t i0, index_t w, index_t r0, index_t r1, A* acc) {
    for (index_t b = 0; b < w; ++b) acc[b] = Acc::template Init<A>();
    L lacc[kTile], nan[kTile];
    const IT* base = in + o * R * I + i0;
    for (index_t rb = r0; rb < r1; rb += kRowRun) {
      const index_t re = std::min(r1, rb + kRowRun);
      for (index_t b = 0; b < w; ++b) {
        lacc[b] = Acc::template Init<L>();
        nan[b] = L(0);
      }
      for (index_t r = rb; r < re; ++r) FoldRow<Acc, Map>(lacc, nan, base + r * I, w);
      for (index_t b = 0; b < w; ++b) {
        Acc::Red(acc[b], static_cast<A>(lacc[b]));
        if (nan[b] != nan[b]) acc[b] = static_cast<A>(nan[b]);
      }
    }
  };
  if (nr == 1) {
    ParallelForWork(items, R * width, [&](index_t t) {
      const index_t o = t / ntile, i0 = (t % ntile) * kTile, w = std::min(kTile, I - i0);
      A acc[kTile];
      tile(o, i0, w, 0, R, acc);
      OT* dst = out + o * I + i0;
      for (index_t b = 0; b < w; ++b) Put(dst + b, req, Finalize(acc[b], fin, count));
    });
    return;
  }
  const index_t n_out = O * I;
  std::vector<A> part(nr * n_out);
  ParallelForWork(items * nr, rc * width, [&](index_t t) {
    const index_t c = t / items, rest = t % items;
    const index_t o = rest / ntile, i0 = (rest % ntile) * kTile, w = std::min(kTile, I - i0);
    tile(o, i0, w, c * rc, std::min(R, (c + 1) * rc), &part[c * n_out + o * I + i0]);
  });
  ParallelForWork(n_out, nr, [&](index_t j) {
    A a = part[j];
    for (index_t c = 1; c < nr; ++c) Acc::Red(a, part[c * n_out + j]);
    Put(out + j, req, Finalize(a, fin, count));
  });
}

template <typename IT, typename OT>
void CastLoop(const IT* in, OT* out, index_t n, double scale, OpReqType req) {
  if (scale == 1.0) {
    ParallelFor(n, [&](index_t i) { Put(out + i, req, in[i]); });
  } else {
    ParallelFor(n, [&](index_t i) { Put(out + i, req, static_cast<double>(in[i]) * scale); });
  }
}

/*! \brief Merged shape: extents and whether each is reduced; size-1 dims dropped. */
struct ReducePlan {
  std::vector<index_t> dims;
  std::vector<bool> red;
  ReducePlan(const TShape& s, const std::vector<bool>& mask) {
    for (int i = 0; i < s.ndim(); ++i) {
      if (s[i] == 1) continue;
      if (!dims.empty() && red.back() == mask[i]) {
        dims.back() *= s[i];
      } else {
        dims.push_back(s[i]);
        red.push_back(mask[i]);
      }
    }
  }
};

// Every stage accumulates into scratch of the accumulator type; one conversion pass writes the
// (much smaller) result in the output dtype. This keeps one kernel instance per accumulator.
template <typename Acc, typename Map, typename A, typename D>
void RunReduce(const OpContext& ctx, const ReducePlan& plan, const TBlob& in, int fin,
               index_t count, OpReqType req, const TBlob& out) {
  auto prod = [](const std::vector<index_t>& d, size_t b, size_t e) {
    index_t n = 1;
    for (size_t i = b; i < e; ++i) n *= d[i];
    return n;
  };
  std::vector<int> groups;  // indices of reduced groups in plan.dims
  for (size_t g = 0; g < plan.dims.size(); ++g) {
    if (plan.red[g]) groups.push_back(static_cast<int>(g));
  }
  std::vector<index_t> dims = plan.dims;
  if (groups.empty()) {  // nothing folded (all reduced extents are 1): map and finish only
    dims.assign(1, 1);
    groups.push_back(0);
    dims.push_back(static_cast<index_t>(in.Size()));
  }
  const size_t g_last = groups.back();
  const index_t first_out = prod(dims, 0, g_last) * prod(dims, g_last + 1, dims.size());
  const index_t n_buf = groups.size() > 1 ? 2 : 1;
  A* buf[2];
  buf[0] = static_cast<A*>(ctx.RequestTempSpace(sizeof(A) * std::max<index_t>(1, n_buf * first_out)));
  buf[1] = buf[0] + first_out;
  int cur = 0;
  index_t n_out = first_out;
  for (size_t k = groups.size(); k-- > 0;) {
    const size_t g = groups[k];
    const index_t O = prod(dims, 0, g), R = dims[g], I = prod(dims, g + 1, dims.size());
    const int f = k == 0 ? fin : kFinNone;
    if (k + 1 == groups.size()) {
      Stage<Acc, Map, A>(in.dptr<D>(), buf[0], O, R, I, f, count, kWriteTo);
    } else {
      Stage<Acc, MapId, A>(buf[cur], buf[1 - cur], O, R, I, f, count, kWriteTo);
      cur = 1 - cur;
    }
    dims.erase(dims.begin() + g);
    n_out = O * I;
  }
  MXNET_TYPE_SWITCH(out.type_flag_, OT, { CastLoop(buf[cur], out.dptr<OT>(), n_out, 1.0, req); });
}

template <typename D>
void ReduceTyped(const OpContext& ctx, ReduceKind kind, const ReducePlan& plan, const TBlob& in,
                 index_t count, OpReqType req, const TBlob& out) {
  using S = typename SumAcc<D>::type;
  using M = typename MaxAcc<D>::type;
  switch (kind) {
    case ReduceKind::kSum:
      return RunReduce<AccSum, MapId, S, D>(ctx, plan, in, kFinNone, count, req, out);
    case ReduceKind::kMean:
      return RunReduce<AccSum, MapId, S, D>(ctx, plan, in, kFinDiv, count, req, out);
    case ReduceKind::kProd:
      return RunReduce<AccProd, MapId, S, D>(ctx, plan, in, kFinNone, count, req, out);
    case ReduceKind::kMax:
      return RunReduce<AccMax, MapId, M, D>(ctx, plan, in, kFinNone, count, req, out);
    case ReduceKind::kMin:
      return RunReduce<AccMin, MapId, M, D>(ctx, plan, in, kFinNone, count, req, out);
    case ReduceKind::kNanSum:
      if constexpr (!std::is_floating_point<S>::value || std::is_same<D, bool>::value) {
        return RunReduce<AccSum, MapId, S, D>(ctx, plan, in, kFinNone, count, req, out);
      } else {
        return RunReduce<AccSum, MapNanZero, S, D>(ctx, plan, in, kFinNone, count, req, out);
      }
    case ReduceKind::kNanProd:
      if constexpr (!std::is_floating_point<S>::value || std::is_same<D, bool>::value) {
        return RunReduce<AccProd, MapId, S, D>(ctx, plan, in, kFinNone, count, req, out);
      } else {
        return RunReduce<AccProd, MapNanOne, S, D>(ctx, plan, in, kFinNone, count, req, out);
      }
    case ReduceKind::kNorm1:
      return RunReduce<AccSum, MapAbs, double, D>(ctx, plan, in, kFinNone, count, req, out);
    case ReduceKind::kNorm2:
      return RunReduce<AccSum, MapSquare, double, D>(ctx, plan, in, kFinSqrt, count, req, out);
  }
}

/*! \brief True when candidate b beats the current best a (the first NaN wins). Branch-free
 *  so the lane loops below vectorize. */
template <bool kMax, typename C>
inline bool Beats(C a, C b) {
  return (a == a) & ((b != b) | (kMax ? (b > a) : (b < a)));
}

/*! \brief Position of the first extreme of a contiguous run x[0, n) (n >= 1), searched in 64
 *  independent lanes; returns the value through *val. */
template <bool kMax, typename C, typename D>
inline index_t ArgRow(const D* x, index_t n, C* val) {
  // Positions in the width of the values, so value and position selects vectorize together.
  using P = typename std::conditional<sizeof(C) == 8, int64_t, int32_t>::type;
  C best[kRowWidth];
  P bi[kRowWidth];
  const index_t w = std::min(n, kRowWidth);
  for (index_t b = 0; b < w; ++b) {
    best[b] = static_cast<C>(x[b]);
    bi[b] = b;
  }
  index_t i = w;
  for (; i + w <= n; i += w) {
    for (index_t b = 0; b < w; ++b) {
      const C v = static_cast<C>(x[i + b]);
      const bool t = Beats<kMax>(best[b], v);
      best[b] = t ? v : best[b];
      bi[b] = t ? static_cast<P>(i + b) : bi[b];
    }
  }
  for (index_t b = 0; i < n; ++i, ++b) {
    const C v = static_cast<C>(x[i]);
    if (Beats<kMax>(best[b], v)) {
      best[b] = v;
      bi[b] = i;
    }
  }
  // Lanes hold the first extreme of interleaved subsequences; equally good ones tie-break
  // on the lower position.
  C cv = best[0];
  P ci = bi[0];
  for (index_t b = 1; b < w; ++b) {
    if (Beats<kMax>(cv, best[b]) || (!Beats<kMax>(best[b], cv) && bi[b] < ci)) {
      cv = best[b];
      ci = bi[b];
    }
  }
  *val = cv;
  return ci;
}

/*! \brief First extreme along the middle axis of (O, n, I) with I > 1: tiles of inner
 *  positions scan the rows, holding best values and positions (type P) per column. */
template <bool kMax, typename C, typename P, typename D, typename Put>
void ArgColumns(const D* in, D* out, index_t O, index_t n, index_t I, const Put& put) {
  const index_t ntile = (I + kTile - 1) / kTile;
  ParallelForWork(O * ntile, n * std::min(I, kTile), [&](index_t t) {
    const index_t o = t / ntile, i0 = (t % ntile) * kTile, w = std::min(kTile, I - i0);
    C best[kTile];
    P bi[kTile];
    const D* base = in + o * n * I + i0;
    for (index_t b = 0; b < w; ++b) {
      best[b] = static_cast<C>(base[b]);
      bi[b] = 0;
    }
    for (index_t r = 1; r < n; ++r) {
      const D* row = base + r * I;
      const P pr = static_cast<P>(r);
      for (index_t b = 0; b < w; ++b) {
        const C v = static_cast<C>(row[b]);
        const bool take = Beats<kMax>(best[b], v);
        best[b] = take ? v : best[b];
        bi[b] = take ? pr : bi[b];
      }
    }
    for (index_t b = 0; b < w; ++b) put(out + o * I + i0 + b, static_cast<index_t>(bi[b]));
  });
}

template <bool kMax, typename D>
void ArgReduceTyped(const D* in, D* out, index_t O, index_t n, index_t I, OpReqType req) {
  using C = typename MaxAcc<D>::type;
  auto put = [&](D* o, index_t idx) {
    if (req == kAddTo) *o = static_cast<D>(static_cast<double>(*o) + static_cast<double>(idx));
    else *o = static_cast<D>(idx);
  };
  if (I == 1) {
    const index_t nb = std::max<index_t>(1, (n + kBlock - 1) / kBlock);
    std::vector<C> bval(O * nb);
    std::vector<index_t> bidx(O * nb);
    ParallelForWork(O * nb, std::min(n, kBlock), [&](index_t t) {
      const index_t o = t / nb, beg = (t % nb) * kBlock, end = std::min(n, beg + kBlock);
      bidx[t] = beg + ArgRow<kMax>(in + o * n + beg, end - beg, &bval[t]);  // end - beg <= kBlock
    });
    ParallelForWork(O, nb, [&](index_t o) {
      C best = bval[o * nb];
      index_t bi = bidx[o * nb];
      for (index_t b = 1; b < nb; ++b) {
        if (Beats<kMax>(best, bval[o * nb + b])) {
          best = bval[o * nb + b];
          bi = bidx[o * nb + b];
        }
      }
      put(out + o, bi);
    });
    return;
  }
  // Positions in the width of the values when they fit, so the selects vectorize together.
  using P = typename std::conditional<sizeof(C) == 8, int64_t, int32_t>::type;
  if (n > static_cast<index_t>(std::numeric_limits<P>::max())) {
    ArgColumns<kMax, C, index_t>(in, out, O, n, I, put);
  } else {
    ArgColumns<kMax, C, P>(in, out, O, n, I, put);
  }
}

}  // namespace

void ReduceAxesCompute(const OpContext& ctx, ReduceKind kind, const TBlob& in,
                       const std::vector<bool>& mask, OpReqType req, const TBlob& out) {
  if (req == kNullOp || out.Size() == 0) return;
  // Empty reduced axes fold nothing: each output is the finished identity (0 for sums, 1 for
  // products, NaN for the mean of floats); shape inference rejects max/min over them.
  const index_t count = ReducedCount(in.shape_, mask);
  ReducePlan plan(in.shape_, mask);
  MXNET_TYPE_SWITCH(in.type_flag_, D, { ReduceTyped<D>(ctx, kind, plan, in, count, req, out); });
}

void ArgReduceCompute(bool is_max, const TBlob& in, index_t outer, index_t n, index_t inner,
                      OpReqType req, const TBlob& out) {
  if (req == kNullOp || out.Size() == 0) return;
  CHECK_GT(n, 0) << "arg-reduction over an empty axis";
  CHECK_EQ(in.type_flag_, out.type_flag_) << "arg-reduction: output dtype must be the input's";
  MXNET_NUMERIC_TYPE_SWITCH(in.type_flag_, D, {
    if (is_max) ArgReduceTyped<true>(in.dptr<D>(), out.dptr<D>(), outer, n, inner, req);
    else ArgReduceTyped<false>(in.dptr<D>(), out.dptr<D>(), outer, n, inner, req);
  });
}

void CastScaleCompute(const TBlob& in, double scale, OpReqType req, const TBlob& out) {
  if (req == kNullOp) return;
  const index_t n = static_cast<index_t>(out.Size());
  MXNET_TYPE_SWITCH(in.type_flag_, IT, {
    MXNET_TYPE_SWITCH(out.type_flag_, OT, {
      CastLoop(in.dptr<IT>(), out.dptr<OT>(), n, scale, req);
    });
  });
}

}  // namespace op
}  // namespace mxnet
