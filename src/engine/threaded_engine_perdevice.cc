// ThreadedEnginePerDevice (the default): separate worker pools per device and kind of work.
#include <algorithm>
#include <array>
#include <memory>
#include <mutex>
#include <vector>

#include "common/env.h"
#include "mxnet/cuda_config.h"
#include "engine/thread_pool.h"
#include "engine/threaded_engine.h"

namespace mxnet {
namespace engine {
namespace {

int ThreadCount(const char* env_name) {
  return static_cast<int>(std::max<int64_t>(1, env::GetInt(env_name)));
}

/*!
 * \brief Pools, each created on first use:
 *  - per CPU device id: MXNET_CPU_WORKER_NTHREADS workers for ordinary CPU ops;
 *  - one pool of MXNET_CPU_PRIORITY_NTHREADS workers for FnProperty::kCPUPrioritized;
 *  - per GPU (CUDA builds): MXNET_GPU_WORKER_NTHREADS workers for computation and
 *    MXNET_GPU_COPY_NTHREADS workers for kCopyToGPU/kCopyFromGPU.
 * Async functions (they return at once) and kCPUSmall ops ready at push time run in the
 * pushing thread.
 */
class ThreadedEnginePerDevice final : public ThreadedEngine {
 public:
  ThreadedEnginePerDevice()
      : cpu_worker_nthreads_(ThreadCount("MXNET_CPU_WORKER_NTHREADS")),
        cpu_priority_nthreads_(ThreadCount("MXNET_CPU_PRIORITY_NTHREADS")) {
#if MXNET_USE_CUDA
    gpu_worker_nthreads_ = ThreadCount("MXNET_GPU_WORKER_NTHREADS");
    gpu_copy_nthreads_ = ThreadCount("MXNET_GPU_COPY_NTHREADS");
    if (env::GetInt("MXNET_GPU_WORKER_NSTREAMS") != 1) {
      LOG(WARNING) << "MXNET_GPU_WORKER_NSTREAMS=" << env::GetInt("MXNET_GPU_WORKER_NSTREAMS")
                   << " is ignored: each GPU worker uses one stream per GPU";
    }
#endif
    RegisterForFork(this);
  }
  ~ThreadedEnginePerDevice() override { NotifyShutdown(); }
  const char* Type() const override { return "ThreadedEnginePerDevice"; }

 protected:
  void PushToExecute(OprBlock* b, bool pusher_thread) override {
    if (RunsInCaller(b, pusher_thread)) {
      ExecuteOprBlock(b);
      return;
    }
    const Context ctx = b->ctx;
    const FnProperty prop = b->opr->prop;
#if MXNET_USE_CUDA
    if (ctx.dev_mask() == Context::kGPU) {
      if (prop == FnProperty::kCopyToGPU || prop == FnProperty::kCopyFromGPU) {
        GetPool(&gpu_copy_pools_[ctx.dev_id], gpu_copy_nthreads_)->Push(b);
      } else {
        GetPool(&gpu_pools_[ctx.dev_id], gpu_worker_nthreads_)->Push(b);
      }
      return;
    }
#endif
    if (prop == FnProperty::kCPUPrioritized) {
      GetPool(&cpu_priority_pool_, cpu_priority_nthreads_)->Push(b);
    } else {
      GetPool(&cpu_pools_[ctx.dev_id], cpu_worker_nthreads_)->Push(b);
    }
  }

  void StartWorkers() override {
    for (WorkerPool* p : AllPools()) p->Start();
  }
  void StopWorkers() override {
    for (WorkerPool* p : AllPools()) p->Stop();
  }
  void UseCpuWorkerThreads(int n) override {
    cpu_worker_nthreads_ = n;
    for (PoolSlot& slot : cpu_pools_) {
      if (WorkerPool* pool = slot.load(std::memory_order_acquire)) pool->set_nthreads(n);
    }
  }

 private:
  using PoolSlot = std::atomic<WorkerPool*>;

  WorkerPool* GetPool(PoolSlot* slot, int nthreads) {
    WorkerPool* pool = slot->load(std::memory_order_acquire);
    if (pool != nullptr) return pool;
    std::lock_guard<std::mutex> lock(pools_mu_);
    pool = slot->load(std::memory_order_relaxed);
    if (pool == nullptr) {
      pools_.push_back(std::make_unique<WorkerPool>(this, nthreads));
      pool = pools_.back().get();
      slot->store(pool, std::memory_order_release);
    }
    return pool;
  }

  // Stopping joins threads whose ops may create pools: never hold pools_mu_ meanwhile.
  std::vector<WorkerPool*> AllPools() {
    std::lock_guard<std::mutex> lock(pools_mu_);
    std::vector<WorkerPool*> all;
    for (auto& p : pools_) all.push_back(p.get());
    return all;
  }

  int cpu_worker_nthreads_;
  const int cpu_priority_nthreads_;
  std::array<PoolSlot, kMaxDevices> cpu_pools_{};
  PoolSlot cpu_priority_pool_{nullptr};
#if MXNET_USE_CUDA
  int gpu_worker_nthreads_;
  int gpu_copy_nthreads_;
  std::array<PoolSlot, kMaxDevices> gpu_pools_{};
  std::array<PoolSlot, kMaxDevices> gpu_copy_pools_{};
#endif
  std::mutex pools_mu_;
  std::vector<std::unique_ptr<WorkerPool>> pools_;  // owns every pool made so far
};

}  // namespace

std::unique_ptr<Engine> CreateThreadedEnginePerDevice() {
  return std::make_unique<ThreadedEnginePerDevice>();
}

}  // namespace engine
}  // namespace mxnet
