// Comm: how a KVStore sums the arrays pushed from several devices and copies a value back out.
// CommCPU merges on the CPU (type "local"); CommDevice merges on one of the pushing devices,
// spreading keys over them, and applies gradient compression (type "device"), as in MXNet;
// with MXNET_KVSTORE_USETREE=1 CommDeviceTree sums along trees of the devices (comm_tree.cc).
#ifndef MXNET_KVSTORE_COMM_H_
#define MXNET_KVSTORE_COMM_H_

#include <memory>
#include <unordered_map>
#include <vector>

#include "kvstore/gradient_compression.h"
#include "mxnet/ndarray.h"

namespace mxnet {
namespace kvstore {

/*! \brief How the CPU sums arrays: threads used and the size from which they are used. */
struct ReduceConfig {
  int nthreads;             // MXNET_KVSTORE_REDUCTION_NTHREADS
  int64_t bigarray_bound;   // MXNET_KVSTORE_BIGARRAY_BOUND
  static ReduceConfig FromEnv();
};

/*! \brief out = srcs[0] + ... + srcs[n-1], as one engine op writing out and reading srcs (of
 *  out's shape and dtype, where out is: CPU arrays, or arrays on out's GPU). On the CPU, arrays
 *  of at least cfg.bigarray_bound elements are summed in chunks by cfg.nthreads threads. */
void PushReduceSum(const std::vector<NDArray>& srcs, const NDArray& out, const ReduceConfig& cfg,
                   int priority);

/*! \brief Copy src into every dst, as engine ops (one op for the CPU outputs of src's dtype). */
void PushCopyToAll(const NDArray& src, const std::vector<NDArray*>& dst, const ReduceConfig& cfg,
                   int priority);

/*! \brief Whether an array on a can be read directly by an op running on b (CPU memory is
 *  shared). */
bool SameMemory(Context a, Context b);

class Comm {
 public:
  virtual ~Comm() = default;
  /*! \brief Declare a key and the shape and dtype of its value. */
  virtual void Init(int key, const TShape& shape, int dtype) = 0;
  /*! \brief The sum of src (one array per device); may be src[0] itself when it is alone. */
  virtual NDArray Reduce(int key, const std::vector<NDArray>& src, int priority) = 0;
  /*! \brief Copy src into every dst. */
  virtual void Broadcast(int key, const NDArray& src, const std::vector<NDArray*>& dst,
                         int priority) = 0;
  void SetGradientCompression(std::shared_ptr<GradientCompression> gc) { gc_ = std::move(gc); }
  /*! \brief Where stored values live (MXNet: pinned CPU memory; CPU memory in this build). */
  Context store_ctx() const { return Context::CPU(0); }

 protected:
  std::shared_ptr<GradientCompression> gc_;
};

std::unique_ptr<Comm> CreateCommCPU();
/*! \brief CommDevice, or CommDeviceTree when MXNET_KVSTORE_USETREE is set. */
std::unique_ptr<Comm> CreateCommDevice();
/*! \brief Sums along reduction trees; what they do not fit goes to flat (comm_tree.cc). */
std::unique_ptr<Comm> CreateCommDeviceTree(std::unique_ptr<Comm> flat);

}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_COMM_H_
