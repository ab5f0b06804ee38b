// ThreadedEngine (MXNet's ThreadedEnginePooled): one shared worker pool for every device.
#include <algorithm>

#include "common/env.h"
#include "engine/thread_pool.h"
#include "engine/threaded_engine.h"

namespace mxnet {
namespace engine {
namespace {

/*!
 * \brief All ops, whatever their device or property, run on one pool of
 * MXNET_CPU_WORKER_NTHREADS + MXNET_CPU_PRIORITY_NTHREADS threads (at least 2), highest
 * priority first. Async functions and kCPUSmall ops run in the pushing
 * thread when ready at push time.
 */
class ThreadedEnginePooled final : public ThreadedEngine {
 public:
  ThreadedEnginePooled()
      : pool_(this, static_cast<int>(std::max<int64_t>(
                        2, env::GetInt("MXNET_CPU_WORKER_NTHREADS") +
                               env::GetInt("MXNET_CPU_PRIORITY_NTHREADS")))) {
    RegisterForFork(this);
  }
  ~ThreadedEnginePooled() override { NotifyShutdown(); }
  const char* Type() const override { return "ThreadedEngine"; }

 protected:
  void PushToExecute(OprBlock* b, bool pusher_thread) override {
    if (RunsInCaller(b, pusher_thread)) {
      ExecuteOprBlock(b);
    } else {
      pool_.Push(b);
    }
  }
  void StartWorkers() override { pool_.Start(); }
  void StopWorkers() override { pool_.Stop(); }
  void UseCpuWorkerThreads(int n) override { pool_.set_nthreads(std::max(2, n)); }

 private:
  WorkerPool pool_;
};

}  // namespace

std::unique_ptr<Engine> CreateThreadedEnginePooled() {
  return std::make_unique<ThreadedEnginePooled>();
}

}  // namespace engine
}  // namespace mxnet
