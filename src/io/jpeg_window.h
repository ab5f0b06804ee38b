// Partial JPEG decoding for the image record iterators: when the augmentation is a plain crop,
// only the crop window's rows are color-converted and only its iMCU columns decoded
// (libjpeg-turbo's jpeg_skip_scanlines / jpeg_crop_scanline), so a 224x224 crop of a 500x375
// image costs about half a full decode.
#ifndef MXNET_IO_JPEG_WINDOW_H_
#define MXNET_IO_JPEG_WINDOW_H_

#include <cstddef>
#include <cstdint>
#include <functional>

namespace cv {
class Mat;
}

namespace mxnet {
namespace io {

/*! \brief A pixel window (x, y, width, height). */
struct PixelWindow {
  int x = 0, y = 0, w = 0, h = 0;
};

/*! \brief Decode the window pick(width, height) returns of a JPEG into *out (BGR, or gray when
 *  gray). False, with *out untouched, when the bytes are not a JPEG libjpeg can decode (the
 *  caller then decodes with OpenCV, which reports the error). */
bool DecodeJpegWindow(const uint8_t* data, size_t size, bool gray,
                      const std::function<PixelWindow(int width, int height)>& pick,
                      cv::Mat* out);

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_IO_JPEG_WINDOW_H_
