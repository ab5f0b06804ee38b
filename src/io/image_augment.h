// The default augmenter of the image record iterators (aug_seq "aug_default", MXNet 1.9.1's
// arguments and order): resize, affine (rotate/shear/scale/aspect), pad, crop (random-resized,
// sized or plain), color jitter, HSL jitter and PCA lighting noise, on OpenCV images.
#ifndef MXNET_IO_IMAGE_AUGMENT_H_
#define MXNET_IO_IMAGE_AUGMENT_H_

#include <dmlc/optional.h>
#include <dmlc/parameter.h>

#include <functional>
#include <random>
#include <string>

#include "mxnet/base.h"

namespace cv {
class Mat;
}

namespace mxnet {
namespace io {

struct DefaultImageAugmentParam : public dmlc::Parameter<DefaultImageAugmentParam> {
  int resize;
  bool rand_crop, random_resized_crop;
  int max_rotate_angle;
  float max_aspect_ratio;
  dmlc::optional<float> min_aspect_ratio;
  float max_shear_ratio;
  int max_crop_size, min_crop_size;
  float max_random_scale, min_random_scale, max_random_area, min_random_area;
  float max_img_size, min_img_size;
  float brightness, contrast, saturation, pca_noise;
  int random_h, random_s, random_l, rotate, fill_value, inter_method, pad;
  TShape data_shape;  // (C, H, W): filled by the iterator from its own data_shape
  DMLC_DECLARE_PARAMETER(DefaultImageAugmentParam) {
    DMLC_DECLARE_FIELD(resize).set_default(-1).describe(
        "Down scale the shorter edge to a new size  before applying other augmentations.");
    DMLC_DECLARE_FIELD(rand_crop).set_default(false).describe(
        "If or not randomly crop the image");
    DMLC_DECLARE_FIELD(random_resized_crop).set_default(false).describe(
        "If or not perform random resized cropping on the image, as a standard preprocessing "
        "for resnet training on ImageNet data.");
    DMLC_DECLARE_FIELD(max_rotate_angle).set_default(0).describe(
        "Rotate by a random degree in ``[-v, v]``");
    DMLC_DECLARE_FIELD(max_aspect_ratio).set_default(0.0f).describe(
        "Change the aspect (namely width/height) to a random value. If min_aspect_ratio is "
        "None then the aspect ratio ins sampled from [1 - max_aspect_ratio, 1 + "
        "max_aspect_ratio], else it is in ``[min_aspect_ratio, max_aspect_ratio]``");
    DMLC_DECLARE_FIELD(min_aspect_ratio).set_default(dmlc::optional<float>()).describe(
        "Change the aspect (namely width/height) to a random value in ``[min_aspect_ratio, "
        "max_aspect_ratio]``");
    DMLC_DECLARE_FIELD(max_shear_ratio).set_default(0.0f).describe(
        "Apply a shear transformation (namely ``(x,y)->(x+my,y)``) with ``m`` randomly chose "
        "from ``[-max_shear_ratio, max_shear_ratio]``");
    DMLC_DECLARE_FIELD(max_crop_size).set_default(-1).describe(
        "Crop both width and height into a random size in ``[min_crop_size, max_crop_size].``"
        "Ignored if ``random_resized_crop`` is True.");
    DMLC_DECLARE_FIELD(min_crop_size).set_default(-1).describe(
        "Crop both width and height into a random size in ``[min_crop_size, max_crop_size].``"
        "Ignored if ``random_resized_crop`` is True.");
    DMLC_DECLARE_FIELD(max_random_scale).set_default(1.0f).describe(
        "Resize into ``[width*s, height*s]`` with ``s`` randomly chosen from "
        "``[min_random_scale, max_random_scale]``. Ignored if ``random_resized_crop`` is True.");
    DMLC_DECLARE_FIELD(min_random_scale).set_default(1.0f).describe(
        "Resize into ``[width*s, height*s]`` with ``s`` randomly chosen from "
        "``[min_random_scale, max_random_scale]``Ignored if ``random_resized_crop`` is True.");
    DMLC_DECLARE_FIELD(max_random_area).set_default(1.0f).describe(
        "Change the area (namely width * height) to a random value in ``[min_random_area, "
        "max_random_area]``. Ignored if ``random_resized_crop`` is False.");
    DMLC_DECLARE_FIELD(min_random_area).set_default(1.0f).describe(
        "Change the area (namely width * height) to a random value in ``[min_random_area, "
        "max_random_area]``. Ignored if ``random_resized_crop`` is False.");
    DMLC_DECLARE_FIELD(max_img_size).set_default(1e10f).describe(
        "Set the maximal width and height after all resize and rotate argumentation  are "
        "applied");
    DMLC_DECLARE_FIELD(min_img_size).set_default(0.0f).describe(
        "Set the minimal width and height after all resize and rotate argumentation  are "
        "applied");
    DMLC_DECLARE_FIELD(brightness).set_default(0.0f).describe(
        "Add a random value in ``[-brightness, brightness]`` to the brightness of image.");
    DMLC_DECLARE_FIELD(contrast).set_default(0.0f).describe(
        "Add a random value in ``[-contrast, contrast]`` to the contrast of image.");
    DMLC_DECLARE_FIELD(saturation).set_default(0.0f).describe(
        "Add a random value in ``[-saturation, saturation]`` to the saturation of image.");
    DMLC_DECLARE_FIELD(pca_noise).set_default(0.0f).describe(
        "Add PCA based noise to the image.");
    DMLC_DECLARE_FIELD(random_h).set_default(0).describe(
        "Add a random value in ``[-random_h, random_h]`` to the H channel in HSL color space.");
    DMLC_DECLARE_FIELD(random_s).set_default(0).describe(
        "Add a random value in ``[-random_s, random_s]`` to the S channel in HSL color space.");
    DMLC_DECLARE_FIELD(random_l).set_default(0).describe(
        "Add a random value in ``[-random_l, random_l]`` to the L channel in HSL color space.");
    DMLC_DECLARE_FIELD(rotate).set_default(-1).describe(
        "Rotate by an angle. If set, it overwrites the ``max_rotate_angle`` option.");
    DMLC_DECLARE_FIELD(fill_value).set_default(255).describe(
        "Set the padding pixels value to ``fill_value``.");
    DMLC_DECLARE_FIELD(inter_method).set_default(1).describe(
        "The interpolation method: 0-NN 1-bilinear 2-cubic 3-area 4-lanczos4 9-auto 10-rand.");
    DMLC_DECLARE_FIELD(pad).set_default(0).describe(
        "Change size from ``[width, height]`` into ``[pad + width + pad, pad + height + pad]`` "
        "by padding pixes");
  }
};

/*! \brief The random engine of one record's augmentation (seeded per record, so results do
 *  not depend on which thread ran it). */
using AugRandom = std::mt19937;

/*! \brief The OpenCV interpolation for resizing sw x sh to dw x dh: method 0-4 as is, 9 cubic
 *  to enlarge / area to shrink / bilinear otherwise, 10 a random one of 0-4 (MXNet's codes). */
int PickInterMethod(int method, int sw, int sh, int dw, int dh, AugRandom* rng);

/*! \brief src with its shorter edge resized to size (the aspect ratio kept, MXNet's integer
 *  rounding); an empty result throws dmlc::Error naming where. */
cv::Mat ResizeShorterEdge(const cv::Mat& src, int size, int inter_method, AugRandom* rng,
                          const std::string& where);

/*! \brief How many times aug_seq (MXNet's comma-separated augmenter names, applied in turn)
 *  applies `known`, the one augmenter an iterator has; another name fails naming `iter`. */
int AugmenterPasses(const std::string& aug_seq, const std::string& known, const char* iter);

/*! \brief Adds per-channel offsets to an 8-bit 3-channel image, clamping to [0, limit_k]. */
void AddClamped(cv::Mat* img, const float offset[3], const int limit[3]);

/*! \brief Decodes an encoded record image to 1 (gray), 3 (BGR) or 4 (BGRA) channels; a
 *  corrupt image throws dmlc::Error naming where(). */
cv::Mat DecodeRecordImage(const char* img, size_t img_size, int channels,
                          const std::function<std::string()>& where);

/*! \brief Applies the default augmentation to a decoded BGR (or gray) image. */
class DefaultImageAugmenter {
 public:
  explicit DefaultImageAugmenter(const DefaultImageAugmentParam& p);
  /*! \brief The augmented image: data_shape's (height, width), same channel count. Errors
   *  (image smaller than the crop, bad arguments) throw dmlc::Error naming `what`. */
  cv::Mat Process(const cv::Mat& src, AugRandom* rng, const std::string& what) const;

  /*! \brief True when the geometry is only a crop to data_shape (no resize, warp, pad or
   *  sized crop): the iterator may then decode just the window PickCrop chooses. */
  bool PlainCrop() const;
  /*! \brief For PlainCrop: the crop corner Process would draw for a w x h image, or false
   *  (nothing drawn) when the image is smaller than data_shape. */
  bool PickCrop(int w, int h, AugRandom* rng, int* x, int* y) const;
  /*! \brief The color steps of Process (jitter, HSL, PCA noise) on an already cropped image. */
  cv::Mat Photometric(cv::Mat res, AugRandom* rng) const;

 private:
  bool NeedsAffine() const;
  int InterMethod(int sw, int sh, int dw, int dh, AugRandom* rng) const;
  DefaultImageAugmentParam p_;
  float min_aspect_, max_aspect_;
};

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_IO_IMAGE_AUGMENT_H_
