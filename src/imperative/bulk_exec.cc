// MXNET_EXEC_BULK_EXEC_* as MXNet 1.9.1 reads them.
#include "imperative/bulk_exec.h"

#include <algorithm>
#include <limits>
#include <string>

#include <dmlc/logging.h>

#include "common/env.h"

namespace mxnet {
namespace imperative {
namespace {

int Clamp(int64_t n) {
  return static_cast<int>(std::clamp<int64_t>(n, 0, std::numeric_limits<int>::max()));
}

int TrainSize(const char* specific) {
  if (!env::GetBool("MXNET_EXEC_BULK_EXEC_TRAIN")) return 0;
  return Clamp(env::IsSet(specific) ? env::GetInt(specific)
                                    : env::GetInt("MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN"));
}

}  // namespace

int BulkSizeInference(size_t num_ops) {
  return env::GetBool("MXNET_EXEC_BULK_EXEC_INFERENCE") ? Clamp(static_cast<int64_t>(num_ops))
                                                         : 0;
}

int BulkSizeTrainForward() { return TrainSize("MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN_FWD"); }

int BulkSizeTrainBackward() { return TrainSize("MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN_BWD"); }

int CachedOpBulkSize(const std::vector<std::pair<std::string, std::string>>& flags,
                     bool backward, bool inference, size_t num_ops) {
  if (inference && !backward) return BulkSizeInference(num_ops);
  const int size = backward ? BulkSizeTrainBackward() : BulkSizeTrainForward();
  if (size == 0) return 0;  // MXNET_EXEC_BULK_EXEC_TRAIN=0
  const char* name = backward ? "backward_bulk_size" : "forward_bulk_size";
  for (const auto& kv : flags) {
    if (kv.first != name) continue;
    try {
      return Clamp(std::stoll(kv.second));
    } catch (const std::exception&) {
      LOG(FATAL) << "CachedOp: flag " << name << " expects an integer, given '" << kv.second
                 << "'";
    }
  }
  return size;
}

}  // namespace imperative
}  // namespace mxnet
