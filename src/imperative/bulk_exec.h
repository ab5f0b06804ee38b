// Bulk sizes of graph runs (executors, CachedOp, autograd backward) from the
// MXNET_EXEC_BULK_EXEC_* variables, and a scope that sets the calling thread's engine bulk
// size for one run.
#ifndef MXNET_IMPERATIVE_BULK_EXEC_H_
#define MXNET_IMPERATIVE_BULK_EXEC_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mxnet/engine.h"

namespace mxnet {
namespace imperative {

/*! \brief Bulk size of an inference run of num_ops operators (all of them, or 0). */
int BulkSizeInference(size_t num_ops);
/*! \brief Bulk size of a training forward / backward run (0 when training bulks are off). */
int BulkSizeTrainForward();
int BulkSizeTrainBackward();

/*! \brief Bulk size of a CachedOp run: inference, or training with the block's
 *  forward_bulk_size / backward_bulk_size flags when given (as MXNet's hybridize). */
int CachedOpBulkSize(const std::vector<std::pair<std::string, std::string>>& flags,
                     bool backward, bool inference, size_t num_ops);

/*! \brief Sets this thread's engine bulk size for its lifetime; the old size (and the push
 *  of the last pending bulk) comes back at its end, also when the run throws. */
class BulkScope {
 public:
  explicit BulkScope(int size) : prev_(Engine::Get()->set_bulk_size(size)) {}
  ~BulkScope() { Engine::Get()->set_bulk_size(prev_); }
  BulkScope(const BulkScope&) = delete;
  BulkScope& operator=(const BulkScope&) = delete;

 private:
  int prev_;
};

}  // namespace imperative
}  // namespace mxnet

#endif  // MXNET_IMPERATIVE_BULK_EXEC_H_
