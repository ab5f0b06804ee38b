// The graph an executor runs: a symbol's outputs, then the gradients of the arguments that
// want one (the Gradient pass over head-gradient variables), shared by bind and simple_bind.
#ifndef MXNET_EXECUTOR_GRADIENT_GRAPH_H_
#define MXNET_EXECUTOR_GRADIENT_GRAPH_H_

#include <string>
#include <vector>

#include "nnvm/graph.h"
#include "nnvm/symbol.h"

namespace mxnet {
namespace exec {

struct TrainingGraph {
  std::vector<nnvm::NodeEntry> heads;       // forward outputs, then one gradient per x_args
  std::vector<nnvm::NodeEntry> head_grads;  // "head_grad<i>" variables (none without gradients)
  std::vector<size_t> x_args;               // the argument (list_arguments index) of each gradient
};

/*! \brief fwd: the IndexedGraph of sym.outputs; want_grad: per argument (arg_nodes order). */
TrainingGraph BuildTrainingGraph(const nnvm::Symbol& sym, const nnvm::IndexedGraph& fwd,
                                 const std::vector<bool>& want_grad);

}  // namespace exec
}  // namespace mxnet

#endif  // MXNET_EXECUTOR_GRADIENT_GRAPH_H_
