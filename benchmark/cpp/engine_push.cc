// Micro-benchmark: cost of pushing, scheduling and completing tiny engine operations.
//
// Build (from the repo root, without the rest of the tree), then run /tmp/engine_push [n]:
//   g++ -std=c++17 -O2 -Iinclude -Isrc -DDMLC_LOG_STACK_TRACE=0 src/common/*.cc
//       src/engine/*.cc benchmark/cpp/engine_push.cc -ldmlc -pthread -o /tmp/engine_push
// Prints one JSON object per line; ratio is against a plain std::function call measured in
// the same run. Never part of pass/fail.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "mxnet/engine.h"

// Counts heap allocations, to report how many one push costs (the callers' vectors and
// PushSync's std::function wrapper included).
std::atomic<int64_t> g_allocs{0};
void* operator new(std::size_t n) {
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

using Clock = std::chrono::steady_clock;

double NsPerOp(Clock::time_point start, int n) {
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count() / n;
}

void Report(const char* engine, const char* name, double ns, double baseline,
            double allocs = 0) {
  std::printf("{\"bench\":\"engine_push\",\"engine\":\"%s\",\"case\":\"%s\",\"ns_per_op\":%.1f,"
              "\"ratio_vs_baseline\":%.1f,\"allocs_per_op\":%.2f}\n",
              engine, name, ns, ns / baseline, allocs);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  using mxnet::Engine;
  const int n = argc > 1 ? std::atoi(argv[1]) : 200000;
  const mxnet::Context cpu = mxnet::Context::CPU();

  // Baseline: the function an op would run, called directly through std::function.
  volatile int64_t sink = 0;
  std::function<void(mxnet::RunContext)> direct = [&sink](mxnet::RunContext) { sink = sink + 1; };
  auto start = Clock::now();
  for (int i = 0; i < n; ++i) direct(mxnet::RunContext());
  const double baseline = NsPerOp(start, n);
  Report("none", "direct_call", baseline, baseline);

  for (const char* type : {"NaiveEngine", "ThreadedEngine", "ThreadedEnginePerDevice"}) {
    std::unique_ptr<Engine> engine = Engine::Create(type);
    std::vector<mxnet::VarHandle> vars;
    for (int i = 0; i < 64; ++i) vars.push_back(engine->NewVariable());
    std::vector<int64_t> counters(vars.size(), 0);

    // Independent ops (round-robin over 64 vars), then one WaitForAll: throughput.
    int64_t allocs = g_allocs.load();
    start = Clock::now();
    for (int i = 0; i < n; ++i) {
      int64_t* c = &counters[i % 64];
      engine->PushSync([c](mxnet::RunContext) { ++*c; }, cpu, {}, {vars[i % 64]},
                       mxnet::FnProperty::kNormal, 0, "tiny");
    }
    engine->WaitForAll();
    Report(type, "independent_push_run", NsPerOp(start, n), baseline,
           static_cast<double>(g_allocs.load() - allocs) / n);

    // One var read by a few, written by each op: a dependency chain.
    start = Clock::now();
    for (int i = 0; i < n; ++i) {
      int64_t* c = &counters[0];
      engine->PushSync([c](mxnet::RunContext) { ++*c; }, cpu, {vars[1], vars[2]}, {vars[0]},
                       mxnet::FnProperty::kNormal, 0, "tiny_chain");
    }
    engine->WaitForAll();
    Report(type, "chain_push_run", NsPerOp(start, n), baseline);

    // Push one op and wait for it: the round trip a blocking Python call pays.
    const int m = n / 10;
    start = Clock::now();
    for (int i = 0; i < m; ++i) {
      int64_t* c = &counters[3];
      engine->PushSync([c](mxnet::RunContext) { ++*c; }, cpu, {}, {vars[3]},
                       mxnet::FnProperty::kNormal, 0, "tiny_wait");
      engine->WaitForVar(vars[3]);
    }
    Report(type, "push_then_wait", NsPerOp(start, m), baseline);

    for (mxnet::VarHandle v : vars) engine->DeleteVariable([](mxnet::RunContext) {}, cpu, v);
    engine->WaitForAll();
  }
  return 0;
}
