// Shared pieces of the _image_* operators: the (H, W, C) / (N, H, W, C) layout of an image
// argument, MXNet's clamp-and-truncate cast to uint8, and the checks every augmenter repeats.
#ifndef MXNET_OPERATOR_IMAGE_IMAGE_COMMON_H_
#define MXNET_OPERATOR_IMAGE_IMAGE_COMMON_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "operator/operator_common.h"

namespace mxnet {
namespace op {
namespace image {

/*! \brief Sizes of an image argument laid out (H, W, C) or, batched, (N, H, W, C). */
struct ImageSize {
  index_t batch, height, width, channels;
  index_t PixelsPerImage() const { return height * width; }
};

/*! \brief The layout of a 3-D or 4-D image shape; other ranks raise naming the operator. */
inline ImageSize HWCSize(const NodeAttrs& attrs, const TShape& s) {
  if (s.ndim() == 3) return {1, s[0], s[1], s[2]};
  if (s.ndim() == 4) return {s[0], s[1], s[2], s[3]};
  LOG(FATAL) << "Operator " << attrs.op->name
             << ": input image must have shape (height, width, channels) or "
                "(N, height, width, channels), given " << s;
  return {};
}

/*! \brief The type MXNet's image kernels compute in: a DType mixed with float promotes to
 *  float, except float64, which stays double. */
template <typename DType>
using PromotedFloat = std::conditional_t<std::is_same<DType, double>::value, double, float>;

/*! \brief The value written for a float result: uint8 clamps to [0, 255] then truncates (as
 *  MXNet's augmenters do), every other dtype converts directly. */
template <typename DType>
inline DType SaturateCast(float v) {
  if constexpr (std::is_same<DType, uint8_t>::value) {
    return static_cast<uint8_t>(std::min(std::max(v, 0.f), 255.f));
  } else {
    return static_cast<DType>(v);
  }
}

/*! \brief Check that the channel count is 1 or 3 (what the color augmenters accept). */
inline void CheckGrayOrRGB(const NodeAttrs& attrs, const TShape& s, index_t channels) {
  CHECK(channels == 1 || channels == 3)
      << "Operator " << attrs.op->name << ": the channel dimension of the input image must "
      << "have 1 or 3 elements, given input of shape " << s;
}

/*! \brief Shape rule of the single-image augmenters: (H, W, C) with C of 1 or 3; output alike. */
bool SingleImageShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out);

/*! \brief FGradient of the image ops that MXNet 1.9.1 gives the head gradient unchanged
 *  (augmenters, to_tensor, resize), kept for compatibility. */
std::vector<NodeEntry> PassThroughGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og);

/*! \brief Declare a single-image augmenter: one input, output of the same shape and dtype
 *  (in place allowed), the head gradient passed through as MXNet does; random ones get a
 *  random stream. Callers add their parameters. */
nnvm::Op& RegisterAugmenter(const char* name, const char* doc, FCompute fcompute, bool random);

}  // namespace image
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_IMAGE_IMAGE_COMMON_H_
