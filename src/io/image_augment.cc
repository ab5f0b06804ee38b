// DefaultImageAugmenter (see image_augment.h): the steps and random draws follow MXNet 1.9.1's
// aug_default, so the same arguments give the same kind of results.
#if MXNET_USE_OPENCV
#include "io/image_augment.h"

#include <dmlc/logging.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

namespace mxnet {
namespace io {

DMLC_REGISTER_PARAMETER(DefaultImageAugmentParam);

namespace {

float Uniform(AugRandom* rng, float lo, float hi) {
  return std::uniform_real_distribution<float>(lo, hi)(*rng);
}
int UniformInt(AugRandom* rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(*rng);
}

}  // namespace

void AddClamped(cv::Mat* img, const float offset[3], const int limit[3]) {
  for (int y = 0; y < img->rows; ++y) {
    uint8_t* row = img->ptr<uint8_t>(y);
    for (int x = 0; x < img->cols; ++x) {
      for (int k = 0; k < 3; ++k) {
        int v = static_cast<int>(row[3 * x + k] + offset[k]);
        row[3 * x + k] = static_cast<uint8_t>(std::max(0, std::min(limit[k], v)));
      }
    }
  }
}

int PickInterMethod(int method, int sw, int sh, int dw, int dh, AugRandom* rng) {
  if (method == 9) {
    if (dw > sw && dh > sh) return cv::INTER_CUBIC;
    if (dw < sw && dh < sh) return cv::INTER_AREA;
    return cv::INTER_LINEAR;
  }
  if (method == 10) return UniformInt(rng, 0, 4);
  return method;
}

int AugmenterPasses(const std::string& aug_seq, const std::string& known, const char* iter) {
  int passes = 0;
  std::istringstream names(aug_seq);
  for (std::string name; std::getline(names, name, ',');) {
    const size_t b = name.find_first_not_of(" \t"), e = name.find_last_not_of(" \t");
    name = b == std::string::npos ? std::string() : name.substr(b, e - b + 1);
    CHECK(name == known) << iter << ": aug_seq '" << aug_seq << "' names augmenter '" << name
                         << "', which is not known (only " << known << ")";
    ++passes;
  }
  CHECK_GT(passes, 0) << iter << ": aug_seq is empty (the default is " << known << ")";
  return passes;
}

cv::Mat ResizeShorterEdge(const cv::Mat& src, int size, int inter_method, AugRandom* rng,
                          const std::string& where) {
  int nh = size, nw = size;
  if (src.rows > src.cols) {
    nh = size * src.rows / src.cols;
  } else {
    nw = size * src.cols / src.rows;
  }
  CHECK(nh > 0 && nw > 0) << where << ": resize " << size << " of a " << src.cols << "x"
                          << src.rows << " image gives an empty image";
  cv::Mat res;
  cv::resize(src, res, cv::Size(nw, nh), 0, 0,
             PickInterMethod(inter_method, src.cols, src.rows, nw, nh, rng));
  return res;
}

cv::Mat DecodeRecordImage(const char* img, size_t img_size, int channels,
                          const std::function<std::string()>& where) {
  cv::Mat buf(1, static_cast<int>(img_size), CV_8U, const_cast<char*>(img));
  const int flag = channels == 1 ? cv::IMREAD_GRAYSCALE
                   : channels == 4 ? cv::IMREAD_UNCHANGED : cv::IMREAD_COLOR;
  cv::Mat decoded;
  try {
    decoded = cv::imdecode(buf, flag);
  } catch (const cv::Exception& e) {
    LOG(FATAL) << where() << ": corrupt image: " << e.what();
  }
  CHECK(!decoded.empty()) << where() << ": the image bytes cannot be decoded (corrupt JPEG/PNG?)";
  if (channels == 4 && decoded.channels() != 4) {
    cv::cvtColor(decoded, decoded, decoded.channels() == 1 ? cv::COLOR_GRAY2BGRA
                                                           : cv::COLOR_BGR2BGRA);
  }
  return decoded;
}

DefaultImageAugmenter::DefaultImageAugmenter(const DefaultImageAugmentParam& p) : p_(p) {
  if (p_.min_aspect_ratio.has_value()) {
    min_aspect_ = p_.min_aspect_ratio.value();
    max_aspect_ = p_.max_aspect_ratio;
  } else {
    min_aspect_ = 1 - p_.max_aspect_ratio;
    max_aspect_ = 1 + p_.max_aspect_ratio;
  }
  CHECK((p_.inter_method >= 0 && p_.inter_method <= 4) || p_.inter_method == 9 ||
        p_.inter_method == 10)
      << "ImageRecordIter: argument inter_method must be 0-4, 9 or 10, given " << p_.inter_method;
  if (p_.random_resized_crop) {
    CHECK(p_.min_random_scale == 1.0f && p_.max_random_scale == 1.0f &&
          p_.min_crop_size == -1 && p_.max_crop_size == -1 && !p_.rand_crop)
        << "ImageRecordIter: random_resized_crop=True conflicts with min_random_scale, "
           "max_random_scale, min_crop_size, max_crop_size and rand_crop";
    CHECK(min_aspect_ > 0 && min_aspect_ <= max_aspect_)
        << "ImageRecordIter: aspect ratio range [" << min_aspect_ << ", " << max_aspect_
        << "] is empty or not positive";
    CHECK(p_.min_random_area <= p_.max_random_area)
        << "ImageRecordIter: min_random_area " << p_.min_random_area << " > max_random_area "
        << p_.max_random_area;
  }
}

bool DefaultImageAugmenter::PlainCrop() const {
  return p_.resize == -1 && !NeedsAffine() && p_.pad == 0 && !p_.random_resized_crop &&
         p_.max_crop_size == -1 && p_.min_crop_size == -1 && p_.inter_method != 10;
}

bool DefaultImageAugmenter::NeedsAffine() const {
  return p_.max_rotate_angle > 0 || p_.max_shear_ratio > 0 || p_.rotate > 0 ||
         p_.max_random_scale != 1.0f || p_.min_random_scale != 1.0f ||
         (!p_.random_resized_crop && (min_aspect_ != 1.0f || max_aspect_ != 1.0f)) ||
         p_.max_img_size != 1e10f || p_.min_img_size != 0.0f;
}

bool DefaultImageAugmenter::PickCrop(int w, int h, AugRandom* rng, int* x, int* y) const {
  const int out_h = static_cast<int>(p_.data_shape[1]), out_w = static_cast<int>(p_.data_shape[2]);
  if (h < out_h || w < out_w) return false;  // Process enlarges it first
  *y = h - out_h;
  *x = w - out_w;
  if (p_.rand_crop) {  // the same draws, in the same order, as Process
    *y = UniformInt(rng, 0, *y);
    *x = UniformInt(rng, 0, *x);
  } else {
    *y /= 2;
    *x /= 2;
  }
  return true;
}

int DefaultImageAugmenter::InterMethod(int sw, int sh, int dw, int dh, AugRandom* rng) const {
  return PickInterMethod(p_.inter_method, sw, sh, dw, dh, rng);
}

cv::Mat DefaultImageAugmenter::Process(const cv::Mat& src, AugRandom* rng,
                                       const std::string& what) const {
  const int out_h = static_cast<int>(p_.data_shape[1]), out_w = static_cast<int>(p_.data_shape[2]);
  const cv::Scalar fill(p_.fill_value, p_.fill_value, p_.fill_value, p_.fill_value);
  cv::Mat res = src;
  if (p_.resize != -1) res = ResizeShorterEdge(src, p_.resize, p_.inter_method, rng, what);
  if (NeedsAffine()) {
    const float shear = Uniform(rng, 0, 1) * p_.max_shear_ratio * 2 - p_.max_shear_ratio;
    int angle = UniformInt(rng, -p_.max_rotate_angle, p_.max_rotate_angle);
    if (p_.rotate > 0) angle = p_.rotate;
    const float a = std::cos(angle / 180.0 * M_PI), b = std::sin(angle / 180.0 * M_PI);
    float scale = 1, ratio = 1;
    if (!p_.random_resized_crop) {
      scale = Uniform(rng, 0, 1) * (p_.max_random_scale - p_.min_random_scale) +
              p_.min_random_scale;
      ratio = Uniform(rng, 0, 1) * (max_aspect_ - min_aspect_) + min_aspect_;
    }
    const float hs = 2 * scale / (1 + ratio), ws = ratio * hs;
    const float nw = std::max(p_.min_img_size, std::min(p_.max_img_size, scale * res.cols));
    const float nh = std::max(p_.min_img_size, std::min(p_.max_img_size, scale * res.rows));
    cv::Mat m(2, 3, CV_32F);
    m.at<float>(0, 0) = hs * a - shear * b * ws;
    m.at<float>(1, 0) = -b * ws;
    m.at<float>(0, 1) = hs * b + shear * a * ws;
    m.at<float>(1, 1) = a * ws;
    const float cx = m.at<float>(0, 0) * res.cols + m.at<float>(0, 1) * res.rows;
    const float cy = m.at<float>(1, 0) * res.cols + m.at<float>(1, 1) * res.rows;
    m.at<float>(0, 2) = (nw - cx) / 2;
    m.at<float>(1, 2) = (nh - cy) / 2;
    cv::Mat warped;
    cv::warpAffine(res, warped, m, cv::Size(nw, nh),
                   InterMethod(res.cols, res.rows, nw, nh, rng), cv::BORDER_CONSTANT, fill);
    res = warped;
  }
  if (p_.pad > 0) {
    cv::Mat padded;
    cv::copyMakeBorder(res, padded, p_.pad, p_.pad, p_.pad, p_.pad, cv::BORDER_CONSTANT, fill);
    res = padded;
  }
  bool cropped = false;
  if (p_.random_resized_crop) {
    if (p_.max_random_area != 1.0f || p_.min_random_area != 1.0f || max_aspect_ != 1.0f ||
        min_aspect_ != 1.0f) {
      const float area = static_cast<float>(res.rows) * res.cols;
      for (int attempt = 0; attempt < 10 && !cropped; ++attempt) {
        const float target = area * Uniform(rng, p_.min_random_area, p_.max_random_area);
        const float ratio = Uniform(rng, min_aspect_, max_aspect_);
        int ch = static_cast<int>(std::round(std::sqrt(target / ratio)));
        int cw = static_cast<int>(std::round(std::sqrt(target * ratio)));
        if (Uniform(rng, 0, 1) > 0.5f) std::swap(ch, cw);
        if (ch <= res.rows && cw <= res.cols && ch > 0 && cw > 0) {
          const int y = UniformInt(rng, 0, res.rows - ch), x = UniformInt(rng, 0, res.cols - cw);
          cv::Mat out;
          cv::resize(res(cv::Rect(x, y, cw, ch)), out, cv::Size(out_w, out_h), 0, 0,
                     InterMethod(cw, ch, out_w, out_h, rng));
          res = out;
          cropped = true;
        }
      }
    }
  } else if (p_.max_crop_size != -1 || p_.min_crop_size != -1) {
    CHECK(res.cols >= p_.max_crop_size && res.rows >= p_.max_crop_size &&
          p_.max_crop_size >= p_.min_crop_size)
        << what << ": image of " << res.cols << "x" << res.rows
        << " is smaller than max_crop_size " << p_.max_crop_size
        << " (or max_crop_size < min_crop_size)";
    const int size = UniformInt(rng, p_.min_crop_size, p_.max_crop_size);
    int y = res.rows - size, x = res.cols - size;
    if (p_.rand_crop) {
      y = UniformInt(rng, 0, y);
      x = UniformInt(rng, 0, x);
    } else {
      y /= 2;
      x /= 2;
    }
    cv::Mat out;
    cv::resize(res(cv::Rect(x, y, size, size)), out, cv::Size(out_w, out_h), 0, 0,
               InterMethod(size, size, out_w, out_h, rng));
    res = out;
    cropped = true;
  }
  if (!cropped) {  // enlarge to cover data_shape when needed, then crop
    const int interp = InterMethod(res.cols, res.rows, out_w, out_h, rng);
    if (res.rows < out_h) {
      cv::Mat out;
      const int nw = static_cast<int>(static_cast<float>(out_h) / res.rows * res.cols);
      cv::resize(res, out, cv::Size(nw, out_h), 0, 0, interp);
      res = out;
    }
    if (res.cols < out_w) {
      cv::Mat out;
      const int nh = static_cast<int>(static_cast<float>(out_w) / res.cols * res.rows);
      cv::resize(res, out, cv::Size(out_w, nh), 0, 0, interp);
      res = out;
    }
    CHECK(res.rows >= out_h && res.cols >= out_w)
        << what << ": image of " << res.cols << "x" << res.rows << " is smaller than data_shape "
        << p_.data_shape;
    int y = res.rows - out_h, x = res.cols - out_w;
    if (p_.rand_crop) {
      y = UniformInt(rng, 0, y);
      x = UniformInt(rng, 0, x);
    } else {
      y /= 2;
      x /= 2;
    }
    res = res(cv::Rect(x, y, out_w, out_h));
  }
  return Photometric(res, rng);
}

cv::Mat DefaultImageAugmenter::Photometric(cv::Mat res, AugRandom* rng) const {
  const bool color = res.channels() == 3;
  if (color && (p_.brightness > 0 || p_.contrast > 0 || p_.saturation > 0)) {
    const float ab = 1 + Uniform(rng, -p_.brightness, p_.brightness);
    const float ac = 1 + Uniform(rng, -p_.contrast, p_.contrast);
    const float as = 1 + Uniform(rng, -p_.saturation, p_.saturation);
    int order[3] = {0, 1, 2};
    std::shuffle(std::begin(order), std::end(order), *rng);
    cv::Mat gray, tmp;
    for (int step : order) {
      if (step == 0) {
        res.convertTo(tmp, -1, ab, 0);
        res = tmp;
      } else if (step == 1) {
        cv::cvtColor(res, gray, cv::COLOR_RGB2GRAY);
        const double mean = cv::mean(gray)[0];
        res.convertTo(tmp, -1, ac, (1 - ac) * mean);
        res = tmp;
      } else {
        cv::cvtColor(res, gray, cv::COLOR_RGB2GRAY);
        cv::cvtColor(gray, gray, cv::COLOR_GRAY2BGR);
        cv::addWeighted(res, as, gray, 1 - as, 0.0, tmp);
        res = tmp;
      }
    }
  }
  if (color && (p_.random_h != 0 || p_.random_s != 0 || p_.random_l != 0)) {
    auto draw = [&](int range) {
      float r = Uniform(rng, 0, 1);
      r = (r + 4 * Uniform(rng, 0, 1)) / 5;
      return static_cast<float>(static_cast<int>(r * range * 2 - range));
    };
    const float h = draw(p_.random_h), s = draw(p_.random_s), l = draw(p_.random_l);
    cv::Mat hls;
    cv::cvtColor(res, hls, cv::COLOR_BGR2HLS);
    const float offset[3] = {h, l, s};
    const int limit[3] = {180, 255, 255};
    AddClamped(&hls, offset, limit);
    cv::cvtColor(hls, res, cv::COLOR_HLS2BGR);
  }
  if (color && p_.pca_noise > 0) {
    // ImageNet's RGB eigenvectors scaled by their eigenvalues
    static const float eig[3][3] = {{55.46f * -0.5675f, 4.794f * 0.7192f, 1.148f * 0.4009f},
                                    {55.46f * -0.5808f, 4.794f * -0.0045f, 1.148f * -0.8140f},
                                    {55.46f * -0.5836f, 4.794f * -0.6948f, 1.148f * 0.4203f}};
    std::normal_distribution<float> normal(0, p_.pca_noise);
    const float ar = normal(*rng), ag = normal(*rng), ab = normal(*rng);
    float rgb[3];
    for (int k = 0; k < 3; ++k) rgb[k] = eig[k][0] * ar + eig[k][1] * ag + eig[k][2] * ab;
    const float offset[3] = {rgb[2], rgb[1], rgb[0]};  // the image is BGR
    const int limit[3] = {255, 255, 255};
    res = res.clone();  // never write into the decoded image through a crop view
    AddClamped(&res, offset, limit);
  }
  return res;
}

}  // namespace io
}  // namespace mxnet
#endif  // MXNET_USE_OPENCV
