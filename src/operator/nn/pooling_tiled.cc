// Max pooling over non-overlapping, unpadded 2-D windows on channel-first data (the common
// 2x2 stride 2 case): one pass over the data per direction, split by output rows across the
// OpenMP threads, no temp space. The backward finds each window's first maximum again and
// writes every data-gradient element exactly once (no zeroing pass, no forward re-run).
#include <algorithm>
#include <limits>

#include "operator/nn/pooling_op.h"

namespace mxnet {
namespace op {

bool PoolTiledMaxApplies(const PoolingParam& p, const PoolGeometry& g, int dtype) {
  if (dtype != kFloat32 && dtype != kFloat64) return false;
  if (static_cast<PoolType>(p.pool_type) != PoolType::kMax || p.global_pool) return false;
  if (g.nspatial != 2 || g.channel_last) return false;
  for (int i = 0; i < 2; ++i) {
    if (g.pad[i] != 0 || g.stride[i] != g.kernel[i] || g.out[i] * g.kernel[i] > g.in[i]) {
      return false;
    }
  }
  return g.batch * g.channels * g.out[0] > 0 && g.out[1] > 0;
}

namespace {

// One window's first maximum in raster order: its value, and its offset from the window's
// top-left element.
template <typename DType, int KH, int KW>
inline index_t ArgMax(const DType* x, index_t ld, index_t kh, index_t kw, DType* best) {
  const index_t h = KH > 0 ? KH : kh, w = KW > 0 ? KW : kw;
  DType b = x[0];
  index_t arg = 0;
  for (index_t a = 0; a < h; ++a) {
    for (index_t c = 0; c < w; ++c) {
      const DType v = x[a * ld + c];
      if (v > b) {
        b = v;
        arg = a * ld + c;
      }
    }
  }
  *best = b;
  return arg;
}

template <typename Fn>
void ForEachOutputRow(const PoolGeometry& g, Fn fn) {
  const index_t rows = g.batch * g.channels * g.out[0];
  const index_t work = rows * g.out[1] * g.kernel[0] * g.kernel[1];
  LoopMaybeParallel(work >= 32768, rows, fn);
}

template <typename DType, int KH, int KW>
void Forward(const PoolGeometry& g, const DType* x, DType* y, OpReqType req) {
  const index_t kh = g.kernel[0], kw = g.kernel[1], W = g.in[1], OH = g.out[0], OW = g.out[1];
  const index_t in_plane = g.in[0] * W;
  ForEachOutputRow(g, [&](index_t r) {
    const index_t plane = r / OH, oh = r % OH;
    const DType* xr = x + plane * in_plane + oh * kh * W;
    DType* yr = y + r * OW;
    for (index_t ow = 0; ow < OW; ++ow) {
      // std::max from the lowest value, as the generic kernel (NaN alike).
      DType best = std::numeric_limits<DType>::lowest();
      const DType* xw = xr + ow * kw;
      for (index_t a = 0; a < (KH > 0 ? KH : kh); ++a) {
        for (index_t c = 0; c < (KW > 0 ? KW : kw); ++c) best = std::max(best, xw[a * W + c]);
      }
      if (req == kAddTo) yr[ow] += best;
      else yr[ow] = best;
    }
  });
}

template <typename DType, int KH, int KW>
void Backward(const PoolGeometry& g, const DType* dy, const DType* x, DType* dx, OpReqType req) {
  const index_t kh = g.kernel[0], kw = g.kernel[1], H = g.in[0], W = g.in[1];
  const index_t OH = g.out[0], OW = g.out[1], in_plane = H * W;
  const bool add = req == kAddTo;
  ForEachOutputRow(g, [&](index_t r) {
    const index_t plane = r / OH, oh = r % OH;
    const DType* xr = x + plane * in_plane + oh * kh * W;
    DType* dr = dx + plane * in_plane + oh * kh * W;
    const DType* dyr = dy + r * OW;
    if (!add) {
      for (index_t ow = 0; ow < OW; ++ow) {
        DType best;
        const index_t arg = ArgMax<DType, KH, KW>(xr + ow * kw, W, kh, kw, &best);
        DType* d = dr + ow * kw;
        for (index_t a = 0; a < (KH > 0 ? KH : kh); ++a) {
          for (index_t c = 0; c < (KW > 0 ? KW : kw); ++c) d[a * W + c] = DType(0);
        }
        d[arg] = dyr[ow];
      }
      // Columns past the last window, and rows past the last window row, get no gradient.
      for (index_t a = 0; a < kh && OW * kw < W; ++a) {
        std::fill(dr + a * W + OW * kw, dr + (a + 1) * W, DType(0));
      }
      if (oh == OH - 1 && OH * kh < H) {
        std::fill(dx + plane * in_plane + OH * kh * W, dx + (plane + 1) * in_plane, DType(0));
      }
    } else {
      for (index_t ow = 0; ow < OW; ++ow) {
        DType best;
        const index_t arg = ArgMax<DType, KH, KW>(xr + ow * kw, W, kh, kw, &best);
        dr[ow * kw + arg] += dyr[ow];
      }
    }
  });
}

template <typename DType>
void ForwardT(const PoolGeometry& g, const TBlob& data, const TBlob& out, OpReqType req) {
  if (g.kernel[0] == 2 && g.kernel[1] == 2) {
    Forward<DType, 2, 2>(g, data.dptr<DType>(), out.dptr<DType>(), req);
  } else {
    Forward<DType, 0, 0>(g, data.dptr<DType>(), out.dptr<DType>(), req);
  }
}

template <typename DType>
void BackwardT(const PoolGeometry& g, const TBlob& og, const TBlob& data, const TBlob& dgrad,
               OpReqType req) {
  if (g.kernel[0] == 2 && g.kernel[1] == 2) {
    Backward<DType, 2, 2>(g, og.dptr<DType>(), data.dptr<DType>(), dgrad.dptr<DType>(), req);
  } else {
    Backward<DType, 0, 0>(g, og.dptr<DType>(), data.dptr<DType>(), dgrad.dptr<DType>(), req);
  }
}

}  // namespace

void PoolTiledMaxForward(const PoolGeometry& g, const TBlob& data, const TBlob& out,
                         OpReqType req) {
  if (req == kNullOp) return;
  if (data.type_flag_ == kFloat64) ForwardT<double>(g, data, out, req);
  else ForwardT<float>(g, data, out, req);
}

void PoolTiledMaxBackward(const PoolGeometry& g, const TBlob& out_grad, const TBlob& data,
                          const TBlob& data_grad, OpReqType req) {
  if (req == kNullOp) return;
  if (data.type_flag_ == kFloat64) BackwardT<double>(g, out_grad, data, data_grad, req);
  else BackwardT<float>(g, out_grad, data, data_grad, req);
}

}  // namespace op
}  // namespace mxnet
