// Deformable im2col: the columns of a 2-D convolution whose taps are moved by per-position
// offsets (and, modulated, scaled by a mask) and read by bilinear interpolation, plus the
// adjoints that turn column gradients into data, offset and mask gradients.
#ifndef MXNET_OPERATOR_CONTRIB_DEFORMABLE_IM2COL_H_
#define MXNET_OPERATOR_CONTRIB_DEFORMABLE_IM2COL_H_

#include <cmath>

#include "operator/operator_common.h"

namespace mxnet {
namespace op {

/*! \brief One call of (Modulated)DeformableConvolution, channel-first (NCHW). */
struct DeformGeometry {
  index_t batch{0}, channels{0}, height{0}, width{0};
  index_t filters{0}, groups{1}, deform_groups{1};
  index_t kh{1}, kw{1}, sh{1}, sw{1}, dh{1}, dw{1}, ph{0}, pw{0};
  index_t out_h{0}, out_w{0};
  bool bias{true};
  // Modulated (DCNv2): a mask input scales each tap and a tap reads zero outside the image
  // corner by corner. Otherwise (DCNv1) a tap outside [0, H) x [0, W) reads zero and one in
  // the last row/column reads that row/column (its far corners are clamped onto it).
  bool modulated{false};
  index_t Taps() const { return kh * kw; }
  index_t OutSize() const { return out_h * out_w; }
  index_t InSize() const { return height * width; }
  index_t GroupChannels() const { return channels / groups; }
  index_t GroupFilters() const { return filters / groups; }
  index_t DeformGroupChannels() const { return channels / deform_groups; }
  index_t ColRows() const { return channels * Taps(); }  // rows (channel, tap) of the columns
};

/*! \brief Where a tap at fractional (h, w) reads: up to four pixels of a plane with
 *  bilinear weights, and those weights' derivatives with respect to h and w. */
template <typename DType>
struct BilinearTap {
  index_t at[4]{-1, -1, -1, -1};  // flat pixel index of each corner, -1 when it reads zero
  DType wt[4]{0, 0, 0, 0};
  DType wt_dh[4]{0, 0, 0, 0};
  DType wt_dw[4]{0, 0, 0, 0};

  DType Read(const DType* plane) const {
    DType v = 0;
    for (int i = 0; i < 4; ++i) {
      if (at[i] >= 0) v += wt[i] * plane[at[i]];
    }
    return v;
  }
  // d(Read)/dh and d(Read)/dw
  void Slopes(const DType* plane, DType* sh, DType* sw) const {
    DType a = 0, b = 0;
    for (int i = 0; i < 4; ++i) {
      if (at[i] >= 0) {
        a += wt_dh[i] * plane[at[i]];
        b += wt_dw[i] * plane[at[i]];
      }
    }
    *sh = a;
    *sw = b;
  }
  void Scatter(DType grad, DType* plane) const {
    for (int i = 0; i < 4; ++i) {
      if (at[i] >= 0) plane[at[i]] += wt[i] * grad;
    }
  }
};

/*! \brief The tap at (h, w) of an H x W plane under g's variant (see DeformGeometry). */
template <typename DType>
BilinearTap<DType> MakeTap(const DeformGeometry& g, DType h, DType w) {
  BilinearTap<DType> t;
  const index_t H = g.height, W = g.width;
  const bool inside = g.modulated ? (h > -1 && w > -1 && h < H && w < W)
                                  : (h >= 0 && w >= 0 && h < H && w < W);
  if (!inside) return t;
  index_t h0 = static_cast<index_t>(std::floor(h)), w0 = static_cast<index_t>(std::floor(w));
  index_t h1 = h0 + 1, w1 = w0 + 1;
  DType lh = h - h0, lw = w - w0, slope_h = 1, slope_w = 1;
  if (!g.modulated) {  // DCNv1 clamps the far corner in the last row / column
    if (h0 >= H - 1) {
      h0 = h1 = H - 1;
      lh = 0;
      slope_h = 0;
    }
    if (w0 >= W - 1) {
      w0 = w1 = W - 1;
      lw = 0;
      slope_w = 0;
    }
  }
  const index_t rows[4] = {h0, h0, h1, h1}, cols[4] = {w0, w1, w0, w1};
  const DType fh[4] = {1 - lh, 1 - lh, lh, lh}, fw[4] = {1 - lw, lw, 1 - lw, lw};
  const DType dfh[4] = {-slope_h, -slope_h, slope_h, slope_h};
  const DType dfw[4] = {-slope_w, slope_w, -slope_w, slope_w};
  for (int i = 0; i < 4; ++i) {
    if (rows[i] < 0 || rows[i] >= H || cols[i] < 0 || cols[i] >= W) continue;
    t.at[i] = rows[i] * W + cols[i];
    t.wt[i] = fh[i] * fw[i];
    t.wt_dh[i] = dfh[i] * fw[i];
    t.wt_dw[i] = fh[i] * dfw[i];
  }
  return t;
}

/*! \brief One sample's deformed taps. offset (DG * 2 * taps, oh, ow): channel
 *  2 * (dg * taps + k) moves tap k of deformable group dg down, the next one right; mask
 *  (DG * taps, oh, ow), null when not modulated. */
template <typename DType>
struct DeformSample {
  const DeformGeometry& g;
  const DType* offset;
  const DType* mask;

  // The tap of (deformable group dg, kernel tap k) at output position p, and its mask.
  BilinearTap<DType> Tap(index_t dg, index_t k, index_t p, DType* m) const {
    const index_t n_out = g.OutSize();
    const index_t y = p / g.out_w, x = p % g.out_w, i = k / g.kw, j = k % g.kw;
    const DType* off = offset + (dg * g.Taps() + k) * 2 * n_out + p;
    const DType h = static_cast<DType>(y * g.sh - g.ph + i * g.dh) + off[0];
    const DType w = static_cast<DType>(x * g.sw - g.pw + j * g.dw) + off[n_out];
    *m = mask != nullptr ? mask[(dg * g.Taps() + k) * n_out + p] : DType(1);
    return MakeTap(g, h, w);
  }
};

/*! \brief col[(c * taps + k) * OutSize + p] = mask * data[c] read at tap k of position p. */
template <typename DType>
void DeformIm2Col(const DeformGeometry& g, const DeformSample<DType>& s, const DType* data,
                  DType* col) {
  const index_t taps = g.Taps(), n_out = g.OutSize(), cpg = g.DeformGroupChannels();
  const index_t units = g.deform_groups * taps;
  LoopMaybeParallel(g.ColRows() * n_out >= ParallelGrain(), units, [&](index_t u) {
    const index_t dg = u / taps, k = u % taps;
    for (index_t p = 0; p < n_out; ++p) {
      DType m;
      const BilinearTap<DType> t = s.Tap(dg, k, p, &m);
      for (index_t c = dg * cpg; c < (dg + 1) * cpg; ++c) {
        col[(c * taps + k) * n_out + p] = m * t.Read(data + c * g.InSize());
      }
    }
  });
}

/*! \brief data_grad[c] += the column gradient carried back through each tap (adds). */
template <typename DType>
void DeformCol2ImAdd(const DeformGeometry& g, const DeformSample<DType>& s, const DType* dcol,
                     DType* data_grad) {
  const index_t taps = g.Taps(), n_out = g.OutSize(), cpg = g.DeformGroupChannels();
  LoopMaybeParallel(g.ColRows() * n_out >= ParallelGrain(), g.channels, [&](index_t c) {
    const index_t dg = c / cpg;
    DType* plane = data_grad + c * g.InSize();
    for (index_t k = 0; k < taps; ++k) {
      const DType* row = dcol + (c * taps + k) * n_out;
      for (index_t p = 0; p < n_out; ++p) {
        DType m;
        const BilinearTap<DType> t = s.Tap(dg, k, p, &m);
        t.Scatter(m * row[p], plane);
      }
    }
  });
}

/*! \brief Offset (and mask) gradients of one sample from the column gradient, written with
 *  req: d offset = sum over the group's channels of dcol * mask * slope of the read, d mask =
 *  sum of dcol * the unmasked read. mask_grad null when not modulated. */
template <typename DType>
void DeformCoordGrad(const DeformGeometry& g, const DeformSample<DType>& s, const DType* data,
                     const DType* dcol, DType* offset_grad, OpReqType offset_req,
                     DType* mask_grad, OpReqType mask_req) {
  const index_t taps = g.Taps(), n_out = g.OutSize(), cpg = g.DeformGroupChannels();
  const index_t units = g.deform_groups * taps;
  LoopMaybeParallel(g.ColRows() * n_out >= ParallelGrain(), units, [&](index_t u) {
    const index_t dg = u / taps, k = u % taps;
    DType* goff = offset_grad + u * 2 * n_out;
    for (index_t p = 0; p < n_out; ++p) {
      DType m;
      const BilinearTap<DType> t = s.Tap(dg, k, p, &m);
      DType gh = 0, gw = 0, gm = 0;
      for (index_t c = dg * cpg; c < (dg + 1) * cpg; ++c) {
        const DType* plane = data + c * g.InSize();
        const DType d = dcol[(c * taps + k) * n_out + p];
        DType sh, sw;
        t.Slopes(plane, &sh, &sw);
        gh += d * sh;
        gw += d * sw;
        if (mask_grad != nullptr) gm += d * t.Read(plane);
      }
      if (offset_req != kNullOp) {
        Assign(goff + p, offset_req, m * gh);
        Assign(goff + n_out + p, offset_req, m * gw);
      }
      if (mask_grad != nullptr && mask_req != kNullOp) {
        Assign(mask_grad + u * n_out + p, mask_req, gm);
      }
    }
  });
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_CONTRIB_DEFORMABLE_IM2COL_H_
