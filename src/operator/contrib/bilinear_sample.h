// One bilinear sample of a feature map plane as the ROI align operators (_contrib_ROIAlign,
// _contrib_RROIAlign) take it: a point more than one pixel outside the map reads 0, a point
// between -1 and 0 reads the border, and the last row / column clamps.
#ifndef MXNET_OPERATOR_CONTRIB_BILINEAR_SAMPLE_H_
#define MXNET_OPERATOR_CONTRIB_BILINEAR_SAMPLE_H_

#include <algorithm>

#include "mxnet/base.h"

namespace mxnet {
namespace op {

/*! \brief Four plane offsets (y * W + x) and their weights, computed in C (all zero outside). */
template <typename C>
struct BilinearSample {
  index_t at[4];
  C w[4];
};

template <typename C>
BilinearSample<C> BilinearSampleAt(C y, C x, index_t H, index_t W) {
  BilinearSample<C> s{{0, 0, 0, 0}, {0, 0, 0, 0}};
  if (y < C(-1) || y > C(H) || x < C(-1) || x > C(W)) return s;
  y = std::max(y, C(0));
  x = std::max(x, C(0));
  index_t y0 = static_cast<index_t>(y), x0 = static_cast<index_t>(x), y1, x1;
  if (y0 >= H - 1) {
    y0 = y1 = H - 1;
    y = static_cast<C>(y0);
  } else {
    y1 = y0 + 1;
  }
  if (x0 >= W - 1) {
    x0 = x1 = W - 1;
    x = static_cast<C>(x0);
  } else {
    x1 = x0 + 1;
  }
  const C ly = y - static_cast<C>(y0), lx = x - static_cast<C>(x0);
  const C hy = C(1) - ly, hx = C(1) - lx;
  s = {{y0 * W + x0, y0 * W + x1, y1 * W + x0, y1 * W + x1}, {hy * hx, hy * lx, ly * hx, ly * lx}};
  return s;
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_CONTRIB_BILINEAR_SAMPLE_H_
