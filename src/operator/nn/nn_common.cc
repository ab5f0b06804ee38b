// Shared declaration helpers of the nn/ layer operators (see nn_common.h).
#include "operator/nn/nn_common.h"

#include <algorithm>

namespace mxnet {
namespace op {

bool FloatElemwiseType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  if (!ElemwiseType(attrs, in, out)) return false;
  const int t = (*in)[0];
  CHECK(t == kFloat32 || t == kFloat64 || t == kFloat16)
      << "Operator " << attrs.op->name << ": data must be float32, float64 or float16, given "
      << DTypeName(t);
  return true;
}

std::vector<NodeEntry> GradOfEachInput(const char* bwd_op, const ObjectPtr& n,
                                       const std::vector<NodeEntry>& og, size_t fed) {
  std::vector<NodeEntry> ins{og[0]};
  ins.insert(ins.end(), n->inputs.begin(),
             n->inputs.begin() + std::min(fed, n->inputs.size()));
  NodeEntry bwd = MakeNode(bwd_op, GradName(n), ins, n->attrs.dict, &n);
  std::vector<NodeEntry> grads;
  for (uint32_t i = 0; i < n->inputs.size(); ++i) grads.emplace_back(bwd.node, i, 0);
  return grads;
}

bool ForwardInputShapes(const NodeAttrs& attrs, std::vector<TShape>* in,
                        std::vector<TShape>* out) {
  for (size_t i = 0; i < out->size(); ++i) {
    if (!(*in)[i + 1].IsKnown()) return false;
    AssignShape(attrs, "input gradient", &(*out)[i], (*in)[i + 1]);
  }
  return true;
}

void RegisterStatLayerOps(const StatLayerDecl& decl, std::function<void(NodeAttrs*)> parser,
                          const std::vector<dmlc::ParamFieldInfo>& fields) {
  const std::string backward_name = std::string("_backward_") + decl.name;
  nnvm::Op& op = nnvm::Op::Register(decl.name);
  op.describe(decl.doc)
      .set_num_inputs(1)
      .set_num_outputs(2)
      .set_attr_parser(parser)
      .add_argument("data", "NDArray-or-Symbol", decl.data_doc)
      .add_arguments(fields);
  op.set_attr<FNumVisibleOutputs>("FNumVisibleOutputs", [](const NodeAttrs&) { return 1u; });
  op.set_attr<FListInputNames>("FListInputNames", InputNames({"data"}));
  op.set_attr<FListOutputNames>("FListOutputNames", InputNames({"output", decl.stat_name}));
  op.set_attr<FInferShape>("FInferShape", decl.shape);
  op.set_attr<FInferType>("FInferType", FloatElemwiseType);
  op.set_attr<FCompute>("FCompute<cpu>", decl.forward);
  if (decl.temp_space) op.set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest);
  op.set_attr<FGradient>("FGradient", [backward_name](const ObjectPtr& n,
                                                      const std::vector<NodeEntry>& og) {
    return std::vector<NodeEntry>{MakeNode(backward_name.c_str(), GradName(n),
                                           {og[0], n->inputs[0], Out(n, 1)}, n->attrs.dict)};
  });

  nnvm::Op& bw = nnvm::Op::Register(backward_name);
  bw.describe(std::string("Gradient of ") + decl.name + " with respect to data.")
      .set_num_inputs(3)
      .set_num_outputs(1)
      .set_attr_parser(parser)
      .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output")
      .add_argument("data", "NDArray-or-Symbol", "data of the forward call")
      .add_argument(decl.stat_name, "NDArray-or-Symbol", "Hidden output of the forward call")
      .add_arguments(fields);
  bw.set_attr<FListInputNames>("FListInputNames",
                               InputNames({"ograd", "data", decl.stat_name}));
  bw.set_attr<FInferShape>("FInferShape", [](const NodeAttrs& attrs, std::vector<TShape>* in,
                                             std::vector<TShape>* out) {
    AssignShape(attrs, "data", &(*out)[0], (*in)[1]);
    return (*out)[0].IsKnown();
  });
  bw.set_attr<FInferType>("FInferType", FloatElemwiseType);
  bw.set_attr<FCompute>("FCompute<cpu>", decl.backward);
  if (decl.temp_space) bw.set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest);
}

}  // namespace op
}  // namespace mxnet
