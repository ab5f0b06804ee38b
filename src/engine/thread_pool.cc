// OprQueue ordering and the WorkerPool thread loop.
#include "engine/thread_pool.h"

#include <algorithm>

#include "engine/op_threads.h"

namespace mxnet {
namespace engine {
namespace {
// Heap order: higher priority first, then earlier push.
bool RunsLater(const OprBlock* a, const OprBlock* b) {
  return a->priority != b->priority ? a->priority < b->priority : a->seq > b->seq;
}
}  // namespace

void OprQueue::Push(OprBlock* b) {
  if (b->priority == 0) {
    b->next = nullptr;
    if (fifo_tail_ != nullptr) {
      fifo_tail_->next = b;
    } else {
      fifo_head_ = b;
    }
    fifo_tail_ = b;
    ++fifo_size_;
    return;
  }
  b->seq = seq_++;
  heap_.push_back(b);
  std::push_heap(heap_.begin(), heap_.end(), RunsLater);
}

OprBlock* OprQueue::Pop() {
  if (!heap_.empty() && (heap_.front()->priority > 0 || fifo_head_ == nullptr)) {
    std::pop_heap(heap_.begin(), heap_.end(), RunsLater);
    OprBlock* b = heap_.back();
    heap_.pop_back();
    return b;
  }
  OprBlock* b = fifo_head_;
  fifo_head_ = b->next;
  if (fifo_head_ == nullptr) fifo_tail_ = nullptr;
  b->next = nullptr;
  --fifo_size_;
  return b;
}

WorkerPool::WorkerPool(ThreadedEngine* engine, int nthreads)
    : engine_(engine), nthreads_(std::max(1, nthreads)) {
  Start();
}

WorkerPool::~WorkerPool() { Stop(); }

void WorkerPool::Push(OprBlock* b) {
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.Push(b);
    // Wake a sleeper only when the queued ops outnumber the wakeups already on their way;
    // a running worker looks at the queue again before it sleeps.
    wake = idle_ > waking_ && static_cast<int>(queue_.size()) > waking_;
    if (wake) ++waking_;
  }
  if (wake) cv_.notify_one();
}

void WorkerPool::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!threads_.empty()) return;
  stop_ = false;
  idle_ = waking_ = 0;
  threads_.reserve(nthreads_);
  for (int i = 0; i < nthreads_; ++i) threads_.emplace_back([this] { Run(); });
}

void WorkerPool::Stop() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    threads.swap(threads_);
  }
  cv_.notify_all();
  for (std::thread& t : threads) t.join();
}

void WorkerPool::Run() {
  MarkWorkerThread();
  for (;;) {
    OprBlock* b;
    {
      std::unique_lock<std::mutex> lock(mu_);
      while (queue_.empty() && !stop_) {
        ++idle_;
        cv_.wait(lock);
        --idle_;
        if (waking_ > 0) --waking_;
      }
      if (queue_.empty()) break;  // stopping, and nothing left to run
      b = queue_.Pop();
    }
    UseOpThreads();
    engine_->ExecuteOprBlock(b);
  }
  FlushThreadCaches();
}

}  // namespace engine
}  // namespace mxnet
