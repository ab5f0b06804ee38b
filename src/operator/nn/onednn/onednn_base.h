// What every oneDNN kernel shares: the switch, the CPU engine, a stream per thread, plain
// memory descriptors of blobs and a bounded per-thread cache of primitives.
#ifndef MXNET_OPERATOR_NN_ONEDNN_ONEDNN_BASE_H_
#define MXNET_OPERATOR_NN_ONEDNN_ONEDNN_BASE_H_

#include <list>
#include <string>
#include <unordered_map>
#include <utility>

#include "mxnet/base.h"
#include "mxnet/op_attr_types.h"

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

/*! \brief Whether a oneDNN kernel writing straight into the caller's array serves req; kAddTo
 *  (and kNullOp) go elsewhere. */
inline bool Overwrites(OpReqType req) { return req == kWriteTo || req == kWriteInplace; }

#if MXNET_USE_ONEDNN
const dnnl::engine& CpuEngine();
/*! \brief The OpenMP threads a primitive made now would use (omp_get_max_threads). */
int OpenMPThreads();
/*! \brief This thread's stream on CpuEngine (engine workers run one op at a time each). */
dnnl::stream& ThreadStream();

/*! \brief A dense row-major float32 descriptor of dims. */
dnnl::memory::desc PlainF32(const dnnl::memory::dims& dims);
/*! \brief The float32 blocked layout of onednn_layout.h (nChw{BlockSize()}c) for 4-D dims. */
dnnl::memory::desc BlockedF32(const dnnl::memory::dims& dims);
/*! \brief A float32 memory over the caller's data. */
dnnl::memory Wrap(const dnnl::memory::desc& md, const void* data);
/*! \brief Run prim on this thread's stream and wait for it. */
void RunNow(const dnnl::primitive& prim, const std::unordered_map<int, dnnl::memory>& args);

/*! \brief A reorder between a plain layout and a primitive's, made once per cache entry;
 *  needed is false when the two are the same. */
struct Reorder {
  dnnl::memory::desc from, to;
  dnnl::reorder prim;
  bool needed{false};
  Reorder() = default;
  Reorder(const dnnl::memory::desc& f, const dnnl::memory::desc& t);
};

/*! \brief Temp space (the op's kTempSpace resource) carved into the buffers one call needs,
 *  each 64-byte aligned. */
class Arena {
 public:
  Arena(const OpContext& ctx, size_t bytes)
      : next_(static_cast<char*>(ctx.RequestTempSpace(bytes))) {}
  static size_t Bytes(const dnnl::memory::desc& md) { return (md.get_size() + 63) / 64 * 64; }
  void* Take(const dnnl::memory::desc& md) {
    void* p = next_;
    next_ += Bytes(md);
    return p;
  }

 private:
  char* next_;
};

/*! \brief Arena bytes In needs for r (reordering into r.to), and MakeOut for an output of r
 *  (r.from the primitive's layout, r.to the caller's; kAddTo adds a plain result buffer). */
size_t InBytes(const Reorder& r);
size_t OutBytes(const Reorder& r, OpReqType req);

/*! \brief The caller's plain data (layout r.from) as the primitive's memory (r.to). */
dnnl::memory In(const Reorder& r, void* user, Arena* arena);

/*! \brief Where a primitive writes an output (inner); Finish moves it into the caller's
 *  float32 array honouring req, and waits for the stream. */
struct OutBuf {
  dnnl::memory inner;
  dnnl::memory plain;
  const Reorder* r{nullptr};
  float* user{nullptr};
  OpReqType req{kWriteTo};
  size_t n{0};
};
OutBuf MakeOut(const Reorder& r, float* user, OpReqType req, size_t n, Arena* arena);
void Finish(const OutBuf& o);

/*! \brief Arena bytes RunBackwardData needs, and the run: prim (a backward-data primitive) on
 *  the caller's plain diff_dst and weights, its data gradient moved into out honouring req. */
size_t BackwardDataBytes(const Reorder& ddst, const Reorder& weights, const Reorder& dsrc,
                         OpReqType req);
void RunBackwardData(const dnnl::primitive& prim, const Reorder& ddst, void* ddst_data,
                     const Reorder& weights, void* weights_data, const Reorder& dsrc,
                     float* out, OpReqType req, size_t out_size, Arena* arena);

/*! \brief What a backward-weights primitive writes: the weight gradient (always computed;
 *  not wanted when weight is null or weight_req kNullOp) and the bias gradient (when bias_md,
 *  the primitive's plain bias layout, is set). Both are float32 arrays of the caller. */
struct WeightGrads {
  float* weight{nullptr};
  OpReqType weight_req{kNullOp};
  size_t weight_size{0};
  const dnnl::memory::desc* bias_md{nullptr};
  float* bias{nullptr};
  OpReqType bias_req{kNullOp};
};
/*! \brief Arena bytes RunBackwardWeights needs. */
size_t BackwardWeightsBytes(const Reorder& src, const Reorder& ddst, const Reorder& dweights,
                            const WeightGrads& g);
/*! \brief Run prim (a backward-weights primitive) on the caller's plain src and diff_dst and
 *  move its gradients into g honouring the reqs. */
void RunBackwardWeights(const dnnl::primitive& prim, const Reorder& src, void* src_data,
                        const Reorder& ddst, void* ddst_data, const Reorder& dweights,
                        const WeightGrads& g, Arena* arena);

/*!
 * \brief Primitives (and whatever else a kernel keeps) by key, for the calling thread: oneDNN
 *  primitives are costly to create and cheap to run, and each engine worker thread keeps its
 *  own, so no lock is taken. Bounded by CacheCapacity() with least-recently-used eviction.
 */
template <typename Entry>
class PrimitiveCache {
 public:
  template <typename Make>
  Entry& Get(const std::string& op_key, Make make) {
    // A primitive forks the OpenMP thread count it was made under, and an engine worker's
    // count varies (engine/op_threads.h), so that count is part of the key.
    const std::string key = std::to_string(OpenMPThreads()) + '|' + op_key;
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
