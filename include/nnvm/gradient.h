// The Gradient pass: builds the graph that computes d(ys)/d(xs) from each op's FGradient.
#ifndef NNVM_GRADIENT_H_
#define NNVM_GRADIENT_H_

#include <functional>
#include <vector>

#include "nnvm/node.h"

namespace nnvm {

/*! \brief Every node reachable from heads, inputs before users (control deps included). */
std::vector<ObjectPtr> TopoSort(const std::vector<NodeEntry>& heads);

/*!
 * \brief Gradient graph of ys with respect to xs, given the gradients flowing into ys.
 * Returns one entry per x; an x that no y depends on gets zeros_like(x).
 * Only nodes on a path from some x to some y are differentiated; such a node needs an
 * FGradient attribute, or TIsNonDifferentiable (its inputs then get no gradient).
 * Gradients reaching one entry from several users are summed with add_n.
 */
std::vector<NodeEntry> Gradient(const std::vector<NodeEntry>& ys, const std::vector<NodeEntry>& xs,
                                const std::vector<NodeEntry>& ys_out_grad);

}  // namespace nnvm

#endif  // NNVM_GRADIENT_H_
