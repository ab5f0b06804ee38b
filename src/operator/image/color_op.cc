// Color augmenters of (H, W, C) images with C of 1 or 3: random brightness, contrast,
// saturation, hue and their random-order combination _image_random_color_jitter, and
// AlexNet-style PCA lighting noise (_image_adjust_lighting, _image_random_lighting).
// Arithmetic is float, with results cast as SaturateCast does, to give MXNet 1.9.1's values.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "operator/image/image_common.h"
#include "operator/optimizer/update_common.h"
#include "operator/random/sampler.h"

namespace mxnet {
namespace op {
namespace image {
namespace {

struct RandomEnhanceParam : public dmlc::Parameter<RandomEnhanceParam> {
  float min_factor, max_factor;
  DMLC_DECLARE_PARAMETER(RandomEnhanceParam) {
    DMLC_DECLARE_FIELD(min_factor).set_lower_bound(0.0).describe("Minimum factor.");
    DMLC_DECLARE_FIELD(max_factor).set_lower_bound(0.0).describe("Maximum factor.");
  }
};

struct RandomColorJitterParam : public dmlc::Parameter<RandomColorJitterParam> {
  float brightness, contrast, saturation, hue;
  DMLC_DECLARE_PARAMETER(RandomColorJitterParam) {
    DMLC_DECLARE_FIELD(brightness).describe("How much to jitter brightness.");
    DMLC_DECLARE_FIELD(contrast).describe("How much to jitter contrast.");
    DMLC_DECLARE_FIELD(saturation).describe("How much to jitter saturation.");
    DMLC_DECLARE_FIELD(hue).describe("How much to jitter hue.");
  }
};

struct AdjustLightingParam : public dmlc::Parameter<AdjustLightingParam> {
  update::FloatTuple alpha;
  DMLC_DECLARE_PARAMETER(AdjustLightingParam) {
    DMLC_DECLARE_FIELD(alpha).describe("The lighting alphas for the R, G, B channels.");
  }
};

struct RandomLightingParam : public dmlc::Parameter<RandomLightingParam> {
  float alpha_std;
  DMLC_DECLARE_PARAMETER(RandomLightingParam) {
    DMLC_DECLARE_FIELD(alpha_std).set_default(0.05f).describe("Level of the lighting noise.");
  }
};

DMLC_REGISTER_PARAMETER(RandomEnhanceParam);
DMLC_REGISTER_PARAMETER(RandomColorJitterParam);
DMLC_REGISTER_PARAMETER(AdjustLightingParam);
DMLC_REGISTER_PARAMETER(RandomLightingParam);

constexpr float kGrayCoef[3] = {0.299f, 0.587f, 0.114f};

/*! \brief One color adjustment, applied from src to dst (possibly the same memory). */
using Adjust = void (*)(float factor, const TBlob& src, const TBlob& dst);

void CopyImage(const TBlob& src, const TBlob& dst) {
  if (dst.dptr_ != src.dptr_) {
    std::memcpy(dst.dptr_, src.dptr_, src.Size() * DTypeSize(src.type_flag_));
  }
}

void AdjustBrightness(float alpha, const TBlob& src, const TBlob& dst) {
  MXNET_NUMERIC_TYPE_SWITCH(src.type_flag_, DType, {
    const DType* x = src.dptr<DType>();
    DType* y = dst.dptr<DType>();
    for (size_t i = 0; i < src.Size(); ++i) {
      y[i] = SaturateCast<DType>(static_cast<float>(x[i]) * alpha);
    }
  });
}

void AdjustContrast(float alpha, const TBlob& src, const TBlob& dst) {
  const index_t pixels = src.shape_[0] * src.shape_[1], channels = src.shape_[2];
  MXNET_NUMERIC_TYPE_SWITCH(src.type_flag_, DType, {
    using R = PromotedFloat<DType>;
    const DType* x = src.dptr<DType>();
    DType* y = dst.dptr<DType>();
    float sum = 0.f;
    if (channels > 1) {
      for (index_t l = 0; l < pixels; ++l) {
        for (int c = 0; c < 3; ++c) {
          sum = static_cast<float>(sum + static_cast<R>(x[l * 3 + c]) * kGrayCoef[c]);
        }
      }
    } else {
      for (index_t l = 0; l < pixels; ++l) sum = static_cast<float>(sum + static_cast<R>(x[l]));
    }
    const float beta = (1 - alpha) * (sum / static_cast<float>(pixels));
    for (index_t i = 0; i < pixels * channels; ++i) {
      y[i] = SaturateCast<DType>(static_cast<float>(static_cast<R>(x[i]) * alpha + beta));
    }
  });
}

void AdjustSaturation(float alpha, const TBlob& src, const TBlob& dst) {
  if (src.shape_[2] == 1) return CopyImage(src, dst);
  const index_t pixels = src.shape_[0] * src.shape_[1];
  MXNET_NUMERIC_TYPE_SWITCH(src.type_flag_, DType, {
    using R = PromotedFloat<DType>;
    const DType* x = src.dptr<DType>();
    DType* y = dst.dptr<DType>();
    for (index_t l = 0; l < pixels; ++l) {
      // MXNet 1.9.1 takes the blue term alone as the gray level (its loop assigns instead of
      // accumulating); kept so that results match it.
      const float gray = static_cast<float>(static_cast<R>(x[l * 3 + 2]) * kGrayCoef[2]) *
                         (1.f - alpha);
      for (int c = 0; c < 3; ++c) {
        const R v = gray + static_cast<R>(x[l * 3 + c]) * alpha;
        y[l * 3 + c] = SaturateCast<DType>(static_cast<float>(v));
      }
    }
  });
}

// RGB in [0, 255] <-> hue in degrees, lightness and saturation in [0, 1] (OpenCV's HLS).
void RGBToHLS(float r, float g, float b, float* h, float* l, float* s) {
  r /= 255.f, g /= 255.f, b /= 255.f;
  const float vmax = std::fmax(std::fmax(r, g), b), vmin = std::fmin(std::fmin(r, g), b);
  float diff = vmax - vmin;
  *h = 0.f, *s = 0.f, *l = (vmax + vmin) * 0.5f;
  if (diff > std::numeric_limits<float>::epsilon()) {
    *s = *l < 0.5f ? diff / (vmax + vmin) : diff / (2.0f - vmax - vmin);
    diff = 60.f / diff;
    if (vmax == r) *h = (g - b) * diff;
    else if (vmax == g) *h = (b - r) * diff + 120.f;
    else *h = (r - g) * diff + 240.f;
    if (*h < 0.f) *h += 360.f;
  }
}

void HLSToRGB(float h, float l, float s, float* r, float* g, float* b) {
  static const int kSector[6][3] = {{1, 3, 0}, {1, 0, 2}, {3, 0, 1},
                                    {0, 2, 1}, {0, 1, 3}, {2, 1, 0}};
  float bb = l, gg = l, rr = l;
  if (s != 0) {
    const float p2 = l <= 0.5f ? l * (1 + s) : l + s - l * s;
    const float p1 = 2 * l - p2;
    h *= 1.f / 60.f;
    while (h < 0) h += 6;
    while (h >= 6) h -= 6;
    const int sector = static_cast<int>(h);
    h -= sector;
    const float tab[4] = {p2, p1, p1 + (p2 - p1) * (1 - h), p1 + (p2 - p1) * h};
    bb = tab[kSector[sector][0]];
    gg = tab[kSector[sector][1]];
    rr = tab[kSector[sector][2]];
  }
  *r = rr * 255.f, *g = gg * 255.f, *b = bb * 255.f;
}

void AdjustHue(float alpha, const TBlob& src, const TBlob& dst) {
  if (src.shape_[2] == 1) return CopyImage(src, dst);
  const index_t pixels = src.shape_[0] * src.shape_[1];
  MXNET_NUMERIC_TYPE_SWITCH(src.type_flag_, DType, {
    const DType* x = src.dptr<DType>();
    DType* y = dst.dptr<DType>();
    for (index_t i = 0; i < pixels; ++i) {
      float r = static_cast<float>(x[3 * i]), g = static_cast<float>(x[3 * i + 1]),
            b = static_cast<float>(x[3 * i + 2]), h, l, s;
      RGBToHLS(r, g, b, &h, &l, &s);
      HLSToRGB(h + alpha * 360.f, l, s, &r, &g, &b);
      y[3 * i] = SaturateCast<DType>(r);
      y[3 * i + 1] = SaturateCast<DType>(g);
      y[3 * i + 2] = SaturateCast<DType>(b);
    }
  });
}

void AdjustLighting(const float alpha[3], const TBlob& src, const TBlob& dst) {
  if (src.shape_[2] == 1) return CopyImage(src, dst);
  // Eigenvalue-scaled eigenvectors of the ImageNet RGB covariance (AlexNet's PCA noise).
  static const float eig[3][3] = {{55.46f * -0.5675f, 4.794f * 0.7192f, 1.148f * 0.4009f},
                                  {55.46f * -0.5808f, 4.794f * -0.0045f, 1.148f * -0.8140f},
                                  {55.46f * -0.5836f, 4.794f * -0.6948f, 1.148f * 0.4203f}};
  float pca[3];
  for (int c = 0; c < 3; ++c) {
    pca[c] = eig[c][0] * alpha[0] + eig[c][1] * alpha[1] + eig[c][2] * alpha[2];
  }
  const index_t pixels = src.shape_[0] * src.shape_[1];
  MXNET_NUMERIC_TYPE_SWITCH(src.type_flag_, DType, {
    const DType* x = src.dptr<DType>();
    DType* y = dst.dptr<DType>();
    for (index_t i = 0; i < 3 * pixels; ++i) {
      y[i] = SaturateCast<DType>(static_cast<float>(x[i]) + pca[i % 3]);
    }
  });
}

/*! \brief Uniform in [lo, hi) from the stream. */
float UniformIn(RandomStream* rs, float lo, float hi) { return lo + rs->UniformF() * (hi - lo); }

template <Adjust adjust>
void RandomEnhanceCompute(const NodeAttrs& attrs, const OpContext& ctx,
                          const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                          const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const RandomEnhanceParam& p = Param<RandomEnhanceParam>(attrs);
  RandomStream rs(ctx.random_seed, ctx.random_stream, 0);
  adjust(UniformIn(&rs, p.min_factor, p.max_factor), in[0], out[0]);
}

// The four adjustments in a random order, each with a factor drawn around its identity value;
// one with a zero range is skipped.
void RandomColorJitterCompute(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const RandomColorJitterParam& p = Param<RandomColorJitterParam>(attrs);
  RandomStream rs(ctx.random_seed, ctx.random_stream, 0);
  int order[4] = {0, 1, 2, 3};
  for (int i = 3; i > 0; --i) std::swap(order[i], order[rs.NextU32() % (i + 1)]);
  const float range[4] = {p.brightness, p.contrast, p.saturation, p.hue};
  const Adjust adjust[4] = {AdjustBrightness, AdjustContrast, AdjustSaturation, AdjustHue};
  bool written = false;
  for (int k : order) {
    if (range[k] <= 0) continue;
    const float centre = k == 3 ? 0.f : 1.f;  // hue shifts by a fraction of a turn
    adjust[k](centre + UniformIn(&rs, -range[k], range[k]), written ? out[0] : in[0], out[0]);
    written = true;
  }
  if (!written) CopyImage(in[0], out[0]);
}

void AdjustLightingCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                           const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const AdjustLightingParam& p = Param<AdjustLightingParam>(attrs);
  CHECK_EQ(p.alpha.ndim(), 3) << "Operator " << attrs.op->name
                              << ": argument alpha must have 3 elements (R, G, B), given "
                              << p.alpha;
  AdjustLighting(p.alpha.v.data(), in[0], out[0]);
}

void RandomLightingCompute(const NodeAttrs& attrs, const OpContext& ctx,
                           const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                           const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const float sd = Param<RandomLightingParam>(attrs).alpha_std;
  RandomStream rs(ctx.random_seed, ctx.random_stream, 0);
  float alpha[3];
  for (float& a : alpha) a = sd * sampler::StandardNormal<float>(&rs);
  AdjustLighting(alpha, in[0], out[0]);
}

}  // namespace

const bool reg_image_color_ [[maybe_unused]] = [] {
  const struct {
    const char* name;
    const char* doc;
    FCompute fcompute;
  } enhancers[] = {
      {"_image_random_brightness",
       "Multiplies every value of the image by a factor drawn uniformly from "
       "[min_factor, max_factor].",
       RandomEnhanceCompute<AdjustBrightness>},
      {"_image_random_contrast",
       "Blends the image with its mean gray level by a factor drawn uniformly from "
       "[min_factor, max_factor].",
       RandomEnhanceCompute<AdjustContrast>},
      {"_image_random_saturation",
       "Blends the image with a gray level by a factor drawn uniformly from "
       "[min_factor, max_factor].",
       RandomEnhanceCompute<AdjustSaturation>},
      {"_image_random_hue",
       "Rotates the hue of the image by a fraction of a turn drawn uniformly from "
       "[min_factor, max_factor].",
       RandomEnhanceCompute<AdjustHue>}};
  for (const auto& e : enhancers) {
    RegisterAugmenter(e.name, e.doc, e.fcompute, true)
        .set_attr_parser(ParamParser<RandomEnhanceParam>)
        .add_arguments(RandomEnhanceParam::__FIELDS__());
  }
  RegisterAugmenter("_image_random_color_jitter",
                    "Randomly jitters brightness, contrast, saturation and hue of the image, "
                    "in a random order.",
                    RandomColorJitterCompute, true)
      .set_attr_parser(ParamParser<RandomColorJitterParam>)
      .add_arguments(RandomColorJitterParam::__FIELDS__());
  RegisterAugmenter("_image_adjust_lighting",
                    "Adds AlexNet-style PCA-based lighting noise with the given alphas.",
                    AdjustLightingCompute, false)
      .set_attr_parser(ParamParser<AdjustLightingParam>)
      .add_arguments(AdjustLightingParam::__FIELDS__());
  RegisterAugmenter("_image_random_lighting",
                    "Adds AlexNet-style PCA-based lighting noise with alphas drawn from "
                    "N(0, alpha_std).",
                    RandomLightingCompute, true)
      .set_attr_parser(ParamParser<RandomLightingParam>)
      .add_arguments(RandomLightingParam::__FIELDS__());
  return true;
}();

}  // namespace image
}  // namespace op
}  // namespace mxnet
