// Row normalization kernels (see norm_rows.h), statistics accumulated in float for float16.
#include "operator/nn/norm_rows.h"

#include <cmath>
#include <string>

namespace mxnet {
namespace op {

namespace {

inline index_t GammaIndex(const NormRows& l, index_t r, index_t k) {
  return ((r % l.gamma_mod) * l.len + k) / l.gamma_div;
}

template <typename DType>
void ForwardImpl(const NormRows& l, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  using A = typename AccType<DType>::type;
  const DType *x = in[0].dptr<DType>(), *gamma = in[1].dptr<DType>(), *beta = in[2].dptr<DType>();
  DType *y = out[0].dptr<DType>(), *mean = out[1].dptr<DType>(), *spread = out[2].dptr<DType>();
  const index_t len = l.len, step = l.inner;
  LoopMaybeParallel(l.rows() * len >= ParallelGrain(), l.rows(), [&](index_t r) {
    const index_t base = l.RowBase(r);
    A sum = 0;
    for (index_t k = 0; k < len; ++k) sum += A(x[base + k * step]);
    const A mu = len > 0 ? sum / A(len) : A(0);
    A sq = 0;
    for (index_t k = 0; k < len; ++k) {
      const A d = A(x[base + k * step]) - mu;
      sq += d * d;
    }
    const A var = len > 0 ? sq / A(len) : A(0);
    const A std = std::sqrt(var + A(l.eps));
    if (req[1] != kNullOp) Assign(mean + r, req[1], DType(mu));
    if (req[2] != kNullOp) Assign(spread + r, req[2], DType(l.spread_is_var ? var : std));
    if (req[0] == kNullOp) return;
    const A rstd = A(1) / std;
    for (index_t k = 0; k < len; ++k) {
      const index_t g = GammaIndex(l, r, k), at = base + k * step;
      Assign(y + at, req[0], DType((A(x[at]) - mu) * rstd * A(gamma[g]) + A(beta[g])));
    }
  });
}

template <typename DType>
void ParamGradsImpl(const NormRows& l, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  using A = typename AccType<DType>::type;
  const DType *dy = in[0].dptr<DType>(), *x = in[1].dptr<DType>();
  const DType *mean = in[3].dptr<DType>(), *spread = in[4].dptr<DType>();
  const index_t len = l.len, step = l.inner;
  auto rstd_of = [&](index_t r) {
    const A s = A(spread[r]);
    return A(1) / (l.spread_is_var ? std::sqrt(s + A(l.eps)) : s);
  };
  if (req[1] == kNullOp && req[2] == kNullOp) return;
  // gamma and beta gradients sum over rows that share a gamma entry: one serial pass, in
  // double (long sums, e.g. over a batch of 4096 rows, stay accurate in float32).
  const size_t ng = out[1].Size();
  std::vector<double> dgamma(ng, 0.0), dbeta(ng, 0.0);
  for (index_t r = 0; r < l.rows(); ++r) {
    const index_t base = l.RowBase(r);
    const double mu = double(A(mean[r])), rstd = double(rstd_of(r));
    for (index_t k = 0; k < len; ++k) {
      const index_t at = base + k * step, g = GammaIndex(l, r, k);
      const double d = double(A(dy[at]));
      dgamma[g] += d * (double(A(x[at])) - mu) * rstd;
      dbeta[g] += d;
    }
  }
  for (size_t g = 0; g < ng; ++g) {
    if (req[1] != kNullOp) Assign(out[1].dptr<DType>() + g, req[1], DType(dgamma[g]));
    if (req[2] != kNullOp) Assign(out[2].dptr<DType>() + g, req[2], DType(dbeta[g]));
  }
}


template <typename DType>
void BackwardImpl(const NormRows& l, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  using A = typename AccType<DType>::type;
  const DType *dy = in[0].dptr<DType>(), *x = in[1].dptr<DType>(), *gamma = in[2].dptr<DType>();
  const DType *mean = in[3].dptr<DType>(), *spread = in[4].dptr<DType>();
  const index_t len = l.len, step = l.inner;
  auto rstd_of = [&](index_t r) {
    const A s = A(spread[r]);
    return A(1) / (l.spread_is_var ? std::sqrt(s + A(l.eps)) : s);
  };
  if (req[0] != kNullOp) {
    DType* dx = out[0].dptr<DType>();
    LoopMaybeParallel(l.rows() * len >= ParallelGrain(), l.rows(), [&](index_t r) {
      const index_t base = l.RowBase(r);
      const A mu = A(mean[r]), rstd = rstd_of(r);
      // dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)), dxhat = dy * gamma.
      A s1 = 0, s2 = 0;
      for (index_t k = 0; k < len; ++k) {
        const index_t at = base + k * step;
        const A dxhat = A(dy[at]) * A(gamma[GammaIndex(l, r, k)]);
        s1 += dxhat;
        s2 += dxhat * (A(x[at]) - mu) * rstd;
      }
      s1 /= A(len);
      s2 /= A(len);
      for (index_t k = 0; k < len; ++k) {
        const index_t at = base + k * step;
        const A xhat = (A(x[at]) - mu) * rstd;
        const A dxhat = A(dy[at]) * A(gamma[GammaIndex(l, r, k)]);
        Assign(dx + at, req[0], DType(rstd * (dxhat - s1 - xhat * s2)));
      }
    });
  }
  ParamGradsImpl<DType>(l, in, req, out);
}

}  // namespace

void NormRowsForward(const NormRows& layout, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, { ForwardImpl<DType>(layout, in, req, out); });
}

void NormRowsBackward(const NormRows& layout, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, { BackwardImpl<DType>(layout, in, req, out); });
}

void NormRowsParamGrads(const NormRows& layout, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, { ParamGradsImpl<DType>(layout, in, req, out); });
}

std::vector<NodeEntry> NormRowsGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const std::string bw_op = "_backward_" + n->op()->name;
  NodeEntry bw = MakeNode(bw_op.c_str(), GradName(n),
                          {og[0], n->inputs[0], n->inputs[1], Out(n, 1), Out(n, 2)},
                          n->attrs.dict);
  return {NodeEntry(bw.node, 0, 0), NodeEntry(bw.node, 1, 0), NodeEntry(bw.node, 2, 0)};
}

bool NormRowsBackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                           std::vector<TShape>* out) {
  AssignShape(attrs, "data", &(*out)[0], (*in)[1]);
  AssignShape(attrs, "gamma", &(*out)[1], (*in)[2]);
  AssignShape(attrs, "beta", &(*out)[2], (*in)[2]);
  return (*out)[0].IsKnown() && (*out)[1].IsKnown();
}

}  // namespace op
}  // namespace mxnet
