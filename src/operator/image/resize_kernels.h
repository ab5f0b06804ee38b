// Image resampling that reproduces OpenCV 3.4's cv::resize (the library MXNet 1.9.1 calls)
// value for value: nearest, bilinear, bicubic, pixel-area and Lanczos-4, on uint8 (OpenCV's
// 11-bit fixed-point arithmetic), float32 and float64 images of any channel count.
#ifndef MXNET_OPERATOR_IMAGE_RESIZE_KERNELS_H_
#define MXNET_OPERATOR_IMAGE_RESIZE_KERNELS_H_

namespace mxnet {
namespace op {
namespace image {

/*! \brief OpenCV's interpolation codes, as the interp argument takes them. */
enum ResizeInterp { kNearest = 0, kLinear = 1, kCubic = 2, kArea = 3, kLanczos4 = 4 };

/*! \brief Resize one (sh, sw, cn) image into (dh, dw, cn); dtype is kUint8, kFloat32 or
 *  kFloat64 (callers check). */
void ResizeImage(int dtype, int interp, const void* src, int sh, int sw, void* dst, int dh,
                 int dw, int cn);

}  // namespace image
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_IMAGE_RESIZE_KERNELS_H_
