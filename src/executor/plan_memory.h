// Memory planning of a bound graph: which entries share one storage block.
#ifndef MXNET_EXECUTOR_PLAN_MEMORY_H_
#define MXNET_EXECUTOR_PLAN_MEMORY_H_

#include <cstddef>
#include <vector>

#include "nnvm/graph.h"

namespace mxnet {
namespace exec {

struct StoragePlanOptions {
  bool inplace{true};        // MXNET_EXEC_ENABLE_INPLACE
  size_t match_range{16};    // NNVM_EXEC_MATCH_RANGE
  /*! \brief From the environment variables above. */
  static StoragePlanOptions FromEnv();
};

struct StoragePlan {
  std::vector<int> block;      // per entry: its storage block, -1 when it needs none planned
  std::vector<size_t> bytes;   // per block: the most any of its entries needs
  std::vector<int> device;     // per block: the device (node_device value) it lives on
};

/*!
 * \brief Walks the op nodes in order. An output takes, in this order: its input's block when
 * the op declares FInplaceOption for the pair and nothing else will read that block (this op
 * reads it once, no other entry of the block is alive, it is not pinned; same size); or,
 * whatever else reads the input, when the op also declares the pair FInplaceIdentity (the
 * output is the input: Reshape, Flatten, _copy, ...) and the dtypes match (entry_dtypes
 * given), unless both are graph outputs (is_output), which stay separate arrays; else the
 * smallest free block of its device of at least its size and at most
 * match_range times it; else the largest free block down to 1/match_range of its size, grown;
 * else a new block. A block is free once no entry in it has a reader left; pinned entries
 * (graph outputs, values read after the run) keep theirs. given: entries that have an array
 * already (bound arguments, gradient targets), never planned. entry_bytes: per entry.
 * node_device: per node, the device its outputs live on (empty: all on one, 0).
 * is_output: per entry, whether the user sees it as an output (empty: none).
 */
StoragePlan PlanStorage(const nnvm::IndexedGraph& idx, const std::vector<size_t>& entry_bytes,
                        const std::vector<bool>& given, const std::vector<bool>& pinned,
                        const StoragePlanOptions& options,
                        const std::vector<int>& entry_dtypes = {},
                        const std::vector<int>& node_device = {},
                        const std::vector<bool>& is_output = {});

}  // namespace exec
}  // namespace mxnet

#endif  // MXNET_EXECUTOR_PLAN_MEMORY_H_
