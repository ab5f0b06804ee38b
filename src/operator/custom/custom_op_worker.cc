// The custom-operator worker threads: a FIFO queue served by threads started on demand.
#include "operator/custom/custom_op_worker.h"

#include <pthread.h>

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
    State* s = state_;
    std::lock_guard<std::mutex> lock(s->mu);
    s->queue.push_back(std::move(task));
    if (s->idle < static_cast<int>(s->queue.size()) && s->threads < max_threads_) {
      ++s->threads;
      // Detached: the pool is never destroyed, so its threads may outlive static destructors
      // (a thread blocked on cv at exit is simply ended with the process).
      std::thread([s] { Run(s); }).detach();
    } else {
      s->cv.notify_one();
    }
  }

  /*!
   * \brief In a forked child: none of the parent's threads exist, and they may have held the
   *  lock at the fork, so the child starts from a fresh state (the parent's is left alone:
   *  destroying a mutex or condition variable others held is undefined).
   */
  void ResetInChild() { state_ = new State(); }

 private:
  struct State {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<std::function<void()>> queue;
    int threads{0};
    int idle{0};
  };

  static void Run(State* s) {
    std::unique_lock<std::mutex> lock(s->mu);
    for (;;) {
      ++s->idle;
      s->cv.wait(lock, [s] { return !s->queue.empty(); });
      --s->idle;
      std::function<void()> task = std::move(s->queue.front());
      s->queue.pop_front();
      lock.unlock();
      task();
      task = nullptr;  // release what it holds outside the lock
      lock.lock();
    }
  }

  const int max_threads_;
  State* state_{new State()};  // never freed (see Push and ResetInChild)
};

WorkerPool* Pool() {
  static WorkerPool* pool = [] {
    auto* p = new WorkerPool();  // never freed: see Push
    pthread_atfork(nullptr, nullptr, [] { Pool()->ResetInChild(); });
    return p;
  }();
  return pool;
}

}  // namespace

void PushToCustomOpWorker(std::function<void()> task) { Pool()->Push(std::move(task)); }

}  // namespace custom
}  // namespace mxnet
