// The forward + gradient graph of an executor (see gradient_graph.h).
#include "executor/gradient_graph.h"

#include "nnvm/gradient.h"
#include "nnvm/mirror.h"

namespace mxnet {
namespace exec {

TrainingGraph BuildTrainingGraph(const nnvm::Symbol& sym, const nnvm::IndexedGraph& fwd,
                                 const std::vector<bool>& want_grad) {
  TrainingGraph g;
  g.heads = sym.outputs;
  std::vector<nnvm::NodeEntry> xs;
  for (size_t i = 0; i < want_grad.size(); ++i) {
    if (!want_grad[i]) continue;
    xs.emplace_back(fwd.node_ptr(fwd.arg_nodes()[i]), 0, 0);
    g.x_args.push_back(i);
  }
  if (xs.empty()) return g;
  for (size_t i = 0; i < sym.outputs.size(); ++i) {
    g.head_grads.emplace_back(nnvm::CreateVariableNode("head_grad" + std::to_string(i)), 0, 0);
  }
  std::vector<nnvm::NodeEntry> grads = nnvm::Gradient(sym.outputs, xs, g.head_grads);
  nnvm::MirrorBackward(sym.outputs, &grads);  // MXNET_BACKWARD_DO_MIRROR
  g.heads.insert(g.heads.end(), grads.begin(), grads.end());
  return g;
}

}  // namespace exec
}  // namespace mxnet
