// Row softmax kernels (forward and backward) for every pair of float input/output dtypes.
#include "operator/nn/softmax_kernel.h"

#include <algorithm>
#include <cmath>

#include "operator/nn/float_op_helpers.h"

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
  const int64_t v = length->type_flag_ == kInt64 ? length->dptr<int64_t>()[r]
                                                  : static_cast<int64_t>(length->dptr<int32_t>()[r]);
  return static_cast<index_t>(std::clamp<int64_t>(v, 0, M));
}

/*! \brief Calls fn(r, base, stride) for every row, across threads when the array is large. */
template <typename Fn>
void ForEachRow(const SoftmaxLayout& l, Fn fn) {
  const index_t total = l.rows() * l.M;
  LoopMaybeParallel(total >= ParallelGrain(), l.rows(), [&](index_t r) {
    const index_t o = r / l.inner, i = r % l.inner;
    fn(r, o * l.M * l.inner + i, l.inner);
  });
}

template <typename IType, typename OType>
void Forward(const TBlob& in, const TBlob& out, OpReqType req, const SoftmaxLayout& l,
             const SoftmaxOptions& opt, const TBlob* length) {
  using C = FloatComputeOf<IType>;
  const IType* x = in.dptr<IType>();
  OType* y = out.dptr<OType>();
  const C inv_t = C(1) / static_cast<C>(opt.temperature);
  const C sign = opt.negate ? C(-1) : C(1);
  ForEachRow(l, [&](index_t r, index_t base, index_t stride) {
    const index_t len = RowLength(length, r, l.M);
    auto v = [&](index_t j) { return sign * static_cast<C>(x[base + j * stride]); };
    C mx = len > 0 ? v(0) : C(0);
    for (index_t j = 1; j < len; ++j) mx = std::max(mx, v(j));
    C sum = 0;
    for (index_t j = 0; j < len; ++j) sum += std::exp((v(j) - mx) * inv_t);
    const C log_sum = std::log(sum), inv_sum = C(1) / sum;
    for (index_t j = 0; j < l.M; ++j) {
      C val = 0;
      if (j < len) {
        const C z = (v(j) - mx) * inv_t;
        val = opt.log ? z - log_sum : std::exp(z) * inv_sum;
      }
      Assign(y + base + j * stride, req, static_cast<OType>(val));
    }
  });
}

template <typename OType, typename IType>
void Backward(const TBlob& ograd, const TBlob& out, const TBlob& igrad, OpReqType req,
              const SoftmaxLayout& l, const SoftmaxOptions& opt, const TBlob* length) {
  using C = FloatComputeOf<IType>;
  const OType* g = ograd.dptr<OType>();
  const OType* y = out.dptr<OType>();
  IType* dx = igrad.dptr<IType>();
  // d/dx of f(sign * x / t) carries sign / t.
  const C scale = (opt.negate ? C(-1) : C(1)) / static_cast<C>(opt.temperature);
  ForEachRow(l, [&](index_t r, index_t base, index_t stride) {
    const index_t len = RowLength(length, r, l.M);
    C sum = 0;
    for (index_t j = 0; j < len; ++j) {
      const index_t k = base + j * stride;
      sum += opt.log ? static_cast<C>(g[k]) : static_cast<C>(g[k]) * static_cast<C>(y[k]);
    }
    for (index_t j = 0; j < l.M; ++j) {
      const index_t k = base + j * stride;
      C val = 0;
      if (j < len) {
        const C gk = static_cast<C>(g[k]), yk = static_cast<C>(y[k]);
        val = scale * (opt.log ? gk - std::exp(yk) * sum : yk * (gk - sum));
      }
      Assign(dx + k, req, static_cast<IType>(val));
    }
  });
}

}  // namespace

void SoftmaxForward(const TBlob& in, const TBlob& out, OpReqType req, const SoftmaxLayout& l,
                    const SoftmaxOptions& o, const TBlob* length) {
  if (req == kNullOp || in.Size() == 0) return;
  MXNET_REAL_TYPE_SWITCH(in.type_flag_, IType, {
    MXNET_REAL_TYPE_SWITCH(out.type_flag_, OType,
                           { Forward<IType, OType>(in, out, req, l, o, length); });
  });
}

void SoftmaxBackward(const TBlob& ograd, const TBlob& out, const TBlob& igrad, OpReqType req,
                     const SoftmaxLayout& l, const SoftmaxOptions& o, const TBlob* length) {
  if (req == kNullOp || igrad.Size() == 0) return;
  MXNET_REAL_TYPE_SWITCH(out.type_flag_, OType, {
    MXNET_REAL_TYPE_SWITCH(igrad.type_flag_, IType,
                           { Backward<OType, IType>(ograd, out, igrad, req, l, o, length); });
  });
}

}  // namespace op
}  // namespace mxnet
