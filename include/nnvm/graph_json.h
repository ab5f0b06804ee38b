// A graph as MXNet's Symbol shows it: -symbol.json text, argument and output names, and the
// names an autograd-recorded graph gets when exported.
#ifndef NNVM_GRAPH_JSON_H_
#define NNVM_GRAPH_JSON_H_

#include <string>
#include <vector>

#include "nnvm/node.h"

namespace nnvm {

/*!
 * \brief The graph reaching heads in MXNet 1.9's -symbol.json format, laid out byte for byte
 * as MXNet writes it: nodes in topological order (TopoSort), each with "op" ("null" for
 * variables), "name", "attrs" (kwargs, keys sorted; omitted when empty), "inputs" as
 * [node, output, version] and "control_deps" when there are any; then "arg_nodes" (the
 * variables), "node_row_ptr" (running count of outputs), "heads" and the mxnet_version attr.
 * Nodes are written under attrs.name; strings are escaped as dmlc's JSON writer does.
 */
std::string SaveJSON(const std::vector<NodeEntry>& heads);

/*!
 * \brief A copy of the graph reaching heads (same ops and kwargs, no per-node info), named as
 * MXNet's autograd.get_symbol names a recorded graph: variables "var<k>" (marked ones, which
 * have a name) or "null<k>" (unnamed constants) with one counter, ops "node_<k>", both counted
 * in topological order. Returns the copied heads.
 */
std::vector<NodeEntry> CopyWithAutogradNames(const std::vector<NodeEntry>& heads);

/*!
 * \brief Variable names in topological order, as Symbol.list_arguments (aux = false: the
 * variables no op mutates) or list_auxiliary_states (aux = true: those an FMutateInputs
 * input writes).
 */
std::vector<std::string> ListVariableNames(const std::vector<NodeEntry>& heads, bool aux);

/*!
 * \brief Symbol.list_outputs: a variable head is its name; an op output is
 * "<node>_<FListOutputNames name>", else "<node>_output" (one output) or "<node>_output<i>".
 */
std::vector<std::string> ListOutputNames(const std::vector<NodeEntry>& heads);
/*! \brief The list_outputs name of output index of node n (an op node). */
std::string OutputName(const Node& n, uint32_t index);

}  // namespace nnvm

#endif  // NNVM_GRAPH_JSON_H_
