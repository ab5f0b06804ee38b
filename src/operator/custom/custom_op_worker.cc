// The custom-operator worker threads: a FIFO queue served by threads started on demand.
#include "operator/custom/custom_op_worker.h"

#include <dmlc/logging.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "common/env.h"

namespace mxnet {
namespace custom {
namespace {

class WorkerPool {
 public:
  WorkerPool()
      : max_threads_(static_cast<int>(
            std::max<int64_t>(1, env::GetInt("MXNET_CUSTOM_OP_NUM_THREADS")))) {}

  void Push(std::function<void()> task) {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(task));
    if (idle_ < static_cast<int>(queue_.size()) && threads_ < max_threads_) {
      ++threads_;
      // Detached: the pool is never destroyed, so its threads may outlive static destructors
      // (a thread blocked on cv_ at exit is simply ended with the process).
      std::thread([this] { Run(); }).detach();
    } else {
      cv_.notify_one();
    }
  }

 private:
  void Run() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      ++idle_;
      cv_.wait(lock, [this] { return !queue_.empty(); });
      --idle_;
      std::function<void()> task = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      task();
      task = nullptr;  // release what it holds outside the lock
      lock.lock();
    }
  }

  const int max_threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  int threads_{0};
  int idle_{0};
};

}  // namespace

void PushToCustomOpWorker(std::function<void()> task) {
  static WorkerPool* pool = new WorkerPool();  // never freed: see Push
  pool->Push(std::move(task));
}

}  // namespace custom
}  // namespace mxnet
