// Editing a symbol's graph in place for the control-flow fronts (mx.sym.contrib.foreach,
// while_loop, cond): cutting the graph traced for a subgraph off from the nodes outside it.
#ifndef NNVM_GRAPH_EDIT_H_
#define NNVM_GRAPH_EDIT_H_

#include <vector>

#include "nnvm/node.h"

namespace nnvm {

struct Symbol;

/*!
 * \brief MXSymbolCutSubgraph: when the first head node has the attr "__subgraph_name__", every
 * node of the graph with the same value (the nodes traced inside that AttrScope) has each input
 * that comes from a node without it replaced by a new variable named as that entry is listed
 * (list_outputs: "a", "fc1_output"); one variable per distinct entry. Returns the entries cut,
 * one per edge in the order the walk met them (so repeated where one entry fed several edges);
 * none when the head has no such attr.
 */
std::vector<NodeEntry> CutSubgraph(const Symbol& sym);

}  // namespace nnvm

#endif  // NNVM_GRAPH_EDIT_H_
