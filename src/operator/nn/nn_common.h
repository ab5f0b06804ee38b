// Declaration helpers the nn/ layer operators share: the float-only dtype rule and the
// registration of a one-input layer whose hidden second output (a statistic) its gradient
// reuses (L2Normalization, LRN).
#ifndef MXNET_OPERATOR_NN_NN_COMMON_H_
#define MXNET_OPERATOR_NN_NN_COMMON_H_

#include <string>
#include <vector>

#include "operator/operator_common.h"

namespace mxnet {
namespace op {

/*! \brief All inputs and outputs share one dtype, which must be float32, float64 or float16. */
bool FloatElemwiseType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out);

/*! \brief The gradient as one node of bwd_op fed (ograd, the forward node's first `fed`
 *  inputs, all by default), whose output i is the gradient of input i (for an FGradient). */
std::vector<NodeEntry> GradOfEachInput(const char* bwd_op, const ObjectPtr& n,
                                       const std::vector<NodeEntry>& og,
                                       size_t fed = static_cast<size_t>(-1));
/*! \brief FInferShape of such a backward op: output i has the shape of input i + 1. */
bool ForwardInputShapes(const NodeAttrs& attrs, std::vector<TShape>* in,
                        std::vector<TShape>* out);

/*! \brief A one-input layer with a hidden statistic output. */
struct StatLayerDecl {
  const char* name;
  const char* doc;
  const char* data_doc;
  const char* stat_name;  // the hidden output, also the backward's third input
  FInferShape shape;      // data -> (output, stat)
  FCompute forward;       // data -> (output, stat)
  FCompute backward;      // (ograd, data, stat) -> data gradient
  bool temp_space = false;  // both ops request kTempSpace (OpContext::RequestTempSpace)
};

/*! \brief Registers decl.name and _backward_<name> with the arguments of PType. */
void RegisterStatLayerOps(const StatLayerDecl& decl, std::function<void(NodeAttrs*)> parser,
                          const std::vector<dmlc::ParamFieldInfo>& fields);

template <typename PType>
void RegisterStatLayer(const StatLayerDecl& decl) {
  RegisterStatLayerOps(decl, ParamParser<PType>, PType::__FIELDS__());
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_NN_COMMON_H_
