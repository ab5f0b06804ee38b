// One SGD step (plain and with momentum) for one element, shared by the single-weight and the
// multi-weight SGD operators. The expressions keep MXNet 1.9.1's order of operations so
// float16 and float32 results round as MXNet's do.
#ifndef MXNET_OPERATOR_OPTIMIZER_SGD_STEP_H_
#define MXNET_OPERATOR_OPTIMIZER_SGD_STEP_H_

#include "operator/optimizer/update_common.h"

namespace mxnet {
namespace op {
namespace update {

/*!
 * \brief Coefficients of an SGD step computing in R. L is the type learning rate and weight
 *  decay are held in: R, except for the preloaded_* ops, which read them as float32 arrays
 *  and so multiply them in float before meeting R.
 */
template <typename R, typename L = R>
struct SgdCoef {
  L lr, lr_wd, decay;
  R momentum, rescale, clip, lr_rescale;
  SgdCoef(L lr_, L wd, R rescale_, R clip_, R momentum_ = R(0.f))
      : lr(lr_), lr_wd(lr_ * wd), decay(L(1.f - lr_ * wd)), momentum(momentum_),
        rescale(rescale_), clip(clip_), lr_rescale(R(lr_ * rescale_)) {}
  bool clipping() const { return clip >= 0.0f; }
};

/*! \brief New weight of a plain step: (1 - lr*wd)*w - lr*clip(rescale*g). */
template <typename R, typename L>
inline R SgdWeight(const SgdCoef<R, L>& c, R w, R g) {
  if (c.clipping()) return c.decay * w - c.lr * Clip(c.rescale * g, c.clip);
  return c.decay * w - c.lr_rescale * g;
}

/*! \brief New momentum: momentum*mom - lr*wd*w - lr*clip(rescale*g); the weight adds it. */
template <typename R, typename L>
inline R SgdMomentum(const SgdCoef<R, L>& c, R mom, R w, R g) {
  if (c.clipping()) return c.momentum * mom - c.lr_wd * w - c.lr * Clip(c.rescale * g, c.clip);
  return c.momentum * mom - c.lr_wd * w - c.lr_rescale * g;
}

}  // namespace update
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_OPTIMIZER_SGD_STEP_H_
