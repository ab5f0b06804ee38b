// Image decoding and encoding through OpenCV, shared by the _cvim* operators and the image
// record iterators. Only this header's .cc and the iterators' decode workers include OpenCV.
#ifndef MXNET_OPERATOR_IMAGE_IMAGE_CODEC_H_
#define MXNET_OPERATOR_IMAGE_IMAGE_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mxnet {
namespace op {
namespace image {

/*! \brief A decoded 8-bit image in (H, W, C) order, C 1 or 3. */
struct DecodedImage {
  int height = 0, width = 0, channels = 0;
  std::vector<uint8_t> pixels;
};

/*! \brief Decode JPEG/PNG/... bytes: flag 0 gray (C=1), otherwise color (C=3, RGB when to_rgb,
 *  else OpenCV's BGR). EXIF orientation is ignored, as MXNet 1.9.1 does. Bad bytes throw
 *  dmlc::Error naming `what` (the operator, file or record). */
DecodedImage DecodeImage(const void* data, size_t size, int flag, bool to_rgb,
                         const std::string& what);

/*! \brief Encode an (h, w, c) uint8 image (c 1, 3 or 4, channels as OpenCV takes them) in the
 *  format of ext (".jpg", ".jpeg", ".png"); quality is JPEG quality or PNG compression. */
std::vector<uint8_t> EncodeImage(const uint8_t* pixels, int h, int w, int c,
                                 const std::string& ext, int quality);

}  // namespace image
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_IMAGE_IMAGE_CODEC_H_
