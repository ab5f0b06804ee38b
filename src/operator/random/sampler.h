// Distribution samplers over a RandomStream (uniform, normal, exponential, gamma, Poisson,
// negative binomial), the parameter checks MXNet applies, and the loop that fills an output
// with one independent stream per element.
#ifndef MXNET_OPERATOR_RANDOM_SAMPLER_H_
#define MXNET_OPERATOR_RANDOM_SAMPLER_H_

#include <cmath>
#include <limits>
#include <string>

#include "operator/operator_common.h"
#include "operator/random/philox.h"

namespace mxnet {
namespace op {
namespace sampler {

template <typename R>
R StandardNormal(RandomStream* rs) {  // Box-Muller, one variate per call
  const R u1 = rs->UniformOpen0<R>();
  const R u2 = rs->Uniform<R>();
  return std::sqrt(R(-2) * std::log(u1)) * std::cos(R(6.283185307179586) * u2);
}

/*! \brief Gamma(alpha, scale 1) by Marsaglia-Tsang; alpha < 1 boosted through alpha + 1. */
inline double Gamma(RandomStream* rs, double alpha) {
  double boost = 1.0;
  if (alpha < 1.0) {
    boost = std::pow(rs->UniformOpen0<double>(), 1.0 / alpha);
    alpha += 1.0;
  }
  const double d = alpha - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = StandardNormal<double>(rs);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = rs->UniformOpen0<double>();
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v * boost;
    if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v * boost;
  }
}

/*! \brief Poisson(lam): multiplication method for small lam, PTRS (Hormann 1993) otherwise. */
inline double Poisson(RandomStream* rs, double lam) {
  if (!(lam > 0.0)) return lam == 0.0 ? 0.0 : std::numeric_limits<double>::quiet_NaN();
  if (!std::isfinite(lam)) return lam;
  if (lam < 10.0) {
    const double limit = std::exp(-lam);
    double prod = rs->Uniform<double>();
    double k = 0;
    while (prod > limit) {
      prod *= rs->Uniform<double>();
      k += 1;
    }
    return k;
  }
  const double slam = std::sqrt(lam), loglam = std::log(lam);
  const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const double u = rs->Uniform<double>() - 0.5, v = rs->Uniform<double>();
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + lam + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + std::log(inv_alpha) - std::log(a / (us * us) + b) <=
        -lam + k * loglam - std::lgamma(k + 1)) {
      return k;
    }
  }
}

// Each distribution: Draw(stream, p1, p2) in compute type R, and Check(p1, p2) returning an
// empty string when the parameters are valid, else what is wrong (checked before sampling, so
// a bad parameter raises at the next wait on the output, as in MXNet).
struct Uniform {
  static constexpr int kParams = 2;
  template <typename R>
  static R Draw(RandomStream* rs, R low, R high) {
    const R v = low + (high - low) * rs->Uniform<R>();
    return v < high ? v : low;  // rounding may reach high; keep [low, high)
  }
  static std::string Check(double low, double high) {
    return low <= high ? "" : "low must be less than or equal to high";
  }
};

struct Normal {
  static constexpr int kParams = 2;
  template <typename R>
  static R Draw(RandomStream* rs, R loc, R scale) { return loc + scale * StandardNormal<R>(rs); }
  static std::string Check(double, double scale) {
    return scale >= 0 ? "" : "scale (standard deviation) must be non-negative";
  }
};

struct Exponential {
  static constexpr int kParams = 1;
  template <typename R>
  static R Draw(RandomStream* rs, R lam, R) { return -std::log(rs->UniformOpen0<R>()) / lam; }
  static std::string Check(double lam, double) {
    return lam > 0 ? "" : "lam (rate) must be positive";
  }
};

struct GammaDist {
  static constexpr int kParams = 2;
  template <typename R>
  static R Draw(RandomStream* rs, R alpha, R beta) { return R(Gamma(rs, alpha) * beta); }
  static std::string Check(double alpha, double beta) {
    if (!(alpha > 0)) return "alpha (shape) must be positive";
    return beta > 0 ? "" : "beta (scale) must be positive";
  }
};

struct PoissonDist {
  static constexpr int kParams = 1;
  template <typename R>
  static R Draw(RandomStream* rs, R lam, R) { return R(Poisson(rs, lam)); }
  static std::string Check(double lam, double) {
    return lam >= 0 ? "" : "lam (rate) must be non-negative";
  }
};

// Failures before the k-th success with failure probability ... as MXNet parametrises it:
// mean k (1 - p) / p, drawn as Poisson(Gamma(k, (1 - p) / p)).
struct NegBinomial {
  static constexpr int kParams = 2;
  template <typename R>
  static R Draw(RandomStream* rs, R k, R p) {
    if (k == R(0) || p == R(1)) return R(0);
    return R(Poisson(rs, Gamma(rs, k) * (1.0 - p) / p));
  }
  static std::string Check(double k, double p) {
    if (!(k >= 0)) return "k must be non-negative";
    return p > 0 && p <= 1 ? "" : "p must be in (0, 1]";
  }
};

// Mean mu, variance mu + alpha mu^2: Poisson(Gamma(1 / alpha, alpha mu)), Poisson(mu) at alpha 0.
struct GenNegBinomial {
  static constexpr int kParams = 2;
  template <typename R>
  static R Draw(RandomStream* rs, R mu, R alpha) {
    if (mu == R(0)) return R(0);
    if (alpha == R(0)) return R(Poisson(rs, mu));
    return R(Poisson(rs, Gamma(rs, 1.0 / alpha) * alpha * mu));
  }
  static std::string Check(double mu, double alpha) {
    if (!(mu >= 0)) return "mu must be non-negative";
    return alpha >= 0 ? "" : "alpha must be non-negative";
  }
};

/*! \brief out[i] = OType(draw(stream of element i, i)) for i in [0, n), in parallel. */
template <typename OType, typename Fn>
void Fill(const OpContext& ctx, OType* out, index_t n, OpReqType req, Fn draw) {
  if (req == kNullOp) return;
  const uint64_t seed = ctx.random_seed, stream = ctx.random_stream;
  ParallelFor(n, [&](index_t i) {
    RandomStream rs(seed, stream, static_cast<uint64_t>(i));
    Assign(out + i, req, static_cast<OType>(draw(&rs, i)));
  });
}

/*! \brief float16 uniform samples may round up to high on conversion: step those down to the
 *  next float16 value below high (bounds(i) gives low and high of element i). */
template <typename Bounds>
void KeepHalfBelowHigh(half_t* out, index_t n, Bounds bounds) {
  for (index_t i = 0; i < n; ++i) {
    double low, high;
    bounds(i, &low, &high);
    if (!(low < high) || float(out[i]) < high) continue;
    uint16_t b = out[i].bits;
    b = b == 0 ? 0x8001 : ((b & 0x8000) ? b + 1 : b - 1);  // toward -inf
    out[i] = float(half_t::FromBits(b)) >= low ? half_t::FromBits(b) : half_t(low);
  }
}

}  // namespace sampler
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_RANDOM_SAMPLER_H_
