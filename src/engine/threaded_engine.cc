// ThreadedEngine: pushing operations, running them, completing them, waiting and errors.
#include "engine/threaded_engine.h"
#include "mxnet/cuda_config.h"

#include <algorithm>
#include <string>
#include <utility>

#include "engine/object_pool.h"
#include "engine/op_threads.h"
#include "engine/opr_hooks.h"

#if MXNET_USE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace mxnet {
namespace engine {
namespace {

thread_local ThreadedEngine* tls_running_engine = nullptr;  // whose op this thread runs now
std::atomic<OprHook> g_start_hook{nullptr};
std::atomic<OprHook> g_end_hook{nullptr};
thread_local std::shared_ptr<const OprDetail> tls_next_detail;  // for the next NewOpr here

// Errors travel as dmlc::Error so every caller can catch one type; the message is kept.
std::exception_ptr CurrentAsDmlcError() {
  try {
    throw;
  } catch (const dmlc::Error&) {
    return std::current_exception();
  } catch (const std::exception& e) {
    return std::make_exception_ptr(dmlc::Error(e.what()));
  } catch (...) {
    return std::make_exception_ptr(dmlc::Error("unknown exception thrown by an engine operation"));
  }
}

ErrorRef FirstException(const std::vector<ThreadedVar*>& vars) {
  for (ThreadedVar* v : vars) {
    if (ErrorRef ex = v->PeekException()) return ex;
  }
  return nullptr;
}

// One wait on a var: the engine-internal op that reads the var signals it when granted.
struct VarWaiter {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  void Signal() {
    std::lock_guard<std::mutex> lock(mu);  // notify under the lock: the waiter frees us next
    done = true;
    cv.notify_one();
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [this] { return done; });
  }
};

#if MXNET_USE_CUDA
// Each worker thread owns one non-blocking stream per GPU, created on first use.
void* WorkerStream(int dev_id) {
  thread_local cudaStream_t streams[kMaxDevices] = {};
  cudaError_t err = cudaSetDevice(dev_id);
  if (err == cudaSuccess && streams[dev_id] == nullptr) {
    err = cudaStreamCreateWithFlags(&streams[dev_id], cudaStreamNonBlocking);
  }
  if (err != cudaSuccess) {
    LOG(FATAL) << "cannot use gpu(" << dev_id << ") for an engine operation: "
               << cudaGetErrorString(err);
  }
  return streams[dev_id];
}

void SyncStream(void* stream) {
  cudaError_t err = cudaStreamSynchronize(static_cast<cudaStream_t>(stream));
  if (err != cudaSuccess) LOG(FATAL) << "GPU operation failed: " << cudaGetErrorString(err);
}
#endif

}  // namespace

void SetOprHooks(OprHook on_start, OprHook on_end) {
  g_start_hook.store(on_start, std::memory_order_release);
  g_end_hook.store(on_end, std::memory_order_release);
}

bool OprHooksInstalled() {
  return g_start_hook.load(std::memory_order_relaxed) != nullptr ||
         g_end_hook.load(std::memory_order_relaxed) != nullptr;
}

void SetNextOprDetail(std::shared_ptr<const OprDetail> detail) {
  tls_next_detail = std::move(detail);
}

void FlushThreadCaches() {
  ObjectPool<OprBlock>::FlushThreadCache();
  ObjectPool<ThreadedOpr>::FlushThreadCache();
  ObjectPool<VersionedVarBlock>::FlushThreadCache();
  ObjectPool<ThreadedVar>::FlushThreadCache();
}

void LockPoolsForFork() {  // ThreadedVar before VersionedVarBlock: the order Refill nests them
  ObjectPool<ThreadedVar>::LockForFork();
  ObjectPool<VersionedVarBlock>::LockForFork();
  ObjectPool<OprBlock>::LockForFork();
  ObjectPool<ThreadedOpr>::LockForFork();
}

void UnlockPoolsAfterFork() {
  ObjectPool<ThreadedOpr>::UnlockAfterFork();
  ObjectPool<OprBlock>::UnlockAfterFork();
  ObjectPool<VersionedVarBlock>::UnlockAfterFork();
  ObjectPool<ThreadedVar>::UnlockAfterFork();
}

// ---- creating and pushing operations ----

VarHandle ThreadedEngine::NewVariable() { return ObjectPool<ThreadedVar>::New(); }

VarHandle ThreadedEngine::NewResourceVariable() {
  ThreadedVar* v = ObjectPool<ThreadedVar>::New();
  v->set_keeps_errors(false);
  return v;
}

void ThreadedEngine::CheckContext(Context ctx, const char* opr_name) const {
  if (ctx.dev_mask() == Context::kGPU) {
#if !MXNET_USE_CUDA
    LOG(FATAL) << "cannot run operator " << (opr_name ? opr_name : "(unnamed)") << " on " << ctx
               << ": this build has no GPU support (it was built without USE_CUDA); use a "
                  "cpu context or a CUDA build";
#endif
  }
  if (ctx.dev_id < 0 || ctx.dev_id >= kMaxDevices) {
    LOG(FATAL) << "cannot run operator " << (opr_name ? opr_name : "(unnamed)") << " on " << ctx
               << ": device id must be in [0, " << kMaxDevices << "), got " << ctx.dev_id;
  }
}

ThreadedOpr* ThreadedEngine::NewOpr(const VarHandle* const_vars, size_t num_const,
                                    const VarHandle* mutable_vars, size_t num_mutable,
                                    FnProperty prop, const char* opr_name,
                                    bool take_detail) {
  ThreadedOpr* opr = ObjectPool<ThreadedOpr>::New();
  opr->prop = prop;
  opr->opr_name = opr_name;
  // null unless profiling
  if (take_detail && tls_next_detail) opr->detail = std::move(tls_next_detail);
  opr->refs.store(1, std::memory_order_relaxed);
  auto& cv = opr->const_vars;
  auto& mv = opr->mutable_vars;
  if (num_const + num_mutable <= 32) {  // the usual case: a few vars, compare them directly
    for (size_t i = 0; i < num_mutable; ++i) {
      ThreadedVar* v = ThreadedVar::Cast(mutable_vars[i]);
      if (std::find(mv.begin(), mv.end(), v) == mv.end()) mv.push_back(v);
    }
    for (size_t i = 0; i < num_const; ++i) {
      ThreadedVar* v = ThreadedVar::Cast(const_vars[i]);
      if (std::find(mv.begin(), mv.end(), v) == mv.end() &&
          std::find(cv.begin(), cv.end(), v) == cv.end()) {
        cv.push_back(v);
      }
    }
  } else {
    for (size_t i = 0; i < num_mutable; ++i) mv.push_back(ThreadedVar::Cast(mutable_vars[i]));
    for (size_t i = 0; i < num_const; ++i) cv.push_back(ThreadedVar::Cast(const_vars[i]));
    std::sort(mv.begin(), mv.end());
    mv.erase(std::unique(mv.begin(), mv.end()), mv.end());
    std::sort(cv.begin(), cv.end());
    cv.erase(std::unique(cv.begin(), cv.end()), cv.end());
    cv.erase(std::remove_if(cv.begin(), cv.end(),
                            [&mv](ThreadedVar* v) {
                              return std::binary_search(mv.begin(), mv.end(), v);
                            }),
             cv.end());
  }
  return opr;
}

void ThreadedEngine::ReleaseOpr(ThreadedOpr* opr) {
  if (opr->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  opr->fn = nullptr;  // drops what the function captured, here and not in a later push
  opr->sync_fn = nullptr;
  if (opr->raw_fn.release != nullptr) opr->raw_fn.release(opr->raw_fn.state);
  opr->raw_fn = RawSyncFn();
  opr->detail = nullptr;
  opr->const_vars.clear();
  opr->mutable_vars.clear();
  opr->deletes_var = false;
  opr->run_inline = false;
  ObjectPool<ThreadedOpr>::Delete(opr);
}

void ThreadedEngine::PushBlock(ThreadedOpr* opr, Context ctx, int priority) {
  OprBlock* b = ObjectPool<OprBlock>::New();
  b->opr = opr;
  b->ctx = ctx;
  b->priority = priority;
  const size_t num_vars = opr->const_vars.size() + opr->mutable_vars.size();
  // One extra count held by this push, so the op cannot start before all vars are queued.
  b->wait.store(static_cast<int>(num_vars) + 1, std::memory_order_relaxed);
  pending_ops_.fetch_add(1);
  NoteFrontendPush();
  int granted = 0;
  {
    // Queuing on several vars must look atomic, or two pushers could queue in opposite
    // orders on two vars and wait for each other forever.
    std::unique_lock<common::SpinLock> lock(push_mu_, std::defer_lock);
    if (num_vars > 1) lock.lock();
    for (ThreadedVar* v : opr->const_vars) granted += v->AppendRead(b);
    for (ThreadedVar* v : opr->mutable_vars) granted += v->AppendWrite(b);
  }
  if (b->wait.fetch_sub(granted + 1, std::memory_order_acq_rel) == granted + 1) Dispatch(b, true);
}

void ThreadedEngine::PushAsync(AsyncFn exec_fun, Context exec_ctx,
                               const std::vector<VarHandle>& const_vars,
                               const std::vector<VarHandle>& mutable_vars, FnProperty prop,
                               int priority, const char* opr_name, bool /*wait*/) {
  CheckContext(exec_ctx, opr_name);
  FlushThreadBulk();
  ThreadedOpr* opr = NewOpr(const_vars.data(), const_vars.size(), mutable_vars.data(),
                            mutable_vars.size(), prop, opr_name);
  opr->fn = std::move(exec_fun);
  PushBlock(opr, exec_ctx, priority);
}

void ThreadedEngine::PushSyncImpl(SyncFn exec_fn, Context exec_ctx,
                                  const std::vector<VarHandle>& const_vars,
                                  const std::vector<VarHandle>& mutable_vars, FnProperty prop,
                                  int priority, const char* opr_name) {
  CheckContext(exec_ctx, opr_name);
  if (TryBulk(nullptr, &exec_fn, exec_ctx, const_vars.data(), const_vars.size(),
              mutable_vars.data(), mutable_vars.size(), prop, priority)) {
    return;
  }
  ThreadedOpr* opr = NewOpr(const_vars.data(), const_vars.size(), mutable_vars.data(),
                            mutable_vars.size(), prop, opr_name);
  opr->sync_fn = std::move(exec_fn);
  PushBlock(opr, exec_ctx, priority);
}

void ThreadedEngine::PushRawSync(RawSyncFn fn, Context exec_ctx, const VarHandle* const_vars,
                                 size_t num_const, const VarHandle* mutable_vars,
                                 size_t num_mutable, FnProperty prop, int priority,
                                 const char* opr_name) {
  try {
    CheckContext(exec_ctx, opr_name);
  } catch (...) {
    if (fn.release != nullptr) fn.release(fn.state);
    throw;
  }
  if (TryBulk(&fn, nullptr, exec_ctx, const_vars, num_const, mutable_vars, num_mutable, prop,
              priority)) {
    return;
  }
  ThreadedOpr* opr =
      NewOpr(const_vars, num_const, mutable_vars, num_mutable, prop, opr_name);
  opr->raw_fn = fn;
  PushBlock(opr, exec_ctx, priority);
}

OprHandle ThreadedEngine::NewOperator(AsyncFn fn, const std::vector<VarHandle>& const_vars,
                                      const std::vector<VarHandle>& mutable_vars,
                                      FnProperty prop, const char* opr_name, bool /*wait*/) {
  ThreadedOpr* opr = NewOpr(const_vars.data(), const_vars.size(), mutable_vars.data(),
                            mutable_vars.size(), prop, opr_name);
  opr->fn = std::move(fn);
  return opr;
}

void ThreadedEngine::Push(OprHandle op, Context exec_ctx, int priority, bool /*profiling*/) {
  ThreadedOpr* opr = ThreadedOpr::Cast(op);
  CheckContext(exec_ctx, opr->opr_name);
  FlushThreadBulk();
  opr->refs.fetch_add(1, std::memory_order_relaxed);
  PushBlock(opr, exec_ctx, priority);
}

void ThreadedEngine::DeleteOperator(OprHandle op) { ReleaseOpr(ThreadedOpr::Cast(op)); }

bool ThreadedEngine::DeleteVariableIfIdle(Context exec_ctx, VarHandle var) {
  // The common case: an array goes away after its last operation finished. Nothing can queue
  // on the var any more (its owner is deleting it), so an idle host var is deleted here rather
  // than through a push, a worker hand-off and a completion for every array. Device memory and
  // vars with queued uses go through the queue, which orders the delete after those uses.
  FlushThreadBulkUsing(var);  // a pending bulk of this thread that uses var: it runs first
  ThreadedVar* v = ThreadedVar::Cast(var);
  if (exec_ctx.dev_mask() != Context::kCPU || !v->IsIdle()) return false;
  v->ResetForReuse();
  ObjectPool<ThreadedVar>::Delete(v);
  return true;
}

void ThreadedEngine::DeleteVariable(SyncFn delete_fn, Context exec_ctx, VarHandle var) {
  CheckContext(exec_ctx, "DeleteVariable");
  FlushThreadBulkUsing(var);
  if (DeleteVariableIfIdle(exec_ctx, var)) {
    if (delete_fn) {
      RunContext run_ctx;
      run_ctx.ctx = exec_ctx;
      delete_fn(run_ctx);
    }
    return;
  }
  ThreadedOpr* opr = NewOpr(nullptr, 0, &var, 1, FnProperty::kDeleteVar, "DeleteVariable");
  opr->sync_fn = delete_fn ? std::move(delete_fn) : [](RunContext) {};
  opr->deletes_var = true;
  PushBlock(opr, exec_ctx, 0);
}

// ---- running and completing ----

void ThreadedEngine::Dispatch(OprBlock* b, bool pusher_thread) {
  if (b->opr->run_inline) {
    ExecuteOprBlock(b);
  } else {
    PushToExecute(b, pusher_thread);
  }
}

bool ThreadedEngine::RunsInCaller(const OprBlock* b, bool pusher_thread) const {
  if (workers_gone_.load(std::memory_order_acquire)) return true;
  if (!pusher_thread) return false;
  const FnProperty prop = b->opr->prop;
  return prop == FnProperty::kAsync ||
         (prop == FnProperty::kCPUSmall && b->ctx.dev_mask() == Context::kCPU);
}

bool ThreadedEngine::InsideOp() const { return tls_running_engine == this; }

void ThreadedEngine::ExecuteOprBlock(OprBlock* b) {
  ThreadedOpr* opr = b->opr;
  ErrorRef in_ex = FirstException(opr->const_vars);
  ErrorRef out_ex = in_ex ? nullptr : FirstException(opr->mutable_vars);
  const bool skip =
      (in_ex || out_ex) && opr->prop != FnProperty::kNoSkip && !opr->deletes_var;
  if (in_ex) {
    b->exception = std::move(in_ex);
  } else if (skip) {
    b->exception = std::move(out_ex);
  }
  if (skip) {
    Complete(b, nullptr, false);
    return;
  }
  if (OprHook start = g_start_hook.load(std::memory_order_relaxed)) {
    start(OprExecInfo{opr->opr_name, b->ctx, opr->prop, b, &opr->detail});
  }
  RunContext run_ctx;
  run_ctx.ctx = b->ctx;
  ThreadedEngine* outer = tls_running_engine;
  tls_running_engine = this;
  std::exception_ptr raised;
  try {
#if MXNET_USE_CUDA
    if (b->ctx.dev_mask() == Context::kGPU) {
      run_ctx.stream = b->stream = WorkerStream(b->ctx.dev_id);
    }
#endif
    if (opr->raw_fn.run != nullptr) {
      opr->raw_fn.run(run_ctx, opr->raw_fn.state);
    } else if (opr->sync_fn) {
      opr->sync_fn(run_ctx);
    } else {
      opr->fn(run_ctx, MakeCallback(&ThreadedEngine::OnCompleteStatic, b));
      tls_running_engine = outer;
      return;  // it completes through on_complete, now or later
    }
  } catch (...) {  // fn threw, so it did not call on_complete
    raised = CurrentAsDmlcError();
  }
  tls_running_engine = outer;
  Complete(b, std::move(raised), true);
}

void ThreadedEngine::OnCompleteStatic(Engine* engine, void* param, const dmlc::Error* error) {
  static_cast<ThreadedEngine*>(engine)->Complete(
      static_cast<OprBlock*>(param),
      error ? std::make_exception_ptr(*error) : std::exception_ptr(), true);
}

void ThreadedEngine::Complete(OprBlock* b, std::exception_ptr raised, bool ran) {
  ThreadedOpr* opr = b->opr;
#if MXNET_USE_CUDA
  if (b->stream != nullptr && !raised && opr->prop != FnProperty::kAsync) {
    try {
      SyncStream(b->stream);  // a sync fn only launched its kernels; finish them first
    } catch (...) {
      raised = CurrentAsDmlcError();
    }
  }
#endif
  if (raised) {
    b->exception = std::make_shared<EngineError>(std::move(raised));
    std::lock_guard<std::mutex> lock(raised_mu_);
    if (raised_.size() < 64) raised_.push_back(b->exception);
  }
  if (ran) {
    if (OprHook end = g_end_hook.load(std::memory_order_relaxed)) {
      end(OprExecInfo{opr->opr_name, b->ctx, opr->prop, b, &opr->detail});
    }
  }
  for (ThreadedVar* v : opr->const_vars) v->CompleteRead(this);
  for (ThreadedVar* v : opr->mutable_vars) {
    if (v->CompleteWrite(this, b->exception, opr->deletes_var)) {
      v->ResetForReuse();
      ObjectPool<ThreadedVar>::Delete(v);
    }
  }
  std::atomic<bool>* done = b->done;
  b->exception = nullptr;
  b->done = nullptr;
  b->stream = nullptr;
  b->opr = nullptr;
  ObjectPool<OprBlock>::Delete(b);
  ReleaseOpr(opr);
  if (done != nullptr) {
    std::lock_guard<std::mutex> lock(finished_mu_);
    done->store(true, std::memory_order_release);
    finished_cv_.notify_all();
  }
  int64_t pending = pending_ops_.load();
  while (pending > 1 && !pending_ops_.compare_exchange_weak(pending, pending - 1)) {
  }
  if (pending > 1) return;
  // The last unfinished op. Waiters count themselves in all_waiters_ before they look at
  // pending_ops_ (all seq_cst), so this thread either sees a waiter (and wakes it under
  // finished_mu_) or the waiter sees the count at zero and does not sleep. With a waiter
  // known beforehand the op leaves under finished_mu_, so that waiter may destroy the engine
  // as soon as it wakes; without one (inline ops run back to back) it takes no lock.
  if (all_waiters_.load() == 0) {
    pending_ops_.fetch_sub(1);
    if (all_waiters_.load() == 0) return;
    std::lock_guard<std::mutex> lock(finished_mu_);  // a waiter came meanwhile: wake it
    finished_cv_.notify_all();
    return;
  }
  std::lock_guard<std::mutex> lock(finished_mu_);
  pending_ops_.fetch_sub(1);
  finished_cv_.notify_all();
}

// ---- waiting and errors ----

void ThreadedEngine::WaitForAllInternal() {
  NoteFrontendWait();
  all_waiters_.fetch_add(1);
  {
    std::unique_lock<std::mutex> lock(finished_mu_);
    finished_cv_.wait(lock, [this] { return pending_ops_.load() == 0; });
  }
  all_waiters_.fetch_sub(1);
}

void ThreadedEngine::WaitUntilDone(std::atomic<bool>* done) {
  if (done->load(std::memory_order_acquire)) return;
  NoteFrontendWait();
  std::unique_lock<std::mutex> lock(finished_mu_);
  finished_cv_.wait(lock, [done] { return done->load(std::memory_order_acquire); });
}

void ThreadedEngine::Deliver(const ErrorRef& ex) {
  if (!ex || ex->reported.exchange(true)) return;
  {
    std::lock_guard<std::mutex> lock(raised_mu_);
    raised_.erase(std::remove(raised_.begin(), raised_.end(), ex), raised_.end());
  }
  std::rethrow_exception(ex->ex);
}

void ThreadedEngine::RethrowFirstRaised() {
  std::exception_ptr first;
  {
    std::lock_guard<std::mutex> lock(raised_mu_);
    for (const ErrorRef& e : raised_) {
      if (!e->reported.exchange(true) && !first) first = e->ex;
    }
    raised_.clear();
  }
  if (first) std::rethrow_exception(first);
}

void ThreadedEngine::WaitForVar(VarHandle var) {
  FlushThreadBulkUsing(var);
  ThreadedVar* v = ThreadedVar::Cast(var);
  if (v->HasPendingWrite()) {
    VarWaiter waiter;
    ThreadedOpr* opr = NewOpr(&var, 1, nullptr, 0, FnProperty::kNoSkip, "WaitForVar");
    opr->sync_fn = [&waiter](RunContext) { waiter.Signal(); };
    opr->run_inline = true;
    PushBlock(opr, Context::CPU(), 0);
    NoteFrontendWait();
    waiter.Wait();
  }
  Deliver(v->TakeException());
}

void ThreadedEngine::WaitForAll() {
  if (InsideOp()) {
    LOG(FATAL) << "WaitForAll() was called from inside an operation running on " << Type()
               << "; it would wait for that operation itself";
  }
  FlushThreadBulk();
  WaitForAllInternal();
  RethrowFirstRaised();
}

void ThreadedEngine::Throw(VarHandle var) { Deliver(ThreadedVar::Cast(var)->TakeException()); }

// ---- lifetime ----

void ThreadedEngine::Stop() {
  if (shutdown_.load()) return;
  if (InsideOp()) {
    LOG(WARNING) << Type() << ": Stop() from inside an operation cannot wait for it; ignored";
    return;
  }
  FlushThreadBulk();
  WaitForAllInternal();
  StopWorkers();
}

void ThreadedEngine::Start() {
  if (!shutdown_.load()) StartWorkers();
}

void ThreadedEngine::NotifyShutdown() {
  if (shutdown_.exchange(true)) return;
  UnregisterForFork(this);
  if (InsideOp()) return;  // exit() from inside an op: the workers stay; nothing waits
  FlushThreadBulk();
  StartWorkers();          // after a Stop(), queued work still needs them to finish
  WaitForAllInternal();
  workers_gone_.store(true, std::memory_order_release);  // later pushes run in their caller
  StopWorkers();
}

}  // namespace engine
}  // namespace mxnet
