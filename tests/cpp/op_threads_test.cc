// OpenMP thread counts of operations run by engine workers (engine/op_threads.h).
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <thread>

#if MXNET_USE_OPENMP
#include <omp.h>
#endif

#include "common/env.h"
#include "engine/op_threads.h"
#include "mxnet/engine.h"

namespace mxnet {
namespace {

TEST(OpThreads, RuleLeavesFrontendACoreAndNeverGoesBelowOne) {
  EXPECT_EQ(engine::OpThreadCount(2, 2, false), 2);
  EXPECT_EQ(engine::OpThreadCount(2, 2, true), 1);
  EXPECT_EQ(engine::OpThreadCount(8, 3, false), 3);  // other processes hold 5 cores
  EXPECT_EQ(engine::OpThreadCount(8, 3, true), 2);
  EXPECT_EQ(engine::OpThreadCount(4, 16, true), 3);  // never above the configured count
  EXPECT_EQ(engine::OpThreadCount(1, 4, true), 1);
  EXPECT_EQ(engine::OpThreadCount(2, 1, true), 1);
}

TEST(OpThreads, FrontendPushesMarkItBusyAndWaitsClearIt) {
  engine::NoteFrontendPush();
  EXPECT_GT(engine::LastFrontendPushNs(), 0);
  engine::NoteFrontendWait();
  EXPECT_EQ(engine::LastFrontendPushNs(), 0);
  std::thread worker([] {  // a worker's pushes (ops pushing ops) are not the frontend's
    engine::MarkWorkerThread();
    engine::NoteFrontendPush();
  });
  worker.join();
  EXPECT_EQ(engine::LastFrontendPushNs(), 0);
}

#if MXNET_USE_OPENMP
// With MXNET_OMP_ADAPTIVE_THREADS=0 an operation on a worker uses exactly the configured count,
// which SetNumOMPThreads (mx.util.set_num_omp_threads) changes for the workers too.
TEST(OpThreads, WorkersUseTheConfiguredCountWhenNotAdaptive) {
  setenv("MXNET_OMP_ADAPTIVE_THREADS", "0", 1);
  env::ResetCache();
  const int before = engine::OpThreadsBase();
  std::unique_ptr<Engine> eng(Engine::Create("ThreadedEnginePerDevice"));
  VarHandle v = eng->NewVariable();
  for (int want : {1, 3, 2}) {
    engine::SetOpThreadsBase(want);
    int seen = 0;
    eng->PushSync([&seen](RunContext) { seen = omp_get_max_threads(); }, Context::CPU(), {},
                  {v});
    eng->WaitForAll();
    EXPECT_EQ(seen, want);
  }
  eng->DeleteVariable([](RunContext) {}, Context::CPU(), v);
  eng->WaitForAll();
  engine::SetOpThreadsBase(before);
  unsetenv("MXNET_OMP_ADAPTIVE_THREADS");
  env::ResetCache();
}
#endif

}  // namespace
}  // namespace mxnet
