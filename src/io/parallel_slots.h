// ForEachSlot: the batch slots of an image iterator processed on OpenMP threads, with the first
// error (a bad record) rethrown on the calling thread once the others have stopped.
#ifndef MXNET_IO_PARALLEL_SLOTS_H_
#define MXNET_IO_PARALLEL_SLOTS_H_

#include <dmlc/omp.h>

#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>

namespace mxnet {
namespace io {

/*! \brief fn(i) for i in [0, n) on up to `threads` threads; slots after a failure are skipped
 *  and the first exception is rethrown. */
template <typename Fn>
void ForEachSlot(int64_t n, int threads, const Fn& fn) {
  std::atomic<bool> failed{false};
  std::exception_ptr err;
  std::mutex err_mu;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (int64_t i = 0; i < n; ++i) {
    if (failed.load()) continue;
    try {
      fn(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(err_mu);
      if (!err) err = std::current_exception();
      failed = true;
    }
  }
  if (err) std::rethrow_exception(err);
}

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_IO_PARALLEL_SLOTS_H_
