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
};

/*!
 * \brief Walks the op nodes in order. An output takes, in this order: its input's block when
 * the op declares FInplaceOption for the pair and this op is that input's last reader (same
 * size, not pinned); else the smallest free block of at least its size and at most
 * match_range times it; else the largest free block down to 1/match_range of its size, grown;
 * else a new block. A block is free once its entry has no reader left; pinned entries (graph
 * outputs, values read after the run) keep theirs. given: entries that have an array already
 * (bound arguments, gradient targets), never planned. entry_bytes: per entry.
 */
StoragePlan PlanStorage(const nnvm::IndexedGraph& idx, const std::vector<size_t>& entry_bytes,
                        const std::vector<bool>& given, const std::vector<bool>& pinned,
                        const StoragePlanOptions& options);

}  // namespace exec
}  // namespace mxnet

#endif  // MXNET_EXECUTOR_PLAN_MEMORY_H_
