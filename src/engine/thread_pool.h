// Worker pools: threads that pop ready operations, highest priority first, and run them.
#ifndef MXNET_ENGINE_THREAD_POOL_H_
#define MXNET_ENGINE_THREAD_POOL_H_

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/threaded_engine.h"

namespace mxnet {
namespace engine {

/*!
 * \brief Ready operations of one pool (not thread-safe; the pool's mutex guards it).
 * Priority-0 ops, the common case, sit in an intrusive FIFO list and cost no allocation;
 * others go to a heap. Pop takes positive priorities first, then the FIFO, then negative
 * ones; equal priorities leave in push order.
 */
class OprQueue {
 public:
  bool empty() const { return fifo_head_ == nullptr && heap_.empty(); }
  size_t size() const { return fifo_size_ + heap_.size(); }
  void Push(OprBlock* b);
  OprBlock* Pop();  // requires !empty()

 private:
  OprBlock* fifo_head_{nullptr};
  OprBlock* fifo_tail_{nullptr};
  size_t fifo_size_{0};
  std::vector<OprBlock*> heap_;
  uint64_t seq_{0};
};

/*! \brief A fixed number of threads running the ops pushed to one queue. */
class WorkerPool {
 public:
  WorkerPool(ThreadedEngine* engine, int nthreads);  // starts the threads
  ~WorkerPool();                                      // Stop()
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void Push(OprBlock* b);
  /*! \brief Start the threads (after Stop, e.g. after fork); no-op while running. */
  void Start();
  /*! \brief Let the threads empty the queue, then join them. Pushes keep queuing. */
  void Stop();
  int nthreads() const { return nthreads_; }
  /*! \brief How many threads the next Start() creates (a forked child uses fewer). */
  void set_nthreads(int n) { nthreads_ = std::max(1, n); }

 private:
  void Run();

  ThreadedEngine* engine_;
  int nthreads_;
  std::mutex mu_;
  std::condition_variable cv_;
  OprQueue queue_;
  int idle_{0};    // workers asleep on cv_
  int waking_{0};  // notified workers not yet awake
  bool stop_{false};
  std::vector<std::thread> threads_;
};

}  // namespace engine
}  // namespace mxnet

#endif  // MXNET_ENGINE_THREAD_POOL_H_
