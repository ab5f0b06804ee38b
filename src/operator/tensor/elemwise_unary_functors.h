// Scalar functors of the unary elementwise operators (exp, sqrt, erfinv, digamma, ...).
// "Native" functors work on every numeric type as is; the others get the input converted to
// its MathType (float or double) and their result converted back to the input dtype.
#ifndef MXNET_OPERATOR_TENSOR_ELEMWISE_UNARY_FUNCTORS_H_
#define MXNET_OPERATOR_TENSOR_ELEMWISE_UNARY_FUNCTORS_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace mxnet {
namespace op {
namespace unary_op {

constexpr double kPi = 3.14159265358979323846;

// ---------------------------------------------------------------- special functions
/*! \brief exp for float32, vectorizable (no branches, no calls), within 1 ulp of std::exp.
 *  exp(x) = p(r) * 2^n with n = round(x / ln2), r = x - n ln2 (split in two parts). */
inline float ExpF32(float x) {
  uint32_t xb;
  std::memcpy(&xb, &x, 4);
  const uint32_t ab = xb & 0x7fffffffu;
  // Clamp to [-104, 89] with integer operations (float compares would stop GCC vectorizing).
  const uint32_t neg = xb >> 31;
  const uint32_t limit = 0x42b20000u + neg * (0x42d00000u - 0x42b20000u);  // 89 or 104
  const uint32_t cb = (ab < limit ? ab : limit) | (xb & 0x80000000u);
  float xc;
  std::memcpy(&xc, &cb, 4);
  const float kShift = 12582912.0f;  // 1.5 * 2^23: adding it rounds to the nearest integer
  const float t = xc * 1.44269504088896341f + kShift;
  const float n = t - kShift;
  int32_t ti;
  std::memcpy(&ti, &t, 4);
  const int32_t ni = ti - 0x4b400000;  // the integer n
  float r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  // 2^n as two factors so that n = 128 (overflow to inf) and subnormal results both work.
  const int32_t h = ni >> 1;
  const uint32_t b1 = static_cast<uint32_t>(h + 127) << 23;
  const uint32_t b2 = static_cast<uint32_t>(ni - h + 127) << 23;
  float s1, s2;
  std::memcpy(&s1, &b1, 4);
  std::memcpy(&s2, &b2, 4);
  float y = p * s1 * s2;
  uint32_t yb;
  std::memcpy(&yb, &y, 4);
  const uint32_t nan_mask = 0u - static_cast<uint32_t>(ab > 0x7f800000u);  // NaN stays NaN
  yb = (xb & nan_mask) | (yb & ~nan_mask);
  std::memcpy(&y, &yb, 4);
  return y;
}

/*! \brief tanh for float32, vectorizable (both branches computed, then selected), within a few
 *  ulp of std::tanh: an odd polynomial below |x| = 0.625 (the Cephes tanhf coefficients),
 *  1 - 2 / (exp(2|x|) + 1) above, where no cancellation is left. */
inline float TanhF32(float x) {
  uint32_t xb;
  std::memcpy(&xb, &x, 4);
  const uint32_t ab = xb & 0x7fffffffu;
  float a;
  std::memcpy(&a, &ab, 4);
  const float z = a * a;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const float small = p * z * a + a;
  const float large = 1.0f - 2.0f / (ExpF32(2.0f * a) + 1.0f);
  // Select with integer masks (a float compare and select would keep GCC from vectorizing).
  uint32_t sb, lb;
  std::memcpy(&sb, &small, 4);
  std::memcpy(&lb, &large, 4);
  const uint32_t use_small = 0u - static_cast<uint32_t>(ab < 0x3f200000u);  // |x| < 0.625
  uint32_t rb = (sb & use_small) | (lb & ~use_small);
  rb |= xb & 0x80000000u;  // tanh is odd
  float r;
  std::memcpy(&r, &rb, 4);
  return r;
}

/*! \brief Inverse error function: Giles' single-precision approximation refined by Newton
 *  steps in double. erfinv(+-1) = +-inf, NaN outside [-1, 1]. */
inline double ErfInv(double y) {
  if (std::isnan(y) || y < -1.0 || y > 1.0) return std::numeric_limits<double>::quiet_NaN();
  if (y == 1.0) return std::numeric_limits<double>::infinity();
  if (y == -1.0) return -std::numeric_limits<double>::infinity();
  if (y == 0.0) return y;
  double w = -std::log((1.0 - y) * (1.0 + y));
  double p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  double x = p * y;
  const double k = 2.0 / std::sqrt(kPi);
  for (int it = 0; it < 2; ++it) {
    const double d = k * std::exp(-x * x);
    if (d == 0.0) break;
    x -= (std::erf(x) - y) / d;
  }
  return x;
}

/*! \brief Digamma psi(x) = d/dx log Gamma(x): reflection below 0, recurrence up to 6, then
 *  the asymptotic series. Poles (0, -1, -2, ...) give NaN. */
inline double Digamma(double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x) && x < 0) return std::numeric_limits<double>::quiet_NaN();
  double result = 0.0;
  if (x <= 0.0) {
    if (x == std::floor(x)) return std::numeric_limits<double>::quiet_NaN();
    // psi(x) = psi(1 - x) - pi / tan(pi x)
    result = -kPi / std::tan(kPi * x);
    x = 1.0 - x;
  }
  while (x < 6.0) {
    result -= 1.0 / x;
    x += 1.0;
  }
  const double f = 1.0 / (x * x);
  const double series =
      f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132)))));
  return result + std::log(x) - 0.5 / x - series;
}

/*! \brief Trigamma psi'(x): reflection below 0, recurrence up to 6, asymptotic series. */
inline double Trigamma(double x) {
  if (std::isnan(x)) return x;
  double result = 0.0;
  double sign = 1.0;
  if (x <= 0.0) {
    if (x == std::floor(x)) return std::numeric_limits<double>::quiet_NaN();
    // psi1(x) = -psi1(1 - x) + pi^2 / sin^2(pi x)
    const double s = std::sin(kPi * x);
    result = kPi * kPi / (s * s);
    sign = -1.0;
    x = 1.0 - x;
  }
  double acc = 0.0;
  while (x < 6.0) {
    acc += 1.0 / (x * x);
    x += 1.0;
  }
  const double f = 1.0 / (x * x);
  const double series =
      1.0 / x + f / 2 + f / x * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f * (1.0 / 30))));
  return result + sign * (acc + series);
}

// ---------------------------------------------------------------- functors
#define MXNET_UNARY_MATH_(name, expr)                       \
  struct name {                                             \
    static constexpr bool kNative = false;                  \
    template <typename C> static C Map(C x) { return expr; } \
  };

MXNET_UNARY_MATH_(reciprocal, C(1) / x)
MXNET_UNARY_MATH_(sqrt, std::sqrt(x))
MXNET_UNARY_MATH_(rsqrt, C(1) / std::sqrt(x))
MXNET_UNARY_MATH_(cbrt, std::cbrt(x))
MXNET_UNARY_MATH_(rcbrt, C(1) / std::cbrt(x))
MXNET_UNARY_MATH_(expm1, std::expm1(x))
MXNET_UNARY_MATH_(log, std::log(x))
MXNET_UNARY_MATH_(log1p, std::log1p(x))
MXNET_UNARY_MATH_(log2, std::log2(x))
MXNET_UNARY_MATH_(log10, std::log10(x))
MXNET_UNARY_MATH_(sin, std::sin(x))
MXNET_UNARY_MATH_(cos, std::cos(x))
MXNET_UNARY_MATH_(tan, std::tan(x))
MXNET_UNARY_MATH_(arcsin, std::asin(x))
MXNET_UNARY_MATH_(arccos, std::acos(x))
MXNET_UNARY_MATH_(arctan, std::atan(x))
MXNET_UNARY_MATH_(sinh, std::sinh(x))
MXNET_UNARY_MATH_(cosh, std::cosh(x))
MXNET_UNARY_MATH_(tanh, std::tanh(x))
MXNET_UNARY_MATH_(arcsinh, std::asinh(x))
MXNET_UNARY_MATH_(arccosh, std::acosh(x))
MXNET_UNARY_MATH_(arctanh, std::atanh(x))
MXNET_UNARY_MATH_(degrees, x * C(180.0 / kPi))
MXNET_UNARY_MATH_(radians, x * C(kPi / 180.0))
MXNET_UNARY_MATH_(softsign, x / (C(1) + std::fabs(x)))
MXNET_UNARY_MATH_(erf, std::erf(x))
MXNET_UNARY_MATH_(erfinv, C(ErfInv(static_cast<double>(x))))
MXNET_UNARY_MATH_(gamma, std::tgamma(x))
MXNET_UNARY_MATH_(digamma, C(Digamma(static_cast<double>(x))))
MXNET_UNARY_MATH_(trigamma, C(Trigamma(static_cast<double>(x))))
#undef MXNET_UNARY_MATH_

struct exp {
  static constexpr bool kNative = false;
  template <typename C> static C Map(C x) {
    if constexpr (std::is_same<C, float>::value) return ExpF32(x);
    else return std::exp(x);
  }
};

struct sigmoid {
  static constexpr bool kNative = false;
  template <typename C> static C Map(C x) {
    if constexpr (std::is_same<C, float>::value) return 1.0f / (1.0f + ExpF32(-x));
    else return C(1) / (C(1) + std::exp(-x));
  }
};

struct gammaln {
  static constexpr bool kNative = false;
  template <typename C> static C Map(C x) {
    int sign;  // the reentrant forms leave the global signgam alone
    if constexpr (std::is_same<C, float>::value) return lgammaf_r(x, &sign);
    else return lgamma_r(x, &sign);
  }
};

// Functors below work on integers as they are (and on float/double directly).
struct identity {
  static constexpr bool kNative = true;
  template <typename T> static T Map(T x) { return x; }
};

struct negative {
  static constexpr bool kNative = true;
  template <typename T> static T Map(T x) { return static_cast<T>(-x); }
};

struct abs {
  static constexpr bool kNative = true;
  template <typename T> static T Map(T x) {
    if constexpr (std::is_floating_point<T>::value) return std::fabs(x);
    else if constexpr (std::is_unsigned<T>::value) return x;
    else return static_cast<T>(x < 0 ? -x : x);
  }
};

/*! \brief -1, 0 or 1 (NaN gives 0, as MXNet). */
struct sign {
  static constexpr bool kNative = true;
  template <typename T> static T Map(T x) {
    return static_cast<T>(x > T(0) ? 1 : (x < T(0) ? -1 : 0));
  }
};

struct square {
  static constexpr bool kNative = true;
  template <typename T> static T Map(T x) { return static_cast<T>(x * x); }
};

/*! \brief max(x, 0); NaN stays NaN. */
struct relu {
  static constexpr bool kNative = true;
  template <typename T> static T Map(T x) {
    if constexpr (std::is_floating_point<T>::value) return (x > T(0) || x != x) ? x : T(0);
    else return x > T(0) ? x : T(0);
  }
};

/*! \brief relu's slope at its output y: 1 for y > 0, 0 for y = 0; NaN stays NaN (MXNet's
 *  relu_grad, so a NaN input gives a NaN gradient). */
struct relu_grad {
  static constexpr bool kNative = true;
  template <typename T> static T Map(T y) {
    if constexpr (std::is_floating_point<T>::value) {
      if (y != y) return y;
    }
    return y > T(0) ? T(1) : T(0);
  }
};

struct logical_not {
  static constexpr bool kNative = true;
  template <typename T> static T Map(T x) { return static_cast<T>(x == T(0) ? 1 : 0); }
};

#define MXNET_UNARY_ROUND_(name, fn)                                  \
  struct name {                                                       \
    static constexpr bool kNative = true;                             \
    template <typename T> static T Map(T x) {                         \
      if constexpr (std::is_floating_point<T>::value) return fn(x);   \
      else return x;                                                  \
    }                                                                 \
  };
MXNET_UNARY_ROUND_(floor, std::floor)
MXNET_UNARY_ROUND_(ceil, std::ceil)
MXNET_UNARY_ROUND_(round, std::round)      // halves away from zero
MXNET_UNARY_ROUND_(rint, std::nearbyint)   // halves to even
MXNET_UNARY_ROUND_(trunc, std::trunc)
MXNET_UNARY_ROUND_(fix, std::trunc)        // towards zero
#undef MXNET_UNARY_ROUND_

}  // namespace unary_op
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_ELEMWISE_UNARY_FUNCTORS_H_
