// DefaultImageDetAugmenter and DetLabel (see image_det_augment.h): the steps, their order, the
// random draws and the crop constraints follow MXNet 1.9.1's det_aug_default.
#if MXNET_USE_OPENCV
#include "io/image_det_augment.h"

#include <dmlc/logging.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include <opencv2/imgproc.hpp>

namespace mxnet {
namespace io {

DMLC_REGISTER_PARAMETER(DefaultImageDetAugmentParam);

namespace {

constexpr const char* kName = "ImageDetRecordIter";

float Uniform(AugRandom* rng, float lo, float hi) {
  return std::uniform_real_distribution<float>(lo, hi)(*rng);
}

/*! \brief One value per crop sampler: a single value repeats, else exactly n are needed. */
template <typename T, typename Tuple>
std::vector<T> PerSampler(const Tuple& t, int n, const char* arg) {
  std::vector<T> out;
  for (int i = 0; i < t.ndim(); ++i) out.push_back(static_cast<T>(t[i]));
  CHECK(out.size() == 1 || (n > 1 && static_cast<int>(out.size()) == n))
      << kName << ": argument " << arg << " must have 1 value or num_crop_sampler (" << n
      << ") values, given " << out.size();
  if (n > 1 && out.size() == 1) out.assign(n, out[0]);
  return out;
}

/*! \brief obj's box in the coordinates of region box (x, y, w, h), clipped to [0, 1]. */
void Project(DetLabel::Object* obj, const cv::Rect2f& box) {
  obj->left = std::max(0.f, (obj->left - box.x) / box.width);
  obj->top = std::max(0.f, (obj->top - box.y) / box.height);
  obj->right = std::min(1.f, (obj->right - box.x) / box.width);
  obj->bottom = std::min(1.f, (obj->bottom - box.y) / box.height);
}

cv::Rect2f BoxOf(const DetLabel::Object& obj) {
  return cv::Rect2f(obj.left, obj.top, obj.right - obj.left, obj.bottom - obj.top);
}

/*! \brief Whether v is outside [lo, hi], checked only when the range is not [0, 1]. */
bool Outside(float v, float lo, float hi) {
  return (lo > 0.f || hi < 1.f) && (v < lo || v > hi);
}

}  // namespace

DetLabel::DetLabel(const std::vector<float>& raw, const std::string& where) {
  const int size = static_cast<int>(raw.size());
  CHECK_GE(size, 7) << where << ": a detection label needs at least 7 values (header width, "
                    << "object width, one object of 5), the label has " << size;
  // the widths are checked as floats first: a NaN or huge value has no int conversion
  const bool in_range = raw[0] >= 2 && raw[0] <= size && raw[1] >= 5 && raw[1] <= size;
  const int header_width = in_range ? static_cast<int>(raw[0]) : 0;
  object_width_ = in_range ? static_cast<int>(raw[1]) : 0;
  CHECK(in_range && (size - header_width) % object_width_ == 0)
      << where << ": detection label of " << size << " values has header width " << raw[0]
      << " and object width " << raw[1] << " (expected header >= 2, object >= 5 and "
      << "size = header + k * object)";
  header_.assign(raw.begin(), raw.begin() + header_width);
  for (int i = header_width; i < size; i += object_width_) {
    Object obj{raw[i], raw[i + 1], raw[i + 2], raw[i + 3], raw[i + 4],
               std::vector<float>(raw.begin() + i + 5, raw.begin() + i + object_width_)};
    if (obj.right > obj.left && obj.bottom > obj.top) objects_.push_back(std::move(obj));
  }
}

std::vector<float> DetLabel::ToArray() const {
  std::vector<float> out(header_);
  for (const Object& obj : objects_) {
    out.insert(out.end(), {obj.id, obj.left, obj.top, obj.right, obj.bottom});
    out.insert(out.end(), obj.extra.begin(), obj.extra.end());
  }
  return out;
}

DefaultImageDetAugmenter::DefaultImageDetAugmenter(const DefaultImageDetAugmentParam& p)
    : p_(p) {
  CHECK((p_.inter_method >= 0 && p_.inter_method <= 4) || p_.inter_method == 9 ||
        p_.inter_method == 10)
      << kName << ": argument inter_method must be 0-4, 9 or 10, given " << p_.inter_method;
  const int n = p_.num_crop_sampler;
  min_scale_ = PerSampler<float>(p_.min_crop_scales, n, "min_crop_scales");
  max_scale_ = PerSampler<float>(p_.max_crop_scales, n, "max_crop_scales");
  min_aspect_ = PerSampler<float>(p_.min_crop_aspect_ratios, n, "min_crop_aspect_ratios");
  max_aspect_ = PerSampler<float>(p_.max_crop_aspect_ratios, n, "max_crop_aspect_ratios");
  min_overlap_ = PerSampler<float>(p_.min_crop_overlaps, n, "min_crop_overlaps");
  max_overlap_ = PerSampler<float>(p_.max_crop_overlaps, n, "max_crop_overlaps");
  min_sample_cov_ = PerSampler<float>(p_.min_crop_sample_coverages, n,
                                      "min_crop_sample_coverages");
  max_sample_cov_ = PerSampler<float>(p_.max_crop_sample_coverages, n,
                                      "max_crop_sample_coverages");
  min_object_cov_ = PerSampler<float>(p_.min_crop_object_coverages, n,
                                      "min_crop_object_coverages");
  max_object_cov_ = PerSampler<float>(p_.max_crop_object_coverages, n,
                                      "max_crop_object_coverages");
  trials_ = PerSampler<int>(p_.max_crop_trials, n, "max_crop_trials");
  for (int i = 0; i < n; ++i) {
    CHECK(min_scale_[i] >= 0 && max_scale_[i] <= 1 && max_scale_[i] > min_scale_[i])
        << kName << ": crop sampler " << i << " needs 0 <= min_crop_scales < max_crop_scales "
        << "<= 1, given " << min_scale_[i] << ", " << max_scale_[i];
    CHECK(min_aspect_[i] >= 0 && max_aspect_[i] >= min_aspect_[i])
        << kName << ": crop sampler " << i << " needs 0 <= min_crop_aspect_ratios <= "
        << "max_crop_aspect_ratios, given " << min_aspect_[i] << ", " << max_aspect_[i];
    CHECK(max_overlap_[i] >= min_overlap_[i] && max_sample_cov_[i] >= min_sample_cov_[i] &&
          max_object_cov_[i] >= min_object_cov_[i])
        << kName << ": crop sampler " << i << " has a min_crop_* argument above its max_crop_*";
  }
  CHECK_GE(p_.emit_overlap_thresh, 0.0f) << kName << ": emit_overlap_thresh must be >= 0";
}

cv::Rect2f DefaultImageDetAugmenter::CropBox(size_t i, float image_aspect,
                                             AugRandom* rng) const {
  const float scale = Uniform(rng, min_scale_[i], max_scale_[i]) + 1e-12f;
  const float min_ratio = std::max(min_aspect_[i] / image_aspect, scale * scale);
  const float max_ratio = std::min(max_aspect_[i] / image_aspect, 1.f / (scale * scale));
  const float ratio = std::sqrt(Uniform(rng, min_ratio, max_ratio));
  const float w = std::min(1.f, scale * ratio), h = std::min(1.f, scale / ratio);
  const float x0 = Uniform(rng, 0.f, 1 - w);
  const float y0 = Uniform(rng, 0.f, 1 - h);
  return cv::Rect2f(x0, y0, w, h);
}

bool DefaultImageDetAugmenter::TryCrop(DetLabel* label, const cv::Rect2f& box,
                                       size_t i) const {
  std::vector<DetLabel::Object>& objects = label->objects();
  if (objects.empty()) return true;
  // the crop is valid when one object meets every constrained range
  const bool valid = std::any_of(objects.begin(), objects.end(), [&](const auto& obj) {
    const cv::Rect2f gt = BoxOf(obj);
    const float inter = (box & gt).area();
    const float iou = inter <= 0 ? 0.f : inter / (box.area() + gt.area() - inter);
    return !Outside(iou, min_overlap_[i], max_overlap_[i]) &&
           !Outside(inter / box.area(), min_sample_cov_[i], max_sample_cov_[i]) &&
           !Outside(inter / gt.area(), min_object_cov_[i], max_object_cov_[i]);
  });
  if (!valid) return false;
  std::vector<DetLabel::Object> kept;
  for (const DetLabel::Object& obj : objects) {
    bool keep;
    if (p_.crop_emit_mode == static_cast<int>(DetCropEmit::kCenter)) {
      keep = box.contains(cv::Point2f((obj.left + obj.right) * 0.5f,
                                      (obj.top + obj.bottom) * 0.5f));
    } else {
      const cv::Rect2f gt = BoxOf(obj);
      keep = (box & gt).area() / gt.area() > p_.emit_overlap_thresh;
    }
    if (keep) {
      kept.push_back(obj);
      Project(&kept.back(), box);
    }
  }
  if (kept.empty()) return false;
  objects = std::move(kept);
  return true;
}

cv::Mat DefaultImageDetAugmenter::Process(const cv::Mat& src, std::vector<float>* raw_label,
                                          AugRandom* rng, const std::string& where) const {
  cv::Mat res = src;
  if (p_.resize != -1) res = ResizeShorterEdge(src, p_.resize, p_.inter_method, rng, where);
  DetLabel label(*raw_label, where);
  if (p_.random_hue_prob > 0.f || p_.random_saturation_prob > 0.f ||
      p_.random_illumination_prob > 0.f || p_.random_contrast_prob > 0.f) {
    int h = static_cast<int>(Uniform(rng, -1.f, 1.f) * p_.max_random_hue);
    int s = static_cast<int>(Uniform(rng, -1.f, 1.f) * p_.max_random_saturation);
    int l = static_cast<int>(Uniform(rng, -1.f, 1.f) * p_.max_random_illumination);
    float c = Uniform(rng, -1.f, 1.f) * p_.max_random_contrast;
    if (Uniform(rng, 0.f, 1.f) >= p_.random_hue_prob) h = 0;
    if (Uniform(rng, 0.f, 1.f) >= p_.random_saturation_prob) s = 0;
    if (Uniform(rng, 0.f, 1.f) >= p_.random_illumination_prob) l = 0;
    if (Uniform(rng, 0.f, 1.f) >= p_.random_contrast_prob) c = 0;
    if (h != 0 || s != 0 || l != 0) {
      CHECK_EQ(res.channels(), 3) << where << ": random hue, saturation and illumination need "
                                  << "3-channel images, data_shape has " << res.channels();
      cv::Mat hls;
      cv::cvtColor(res, hls, cv::COLOR_BGR2HLS);
      const float offset[3] = {static_cast<float>(h), static_cast<float>(l),
                               static_cast<float>(s)};
      const int limit[3] = {180, 255, 255};
      AddClamped(&hls, offset, limit);
      cv::cvtColor(hls, res, cv::COLOR_HLS2BGR);
    }
    if (std::fabs(c) > 1e-3) {
      cv::Mat tmp;
      res.convertTo(tmp, -1, c + 1.f, 0);
      res = tmp;
    }
  }
  if (p_.rand_mirror_prob > 0 && Uniform(rng, 0.f, 1.f) < p_.rand_mirror_prob) {
    for (DetLabel::Object& obj : label.objects()) {
      const float left = obj.left;
      obj.left = 1.f - obj.right;
      obj.right = 1.f - left;
    }
    cv::Mat flipped;
    cv::flip(res, flipped, 1);
    res = flipped;
  }
  if (p_.rand_pad_prob > 0 && p_.max_pad_scale > 1.f &&
      Uniform(rng, 0.f, 1.f) < p_.rand_pad_prob) {
    const float scale = Uniform(rng, 1.f, p_.max_pad_scale);
    if (scale >= 1.05f) {  // smaller pads are skipped
      std::uniform_real_distribution<float> offset(0.f, scale - 1);
      const float x0 = offset(*rng);
      const float y0 = offset(*rng);
      const cv::Rect2f box(-x0, -y0, scale, scale);
      for (DetLabel::Object& obj : label.objects()) Project(&obj, box);
      const int left = static_cast<int>(x0 * res.cols), top = static_cast<int>(y0 * res.rows);
      const int right = static_cast<int>((scale - x0 - 1) * res.cols);
      const int bottom = static_cast<int>((scale - y0 - 1) * res.rows);
      cv::Mat padded;
      cv::copyMakeBorder(res, padded, top, bottom, left, right, cv::BORDER_CONSTANT,
                         cv::Scalar::all(p_.fill_value));
      res = padded;
    }
  }
  if (p_.rand_crop_prob > 0 && p_.num_crop_sampler > 0 &&
      Uniform(rng, 0.f, 1.f) < p_.rand_crop_prob) {
    std::vector<size_t> samplers(p_.num_crop_sampler);
    std::iota(samplers.begin(), samplers.end(), 0);
    std::shuffle(samplers.begin(), samplers.end(), *rng);
    bool cropped = false;
    for (size_t i : samplers) {
      for (int t = 0; t < trials_[i] && !cropped; ++t) {
        const cv::Rect2f box = CropBox(i, static_cast<float>(res.cols) / res.rows, rng);
        const cv::Rect pixels(static_cast<int>(box.x * res.cols),
                              static_cast<int>(box.y * res.rows),
                              static_cast<int>(box.width * res.cols),
                              static_cast<int>(box.height * res.rows));
        if (pixels.width < 1 || pixels.height < 1) continue;  // under a pixel: no image
        if (TryCrop(&label, box, i)) {
          res = res(pixels & cv::Rect(0, 0, res.cols, res.rows));
          cropped = true;
        }
      }
      if (cropped) break;
    }
  }
  const float out_h = static_cast<float>(p_.data_shape[1]);
  const float out_w = static_cast<float>(p_.data_shape[2]);
  const bool force = p_.resize_mode == static_cast<int>(DetResizeMode::kForce);
  const bool fit = p_.resize_mode == static_cast<int>(DetResizeMode::kFit);
  if (force || fit || res.rows > out_h || res.cols > out_w) {  // shrink: only a large image
    const float ratio = std::min(out_h / res.rows, out_w / res.cols);
    const int nh = force ? static_cast<int>(out_h) : static_cast<int>(ratio * res.rows);
    const int nw = force ? static_cast<int>(out_w) : static_cast<int>(ratio * res.cols);
    CHECK(nh > 0 && nw > 0) << where << ": the image of " << res.cols << "x" << res.rows
                            << " does not fit data_shape " << p_.data_shape;
    cv::Mat out;
    cv::resize(res, out, cv::Size(nw, nh), 0, 0,
               PickInterMethod(p_.inter_method, res.cols, res.rows, nw, nh, rng));
    res = out;
  }
  *raw_label = label.ToArray();
  return res;
}

}  // namespace io
}  // namespace mxnet
#endif  // MXNET_USE_OPENCV
