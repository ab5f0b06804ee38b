// The fused operators the ONEDNN subgraph backend makes: their fusion arguments.
#ifndef MXNET_OPERATOR_SUBGRAPH_ONEDNN_ONEDNN_FUSED_OPS_H_
#define MXNET_OPERATOR_SUBGRAPH_ONEDNN_ONEDNN_FUSED_OPS_H_

#include <dmlc/parameter.h>

#include <string>

namespace mxnet {
namespace op {

/*!
 * \brief What a fused node adds to its base operator (Convolution or FullyConnected), whose
 * own arguments sit beside these in the node's kwargs: base -> [BatchNorm with bn_eps,
 * bn_fix_gamma folded into weight and bias] -> [act_type] -> [+ sum input] -> [postsum_act_type].
 * The sum input is the last input, or the first with sum_first.
 */
struct OneDNNFusionParam : public dmlc::Parameter<OneDNNFusionParam> {
  bool with_bn, with_act, with_sum, sum_first, with_postsum_act, bn_fix_gamma;
  std::string act_type, postsum_act_type;
  float bn_eps;
  DMLC_DECLARE_PARAMETER(OneDNNFusionParam) {
    DMLC_DECLARE_FIELD(with_bn).set_default(false).describe("A BatchNorm folded in (inference).");
    DMLC_DECLARE_FIELD(with_act).set_default(false).describe("An activation after it.");
    DMLC_DECLARE_FIELD(act_type).set_default("relu").describe(
        "relu, sigmoid, tanh or softrelu.");
    DMLC_DECLARE_FIELD(with_sum).set_default(false).describe(
        "The last input added to the result (a residual connection).");
    DMLC_DECLARE_FIELD(sum_first).set_default(false).describe(
        "The sum input comes first, not last (the order the graph listed its inputs in).");
    DMLC_DECLARE_FIELD(with_postsum_act).set_default(false).describe(
        "An activation after the sum.");
    DMLC_DECLARE_FIELD(postsum_act_type).set_default("relu").describe(
        "relu, sigmoid, tanh or softrelu.");
    DMLC_DECLARE_FIELD(bn_eps).set_default(1e-3f).describe("The folded BatchNorm's eps.");
    DMLC_DECLARE_FIELD(bn_fix_gamma).set_default(true).describe(
        "The folded BatchNorm's fix_gamma (gamma read as 1).");
  }
};

/*! \brief Whether the fused ops take this Activation act_type. */
bool OneDNNFusableActivation(const std::string& act_type);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_SUBGRAPH_ONEDNN_ONEDNN_FUSED_OPS_H_
