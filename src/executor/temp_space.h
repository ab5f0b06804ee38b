// The temp space an executor gives its nodes: MXNET_EXEC_NUM_TEMP copies per context.
#ifndef MXNET_EXECUTOR_TEMP_SPACE_H_
#define MXNET_EXECUTOR_TEMP_SPACE_H_

#include <vector>

#include "mxnet/op_attr_types.h"
#include "nnvm/graph.h"

namespace mxnet {
namespace exec {

/*!
 * \brief Per node of idx: the temp-space resource it runs with (req.type kTempSpace), or a
 * resource with no space when its op requests none. The executor takes num_temp (at least 1)
 * of the device's shared copies (MXNET_CPU_TEMP_COPY / MXNET_GPU_TEMP_COPY, handed out in
 * turn) per context its nodes run on, once, and gives them to the nodes asking for temp space
 * in turn, in node order: with the default of 1 (MXNet 1.9.1's one temp space per context
 * per executor) all of them share one, and run one at a time.
 */
std::vector<Resource> AssignTempSpaces(const nnvm::IndexedGraph& idx,
                                       const std::vector<Context>& node_ctx, int num_temp);

}  // namespace exec
}  // namespace mxnet

#endif  // MXNET_EXECUTOR_TEMP_SPACE_H_
