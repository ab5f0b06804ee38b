// ThreadedVar: the per-variable queue that grants reads and writes in push order.
#include <dmlc/logging.h>

#include "engine/object_pool.h"
#include "engine/threaded_engine.h"
#include "engine/var_version.h"

namespace mxnet {
namespace engine {

using VarBlockPool = ObjectPool<VersionedVarBlock>;

namespace {
std::atomic<uint64_t> g_next_version{1};
uint64_t NextVersion() { return g_next_version.fetch_add(1, std::memory_order_relaxed); }
}  // namespace

ThreadedVar::ThreadedVar() : head_(VarBlockPool::New()), version_(NextVersion()) {}

bool ThreadedVar::AppendRead(OprBlock* b) {
  std::lock_guard<common::SpinLock> lock(mu_);
  if (pending_write_ == nullptr) {
    ++num_pending_reads_;
    return true;
  }
  VersionedVarBlock* tail = VarBlockPool::New();
  head_->trigger = b;
  head_->write = false;
  head_->next = tail;
  head_ = tail;
  return false;
}

bool ThreadedVar::AppendWrite(OprBlock* b) {
  std::lock_guard<common::SpinLock> lock(mu_);
  VersionedVarBlock* tail = VarBlockPool::New();
  head_->trigger = b;
  head_->write = true;
  head_->next = tail;
  bool granted = false;
  if (pending_write_ == nullptr) {
    pending_write_ = head_;
    if (num_pending_reads_ == 0) {
      num_pending_reads_ = kWriteGranted;
      granted = true;
    }
  }
  head_ = tail;
  return granted;
}

void ThreadedVar::CompleteRead(ThreadedEngine* engine) {
  OprBlock* next_write = nullptr;
  {
    std::lock_guard<common::SpinLock> lock(mu_);
    if (--num_pending_reads_ == 0 && pending_write_ != nullptr) {
      num_pending_reads_ = kWriteGranted;
      next_write = pending_write_->trigger;
    }
  }
  if (next_write != nullptr) engine->OnDepReady(next_write);
}

bool ThreadedVar::CompleteWrite(ThreadedEngine* engine, const ErrorRef& ex, bool to_delete) {
  VersionedVarBlock* finished;
  VersionedVarBlock* end;  // first block not granted by this completion
  OprBlock* next_write = nullptr;
  bool recycle = false;
  {
    std::lock_guard<common::SpinLock> lock(mu_);
    version_ = NextVersion();
    exception_ = keeps_errors_ ? ex : nullptr;
    has_exception_.store(static_cast<bool>(exception_), std::memory_order_release);
    finished = pending_write_;
    end = finished->next;
    int reads = 0;
    while (end != head_ && !end->write) {
      ++reads;
      end = end->next;
    }
    if (end == head_) {
      pending_write_ = nullptr;
      num_pending_reads_ = reads;
    } else {
      pending_write_ = end;
      if (reads == 0) {
        num_pending_reads_ = kWriteGranted;
        next_write = end->trigger;
      } else {
        num_pending_reads_ = reads;
      }
    }
    if (to_delete) {
      recycle = pending_write_ == nullptr && reads == 0;
      LOG_IF(ERROR, !recycle) << "an operation was pushed on a variable after DeleteVariable; "
                                 "the variable is leaked";
    }
  }
  // The blocks from finished to end belong to this completion alone: read each next pointer
  // before granting, since a granted op may finish (and others append) at once.
  VersionedVarBlock* cur = finished->next;
  VarBlockPool::Delete(finished);
  while (cur != end) {
    VersionedVarBlock* next = cur->next;
    OprBlock* reader = cur->trigger;
    VarBlockPool::Delete(cur);
    engine->OnDepReady(reader);
    cur = next;
  }
  if (next_write != nullptr) engine->OnDepReady(next_write);
  return recycle;
}

bool ThreadedVar::HasPendingWrite() {
  std::lock_guard<common::SpinLock> lock(mu_);
  return pending_write_ != nullptr;
}

bool ThreadedVar::IsIdle() {
  std::lock_guard<common::SpinLock> lock(mu_);
  return pending_write_ == nullptr && num_pending_reads_ == 0;
}

ErrorRef ThreadedVar::PeekException() {
  if (!has_exception_.load(std::memory_order_acquire)) return nullptr;
  std::lock_guard<common::SpinLock> lock(mu_);
  if (exception_ && exception_->reported.load()) return nullptr;
  return exception_;
}

ErrorRef ThreadedVar::TakeException() {
  if (!has_exception_.load(std::memory_order_acquire)) return nullptr;
  std::lock_guard<common::SpinLock> lock(mu_);
  ErrorRef ex = std::move(exception_);
  exception_ = nullptr;
  has_exception_.store(false, std::memory_order_release);
  if (ex && ex->reported.load()) return nullptr;
  return ex;
}

uint64_t ThreadedVar::version() {
  std::lock_guard<common::SpinLock> lock(mu_);
  return version_;
}

void ThreadedVar::NewVersion() {
  std::lock_guard<common::SpinLock> lock(mu_);
  version_ = NextVersion();
}

void ThreadedVar::ResetForReuse() {
  std::lock_guard<common::SpinLock> lock(mu_);
  num_pending_reads_ = 0;
  pending_write_ = nullptr;
  head_->next = nullptr;
  head_->trigger = nullptr;
  version_ = NextVersion();
  exception_ = nullptr;
  has_exception_.store(false, std::memory_order_relaxed);
  keeps_errors_ = true;
}

uint64_t VarVersion(VarHandle v) { return ThreadedVar::Cast(v)->version(); }

}  // namespace engine
}  // namespace mxnet
