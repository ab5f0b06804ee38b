// Post-ops fused into a oneDNN primitive (sum with the destination, elementwise activations),
// and the same steps applied in plain C++ for calls that take the plain kernels.
#ifndef MXNET_OPERATOR_NN_ONEDNN_ONEDNN_POST_OPS_H_
#define MXNET_OPERATOR_NN_ONEDNN_ONEDNN_POST_OPS_H_

#include <cmath>
#include <string>
#include <vector>

#include "operator/nn/onednn/onednn_eltwise.h"

#if MXNET_USE_ONEDNN
#include "oneapi/dnnl/dnnl.hpp"
#endif

namespace mxnet {
namespace op {
namespace onednn {

/*!
 * \brief Steps applied, in order, to a primitive's result: kSum adds what the destination held
 * before the call (the caller fills it with the sum operand), kEltwise applies an activation.
 */
struct PostOps {
  struct Step {
    bool sum;
    EltwiseKind act;
  };
  std::vector<Step> steps;

  void AddSum() { steps.push_back({true, EltwiseKind::kReLU}); }
  void AddActivation(EltwiseKind kind) { steps.push_back({false, kind}); }
  bool empty() const { return steps.empty(); }
  bool has_sum() const {
    for (const Step& s : steps) if (s.sum) return true;
    return false;
  }
  /*! \brief Part of a primitive cache key. */
  std::string Key() const {
    std::string k = " post";
    for (const Step& s : steps) k += s.sum ? "+s" : "+a" + std::to_string(static_cast<int>(s.act));
    return k;
  }

  static float Apply(EltwiseKind kind, float x) {
    switch (kind) {
      case EltwiseKind::kReLU: return x > 0.f ? x : 0.f;
      case EltwiseKind::kSigmoid: return 1.f / (1.f + std::exp(-x));
      case EltwiseKind::kTanh: return std::tanh(x);
      case EltwiseKind::kSoftReLU: return x > 20.f ? x : std::log1p(std::exp(x));
      default: return x;
    }
  }
  /*! \brief The steps on a plain result out (n values); sum_operand: the kSum operand. */
  void RunPlain(float* out, const float* sum_operand, size_t n) const {
    for (const Step& s : steps) {
      if (s.sum) {
        for (size_t i = 0; i < n; ++i) out[i] += sum_operand[i];
      } else {
        for (size_t i = 0; i < n; ++i) out[i] = Apply(s.act, out[i]);
      }
    }
  }

#if MXNET_USE_ONEDNN
  dnnl::primitive_attr Attr() const {
    dnnl::post_ops ops;
    for (const Step& s : steps) {
      if (s.sum) {
        ops.append_sum(1.f);
        continue;
      }
      const dnnl::algorithm alg = s.act == EltwiseKind::kSigmoid  ? dnnl::algorithm::eltwise_logistic
                                  : s.act == EltwiseKind::kTanh    ? dnnl::algorithm::eltwise_tanh
                                  : s.act == EltwiseKind::kSoftReLU ? dnnl::algorithm::eltwise_soft_relu
                                                                    : dnnl::algorithm::eltwise_relu;
#if DNNL_VERSION_MAJOR >= 3
      ops.append_eltwise(alg, s.act == EltwiseKind::kSoftReLU ? 1.f : 0.f, 0.f);
#else
      ops.append_eltwise(1.f, alg, 0.f, 0.f);
#endif
    }
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    return attr;
  }
#endif
};

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_ONEDNN_ONEDNN_POST_OPS_H_
