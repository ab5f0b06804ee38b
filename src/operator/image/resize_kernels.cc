// OpenCV 3.4 cv::resize, reproduced: separable passes over interpolation taps (horizontal into
// a row buffer, then vertical), OpenCV's tap tables and border clamping, its 11-bit fixed-point
// arithmetic for uint8 with the rounding of its SIMD kernels, and its pixel-area decimation.
#include "operator/image/resize_kernels.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "operator/image/image_common.h"

namespace mxnet {
namespace op {
namespace image {
namespace {

constexpr int kCoefScale = 1 << 11;  // OpenCV's INTER_RESIZE_COEF_SCALE

int Floor(double v) { return static_cast<int>(std::floor(v)); }
int Clip(int v, int size) { return std::min(std::max(v, 0), size - 1); }
int16_t ToFixed(float c) {
  return static_cast<int16_t>(std::min(std::max(std::lrint(c * kCoefScale), -32768L), 32767L));
}
uint8_t SaturateU8(long v) { return static_cast<uint8_t>(std::min(std::max(v, 0L), 255L)); }

void CubicCoefs(float x, float* c) {
  const float A = -0.75f;
  c[0] = ((A * (x + 1) - 5 * A) * (x + 1) + 8 * A) * (x + 1) - 4 * A;
  c[1] = ((A + 2) * x - (A + 3)) * x * x + 1;
  c[2] = ((A + 2) * (1 - x) - (A + 3)) * (1 - x) * (1 - x) + 1;
  c[3] = 1.f - c[0] - c[1] - c[2];
}

void Lanczos4Coefs(float x, float* c) {
  static const double s45 = 0.70710678118654752440084436210485;
  static const double cs[8][2] = {{1, 0},  {-s45, -s45}, {0, 1},  {s45, -s45},
                                  {-1, 0}, {s45, s45},   {0, -1}, {-s45, s45}};
  if (x < FLT_EPSILON) {
    for (int i = 0; i < 8; ++i) c[i] = 0;
    c[3] = 1;
    return;
  }
  float sum = 0;
  const double y0 = -(x + 3) * M_PI * 0.25, s0 = std::sin(y0), c0 = std::cos(y0);
  for (int i = 0; i < 8; ++i) {
    const double y = -(x + 3 - i) * M_PI * 0.25;
    c[i] = static_cast<float>((cs[i][0] * s0 + cs[i][1] * c0) / (y * y));
    sum += c[i];
  }
  sum = 1.f / sum;
  for (int i = 0; i < 8; ++i) c[i] *= sum;
}

/*! \brief Interpolation taps along one axis: destination index d reads source indices
 *  first[d] + k, k < ksize (clamped into the image), weighted coef[d * ksize + k]. */
struct Taps {
  int ksize;
  std::vector<int> first;
  std::vector<float> coef;
  std::vector<int16_t> fixed;  // coef in 11-bit fixed point (uint8 images)
};

// area_mode: the upscaling side of INTER_AREA. clamp_ends: the horizontal axis, where OpenCV
// pins two-tap positions outside the image to the edge pixel.
Taps MakeTaps(int interp, bool area_mode, int ssize, int dsize, bool clamp_ends) {
  const double inv_scale = static_cast<double>(dsize) / ssize, scale = 1. / inv_scale;
  Taps t;
  t.ksize = interp == kCubic ? 4 : interp == kLanczos4 ? 8 : 2;
  t.first.resize(dsize);
  t.coef.resize(dsize * t.ksize);
  t.fixed.resize(dsize * t.ksize);
  for (int d = 0; d < dsize; ++d) {
    float f;
    int s;
    if (!area_mode) {
      f = static_cast<float>((d + 0.5) * scale - 0.5);
      s = Floor(f);
      f -= s;
    } else {
      s = Floor(d * scale);
      f = static_cast<float>((d + 1) - (s + 1) * inv_scale);
      f = f <= 0 ? 0.f : f - Floor(f);
    }
    if (clamp_ends && t.ksize == 2) {
      if (s < 0) f = 0, s = 0;
      if (s >= ssize - 1) f = 0, s = ssize - 1;
    }
    float* c = &t.coef[d * t.ksize];
    if (interp == kCubic) {
      CubicCoefs(f, c);
    } else if (interp == kLanczos4) {
      Lanczos4Coefs(f, c);
    } else {
      c[0] = 1.f - f;
      c[1] = f;
    }
    for (int k = 0; k < t.ksize; ++k) t.fixed[d * t.ksize + k] = ToFixed(c[k]);
    t.first[d] = s - (t.ksize / 2 - 1);
  }
  return t;
}

/*! \brief Per-dtype arithmetic: WT is the row-buffer type; Tap weighs one source value,
 *  VerticalRow combines the ksize horizontally resampled rows into an output row. */
template <typename T>
struct ResizeMath {
  using WT = T;  // float32 and float64 keep their type; coefficients stay float
  static WT Tap(T v, const Taps& t, int i) { return v * static_cast<WT>(t.coef[i]); }
  static void VerticalRow(const WT* const* rows, const Taps& t, int d, T* out, int width) {
    const float* b = &t.coef[d * t.ksize];
    if (t.ksize == 2) {
      const WT b0 = b[0], b1 = b[1];
      for (int x = 0; x < width; ++x) out[x] = rows[0][x] * b0 + rows[1][x] * b1;
      return;
    }
    for (int x = 0; x < width; ++x) {
      WT s = rows[0][x] * static_cast<WT>(b[0]);
      for (int k = 1; k < t.ksize; ++k) s += rows[k][x] * static_cast<WT>(b[k]);
      out[x] = s;
    }
  }
};

template <>
struct ResizeMath<uint8_t> {
  using WT = int32_t;
  static WT Tap(uint8_t v, const Taps& t, int i) { return v * t.fixed[i]; }
  static void VerticalRow(const WT* const* rows, const Taps& t, int d, uint8_t* out,
                          int width) {
    const int16_t* b = &t.fixed[d * t.ksize];
    if (t.ksize == 2) {
      // OpenCV's SIMD kernel (it covers every column): 16-bit high products of the rows
      // scaled down by 16, then a rounding shift by 2.
      const int32_t b0 = b[0], b1 = b[1];
      for (int x = 0; x < width; ++x) {
        out[x] = SaturateU8(((((rows[0][x] >> 4) * b0) >> 16) +
                             (((rows[1][x] >> 4) * b1) >> 16) + 2) >> 2);
      }
      return;
    }
    for (int x = 0; x < width; ++x) {
      int64_t s = 0;
      for (int k = 0; k < t.ksize; ++k) s += static_cast<int64_t>(rows[k][x]) * b[k];
      out[x] = SaturateU8(static_cast<long>((s + (1 << 21)) >> 22));
    }
  }
};

// Each source row that some output row reads is resampled horizontally once, into a buffer
// indexed by source row; the vertical pass then combines buffered rows.
template <typename T>
void ResizeSeparable(const T* src, int sh, int sw, T* dst, int dh, int dw, int cn,
                     const Taps& xt, const Taps& yt) {
  using M = ResizeMath<T>;
  using WT = typename M::WT;
  const int width = dw * cn, ky = yt.ksize, kx = xt.ksize;
  std::vector<int> xofs(static_cast<size_t>(dw) * kx);  // tap offsets, clipped into the row
  for (int dx = 0; dx < dw; ++dx) {
    for (int j = 0; j < kx; ++j) xofs[dx * kx + j] = Clip(xt.first[dx] + j, sw) * cn;
  }
  std::vector<char> read(sh, 0);
  for (int dy = 0; dy < dh; ++dy) {
    for (int k = 0; k < ky; ++k) read[Clip(yt.first[dy] + k, sh)] = 1;
  }
  std::vector<int> rows_read;
  for (int r = 0; r < sh; ++r) {
    if (read[r]) rows_read.push_back(r);
  }
  std::vector<WT> hbuf(static_cast<size_t>(sh) * width);
  const bool parallel =
      static_cast<index_t>(rows_read.size() * kx + static_cast<size_t>(dh) * ky) * width >=
      ParallelGrain();
  LoopMaybeParallel(parallel, rows_read.size(), [&](index_t i) {
    const int r = rows_read[i];
    const T* s = src + static_cast<size_t>(r) * sw * cn;
    WT* o = hbuf.data() + static_cast<size_t>(r) * width;
    for (int dx = 0; dx < dw; ++dx) {
      const int* ofs = &xofs[dx * kx];
      const int base = dx * kx;
      for (int c = 0; c < cn; ++c) {
        WT v = M::Tap(s[ofs[0] + c], xt, base);
        for (int j = 1; j < kx; ++j) v += M::Tap(s[ofs[j] + c], xt, base + j);
        o[dx * cn + c] = v;
      }
    }
  });
  LoopMaybeParallel(parallel, dh, [&](index_t dy) {
    const WT* rows[8];
    for (int k = 0; k < ky; ++k) {
      rows[k] = hbuf.data() + static_cast<size_t>(Clip(yt.first[dy] + k, sh)) * width;
    }
    M::VerticalRow(rows, yt, static_cast<int>(dy), dst + static_cast<size_t>(dy) * width, width);
  });
}

template <typename T>
void ResizeNearest(const T* src, int sh, int sw, T* dst, int dh, int dw, int cn) {
  const double ifx = 1. / (static_cast<double>(dw) / sw), ify = 1. / (static_cast<double>(dh) / sh);
  std::vector<int> xofs(dw);
  for (int x = 0; x < dw; ++x) xofs[x] = std::min(Floor(x * ifx), sw - 1);
  ParallelFor(dh, [&](index_t y) {
    const T* s = src + static_cast<size_t>(std::min(Floor(y * ify), sh - 1)) * sw * cn;
    T* d = dst + static_cast<size_t>(y) * dw * cn;
    for (int x = 0; x < dw; ++x) std::memcpy(d + x * cn, s + xofs[x] * cn, cn * sizeof(T));
  });
}

template <typename T, typename WT>
T RoundTo(WT v) {
  if constexpr (std::is_same<T, uint8_t>::value) return SaturateU8(std::lrint(v));
  else return static_cast<T>(v);
}

// Integer downscale factors: the mean of each block, summed in row-major order (uint8 2x2
// blocks round half up, as OpenCV's SIMD kernel does; other uint8 blocks to nearest even).
template <typename T>
void ResizeAreaFast(const T* src, int sw, T* dst, int dh, int dw, int cn, int fx, int fy) {
  using WT = std::conditional_t<std::is_same<T, uint8_t>::value, int, T>;
  const float scale = 1.f / (fx * fy);
  ParallelFor(dh, [&](index_t dy) {
    T* d = dst + static_cast<size_t>(dy) * dw * cn;
    for (int dx = 0; dx < dw; ++dx) {
      for (int c = 0; c < cn; ++c) {
        const T* s = src + (static_cast<size_t>(dy) * fy * sw + dx * fx) * cn + c;
        if (fx == 2 && fy == 2) {
          const WT a = s[0], b = s[cn], e = s[sw * cn], f = s[sw * cn + cn];
          if constexpr (std::is_same<T, uint8_t>::value) {
            d[dx * cn + c] = (a + b + e + f + 2) >> 2;
            continue;
          }
        }
        WT sum = 0;
        for (int i = 0; i < fy; ++i) {
          for (int j = 0; j < fx; ++j) sum += s[(static_cast<size_t>(i) * sw + j) * cn];
        }
        d[dx * cn + c] = RoundTo<T>(sum * scale);
      }
    }
  });
}

/*! \brief Source cells overlapping each destination cell along one axis, with their shares. */
struct AreaTab {
  std::vector<int> di, si;
  std::vector<float> alpha;
};

AreaTab MakeAreaTab(int ssize, int dsize) {
  const double scale = 1. / (static_cast<double>(dsize) / ssize);
  AreaTab t;
  auto add = [&t](int d, int s, float a) {
    t.di.push_back(d), t.si.push_back(s), t.alpha.push_back(a);
  };
  for (int d = 0; d < dsize; ++d) {
    const double f1 = d * scale, f2 = f1 + scale, cell = std::min(scale, ssize - f1);
    int s1 = static_cast<int>(std::ceil(f1)), s2 = Floor(f2);
    s2 = std::min(s2, ssize - 1);
    s1 = std::min(s1, s2);
    if (s1 - f1 > 1e-3) add(d, s1 - 1, static_cast<float>((s1 - f1) / cell));
    for (int s = s1; s < s2; ++s) add(d, s, static_cast<float>(1.0 / cell));
    if (f2 - s2 > 1e-3) {
      add(d, s2, static_cast<float>(std::min(std::min(f2 - s2, 1.), cell) / cell));
    }
  }
  return t;
}

// Non-integer downscale: weighted sums of the overlapping source cells, accumulated in float
// (double for float64) in OpenCV's order.
template <typename T>
void ResizeAreaGeneric(const T* src, int sh, int sw, T* dst, int dh, int dw, int cn) {
  using WT = PromotedFloat<T>;
  const AreaTab xt = MakeAreaTab(sw, dw), yt = MakeAreaTab(sh, dh);
  std::vector<size_t> row_start(dh + 1, yt.di.size());
  for (size_t j = yt.di.size(); j-- > 0;) row_start[yt.di[j]] = j;
  const int width = dw * cn;
  ParallelFor(dh, [&](index_t dy) {
    std::vector<WT> buf(width), sum(width, WT(0));
    bool first = true;
    for (size_t j = row_start[dy]; j < yt.di.size() && yt.di[j] == dy; ++j) {
      const T* s = src + static_cast<size_t>(yt.si[j]) * sw * cn;
      std::fill(buf.begin(), buf.end(), WT(0));
      for (size_t k = 0; k < xt.di.size(); ++k) {
        const WT a = xt.alpha[k];
        for (int c = 0; c < cn; ++c) buf[xt.di[k] * cn + c] += s[xt.si[k] * cn + c] * a;
      }
      const WT beta = yt.alpha[j];
      for (int x = 0; x < width; ++x) sum[x] = first ? beta * buf[x] : sum[x] + beta * buf[x];
      first = false;
    }
    T* d = dst + static_cast<size_t>(dy) * width;
    for (int x = 0; x < width; ++x) d[x] = RoundTo<T>(sum[x]);
  });
}

template <typename T>
void ResizeTyped(int interp, const T* src, int sh, int sw, T* dst, int dh, int dw, int cn) {
  if (sh == dh && sw == dw) {
    std::memcpy(dst, src, sizeof(T) * sh * sw * cn);
    return;
  }
  if (interp == kNearest) return ResizeNearest(src, sh, sw, dst, dh, dw, cn);
  const double scale_x = 1. / (static_cast<double>(dw) / sw);
  const double scale_y = 1. / (static_cast<double>(dh) / sh);
  const int iscale_x = static_cast<int>(std::lrint(scale_x));
  const int iscale_y = static_cast<int>(std::lrint(scale_y));
  const bool integer_scale =
      std::abs(scale_x - iscale_x) < DBL_EPSILON && std::abs(scale_y - iscale_y) < DBL_EPSILON;
  // OpenCV resizes exact halvings with INTER_LINEAR as INTER_AREA (the same weights).
  if (interp == kLinear && integer_scale && iscale_x == 2 && iscale_y == 2) interp = kArea;
  if (interp == kArea && scale_x >= 1 && scale_y >= 1) {
    if (integer_scale) return ResizeAreaFast(src, sw, dst, dh, dw, cn, iscale_x, iscale_y);
    return ResizeAreaGeneric(src, sh, sw, dst, dh, dw, cn);
  }
  const bool area_mode = interp == kArea;
  const int taps_interp = area_mode ? kLinear : interp;
  const Taps xt = MakeTaps(taps_interp, area_mode, sw, dw, true);
  const Taps yt = MakeTaps(taps_interp, area_mode, sh, dh, false);
  ResizeSeparable(src, sh, sw, dst, dh, dw, cn, xt, yt);
}

}  // namespace

void ResizeImage(int dtype, int interp, const void* src, int sh, int sw, void* dst, int dh,
                 int dw, int cn) {
  switch (dtype) {
    case kUint8:
      return ResizeTyped(interp, static_cast<const uint8_t*>(src), sh, sw,
                         static_cast<uint8_t*>(dst), dh, dw, cn);
    case kFloat32:
      return ResizeTyped(interp, static_cast<const float*>(src), sh, sw,
                         static_cast<float*>(dst), dh, dw, cn);
    case kFloat64:
      return ResizeTyped(interp, static_cast<const double*>(src), sh, sw,
                         static_cast<double*>(dst), dh, dw, cn);
    default:
      LOG(FATAL) << "image resize: unsupported dtype " << DTypeName(dtype);
  }
}

}  // namespace image
}  // namespace op
}  // namespace mxnet
