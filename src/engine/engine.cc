// Engine::Get/Create: choosing the engine, its process-wide instance, exit and fork handling.
#include <pthread.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "common/env.h"
#include "mxnet/libinfo.h"
#include "engine/threaded_engine.h"

namespace mxnet {
namespace engine {
namespace {

// Engines with worker threads. fork() copies only the forking thread, so before it every
// engine finishes its work and joins its workers; afterwards parent and child start fresh
// ones. Never destroyed: engines may unregister during static destruction.
struct ForkRegistry {
  std::mutex mu;
  std::vector<ThreadedEngine*> engines;
};

ForkRegistry& Registry() {
  static ForkRegistry* registry = new ForkRegistry();
  return *registry;
}

void PrepareFork() {
  ForkRegistry& r = Registry();
  r.mu.lock();  // held until the fork is over, so the set of engines cannot change
  for (ThreadedEngine* e : r.engines) e->Stop();
  LockPoolsForFork();
}

void AfterForkInParent() {
  UnlockPoolsAfterFork();
  ForkRegistry& r = Registry();
  for (ThreadedEngine* e : r.engines) e->Start();
  r.mu.unlock();
}

// A forked child is usually one of several workers (a DataLoader's): as in MXNet, it gets
// MXNET_MP_WORKER_NTHREADS engine threads and one OpenMP thread, so N workers do not each
// claim every core.
void AfterForkInChild() {
  UnlockPoolsAfterFork();
  const int nthreads = static_cast<int>(std::max<int64_t>(1, env::GetInt("MXNET_MP_WORKER_NTHREADS")));
  SetNumOMPThreads(1);
  ForkRegistry& r = Registry();
  for (ThreadedEngine* e : r.engines) {
    e->UseCpuWorkerThreads(nthreads);
    e->Start();
  }
  r.mu.unlock();
}

// Stops the process-wide engine's workers during static destruction. The engine object
// itself is never freed, so code in later static destructors can still push (it then runs
// in the pushing thread) and workers never touch freed memory.
struct ShutdownAtExit {
  Engine* engine;
  ~ShutdownAtExit() { engine->NotifyShutdown(); }
};

}  // namespace

void RegisterForFork(ThreadedEngine* engine) {
  static std::once_flag once;
  std::call_once(once, [] { pthread_atfork(PrepareFork, AfterForkInParent, AfterForkInChild); });
  ForkRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.engines.push_back(engine);
}

void UnregisterForFork(ThreadedEngine* engine) {
  ForkRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.engines.erase(std::remove(r.engines.begin(), r.engines.end(), engine), r.engines.end());
}

}  // namespace engine

std::unique_ptr<Engine> Engine::Create(const char* type) {
  std::string name = type ? type : "";
  const std::string suffix = "Async";  // MXNet's async variants: the same engines here
  if (name.size() > suffix.size() &&
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
    name.resize(name.size() - suffix.size());
  }
  if (name == "NaiveEngine") return engine::CreateNaiveEngine();
  if (name == "ThreadedEngine") return engine::CreateThreadedEnginePooled();
  if (name == "ThreadedEnginePerDevice") return engine::CreateThreadedEnginePerDevice();
  LOG(FATAL) << "unknown engine type '" << (type ? type : "(null)")
             << "': expected NaiveEngine, ThreadedEngine or ThreadedEnginePerDevice "
                "(optionally with an Async suffix)";
  return nullptr;
}

std::shared_ptr<Engine> Engine::_GetSharedRef() {
  static std::shared_ptr<Engine>* engine = new std::shared_ptr<Engine>(
      Create(env::GetString("MXNET_ENGINE_TYPE").c_str()));  // never freed, see ShutdownAtExit
  static engine::ShutdownAtExit shutdown_at_exit{engine->get()};
  return *engine;
}

Engine* Engine::Get() {
  static Engine* engine = _GetSharedRef().get();
  return engine;
}

}  // namespace mxnet
