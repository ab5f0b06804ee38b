// The graph pass choosing which values of a CachedOp graph stay in oneDNN's blocked layout
// between the operators that produce and read them (operator/nn/onednn/onednn_layout.h).
#ifndef MXNET_IMPERATIVE_BLOCKED_LAYOUT_PASS_H_
#define MXNET_IMPERATIVE_BLOCKED_LAYOUT_PASS_H_

#include <memory>
#include <vector>

#include "nnvm/graph.h"

namespace mxnet {
namespace imperative {

/*!
 * \brief attrs (one per node of idx) with the nodes [begin, end) marked: a value is held
 *  blocked when the node writing it and every node in the range reading it declare it in a
 *  layout group (FBlockedLayout), the groups tying values together agree, and it is neither
 *  a variable nor kept (keep: graph outputs, values saved for backward, which callers see).
 *  Nodes with nothing marked keep their attrs pointer; null when no node is marked.
 */
std::shared_ptr<const std::vector<std::shared_ptr<const nnvm::NodeAttrs>>> MarkBlockedLayouts(
    const nnvm::IndexedGraph& idx, uint32_t begin, uint32_t end,
    const std::vector<std::shared_ptr<const nnvm::NodeAttrs>>& attrs,
    const std::vector<bool>& keep);

/*! \brief Whether graphs made now get marks: MXNET_ONEDNN_BLOCKED_LAYOUT and oneDNN enabled.
 *  (Marked kernels honour their marks whatever MXNET_ONEDNN_ENABLED says later.) */
bool BlockedLayoutsWanted();

}  // namespace imperative
}  // namespace mxnet

#endif  // MXNET_IMPERATIVE_BLOCKED_LAYOUT_PASS_H_
