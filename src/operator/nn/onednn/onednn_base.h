// What every oneDNN kernel shares: the switch, the CPU engine, a stream per thread, plain
// memory descriptors of blobs and a bounded per-thread cache of primitives.
#ifndef MXNET_OPERATOR_NN_ONEDNN_ONEDNN_BASE_H_
#define MXNET_OPERATOR_NN_ONEDNN_ONEDNN_BASE_H_

#include <list>
#include <string>
#include <unordered_map>
#include <utility>

#include "mxnet/base.h"

#if MXNET_USE_ONEDNN
#include "oneapi/dnnl/dnnl.hpp"
#endif

namespace mxnet {
namespace op {
namespace onednn {

/*! \brief Whether oneDNN kernels may run: built in, and MXNET_ONEDNN_ENABLED (or its old name
 *  MXNET_MKLDNN_ENABLED) is not 0. Read per call, so MXSetEnv takes effect at once. */
bool Enabled();

/*! \brief Entries a per-thread primitive cache holds before it evicts the least recently used:
 *  MXNET_ONEDNN_CACHE_NUM (old name MXNET_MKLDNN_CACHE_NUM); -1 means no bound, 0 no cache. */
int64_t CacheCapacity();

#if MXNET_USE_ONEDNN
const dnnl::engine& CpuEngine();
/*! \brief This thread's stream on CpuEngine (engine workers run one op at a time each). */
dnnl::stream& ThreadStream();

/*!
 * \brief Primitives (and whatever else a kernel keeps) by key, for the calling thread: oneDNN
 *  primitives are costly to create and cheap to run, and each engine worker thread keeps its
 *  own, so no lock is taken. Bounded by CacheCapacity() with least-recently-used eviction.
 */
template <typename Entry>
class PrimitiveCache {
 public:
  template <typename Make>
  Entry& Get(const std::string& key, Make make) {
    auto it = index_.find(key);
    if (it != index_.end()) {
      order_.splice(order_.begin(), order_, it->second);
      return it->second->second;
    }
    const int64_t cap = CacheCapacity();
    if (cap == 0) {  // no caching: one entry, rebuilt for every call
      order_.clear();
      index_.clear();
    }
    order_.emplace_front(key, make());
    index_.emplace(key, order_.begin());
    while (cap > 0 && static_cast<int64_t>(order_.size()) > cap) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
    return order_.front().second;
  }
  size_t size() const { return order_.size(); }

 private:
  std::list<std::pair<std::string, Entry>> order_;  // most recently used first
  std::unordered_map<std::string, typename std::list<std::pair<std::string, Entry>>::iterator>
      index_;
};
#endif

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_ONEDNN_ONEDNN_BASE_H_
