// OpenCV behind DecodeImage/EncodeImage (image_codec.h); without USE_OPENCV both fail with a
// message saying how to build them.
#include "operator/image/image_codec.h"

#include <dmlc/logging.h>

#include <cstring>

#if MXNET_USE_OPENCV
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#endif

namespace mxnet {
namespace op {
namespace image {

#if MXNET_USE_OPENCV

DecodedImage DecodeImage(const void* data, size_t size, int flag, bool to_rgb,
                         const std::string& what) {
  CHECK(size > 0) << what << ": cannot decode an empty buffer as an image";
  CHECK(size < size_t(1) << 31) << what << ": encoded image of " << size << " bytes is too large";
  cv::Mat buf(1, static_cast<int>(size), CV_8U, const_cast<void*>(data));
  const int mode = (flag == 0 ? cv::IMREAD_GRAYSCALE : cv::IMREAD_COLOR) |
                   cv::IMREAD_IGNORE_ORIENTATION;
  cv::Mat img;
  try {
    img = cv::imdecode(buf, mode);
  } catch (const cv::Exception& e) {
    LOG(FATAL) << what << ": invalid image data (" << size << " bytes): " << e.what();
  }
  CHECK(!img.empty()) << what << ": decoding failed, the " << size
                      << " bytes are not a valid image (JPEG, PNG, BMP, ...)";
  if (to_rgb && img.channels() == 3) cv::cvtColor(img, img, cv::COLOR_BGR2RGB);
  DecodedImage out;
  out.height = img.rows;
  out.width = img.cols;
  out.channels = img.channels();
  out.pixels.resize(size_t(img.rows) * img.cols * img.channels());
  const size_t row = size_t(img.cols) * img.channels();
  for (int y = 0; y < img.rows; ++y) std::memcpy(&out.pixels[y * row], img.ptr(y), row);
  return out;
}

std::vector<uint8_t> EncodeImage(const uint8_t* pixels, int h, int w, int c,
                                 const std::string& ext, int quality) {
  CHECK(c == 1 || c == 3 || c == 4) << "imencode: image must have 1, 3 or 4 channels, given "
                                    << c;
  std::string lower;
  for (char ch : ext) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  std::vector<int> params;
  if (lower == ".jpg" || lower == ".jpeg") {
    params = {cv::IMWRITE_JPEG_QUALITY, quality};
  } else if (lower == ".png") {
    params = {cv::IMWRITE_PNG_COMPRESSION, quality};
  } else {
    LOG(FATAL) << "imencode: img_fmt must be .jpg, .jpeg or .png, given '" << ext << "'";
  }
  cv::Mat img(h, w, CV_8UC(c), const_cast<uint8_t*>(pixels));
  std::vector<uint8_t> out;
  bool ok = false;
  try {
    ok = cv::imencode(lower, img, out, params);
  } catch (const cv::Exception& e) {
    LOG(FATAL) << "imencode: OpenCV failed to encode a " << h << "x" << w << "x" << c
               << " image as " << ext << ": " << e.what();
  }
  CHECK(ok) << "imencode: OpenCV failed to encode a " << h << "x" << w << "x" << c
            << " image as " << ext;
  return out;
}

#else  // !MXNET_USE_OPENCV

DecodedImage DecodeImage(const void*, size_t, int, bool, const std::string& what) {
  LOG(FATAL) << what << ": this library was built without OpenCV (configure with "
                        "-DUSE_OPENCV=ON to decode images)";
  return {};
}

std::vector<uint8_t> EncodeImage(const uint8_t*, int, int, int, const std::string&, int) {
  LOG(FATAL) << "imencode: this library was built without OpenCV (configure with "
                "-DUSE_OPENCV=ON to encode images)";
  return {};
}

#endif  // MXNET_USE_OPENCV

}  // namespace image
}  // namespace op
}  // namespace mxnet
