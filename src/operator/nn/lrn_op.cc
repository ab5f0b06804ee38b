// LRN: local response normalization across channels,
// out = x * (knorm + alpha / nsize * sum of x^2 over nearby channels)^-beta; the scale inside
// the power is a hidden second output the gradient reuses.
#include <algorithm>
#include <cmath>
#include <vector>

#include "operator/nn/nn_common.h"
#include "operator/nn/onednn/onednn_lrn.h"

namespace mxnet {
namespace op {

struct LRNParam : public dmlc::Parameter<LRNParam> {
  float alpha;
  float beta;
  float knorm;
  uint32_t nsize;
  DMLC_DECLARE_PARAMETER(LRNParam) {
    DMLC_DECLARE_FIELD(alpha).set_default(1e-4f).describe(
        "The variance scaling parameter :math:`\\alpha` in the LRN expression.");
    DMLC_DECLARE_FIELD(beta).set_default(0.75f).describe(
        "The power parameter :math:`\\beta` in the LRN expression.");
    DMLC_DECLARE_FIELD(knorm).set_default(2.0f).describe(
        "The parameter :math:`k` in the LRN expression.");
    DMLC_DECLARE_FIELD(nsize).describe("normalization window width in elements.");
  }
};
DMLC_REGISTER_PARAMETER(LRNParam);

namespace {

/*! \brief Channel c sums channels [c - half, c + half] (clipped): half = (nsize - 1) / 2, so an
 *  even nsize behaves as MXNet's float32 (oneDNN) kernel does; the divisor stays nsize. */
struct LRNWindow {
  index_t channels, spatial, half;
  LRNWindow(const LRNParam& p, const TShape& d)
      : channels(d[1]),
        spatial(static_cast<index_t>(d.ProdShape(2, d.ndim()))),
        half((static_cast<index_t>(p.nsize) - 1) / 2) {}
  index_t lo(index_t c) const { return c > half ? c - half : 0; }
  index_t hi(index_t c) const { return std::min(channels - 1, c + half); }
};

bool LRNShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  CHECK_GE(d.ndim(), 2) << "Operator " << attrs.op->name
                        << ": data must be (batch, channel, ...), given " << d;
  CHECK_GE(Param<LRNParam>(attrs).nsize, 1u)
      << "Operator " << attrs.op->name << ": argument nsize must be at least 1, given 0";
  AssignShape(attrs, "output", &(*out)[0], d);
  AssignShape(attrs, "tmp_norm", &(*out)[1], d);
  return true;
}

template <typename DType>
void LRNForwardImpl(const LRNParam& p, const TBlob& data, const std::vector<OpReqType>& req,
                    const std::vector<TBlob>& out) {
  using A = typename AccType<DType>::type;
  const LRNWindow w(p, data.shape_);
  const DType* x = data.dptr<DType>();
  DType *y = out[0].dptr<DType>(), *scale = out[1].dptr<DType>();
  const index_t n = static_cast<index_t>(data.Size());
  const A coef = A(p.alpha) / A(p.nsize);
  ParallelFor(n, [&](index_t i) {
    const index_t s = i % w.spatial, c = (i / w.spatial) % w.channels;
    const index_t plane = i - (c * w.spatial + s);  // start of this sample
    A sq = 0;
    for (index_t k = w.lo(c); k <= w.hi(c); ++k) {
      const A v = A(x[plane + k * w.spatial + s]);
      sq += v * v;
    }
    const A sc = A(p.knorm) + coef * sq;
    if (req[1] != kNullOp) Assign(scale + i, req[1], DType(sc));
    Assign(y + i, req[0], DType(A(x[i]) * std::pow(sc, -A(p.beta))));
  });
}

// Inputs (ograd, data, tmp_norm); output the data gradient
// dx_c = dy_c s_c^-beta - 2 alpha beta / nsize * x_c * sum_{c' near c} dy_c' x_c' s_c'^(-beta-1).
template <typename DType>
void LRNBackwardImpl(const LRNParam& p, const std::vector<TBlob>& in, OpReqType req,
                     const TBlob& dx_blob) {
  using A = typename AccType<DType>::type;
  const LRNWindow w(p, in[1].shape_);
  const DType *dy = in[0].dptr<DType>(), *x = in[1].dptr<DType>(), *scale = in[2].dptr<DType>();
  DType* dx = dx_blob.dptr<DType>();
  const index_t n = static_cast<index_t>(in[1].Size());
  const A beta = A(p.beta), coef = A(2) * A(p.alpha) * beta / A(p.nsize);
  ParallelFor(n, [&](index_t i) {
    const index_t s = i % w.spatial, c = (i / w.spatial) % w.channels;
    const index_t plane = i - (c * w.spatial + s);
    A acc = 0;
    for (index_t k = w.lo(c); k <= w.hi(c); ++k) {
      const index_t at = plane + k * w.spatial + s;
      acc += A(dy[at]) * A(x[at]) * std::pow(A(scale[at]), -beta - A(1));
    }
    const A g = A(dy[i]) * std::pow(A(scale[i]), -beta) - coef * A(x[i]) * acc;
    Assign(dx + i, req, DType(g));
  });
}

/*! \brief The hidden tmp_norm output alone, as LRNForwardImpl computes it (same sums in the
 *  same order), a channel row at a time: beside a oneDNN forward, which keeps
 *  its own scales, this keeps the plain backward usable on what the forward left. */
void LRNScaleRows(const LRNParam& p, const TBlob& data, OpReqType req, const TBlob& scale_blob) {
  if (req == kNullOp) return;
  using A = AccType<float>::type;
  const LRNWindow w(p, data.shape_);
  const float* x = data.dptr<float>();
  float* scale = scale_blob.dptr<float>();
  const index_t rows = static_cast<index_t>(data.shape_[0]) * w.channels;
  const A coef = A(p.alpha) / A(p.nsize), knorm = A(p.knorm);
  const auto row = [&](index_t r) {
    const index_t c = r % w.channels;
    const float* plane = x + (r - c) * w.spatial;
    float* dst = scale + r * w.spatial;
    const index_t lo = w.lo(c), hi = w.hi(c);
    if (req == kAddTo) {
      for (index_t s = 0; s < w.spatial; ++s) {
        A sq = 0;
        for (index_t k = lo; k <= hi; ++k) {
          const A v = A(plane[k * w.spatial + s]);
          sq += v * v;
        }
        dst[s] += float(knorm + coef * sq);
      }
      return;
    }
    // The window's squares summed into dst channel by channel (vectorised over the row).
    std::fill(dst, dst + w.spatial, 0.0f);
    for (index_t k = lo; k <= hi; ++k) {
      const float* src = plane + k * w.spatial;
      for (index_t s = 0; s < w.spatial; ++s) dst[s] += src[s] * src[s];
    }
    for (index_t s = 0; s < w.spatial; ++s) dst[s] = float(knorm + coef * dst[s]);
  };
  LoopMaybeParallel(rows * w.spatial >= 32768, rows, row);
}

LRNArgs OneDNNArgs(const LRNParam& p) { return {p.alpha, p.beta, p.knorm, p.nsize}; }

void LRNForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const LRNParam& p = Param<LRNParam>(attrs);
  if (LRNUsesOneDNN(in[0])) {
    LRNForwardOneDNN(OneDNNArgs(p), ctx, in[0], out[0], req[0]);
    LRNScaleRows(p, in[0], req[1], out[1]);
    return;
  }
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, { LRNForwardImpl<DType>(p, in[0], req, out); });
}

void LRNBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const LRNParam& p = Param<LRNParam>(attrs);
  if (LRNUsesOneDNN(in[1])) {
    return LRNBackwardOneDNN(OneDNNArgs(p), ctx, in[0], in[1], out[0], req[0]);
  }
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, DType, {
    LRNBackwardImpl<DType>(p, in, req[0], out[0]);
  });
}

const bool registered [[maybe_unused]] = [] {
  RegisterStatLayer<LRNParam>({"LRN", R"doc(Local response normalization across channels.

For data (batch, channel, ...), each element is divided by
``(knorm + alpha / nsize * sum(x[:, c'] ** 2)) ** beta``, the sum running over the channels
c' within (nsize - 1) / 2 of its own channel.
)doc", "Input data to LRN", "tmp_norm", LRNShape, LRNForward, LRNBackward,
                               /*temp_space=*/true});
  return true;
}();

}  // namespace

}  // namespace op
}  // namespace mxnet
