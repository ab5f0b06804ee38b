// Dependency core shared by every engine: versioned variables, operation blocks, scheduling.
//
// The rule: each variable keeps its uses in push order. Reads with no earlier pending write
// run at once and concurrently; a write waits until every earlier read and write of the var
// is done and holds back every later use. An operation block counts the vars that have not
// yet granted it; when the count reaches zero the engine variant runs it (inline for
// NaiveEngine, on a worker pool for the threaded engines).
//
// Errors: a var's exception is that of its last write. An op first looks at its vars: if one
// holds an exception it does not run (unless FnProperty::kNoSkip or it deletes the var) and
// its writes carry that exception on; otherwise a failing fn stores its error on every var it
// writes, and a successful fn with clean inputs clears them. An error is one shared object
// however many vars it reaches (as in MXNet), and it is reported once: by WaitForVar/Throw on
// any var holding it or, failing that, by the next WaitForAll. Once reported, every var
// holding it reads clean.
#ifndef MXNET_ENGINE_THREADED_ENGINE_H_
#define MXNET_ENGINE_THREADED_ENGINE_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <vector>

#include "common/spin_lock.h"
#include "engine/opr_hooks.h"
#include "mxnet/engine.h"

namespace mxnet {
namespace engine {

/*! \brief Device ids accepted per device type (worker pools are looked up by index). */
constexpr int kMaxDevices = 64;

struct ThreadedOpr;
class ThreadedEngine;
struct BulkState;

/*! \brief One error raised by an op, shared by every var and op it reaches. */
struct EngineError {
  explicit EngineError(std::exception_ptr e) : ex(std::move(e)) {}
  std::exception_ptr ex;
  std::atomic<bool> reported{false};
};
using ErrorRef = std::shared_ptr<EngineError>;

/*! \brief One pushed instance of an operation; `wait` counts grants still missing. */
struct OprBlock {
  std::atomic<int> wait{0};
  ThreadedOpr* opr{nullptr};
  Context ctx;
  int priority{0};
  uint64_t seq{0};                   // FIFO order among equal priorities in a worker queue
  void* stream{nullptr};             // CUDA stream it ran on (GPU ops only)
  ErrorRef exception;                // raised by it, or taken from a poisoned var
  std::atomic<bool>* done{nullptr};  // set on completion when someone waits for this block
  OprBlock* next{nullptr};           // link in a worker queue
  OprBlock* pool_next{nullptr};
};

/*! \brief One queued use of a variable: the operation and whether it writes. */
struct VersionedVarBlock {
  VersionedVarBlock* next{nullptr};
  OprBlock* trigger{nullptr};
  bool write{false};
  VersionedVarBlock* pool_next{nullptr};
};

/*!
 * \brief A variable: granted reads are counted, everything from the first waiting write on
 * is a linked queue ending in an empty tail block (head_) where the next use is appended.
 */
class ThreadedVar final : public Var {
 public:
  ThreadedVar();
  static ThreadedVar* Cast(VarHandle v) { return static_cast<ThreadedVar*>(v); }

  /*! \brief Queue a read/write by b; true when granted at once. */
  bool AppendRead(OprBlock* b);
  bool AppendWrite(OprBlock* b);
  /*! \brief A granted read finished; may grant the next write. */
  void CompleteRead(ThreadedEngine* engine);
  /*!
   * \brief The granted write finished with exception ex (null = clean); grants the reads
   * queued after it, or the next write. True when the var was deleted and can be recycled.
   */
  bool CompleteWrite(ThreadedEngine* engine, const ErrorRef& ex, bool to_delete);
  /*! \brief True while some write of this var is queued or running. */
  bool HasPendingWrite();
  /*! \brief True when no read or write of this var is queued or running. */
  bool IsIdle();
  /*! \brief The var's error unless some wait has reported it already (then it reads clean). */
  ErrorRef PeekException();
  ErrorRef TakeException();  // returns it and clears the var
  /*! \brief Content stamp: changes with every completed write and differs from every
   *  stamp any var had before (a global counter), so (stamp) names one state of one var. */
  uint64_t version();
  /*! \brief A new content stamp, by the holder of the var's write grant (a bulk after each of
   *  its ops: threaded_engine_bulk.cc). */
  void NewVersion();
  void ResetForReuse();
  /*! \brief false: the var orders its users but never keeps an error (resources). */
  void set_keeps_errors(bool keeps) { keeps_errors_ = keeps; }

  ThreadedVar* pool_next{nullptr};

 private:
  static constexpr int kWriteGranted = -1;
  common::SpinLock mu_;  // held for a few pointer updates only
  int num_pending_reads_{0};  // granted, unfinished reads; kWriteGranted while a write runs
  VersionedVarBlock* head_;
  VersionedVarBlock* pending_write_{nullptr};  // first write not yet finished
  uint64_t version_{0};
  ErrorRef exception_;
  std::atomic<bool> has_exception_{false};
  bool keeps_errors_{true};
};

/*! \brief An operation: its function and deduplicated vars (a var in both lists is mutable). */
struct ThreadedOpr final : public Opr {
  Engine::AsyncFn fn;
  Engine::SyncFn sync_fn;  // set instead of fn by PushSync: runs, then completes at once
  Engine::RawSyncFn raw_fn;  // set instead of both by PushRawSync
  std::vector<ThreadedVar*> const_vars;
  std::vector<ThreadedVar*> mutable_vars;
  FnProperty prop{FnProperty::kNormal};
  const char* opr_name{nullptr};
  std::shared_ptr<const OprDetail> detail;  // see SetNextOprDetail; usually null
  bool deletes_var{false};   // DeleteVariable: recycle the mutable var when done
  bool run_inline{false};    // engine-internal signal: run in the thread that makes it ready
  std::atomic<int> refs{0};  // the handle of a reusable op + each unfinished pushed instance
  ThreadedOpr* pool_next{nullptr};
  static ThreadedOpr* Cast(OprHandle h) { return static_cast<ThreadedOpr*>(h); }
};

/*! \brief The dependency engine; variants only decide where a ready op runs. */
class ThreadedEngine : public Engine {
 public:
  ThreadedEngine();
  ~ThreadedEngine() override;

  void NotifyShutdown() override;
  void Stop() override;
  void Start() override;
  /*! \brief While stopped (a forked child, before Start): CPU worker threads per pool. */
  virtual void UseCpuWorkerThreads(int) {}
  VarHandle NewVariable() override;
  VarHandle NewResourceVariable() override;
  OprHandle NewOperator(AsyncFn fn, const std::vector<VarHandle>& const_vars,
                        const std::vector<VarHandle>& mutable_vars, FnProperty prop,
                        const char* opr_name, bool wait) override;
  void DeleteOperator(OprHandle op) override;
  void Push(OprHandle op, Context exec_ctx, int priority, bool profiling) override;
  void PushAsync(AsyncFn exec_fun, Context exec_ctx, const std::vector<VarHandle>& const_vars,
                 const std::vector<VarHandle>& mutable_vars, FnProperty prop, int priority,
                 const char* opr_name, bool wait) override;
  void PushRawSync(RawSyncFn fn, Context exec_ctx, const VarHandle* const_vars, size_t num_const,
                   const VarHandle* mutable_vars, size_t num_mutable, FnProperty prop,
                   int priority, const char* opr_name) override;
  bool DeleteVariableIfIdle(Context exec_ctx, VarHandle var) override;
  void DeleteVariable(SyncFn delete_fn, Context exec_ctx, VarHandle var) override;
  /*! \brief Threaded engines: calling this from inside an op is allowed but deadlocks when
   *  var's pending writes wait for that op (directly, or for a worker it occupies). */
  void WaitForVar(VarHandle var) override;
  /*! \brief Raises dmlc::Error when called from inside an op of this engine. */
  void WaitForAll() override;
  void Throw(VarHandle var) override;
  /*!
   * \brief The calling thread's bulk size (threaded_engine_bulk.cc): while it is above 0,
   * consecutive synchronous ops (all kNormal or all kCPUSmall, priority 0, one context) that
   * this thread pushes are gathered into one pending op, pushed when it holds `size` ops, when
   * this thread pushes an op that cannot join, waits for a var it uses, waits for all,
   * deletes a var it uses or changes the size. Returns this thread's previous size.
   */
  int set_bulk_size(int size) override;

  /*! \brief One dependency of b was granted; runs or queues b when it was the last. */
  void OnDepReady(OprBlock* b) {
    if (b->wait.fetch_sub(1, std::memory_order_acq_rel) == 1) Dispatch(b, false);
  }
  /*! \brief Run b in this thread (skipping fn when an input is poisoned). */
  void ExecuteOprBlock(OprBlock* b);

 protected:
  void PushSyncImpl(SyncFn exec_fn, Context exec_ctx, const std::vector<VarHandle>& const_vars,
                    const std::vector<VarHandle>& mutable_vars, FnProperty prop, int priority,
                    const char* opr_name) override;
  /*! \brief Run or queue a ready op; pusher_thread is true inside the Push call itself. */
  virtual void PushToExecute(OprBlock* b, bool pusher_thread) = 0;
  virtual void StartWorkers() {}
  virtual void StopWorkers() {}
  /*! \brief True when a ready op should run in the calling thread, not on a worker. */
  bool RunsInCaller(const OprBlock* b, bool pusher_thread) const;
  /*! \brief True while this thread runs an op's function for this engine. */
  bool InsideOp() const;
  /*! \brief Block until no pushed op is unfinished; never throws. */
  void WaitForAllInternal();
  /*! \brief Block until *done becomes true (set by Complete). */
  void WaitUntilDone(std::atomic<bool>* done);
  /*! \brief Rethrow ex (if set and not reported yet) as the error of a wait, marking it
   *  reported: every var holding it reads clean from then on. */
  void Deliver(const ErrorRef& ex);
  /*! \brief Rethrow the first unreported error since the last call; all become reported. */
  void RethrowFirstRaised();
  /*! \brief False for engines that never bulk (NaiveEngine). */
  virtual bool CanBulk() const { return true; }

 private:
  void Dispatch(OprBlock* b, bool pusher_thread);
  /*! \brief An operation with deduplicated vars and no function yet; take_detail: it gets
   *  what SetNextOprDetail attached (else that stays for the next op). */
  ThreadedOpr* NewOpr(const VarHandle* const_vars, size_t num_const,
                      const VarHandle* mutable_vars, size_t num_mutable, FnProperty prop,
                      const char* opr_name, bool take_detail = true);
  void ReleaseOpr(ThreadedOpr* opr);
  void CheckContext(Context ctx, const char* opr_name) const;
  void PushBlock(ThreadedOpr* opr, Context ctx, int priority);
  void Complete(OprBlock* b, std::exception_ptr raised, bool ran);
  static void OnCompleteStatic(Engine* engine, void* param, const dmlc::Error* error);
  // ---- bulking (threaded_engine_bulk.cc) ----
  /*! \brief Append the op to this thread's bulk when it may join one (true: taken; fn/raw
   *  moved from); else push out a pending bulk of this thread and return false. */
  bool TryBulk(RawSyncFn* raw, SyncFn* fn, Context ctx, const VarHandle* const_vars,
               size_t num_const, const VarHandle* mutable_vars, size_t num_mutable,
               FnProperty prop, int priority);
  /*! \brief Push this thread's pending bulk when it is this engine's. */
  void FlushThreadBulk();
  /*! \brief Push this thread's pending bulk when it uses var. */
  void FlushThreadBulkUsing(VarHandle var);
  /*! \brief Push state's gathered ops as one op of this engine and empty it. */
  void PushBulk(BulkState* state);
  friend struct BulkState;

  std::atomic<int64_t> pending_ops_{0};
  std::atomic<int> all_waiters_{0};
  std::mutex finished_mu_;
  std::condition_variable finished_cv_;
  common::SpinLock push_mu_;  // makes multi-var pushes atomic so push order is one total order
  std::mutex raised_mu_;
  std::vector<ErrorRef> raised_;  // errors raised by ops since the last WaitForAll
  std::atomic<bool> shutdown_{false};
  std::atomic<bool> workers_gone_{false};  // after shutdown every op runs in its caller
};

/*! \brief True while the profiler's operator hooks are installed (ops are then not bulked). */
bool OprHooksInstalled();
/*! \brief Return this thread's cached pool objects (worker threads call it when exiting). */
void FlushThreadCaches();
/*! \brief Hold the shared pool lists across fork() (after the engines have stopped). */
void LockPoolsForFork();
void UnlockPoolsAfterFork();
/*! \brief Threaded engines register so fork() stops and restarts their workers. */
void RegisterForFork(ThreadedEngine* engine);
void UnregisterForFork(ThreadedEngine* engine);

std::unique_ptr<Engine> CreateNaiveEngine();
std::unique_ptr<Engine> CreateThreadedEnginePooled();
std::unique_ptr<Engine> CreateThreadedEnginePerDevice();

}  // namespace engine
}  // namespace mxnet

#endif  // MXNET_ENGINE_THREADED_ENGINE_H_
