// The default augmenter of ImageDetRecordIter (aug_seq "det_aug_default", MXNet 1.9.1's
// arguments and order): resize, colour (HSL, contrast), mirror, random pad, random crop under
// IOU/coverage constraints, then fit to data_shape; the boxes of the label follow the image.
#ifndef MXNET_IO_IMAGE_DET_AUGMENT_H_
#define MXNET_IO_IMAGE_DET_AUGMENT_H_

#include <dmlc/parameter.h>

#include <opencv2/core.hpp>

#include <string>
#include <vector>

#include "io/image_augment.h"
#include "operator/optimizer/update_common.h"
#include "operator/tuple_args.h"

namespace mxnet {
namespace io {

enum class DetCropEmit { kCenter = 0, kOverlap = 1 };
enum class DetResizeMode { kForce = 0, kShrink = 1, kFit = 2 };

struct DefaultImageDetAugmentParam : public dmlc::Parameter<DefaultImageDetAugmentParam> {
  int resize;
  float rand_crop_prob;
  using Floats = op::update::FloatTuple;
  Floats min_crop_scales, max_crop_scales, min_crop_aspect_ratios, max_crop_aspect_ratios;
  Floats min_crop_overlaps, max_crop_overlaps;
  Floats min_crop_sample_coverages, max_crop_sample_coverages;
  Floats min_crop_object_coverages, max_crop_object_coverages;
  int num_crop_sampler, crop_emit_mode;
  float emit_overlap_thresh;
  op::ShapeArg max_crop_trials;  // MXNet's Shape(tuple) argument
  float rand_pad_prob, max_pad_scale;
  int max_random_hue;
  float random_hue_prob;
  int max_random_saturation;
  float random_saturation_prob;
  int max_random_illumination;
  float random_illumination_prob;
  float max_random_contrast, random_contrast_prob, rand_mirror_prob;
  int fill_value, inter_method, resize_mode;
  TShape data_shape;  // (C, H, W): filled by the iterator from its own data_shape
  DMLC_DECLARE_PARAMETER(DefaultImageDetAugmentParam) {
    DMLC_DECLARE_FIELD(resize).set_default(-1).describe(
        "Augmentation Param: scale shorter edge to size before applying other augmentations, "
        "-1 to disable.");
    DMLC_DECLARE_FIELD(rand_crop_prob).set_default(0.0f).describe(
        "Augmentation Param: Probability of random cropping, <= 0 to disable");
    DMLC_DECLARE_FIELD(min_crop_scales).set_default(Floats{{0.0f}}).describe(
        "Augmentation Param: Min crop scales.");
    DMLC_DECLARE_FIELD(max_crop_scales).set_default(Floats{{1.0f}}).describe(
        "Augmentation Param: Max crop scales.");
    DMLC_DECLARE_FIELD(min_crop_aspect_ratios).set_default(Floats{{1.0f}}).describe(
        "Augmentation Param: Min crop aspect ratios.");
    DMLC_DECLARE_FIELD(max_crop_aspect_ratios).set_default(Floats{{1.0f}}).describe(
        "Augmentation Param: Max crop aspect ratios.");
    DMLC_DECLARE_FIELD(min_crop_overlaps).set_default(Floats{{0.0f}}).describe(
        "Augmentation Param: Minimum crop IOU between crop_box and ground-truths.");
    DMLC_DECLARE_FIELD(max_crop_overlaps).set_default(Floats{{1.0f}}).describe(
        "Augmentation Param: Maximum crop IOU between crop_box and ground-truth.");
    DMLC_DECLARE_FIELD(min_crop_sample_coverages).set_default(Floats{{0.0f}}).describe(
        "Augmentation Param: Minimum ratio of intersect/crop_area between crop box and "
        "ground-truths.");
    DMLC_DECLARE_FIELD(max_crop_sample_coverages).set_default(Floats{{1.0f}}).describe(
        "Augmentation Param: Maximum ratio of intersect/crop_area between crop box and "
        "ground-truths.");
    DMLC_DECLARE_FIELD(min_crop_object_coverages).set_default(Floats{{0.0f}}).describe(
        "Augmentation Param: Minimum ratio of intersect/gt_area between crop box and "
        "ground-truths.");
    DMLC_DECLARE_FIELD(max_crop_object_coverages).set_default(Floats{{1.0f}}).describe(
        "Augmentation Param: Maximum ratio of intersect/gt_area between crop box and "
        "ground-truths.");
    DMLC_DECLARE_FIELD(num_crop_sampler).set_default(1).describe(
        "Augmentation Param: Number of crop samplers.");
    DMLC_DECLARE_FIELD(crop_emit_mode)
        .add_enum("center", static_cast<int>(DetCropEmit::kCenter))
        .add_enum("overlap", static_cast<int>(DetCropEmit::kOverlap))
        .set_default(static_cast<int>(DetCropEmit::kCenter))
        .describe("Augmentation Param: Emition mode for invalid ground-truths after crop. "
                  "center: emit if centroid of object is out of crop region; overlap: emit if "
                  "overlap is less than emit_overlap_thresh. ");
    DMLC_DECLARE_FIELD(emit_overlap_thresh).set_default(0.3f).describe(
        "Augmentation Param: Emit overlap thresh for emit mode overlap only.");
    DMLC_DECLARE_FIELD(max_crop_trials).set_default(TShape({25})).describe(
        "Augmentation Param: Skip cropping if fail crop trail count exceeds this number.");
    DMLC_DECLARE_FIELD(rand_pad_prob).set_default(0.0f).describe(
        "Augmentation Param: Probability for random padding.");
    DMLC_DECLARE_FIELD(max_pad_scale).set_default(1.0f).describe(
        "Augmentation Param: Maximum padding scale.");
    DMLC_DECLARE_FIELD(max_random_hue).set_default(0).describe(
        "Augmentation Param: Maximum random value of H channel in HSL color space.");
    DMLC_DECLARE_FIELD(random_hue_prob).set_default(0.0f).describe(
        "Augmentation Param: Probability to apply random hue.");
    DMLC_DECLARE_FIELD(max_random_saturation).set_default(0).describe(
        "Augmentation Param: Maximum random value of S channel in HSL color space.");
    DMLC_DECLARE_FIELD(random_saturation_prob).set_default(0.0f).describe(
        "Augmentation Param: Probability to apply random saturation.");
    DMLC_DECLARE_FIELD(max_random_illumination).set_default(0).describe(
        "Augmentation Param: Maximum random value of L channel in HSL color space.");
    DMLC_DECLARE_FIELD(random_illumination_prob).set_default(0.0f).describe(
        "Augmentation Param: Probability to apply random illumination.");
    DMLC_DECLARE_FIELD(max_random_contrast).set_default(0.0f).describe(
        "Augmentation Param: Maximum random value of delta contrast.");
    DMLC_DECLARE_FIELD(random_contrast_prob).set_default(0.0f).describe(
        "Augmentation Param: Probability to apply random contrast.");
    DMLC_DECLARE_FIELD(rand_mirror_prob).set_default(0.0f).describe(
        "Augmentation Param: Probability to apply horizontal flip aka. mirror.");
    DMLC_DECLARE_FIELD(fill_value).set_default(127).describe(
        "Augmentation Param: Filled color value while padding.");
    DMLC_DECLARE_FIELD(inter_method).set_default(1).describe(
        "Augmentation Param: 0-NN 1-bilinear 2-cubic 3-area 4-lanczos4 9-auto 10-rand.");
    DMLC_DECLARE_FIELD(resize_mode)
        .add_enum("force", static_cast<int>(DetResizeMode::kForce))
        .add_enum("shrink", static_cast<int>(DetResizeMode::kShrink))
        .add_enum("fit", static_cast<int>(DetResizeMode::kFit))
        .set_default(static_cast<int>(DetResizeMode::kForce))
        .describe("Augmentation Param: How image data fit in data_shape. force: force reshape "
                  "to data_shape regardless of aspect ratio; shrink: ensure each side fit in "
                  "data_shape, preserve aspect ratio; fit: fit image to data_shape, preserve "
                  "ratio, will upscale if applicable.");
  }
};

/*! \brief A raw detection label: [header_width, object_width, header extras...,
 *  (id, xmin, ymin, xmax, ymax, object extras...) x N], boxes normalised to [0, 1]. Objects
 *  with an empty box are dropped when parsed. */
class DetLabel {
 public:
  struct Object {
    float id, left, top, right, bottom;
    std::vector<float> extra;
  };
  /*! \brief Parses raw; a malformed label throws dmlc::Error naming `where`. */
  DetLabel(const std::vector<float>& raw, const std::string& where);
  std::vector<float> ToArray() const;
  std::vector<Object>& objects() { return objects_; }

 private:
  std::vector<float> header_;
  int object_width_;
  std::vector<Object> objects_;
};

class DefaultImageDetAugmenter {
 public:
  /*! \brief Checks the arguments (one crop sampler value, or num_crop_sampler of them). */
  explicit DefaultImageDetAugmenter(const DefaultImageDetAugmentParam& p);
  /*! \brief The augmented image (data_shape's size with resize_mode "force", at most that
   *  otherwise) and, in *label, the label of its boxes. */
  cv::Mat Process(const cv::Mat& src, std::vector<float>* label, AugRandom* rng,
                  const std::string& where) const;

 private:
  bool TryCrop(DetLabel* label, const cv::Rect2f& box, size_t sampler) const;
  cv::Rect2f CropBox(size_t sampler, float image_aspect, AugRandom* rng) const;
  DefaultImageDetAugmentParam p_;
  /*! \brief The crop sampler arguments, each num_crop_sampler long. */
  std::vector<float> min_scale_, max_scale_, min_aspect_, max_aspect_, min_overlap_,
      max_overlap_, min_sample_cov_, max_sample_cov_, min_object_cov_, max_object_cov_;
  std::vector<int> trials_;
};

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_IO_IMAGE_DET_AUGMENT_H_
