// Dependency engine: runs pushed functions asynchronously in an order that respects
// the variables each one reads (const) and writes (mutable).
#ifndef MXNET_ENGINE_H_
#define MXNET_ENGINE_H_

#include <dmlc/logging.h>

#include <functional>
#include <memory>
#include <vector>

#include "mxnet/base.h"

namespace mxnet {

namespace engine {
/*! \brief Opaque variable: a version counter plus the queue of operations that use it. */
struct Var {
  virtual ~Var() = default;
};
/*! \brief Opaque reusable operator (a function with fixed variables). */
struct Opr {
  virtual ~Opr() = default;
};
}  // namespace engine

using VarHandle = engine::Var*;
using OprHandle = engine::Opr*;

/*! \brief What kind of work an operation is; picks the worker pool that runs it. */
enum class FnProperty {
  kNormal = 0,          // computation on the exec context
  kCopyFromGPU = 1,     // device -> host copy
  kCopyToGPU = 2,       // host -> device copy
  kCPUPrioritized = 3,  // small CPU work that should not queue behind computation
  kAsync = 4,           // function returns at once and calls on_complete later itself
  kDeleteVar = 5,       // deletes a variable
  kGPUPrioritized = 6,
  kNoSkip = 7,          // runs even if an input holds an exception
  // Small CPU computation: runs in the pushing thread when its variables are free at push
  // time (a hand-off to a worker would cost more than the work), else as kNormal.
  kCPUSmall = 8,
};

class Engine;

/*! \brief Called exactly once by an async function when its work is finished.
 *  Passing an error marks the operation failed, as if it had thrown. */
class CallbackOnComplete {
 public:
  void operator()(const dmlc::Error* error = nullptr) const { (*callback_)(engine_, param_, error); }

 private:
  friend class Engine;
  void (*callback_)(Engine*, void*, const dmlc::Error*){nullptr};
  Engine* engine_{nullptr};
  void* param_{nullptr};
};

class Engine {
 public:
  using SyncFn = std::function<void(RunContext)>;
  using AsyncFn = std::function<void(RunContext, CallbackOnComplete)>;

  virtual ~Engine() = default;

  /*! \brief Wait for all work and stop accepting more; called at process shutdown. */
  virtual void NotifyShutdown() = 0;
  /*! \brief Stop worker threads after finishing all work (before fork). */
  virtual void Stop() {}
  /*! \brief Restart worker threads (after fork, in parent and child). */
  virtual void Start() {}

  virtual VarHandle NewVariable() = 0;
  /*! \brief A variable that only orders the ops writing it (a resource such as temp space):
   *  errors of those ops stay on their other variables, so one failure does not stop the
   *  resource's later users. */
  virtual VarHandle NewResourceVariable() = 0;
  /*! \brief Create a reusable operator; the vars must be distinct between the two lists. */
  virtual OprHandle NewOperator(AsyncFn fn, const std::vector<VarHandle>& const_vars,
                                const std::vector<VarHandle>& mutable_vars,
                                FnProperty prop = FnProperty::kNormal,
                                const char* opr_name = nullptr, bool wait = false) = 0;
  /*! \brief Delete an operator once every pushed instance of it has run. */
  virtual void DeleteOperator(OprHandle op) = 0;
  virtual void Push(OprHandle op, Context exec_ctx, int priority = 0, bool profiling = false) = 0;
  /*!
   * \brief Schedule fn to run once every earlier write to const_vars and every earlier read
   * or write of mutable_vars is done. A var appearing in both lists is treated as mutable;
   * duplicates are allowed. opr_name must outlive the operation (a string literal or an op
   * registry name). An exception thrown by fn (or passed to on_complete) is stored on every
   * mutable var; ops that read such a var do not run and pass the exception on.
   */
  virtual void PushAsync(AsyncFn exec_fun, Context exec_ctx,
                         const std::vector<VarHandle>& const_vars,
                         const std::vector<VarHandle>& mutable_vars,
                         FnProperty prop = FnProperty::kNormal, int priority = 0,
                         const char* opr_name = nullptr, bool wait = false) = 0;
  /*!
   * \brief A synchronous function as a plain pointer and its state, for pushes that must not
   * allocate (the imperative hot path). run(ctx, state) is called at most once; release(state)
   * exactly once, when the engine no longer needs state: after run returned or threw, or
   * instead of run when the op is skipped because an input holds an error.
   */
  struct RawSyncFn {
    void (*run)(RunContext ctx, void* state){nullptr};
    void (*release)(void* state){nullptr};
    void* state{nullptr};
  };
  /*! \brief PushSync for a RawSyncFn, with the variables as arrays (same rules). */
  virtual void PushRawSync(RawSyncFn fn, Context exec_ctx, const VarHandle* const_vars,
                           size_t num_const, const VarHandle* mutable_vars, size_t num_mutable,
                           FnProperty prop = FnProperty::kNormal, int priority = 0,
                           const char* opr_name = nullptr) = 0;
  /*!
   * \brief Delete var at once when nothing is queued on it and exec_ctx is a CPU (the common
   *  end of an array); returns whether it did. When it did, whatever the var guarded may be
   *  freed by the caller right away; when not, nothing happened (use DeleteVariable).
   */
  virtual bool DeleteVariableIfIdle(Context exec_ctx, VarHandle var) { return false; }
  /*! \brief Delete var after every pending operation on it, then run delete_fn. */
  virtual void DeleteVariable(SyncFn delete_fn, Context exec_ctx, VarHandle var) = 0;
  /*! \brief Block until every operation pushed so far that writes var is done; rethrows
   *  (and clears) an exception stored on var as dmlc::Error. */
  virtual void WaitForVar(VarHandle var) = 0;
  /*! \brief Block until every pushed operation is done; rethrows the first exception that
   *  any operation raised since the last WaitForAll (and clears them). */
  virtual void WaitForAll() = 0;
  /*! \brief Rethrow the exception stored on var, if any, without waiting. */
  virtual void Throw(VarHandle var) = 0;
  /*! \brief Number of operations that may be bulked into one; returns the previous value. */
  virtual int set_bulk_size(int size) { int old = bulk_size_; bulk_size_ = size; return old; }
  int bulk_size() const { return bulk_size_; }
  /*! \brief Name of the concrete engine ("NaiveEngine", "ThreadedEngine", ...). */
  virtual const char* Type() const = 0;

  /*! \brief Push a synchronous function; see PushAsync. */
  void PushSync(SyncFn exec_fn, Context exec_ctx, const std::vector<VarHandle>& const_vars,
                const std::vector<VarHandle>& mutable_vars, FnProperty prop = FnProperty::kNormal,
                int priority = 0, const char* opr_name = nullptr) {
    PushSyncImpl(std::move(exec_fn), exec_ctx, const_vars, mutable_vars, prop, priority,
                 opr_name);
  }

  /*! \brief The process-wide engine, created on first use from MXNET_ENGINE_TYPE. */
  static Engine* Get();
  static std::shared_ptr<Engine> _GetSharedRef();
  /*! \brief Create an engine of the given type ("NaiveEngine", "ThreadedEngine",
   *  "ThreadedEnginePerDevice", optionally with an "Async" suffix); for tests. */
  static std::unique_ptr<Engine> Create(const char* type);

 protected:
  /*! \brief PushSync's implementation; an engine may keep the function as it is instead of
   *  wrapping it in an AsyncFn (which costs a heap allocation per push). */
  virtual void PushSyncImpl(SyncFn exec_fn, Context exec_ctx,
                            const std::vector<VarHandle>& const_vars,
                            const std::vector<VarHandle>& mutable_vars, FnProperty prop,
                            int priority, const char* opr_name) {
    PushAsync(
        [fn = std::move(exec_fn)](RunContext ctx, CallbackOnComplete on_complete) {
          fn(ctx);
          on_complete();
        },
        exec_ctx, const_vars, mutable_vars, prop, priority, opr_name);
  }
  CallbackOnComplete MakeCallback(void (*callback)(Engine*, void*, const dmlc::Error*),
                                  void* param) {
    CallbackOnComplete ret;
    ret.callback_ = callback;
    ret.engine_ = this;
    ret.param_ = param;
    return ret;
  }

 private:
  int bulk_size_{0};
};

}  // namespace mxnet

#endif  // MXNET_ENGINE_H_
