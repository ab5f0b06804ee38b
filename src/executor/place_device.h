// group2ctx placement of a bound graph: the context of each node, and _CrossDeviceCopy nodes
// on the edges between contexts (MXNet 1.9.1's AssignContext + PlaceDevice).
#ifndef MXNET_EXECUTOR_PLACE_DEVICE_H_
#define MXNET_EXECUTOR_PLACE_DEVICE_H_

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "mxnet/base.h"
#include "nnvm/node.h"

namespace mxnet {
namespace exec {

struct PlacedGraph {
  std::vector<nnvm::NodeEntry> heads;  // the outputs, reading through the copies
  std::unordered_map<const nnvm::Node*, Context> node_ctx;  // every node of heads' graph
};

/*!
 * \brief Places each node of heads' graph. A variable stays where its array is (fixed); other
 * variables (head gradients) go where their first reader runs. An op node with the attribute
 * __ctx_group__ runs on group2ctx[group] (a group missing from group2ctx is an error), a
 * backward node (one with a control dependency on its forward node) on its forward node's
 * context, any other on the context of its first placed input, else of its first reader, else
 * on default_ctx. An input on another context is read through a `_CrossDeviceCopy` node named
 * "<source>_<output index>_copy", one per source entry and context; a written input (an
 * auxiliary state) on another context is an error. Nodes that change are new nodes: heads'
 * graph is left as it was.
 */
PlacedGraph PlaceDevices(const std::vector<nnvm::NodeEntry>& heads,
                         const std::map<std::string, Context>& group2ctx,
                         const Context& default_ctx,
                         const std::unordered_map<const nnvm::Node*, Context>& fixed);

}  // namespace exec
}  // namespace mxnet

#endif  // MXNET_EXECUTOR_PLACE_DEVICE_H_
