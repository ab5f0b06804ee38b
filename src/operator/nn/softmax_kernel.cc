// Row softmax kernels (forward and backward) for every pair of float input/output dtypes.
#include "operator/nn/softmax_kernel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "operator/nn/float_op_helpers.h"
#include "operator/nn/onednn/onednn_softmax.h"
#include "operator/tensor/elemwise_unary_functors.h"

namespace mxnet {
namespace op {

SoftmaxLayout SoftmaxLayout::Along(const TShape& s, int axis) {
  SoftmaxLayout l;
  l.outer = static_cast<index_t>(s.ProdShape(0, axis));
  l.M = s[axis];
  l.inner = static_cast<index_t>(s.ProdShape(axis + 1, s.ndim()));
  return l;
}

namespace {

index_t RowLength(const TBlob* length, index_t r, index_t M) {
  if (length == nullptr) return M;
  const int64_t v = length->type_flag_ == kInt64
                        ? length->dptr<int64_t>()[r]
                        : static_cast<int64_t>(length->dptr<int32_t>()[r]);
  return static_cast<index_t>(std::clamp<int64_t>(v, 0, M));
}

template <typename C>
inline C Exp(C x) {
  if constexpr (std::is_same<C, float>::value) return unary_op::ExpF32(x);
  else return std::exp(x);
}

// Rows along a strided axis (inner > 1) are handled kTile neighbouring positions at a time, so
// every pass over the axis reads contiguous runs instead of one element per cache line.
constexpr index_t kTile = 64;

/*! \brief fn(o, i0, w) for each tile of w <= kTile rows starting at position i0 of outer
 *  block o (w = 1 when the rows are contiguous), across threads when the array is large. */
template <typename Fn>
void ForEachTile(const SoftmaxLayout& l, Fn fn) {
  const index_t tiles_per_outer = (l.inner + kTile - 1) / kTile;
  const index_t tiles = l.inner == 1 ? l.outer : l.outer * tiles_per_outer;
  LoopMaybeParallel(l.rows() * l.M >= ParallelGrain(), tiles, [&](index_t t) {
    if (l.inner == 1) return fn(t, index_t(0), index_t(1));
    const index_t o = t / tiles_per_outer, i0 = (t % tiles_per_outer) * kTile;
    fn(o, i0, std::min(kTile, l.inner - i0));
  });
}

/*! \brief out[j] (req) = v for j < len, 0 (req) after. */
template <typename T, typename C>
inline void Put(T* out, index_t j, OpReqType req, C v) {
  if (req == kAddTo) out[j] = static_cast<T>(static_cast<C>(out[j]) + v);
  else out[j] = static_cast<T>(v);
}

/*! \brief One contiguous row of the forward pass as vector loops (flatten inlines the exp):
 *  y = softmax(sign * x / t) or its log over the first len of M elements, 0 after. */
template <typename IType, typename OType, typename C>
__attribute__((flatten)) void ForwardRow(const IType* x, OType* y, index_t len, index_t M,
                                         C sign, C inv_t, bool log, OpReqType req) {
  C mx = -std::numeric_limits<C>::infinity(), sum = 0;
#pragma omp simd reduction(max : mx)
  for (index_t j = 0; j < len; ++j) mx = std::max(mx, sign * static_cast<C>(x[j]));
  // exp(z) waits in the output for the division when the output holds C values exactly.
  if (std::is_same<OType, C>::value && req != kAddTo && !log) {
    C* yc = reinterpret_cast<C*>(y);
#pragma omp simd reduction(+ : sum)
    for (index_t j = 0; j < len; ++j) {
      const C e = Exp((sign * static_cast<C>(x[j]) - mx) * inv_t);
      yc[j] = e;
      sum += e;
    }
    const C inv_sum = C(1) / sum;
#pragma omp simd
    for (index_t j = 0; j < len; ++j) yc[j] *= inv_sum;
  } else {
#pragma omp simd reduction(+ : sum)
    for (index_t j = 0; j < len; ++j) sum += Exp((sign * static_cast<C>(x[j]) - mx) * inv_t);
    const C log_sum = std::log(sum), inv_sum = C(1) / sum;
#pragma omp simd
    for (index_t j = 0; j < len; ++j) {
      const C z = (sign * static_cast<C>(x[j]) - mx) * inv_t;
      Put(y, j, req, log ? z - log_sum : Exp(z) * inv_sum);
    }
  }
  for (index_t j = len; j < M; ++j) Put(y, j, req, C(0));
}

/*! \brief One contiguous row of the backward pass as vector loops. */
template <typename OType, typename IType, typename C>
__attribute__((flatten)) void BackwardRow(const OType* g, const OType* y, IType* dx, index_t len,
                                          index_t M, C scale, bool log, OpReqType req) {
  C sum = 0;
  if (log) {
#pragma omp simd reduction(+ : sum)
    for (index_t j = 0; j < len; ++j) sum += static_cast<C>(g[j]);
  } else {
#pragma omp simd reduction(+ : sum)
    for (index_t j = 0; j < len; ++j) sum += static_cast<C>(g[j]) * static_cast<C>(y[j]);
  }
#pragma omp simd
  for (index_t j = 0; j < len; ++j) {
    const C gj = static_cast<C>(g[j]), yj = static_cast<C>(y[j]);
    Put(dx, j, req, scale * (log ? gj - Exp(yj) * sum : yj * (gj - sum)));
  }
  for (index_t j = len; j < M; ++j) Put(dx, j, req, C(0));
}

template <typename IType, typename OType>
__attribute__((flatten)) void Forward(const TBlob& in, const TBlob& out, OpReqType req,
                                      const SoftmaxLayout& l, const SoftmaxOptions& opt,
                                      const TBlob* length) {
  using C = FloatComputeOf<IType>;
  const IType* x = in.dptr<IType>();
  OType* y = out.dptr<OType>();
  const C inv_t = C(1) / static_cast<C>(opt.temperature);
  const C sign = opt.negate ? C(-1) : C(1);
  // exp(z) can wait in the output for the division when the output holds C values exactly.
  const bool park = std::is_same<OType, C>::value && req != kAddTo && !opt.log;
  ForEachTile(l, [&](index_t o, index_t i0, index_t w) {
    if (l.inner == 1) {
      ForwardRow<IType, OType, C>(x + o * l.M, y + o * l.M, RowLength(length, o, l.M), l.M, sign,
                                  inv_t, opt.log, req);
      return;
    }
    C mx[kTile], sum[kTile];
    index_t len[kTile];
    index_t max_len = 0;
    for (index_t i = 0; i < w; ++i) {
      len[i] = RowLength(length, o * l.inner + i0 + i, l.M);
      max_len = std::max(max_len, len[i]);
      mx[i] = -std::numeric_limits<C>::infinity();
      sum[i] = 0;
    }
    const index_t base = o * l.M * l.inner + i0;
    auto at = [&](index_t j, index_t i) { return base + j * l.inner + i; };
    for (index_t j = 0; j < max_len; ++j) {
      for (index_t i = 0; i < w; ++i) {
        if (j < len[i]) mx[i] = std::max(mx[i], sign * static_cast<C>(x[at(j, i)]));
      }
    }
    for (index_t j = 0; j < max_len; ++j) {
      for (index_t i = 0; i < w; ++i) {
        if (j >= len[i]) continue;
        const C e = Exp((sign * static_cast<C>(x[at(j, i)]) - mx[i]) * inv_t);
        sum[i] += e;
        if (park) y[at(j, i)] = static_cast<OType>(e);
      }
    }
    C scale[kTile];
    for (index_t i = 0; i < w; ++i) scale[i] = opt.log ? std::log(sum[i]) : C(1) / sum[i];
    for (index_t j = 0; j < l.M; ++j) {
      for (index_t i = 0; i < w; ++i) {
        const index_t k = at(j, i);
        C v = 0;
        if (j < len[i]) {
          if (park) {
            v = static_cast<C>(y[k]) * scale[i];
          } else {
            const C z = (sign * static_cast<C>(x[k]) - mx[i]) * inv_t;
            v = opt.log ? z - scale[i] : Exp(z) * scale[i];
          }
        }
        Assign(y + k, req, static_cast<OType>(v));
      }
    }
  });
}

template <typename OType, typename IType>
__attribute__((flatten)) void Backward(const TBlob& ograd, const TBlob& out, const TBlob& igrad,
                                       OpReqType req, const SoftmaxLayout& l,
                                       const SoftmaxOptions& opt, const TBlob* length) {
  using C = FloatComputeOf<IType>;
  const OType* g = ograd.dptr<OType>();
  const OType* y = out.dptr<OType>();
  IType* dx = igrad.dptr<IType>();
  // d/dx of f(sign * x / t) carries sign / t.
  const C scale = (opt.negate ? C(-1) : C(1)) / static_cast<C>(opt.temperature);
  ForEachTile(l, [&](index_t o, index_t i0, index_t w) {
    if (l.inner == 1) {
      BackwardRow<OType, IType, C>(g + o * l.M, y + o * l.M, dx + o * l.M,
                                   RowLength(length, o, l.M), l.M, scale, opt.log, req);
      return;
    }
    C sum[kTile];
    index_t len[kTile];
    for (index_t i = 0; i < w; ++i) {
      len[i] = RowLength(length, o * l.inner + i0 + i, l.M);
      sum[i] = 0;
    }
    const index_t base = o * l.M * l.inner + i0;
    for (index_t j = 0; j < l.M; ++j) {
      for (index_t i = 0; i < w; ++i) {
        const index_t k = base + j * l.inner + i;
        if (j < len[i]) {
          sum[i] += opt.log ? static_cast<C>(g[k]) : static_cast<C>(g[k]) * static_cast<C>(y[k]);
        }
      }
    }
    for (index_t j = 0; j < l.M; ++j) {
      for (index_t i = 0; i < w; ++i) {
        const index_t k = base + j * l.inner + i;
        C v = 0;
        if (j < len[i]) {
          const C gk = static_cast<C>(g[k]), yk = static_cast<C>(y[k]);
          v = scale * (opt.log ? gk - Exp(yk) * sum[i] : yk * (gk - sum[i]));
        }
        Assign(dx + k, req, static_cast<IType>(v));
      }
    }
  });
}

}  // namespace

void SoftmaxForward(const TBlob& in, const TBlob& out, OpReqType req, const SoftmaxLayout& l,
                    const SoftmaxOptions& o, const TBlob* length) {
  if (req == kNullOp || in.Size() == 0) return;
  if (SoftmaxUsesOneDNN(in, out, req, l, length)) return SoftmaxForwardOneDNN(in, out, l, o);
  MXNET_REAL_TYPE_SWITCH(in.type_flag_, IType, {
    MXNET_REAL_TYPE_SWITCH(out.type_flag_, OType,
                           { Forward<IType, OType>(in, out, req, l, o, length); });
  });
}

void SoftmaxBackward(const TBlob& ograd, const TBlob& out, const TBlob& igrad, OpReqType req,
                     const SoftmaxLayout& l, const SoftmaxOptions& o, const TBlob* length) {
  if (req == kNullOp || igrad.Size() == 0) return;
  if (SoftmaxUsesOneDNN(igrad, out, req, l, length)) {
    return SoftmaxBackwardOneDNN(ograd, out, igrad, l, o);
  }
  MXNET_REAL_TYPE_SWITCH(out.type_flag_, OType, {
    MXNET_REAL_TYPE_SWITCH(igrad.type_flag_, IType,
                           { Backward<OType, IType>(ograd, out, igrad, req, l, o, length); });
  });
}

}  // namespace op
}  // namespace mxnet
