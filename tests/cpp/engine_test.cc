// Dependency engine tests, each run over NaiveEngine, ThreadedEngine, ThreadedEnginePerDevice.
#include <gtest/gtest.h>
#include "mxnet/cuda_config.h"
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/env.h"
#include "engine/opr_hooks.h"
#include "engine/thread_pool.h"
#include "mxnet/engine.h"

namespace mxnet {
namespace {

using namespace std::chrono_literals;
using std::this_thread::sleep_for;
const Context kCPU = Context::CPU();

// Sets an environment variable for the lifetime of the object (and the env registry's cache).
struct ScopedEnv {
  ScopedEnv(const char* name, const char* value) : name(name) {
    if (const char* old = std::getenv(name)) old_value = old;
    setenv(name, value, 1);
    env::ResetCache();
  }
  ~ScopedEnv() {
    old_value ? setenv(name, old_value->c_str(), 1) : unsetenv(name);
    env::ResetCache();
  }
  const char* name;
  std::optional<std::string> old_value;
};

std::unique_ptr<Engine> MakeEngine(const std::string& type) {
  ScopedEnv cpu("MXNET_CPU_WORKER_NTHREADS", "4");
  ScopedEnv priority("MXNET_CPU_PRIORITY_NTHREADS", "2");
  return Engine::Create(type.c_str());
}

// Runs f on its own thread and returns the message of the dmlc::Error it raises ("" when
// none); a hang ends the test binary with a message instead of blocking forever.
std::string ErrorOf(const std::function<void()>& f, std::chrono::seconds limit = 60s) {
  std::promise<std::string> result;
  std::future<std::string> finished = result.get_future();
  std::thread runner([&f, &result] {
    try {
      f();
      result.set_value("");
    } catch (const dmlc::Error& e) {
      result.set_value(e.what());
    } catch (...) {
      result.set_exception(std::current_exception());
    }
  });
  if (finished.wait_for(limit) != std::future_status::ready) {
    std::fprintf(stderr, "engine test did not finish within %llds (deadlock?)\n",
                 static_cast<long long>(limit.count()));
    std::_Exit(1);
  }
  runner.join();
  return finished.get();
}
void RunWithTimeout(const std::function<void()>& f) { EXPECT_EQ(ErrorOf(f), ""); }

::testing::AssertionResult HasError(const std::string& message, const std::string& part) {
  if (message.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected an error containing '" << part << "', got '"
                                       << message << "'";
}

// Threads that play the part of asynchronous work calling on_complete later; joined at the
// end of the test so none is alive when a later test forks.
struct CallbackThreads {
  ~CallbackThreads() {
    std::lock_guard<std::mutex> lock(mu);  // a Spawn may still be returning
    for (std::thread& t : threads) t.join();
  }
  void Spawn(std::function<void()> f) {
    std::lock_guard<std::mutex> lock(mu);
    threads.emplace_back(std::move(f));
  }
  std::mutex mu;
  std::vector<std::thread> threads;
};

// Exit code of a forked child (128 + signal when killed; children set alarm() against hangs).
int ChildExitCode(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

class EngineTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { engine_ = MakeEngine(GetParam()); }
  void TearDown() override {
    WaitAll();
    for (VarHandle v : vars_) engine_->DeleteVariable([](RunContext) {}, kCPU, v);
    WaitAll();
    engine_.reset();
  }
  VarHandle NewVar() {
    vars_.push_back(engine_->NewVariable());
    return vars_.back();
  }
  bool Threaded() const { return GetParam() != "NaiveEngine"; }
  // PushSync of f on the CPU.
  void Run(std::function<void()> f, const std::vector<VarHandle>& reads,
           const std::vector<VarHandle>& writes, FnProperty prop = FnProperty::kNormal,
           int priority = 0, const char* name = nullptr) {
    engine_->PushSync([f = std::move(f)](RunContext) { f(); }, kCPU, reads, writes, prop,
                      priority, name);
  }
  // Timeout-guarded waits returning the error they raise ("" when none).
  std::string WaitVar(VarHandle v) { return ErrorOf([&] { engine_->WaitForVar(v); }); }
  std::string WaitAll() { return ErrorOf([&] { engine_->WaitForAll(); }); }

  std::unique_ptr<Engine> engine_;
  std::vector<VarHandle> vars_;
};

TEST_P(EngineTest, random_dag_matches_sequential_result) {
  constexpr int kVars = 128, kOps = 12000;
  constexpr int64_t kP = 1000000007;
  struct OpSpec { std::vector<int> reads, writes; int64_t salt; };
  // Non-commutative update: any reordering of two ops sharing a var changes the result.
  auto apply = [](std::vector<int64_t>* vals, const OpSpec& op) {
    int64_t sum = 0;
    for (int r : op.reads) sum = (sum + (*vals)[r]) % kP;
    for (int w : op.writes) (*vals)[w] = ((*vals)[w] * 31 + sum + op.salt) % kP;
  };
  std::vector<int64_t> values(kVars), expected(kVars);
  std::vector<VarHandle> vars(kVars);
  for (int i = 0; i < kVars; ++i) {
    values[i] = expected[i] = i + 1;
    vars[i] = NewVar();
  }
  CallbackThreads callbacks;
  RunWithTimeout([&] {
    std::mt19937 rng(42);
    for (int i = 0; i < kOps; ++i) {
      auto op = std::make_shared<OpSpec>();
      op->salt = i;
      // Reads may repeat and overlap the writes (then the var counts as written once).
      for (int k = static_cast<int>(rng() % 4); k > 0; --k) op->reads.push_back(rng() % kVars);
      for (int k = 1 + static_cast<int>(rng() % 2); k > 0; --k) op->writes.push_back(rng() % kVars);
      std::vector<VarHandle> reads, writes;
      for (int r : op->reads) reads.push_back(vars[r]);
      for (int w : op->writes) writes.push_back(vars[w]);
      const int priority = rng() % 8 == 0 ? static_cast<int>(rng() % 5) - 2 : 0;
      const unsigned pick = rng() % 10;
      const FnProperty prop = pick == 0   ? FnProperty::kCPUPrioritized
                              : pick < 4 ? FnProperty::kCPUSmall
                                         : FnProperty::kNormal;
      auto body = [&values, op, apply] { apply(&values, *op); };
      if (i % 50 == 0) {  // completes later, from another thread
        engine_->PushAsync([&callbacks, body](RunContext, CallbackOnComplete done) {
          callbacks.Spawn([body, done] { body(); done(); });
        }, kCPU, reads, writes, FnProperty::kAsync, priority, "random_async");
      } else if (i % 3 == 0) {
        engine_->PushAsync([body](RunContext, CallbackOnComplete done) { body(); done(); }, kCPU,
                           reads, writes, prop, priority, "random_async_inline");
      } else {
        Run(body, reads, writes, prop, priority);
      }
      apply(&expected, *op);
      if (i % 1000 == 999) {
        const int w = op->writes[0];
        engine_->WaitForVar(vars[w]);
        EXPECT_EQ(values[w], expected[w]) << "var " << w << " after op " << i;
      }
    }
    engine_->WaitForAll();
  });
  EXPECT_EQ(values, expected);
}

TEST_P(EngineTest, reads_run_concurrently) {
  if (!Threaded()) GTEST_SKIP() << "NaiveEngine runs one operation at a time";
  VarHandle x = NewVar();
  int value = 0;
  std::atomic<int> arrived{0}, saw_other_reader{0};
  // Both reads become ready when the write finishes; each waits until the other arrives.
  Run([&] { value = 1; }, {}, {x});
  for (int i = 0; i < 2; ++i) {
    Run([&] {
      EXPECT_EQ(value, 1);
      arrived++;
      auto deadline = std::chrono::steady_clock::now() + 20s;
      while (arrived < 2 && std::chrono::steady_clock::now() < deadline) sleep_for(1ms);
      if (arrived == 2) saw_other_reader++;
    }, {x}, {});
  }
  WaitAll();
  EXPECT_EQ(saw_other_reader.load(), 2) << "the two reads of one var did not overlap";
}

TEST_P(EngineTest, small_op_runs_in_pusher_when_ready_else_after_its_dependencies) {
  VarHandle x = NewVar(), y = NewVar();
  const std::thread::id pusher = std::this_thread::get_id();
  std::thread::id ran_on;
  bool ran = false;
  Run([&] { ran_on = std::this_thread::get_id(); ran = true; }, {x}, {y}, FnProperty::kCPUSmall);
  EXPECT_TRUE(ran) << "a small op with free variables was not run at push";
  EXPECT_EQ(ran_on, pusher);
  if (!Threaded()) return;  // NaiveEngine runs every op at push
  // With a write of its input still running, it must wait for that write (on a worker).
  std::atomic<bool> release{false};
  int value = 0, seen = -1;
  Run([&] {
    while (!release) sleep_for(1ms);
    value = 5;
  }, {}, {x});
  Run([&] { seen = value; }, {x}, {y}, FnProperty::kCPUSmall);
  release = true;
  EXPECT_EQ(WaitVar(y), "");
  EXPECT_EQ(seen, 5);
}

TEST_P(EngineTest, write_waits_for_earlier_reads) {
  VarHandle x = NewVar();
  std::atomic<int> reads_done{0};
  int reads_seen_by_write = -1, value = 0, seen_by_later_read = -1;
  for (int i = 0; i < 3; ++i) {
    // A write that did not wait would run during the sleep.
    Run([&] { sleep_for(10ms); reads_done++; }, {x}, {});
  }
  Run([&] { reads_seen_by_write = reads_done; value = 7; }, {}, {x});
  Run([&] { seen_by_later_read = value; }, {x}, {});
  WaitAll();
  EXPECT_EQ(reads_seen_by_write, 3);
  EXPECT_EQ(seen_by_later_read, 7);
}

TEST_P(EngineTest, writes_happen_in_push_order) {
  VarHandle x = NewVar();
  constexpr int kWrites = 1000;
  std::vector<int> log;
  std::vector<size_t> seen_by_reads(kWrites / 10, 0);
  std::mt19937 rng(7);
  for (int i = 0; i < kWrites; ++i) {
    // Priorities (and the prioritized pool) reorder ready ops only, never uses of one var.
    const int priority = static_cast<int>(rng() % 7) - 3;
    Run([&log, i] { log.push_back(i); }, {}, {x}, FnProperty::kNormal, priority);
    if (i % 10 == 9) {
      Run([&, i] { seen_by_reads[i / 10] = log.size(); }, {x}, {}, FnProperty::kCPUPrioritized,
          -priority);
    }
  }
  WaitVar(x);
  ASSERT_EQ(log.size(), static_cast<size_t>(kWrites));
  for (int i = 0; i < kWrites; ++i) ASSERT_EQ(log[i], i) << "write " << i << " out of order";
  WaitAll();
  for (size_t k = 0; k < seen_by_reads.size(); ++k) {
    EXPECT_EQ(seen_by_reads[k], 10 * (k + 1)) << "read " << k << " saw the wrong writes";
  }
}

TEST_P(EngineTest, exception_is_raised_at_wait_and_engine_recovers) {
  VarHandle x = NewVar(), y = NewVar();
  int value = 0;
  EXPECT_NO_THROW(Run([] { throw std::runtime_error("boom in op"); }, {}, {x}));
  EXPECT_NO_THROW(Run([] { LOG(FATAL) << "fatal in op"; }, {}, {y}));
  EXPECT_TRUE(HasError(WaitVar(x), "boom in op"));
  EXPECT_TRUE(HasError(WaitVar(y), "fatal in op"));
  EXPECT_EQ(WaitVar(x), "") << "a wait clears the var's error";
  EXPECT_EQ(WaitAll(), "") << "both errors were already reported";
  Run([&] { value = 5; }, {}, {x});
  EXPECT_EQ(WaitVar(x), "");
  EXPECT_EQ(value, 5);
}

TEST_P(EngineTest, exception_propagates_to_readers_outputs_and_is_reported_once) {
  VarHandle x = NewVar(), y = NewVar(), z = NewVar(), w = NewVar();
  bool second_ran = false, third_ran = false, after_report_ran = false;
  Run([] { throw std::runtime_error("bad input"); }, {}, {x});
  Run([&] { second_ran = true; }, {x}, {y});
  Run([&] { third_ran = true; }, {y}, {z});
  EXPECT_TRUE(HasError(WaitVar(z), "bad input"));
  EXPECT_FALSE(second_ran) << "an op reading a failed var must not run";
  EXPECT_FALSE(third_ran);
  // One error however many vars it reached: reported at z, it no longer poisons x or y.
  EXPECT_EQ(WaitVar(y), "");
  EXPECT_EQ(WaitVar(x), "");
  Run([&] { after_report_ran = true; }, {x}, {w});
  EXPECT_EQ(WaitVar(w), "");
  EXPECT_TRUE(after_report_ran);
  EXPECT_EQ(WaitAll(), "");
}

TEST_P(EngineTest, raw_sync_fn_is_released_once_whether_it_runs_throws_or_is_skipped) {
  struct State {
    std::atomic<int> runs{0}, releases{0};
    bool fail{false};
  };
  auto run = [](RunContext, void* p) {
    State* st = static_cast<State*>(p);
    st->runs++;
    if (st->fail) throw std::runtime_error("raw op failed");
  };
  auto release = [](void* p) { static_cast<State*>(p)->releases++; };
  VarHandle x = NewVar(), y = NewVar();
  State ok, failing, skipped;
  failing.fail = true;
  for (FnProperty prop : {FnProperty::kNormal, FnProperty::kCPUSmall}) {
    ok.runs = ok.releases = failing.runs = failing.releases = 0;
    skipped.runs = skipped.releases = 0;
    engine_->PushRawSync({run, release, &ok}, kCPU, nullptr, 0, &x, 1, prop);
    engine_->PushRawSync({run, release, &failing}, kCPU, &x, 1, &y, 1, prop);
    engine_->PushRawSync({run, release, &skipped}, kCPU, &y, 1, &x, 1, prop);
    EXPECT_TRUE(HasError(WaitVar(x), "raw op failed"));
    EXPECT_EQ(WaitAll(), "");
    EXPECT_EQ(ok.runs, 1);
    EXPECT_EQ(ok.releases, 1);
    EXPECT_EQ(failing.runs, 1);
    EXPECT_EQ(failing.releases, 1);
    EXPECT_EQ(skipped.runs, 0) << "an op reading a failed var must not run";
    EXPECT_EQ(skipped.releases, 1);
  }
}

TEST_P(EngineTest, write_to_failed_var_is_skipped_until_a_no_skip_write_clears_it) {
  VarHandle x = NewVar();
  bool plain_ran = false, no_skip_ran = false;
  Run([] { throw std::runtime_error("first failure"); }, {}, {x});
  Run([&] { plain_ran = true; }, {}, {x});
  Run([&] { no_skip_ran = true; }, {}, {x}, FnProperty::kNoSkip);
  EXPECT_EQ(WaitVar(x), "");
  EXPECT_FALSE(plain_ran);
  EXPECT_TRUE(no_skip_ran);
  EXPECT_TRUE(HasError(WaitAll(), "first failure"))
      << "an error no var wait reported is reported by WaitForAll";
}

TEST_P(EngineTest, resource_var_orders_its_users_but_keeps_no_error) {
  VarHandle res = engine_->NewResourceVariable();
  vars_.push_back(res);
  VarHandle out1 = NewVar(), out2 = NewVar();
  std::vector<int> order;
  bool second_ran = false;
  Run([&] {
    order.push_back(1);
    throw std::runtime_error("kernel failed");
  }, {}, {out1, res});
  Run([&] {
    order.push_back(2);
    second_ran = true;
  }, {}, {out2, res});
  EXPECT_TRUE(HasError(WaitVar(out1), "kernel failed"));
  EXPECT_EQ(WaitVar(out2), "");
  EXPECT_TRUE(second_ran) << "a later user of the resource must run after a failure";
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_EQ(WaitVar(res), "");
}

TEST_P(EngineTest, wait_for_all_rethrows_then_clears) {
  std::vector<VarHandle> failed;
  int ok_count = 0;
  VarHandle ok = NewVar();
  for (int i = 0; i < 5; ++i) {
    failed.push_back(NewVar());
    Run([i] { throw std::runtime_error("failure " + std::to_string(i)); }, {}, {failed.back()});
    Run([&] { ++ok_count; }, {}, {ok});
  }
  EXPECT_TRUE(HasError(WaitAll(), "failure "));
  EXPECT_EQ(ok_count, 5) << "ops on clean vars still run";
  EXPECT_EQ(WaitAll(), "");
  // WaitForAll reported every error, so no var holding one raises it again (as MXNet).
  EXPECT_EQ(WaitVar(failed[3]), "");
  Run([&] { ++ok_count; }, {}, {ok});
  EXPECT_EQ(WaitAll(), "");
  EXPECT_EQ(ok_count, 6);
}

TEST_P(EngineTest, async_fn_error_via_callback) {
  VarHandle x = NewVar(), y = NewVar(), z = NewVar();
  bool reader_ran = false;
  int value = 0, seen = -1;
  CallbackThreads callbacks;
  engine_->PushAsync(
      [&callbacks](RunContext, CallbackOnComplete done) {
        callbacks.Spawn([done] { dmlc::Error e("async failure from callback"); done(&e); });
      },
      kCPU, {}, {x}, FnProperty::kAsync);
  Run([&] { reader_ran = true; }, {x}, {y});
  engine_->PushAsync(
      [&value, &callbacks](RunContext, CallbackOnComplete done) {
        callbacks.Spawn([&value, done] { sleep_for(5ms); value = 9; done(); });
      },
      kCPU, {}, {z}, FnProperty::kAsync);
  Run([&] { seen = value; }, {z}, {});
  EXPECT_TRUE(HasError(WaitVar(y), "async failure from callback"));
  EXPECT_FALSE(reader_ran);
  EXPECT_EQ(WaitAll(), "");
  EXPECT_EQ(seen, 9) << "a read after an async write sees its result";
}

TEST_P(EngineTest, wait_for_all_under_concurrent_pushers) {
  constexpr int kThreads = 4, kOpsPerThread = 400, kVars = 8;
  std::vector<VarHandle> vars;
  for (int i = 0; i < kVars; ++i) vars.push_back(NewVar());
  std::vector<int64_t> counts(kVars, 0), expected(kVars, 0);
  for (int t = 0; t < kThreads; ++t) {
    std::mt19937 rng(t);
    for (int i = 0; i < kOpsPerThread; ++i) {
      expected[rng() % kVars] += 1;
      expected[rng() % kVars] += 10;
    }
  }
  RunWithTimeout([&] {
    std::vector<std::thread> pushers;
    for (int t = 0; t < kThreads; ++t) {
      pushers.emplace_back([&, t] {
        std::mt19937 rng(t);
        for (int i = 0; i < kOpsPerThread; ++i) {
          const int a = rng() % kVars, b = rng() % kVars;
          // Two writes per op, in either order across threads.
          Run([&counts, a, b] { counts[a] += 1; counts[b] += 10; }, {}, {vars[a], vars[b]});
          if (i % 50 == 49) engine_->WaitForAll();
        }
        engine_->WaitForAll();
      });
    }
    for (auto& p : pushers) p.join();
  });
  EXPECT_EQ(counts, expected);
}

TEST_P(EngineTest, delete_variable_runs_after_pending_ops) {
  VarHandle x = engine_->NewVariable();
  std::vector<int> log;
  std::atomic<int> reads_done{0};
  size_t writes_at_delete = 0;
  int reads_at_delete = -1;
  for (int i = 0; i < 20; ++i) Run([&log, i] { sleep_for(200us); log.push_back(i); }, {}, {x});
  for (int i = 0; i < 3; ++i) Run([&] { sleep_for(2ms); reads_done++; }, {x}, {});
  engine_->DeleteVariable([&](RunContext) {
    writes_at_delete = log.size();
    reads_at_delete = reads_done;
  }, kCPU, x);
  // A var holding an error is deleted too (the delete function still runs).
  VarHandle failed = engine_->NewVariable();
  bool failed_deleted = false;
  Run([] { throw std::runtime_error("x"); }, {}, {failed});
  engine_->DeleteVariable([&](RunContext) { failed_deleted = true; }, kCPU, failed);
  WaitAll();
  EXPECT_EQ(writes_at_delete, 20u);
  EXPECT_EQ(reads_at_delete, 3);
  EXPECT_TRUE(failed_deleted);
  // Recycled vars start fresh: no error, no pending work.
  std::atomic<int> deleted{0};
  int64_t sum = 0;
  for (int i = 0; i < 100; ++i) {
    VarHandle v = engine_->NewVariable();
    Run([&sum, i] { sum += i; }, {}, {v});
    EXPECT_EQ(WaitVar(v), "");
    engine_->DeleteVariable([&](RunContext) { deleted++; }, kCPU, v);
  }
  EXPECT_EQ(WaitAll(), "");
  EXPECT_EQ(deleted.load(), 100);
  EXPECT_EQ(sum, 4950);
  // An idle var is deleted at once: its delete function has run when DeleteVariable returns.
  VarHandle idle = engine_->NewVariable();
  bool idle_deleted = false;
  engine_->DeleteVariable([&](RunContext) { idle_deleted = true; }, kCPU, idle);
  EXPECT_TRUE(idle_deleted);
}

TEST_P(EngineTest, duplicate_and_overlapping_vars_are_deduplicated) {
  VarHandle x = NewVar(), y = NewVar();
  std::atomic<int> writers_inside{0};
  std::atomic<bool> overlapped{false};
  int runs = 0;
  for (int i = 0; i < 200; ++i) {
    // y is listed twice as written and once as read: it counts as one write.
    Run([&] {
      if (writers_inside++ != 0) overlapped = true;
      ++runs;
      writers_inside--;
    }, {x, x, y}, {y, y});
  }
  EXPECT_EQ(WaitAll(), "");
  EXPECT_EQ(runs, 200);
  EXPECT_FALSE(overlapped.load()) << "two writes of y ran at once";
}

TEST_P(EngineTest, reusable_operator_runs_once_per_push) {
  VarHandle x = NewVar();
  int count = 0;
  OprHandle op = engine_->NewOperator(
      [&count](RunContext, CallbackOnComplete done) { ++count; done(); }, {}, {x});
  for (int i = 0; i < 100; ++i) engine_->Push(op, kCPU, i % 3);
  engine_->DeleteOperator(op);  // pushed instances still run
  EXPECT_EQ(WaitAll(), "");
  EXPECT_EQ(count, 100);
}

TEST_P(EngineTest, priority_ops_all_run_and_keep_var_order) {  // a weak check, see OprQueue
  constexpr int kVars = 4, kOps = 400;
  std::vector<VarHandle> vars;
  for (int i = 0; i < kVars; ++i) vars.push_back(NewVar());
  std::vector<std::vector<int>> logs(kVars);
  for (int i = 0; i < kOps; ++i) {
    const FnProperty prop = i % 3 ? FnProperty::kNormal : FnProperty::kCPUPrioritized;
    Run([&logs, i] { logs[i % kVars].push_back(i); }, {}, {vars[i % kVars]}, prop, i % 21 - 10);
  }
  EXPECT_EQ(WaitAll(), "");
  for (int v = 0; v < kVars; ++v) {
    ASSERT_EQ(logs[v].size(), static_cast<size_t>(kOps / kVars));
    for (int k = 0; k < kOps / kVars; ++k) EXPECT_EQ(logs[v][k], v + kVars * k);
  }
}

TEST_P(EngineTest, waits_inside_ops) {
  VarHandle x = NewVar(), y = NewVar(), z = NewVar();
  int y_value = 0, seen = -1;
  bool wait_all_returned = false;
  Run([&] { sleep_for(5ms); y_value = 1; }, {}, {y});
  Run([&] { engine_->WaitForVar(y); seen = y_value; }, {}, {x});  // y finishes elsewhere
  // NaiveEngine: even a wait on the var the op itself writes returns.
  if (!Threaded()) Run([&] { engine_->WaitForVar(x); }, {}, {x});
  Run([&] { engine_->WaitForAll(); wait_all_returned = true; }, {}, {z});
  const std::string error = WaitVar(z);
  EXPECT_EQ(WaitAll(), "");
  EXPECT_EQ(seen, 1);
  // A threaded engine fails the op rather than let it wait for itself; NaiveEngine returns.
  EXPECT_EQ(wait_all_returned, !Threaded());
  if (Threaded()) EXPECT_TRUE(HasError(error, "WaitForAll"));
  else EXPECT_EQ(error, "");
}

std::atomic<int> g_hook_starts{0}, g_hook_ends{0}, g_hook_bad_name{0};

TEST_P(EngineTest, profiler_hooks_see_each_run) {
  VarHandle x = NewVar();
  g_hook_starts = g_hook_ends = g_hook_bad_name = 0;
  engine::SetOprHooks(
      [](const engine::OprExecInfo& info) {
        g_hook_starts++;
        if (info.name == nullptr || std::string(info.name) != "hooked_op") g_hook_bad_name++;
      },
      [](const engine::OprExecInfo&) { g_hook_ends++; });
  for (int i = 0; i < 10; ++i) Run([] {}, {}, {x}, FnProperty::kNormal, 0, "hooked_op");
  WaitAll();
  engine::SetOprHooks(nullptr, nullptr);
  EXPECT_EQ(g_hook_starts.load(), 10);
  EXPECT_EQ(g_hook_ends.load(), 10);
  EXPECT_EQ(g_hook_bad_name.load(), 0);
}

std::atomic<int> g_exit_counter{0};
std::shared_ptr<Engine> g_exit_engine;  // destroyed during the child's static destruction

TEST_P(EngineTest, exit_with_queued_work) {
  std::fflush(nullptr);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // Child: queue slow work on this engine and on the process-wide one, then exit at once.
    alarm(30);
    g_exit_engine = MakeEngine(GetParam());
    auto slow = [](RunContext) { sleep_for(1ms); g_exit_counter++; };
    std::vector<VarHandle> vars;
    for (int i = 0; i < 4; ++i) vars.push_back(g_exit_engine->NewVariable());
    for (int i = 0; i < 100; ++i) g_exit_engine->PushSync(slow, kCPU, {}, {vars[i % 4]});
    VarHandle v = Engine::Get()->NewVariable();
    for (int i = 0; i < 50; ++i) Engine::Get()->PushSync(slow, kCPU, {}, {v});
    std::exit(0);
  }
  EXPECT_EQ(ChildExitCode(pid), 0) << "a process exiting with queued engine work must exit 0";
}

TEST_P(EngineTest, forked_child_has_working_engine) {
  VarHandle x = NewVar();
  int64_t value = 0;
  auto step = [&value] { value = (value * 3 + 1) % 1000003; };
  auto expect_after = [](int steps) {
    int64_t v = 0;
    for (int i = 0; i < steps; ++i) v = (v * 3 + 1) % 1000003;
    return v;
  };
  for (int i = 0; i < 100; ++i) Run(step, {}, {x});  // not waited for
  std::fflush(nullptr);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(30);
    bool ok = value == expect_after(100);  // the engine finished its work before fork
    for (int i = 0; i < 50; ++i) Run(step, {}, {x});
    engine_->WaitForVar(x);
    ok = ok && value == expect_after(150);
    VarHandle y = engine_->NewVariable();
    int reads = 0;
    Run([&] { ++reads; }, {x}, {y});
    engine_->WaitForAll();
    std::_Exit(ok && reads == 1 ? 0 : 1);
  }
  EXPECT_EQ(ChildExitCode(pid), 0) << "the forked child's engine did not work";
  for (int i = 0; i < 10; ++i) Run(step, {}, {x});
  EXPECT_EQ(WaitVar(x), "");
  EXPECT_EQ(value, expect_after(110)) << "the parent's engine must keep working after fork";
}

TEST_P(EngineTest, gpu_push_without_cuda_raises) {
#if MXNET_USE_CUDA
  GTEST_SKIP() << "built with CUDA";
#else
  VarHandle x = NewVar();
  bool ran = false;
  std::string error = ErrorOf([&] {
    engine_->PushSync([&](RunContext) { ran = true; }, Context::GPU(0), {}, {x},
                      FnProperty::kNormal, 0, "gpu_only_op");
  });
  EXPECT_TRUE(HasError(error, "gpu(0)"));
  EXPECT_TRUE(HasError(error, "gpu_only_op"));
  OprHandle op =
      engine_->NewOperator([](RunContext, CallbackOnComplete done) { done(); }, {}, {x});
  EXPECT_THROW(engine_->Push(op, Context::GPU(1)), dmlc::Error);
  engine_->DeleteOperator(op);
  EXPECT_EQ(WaitAll(), "");
  EXPECT_FALSE(ran);
  int value = 0;
  Run([&] { value = 3; }, {}, {x});
  EXPECT_EQ(WaitVar(x), "");
  EXPECT_EQ(value, 3) << "the engine keeps working after refusing a GPU op";
#endif
}

INSTANTIATE_TEST_SUITE_P(
    AllEngines, EngineTest,
    ::testing::Values("NaiveEngine", "ThreadedEngine", "ThreadedEnginePerDevice"),
    [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(EngineFactory, create_accepts_async_suffix_and_rejects_unknown_names) {
  EXPECT_STREQ(Engine::Create("NaiveEngineAsync")->Type(), "NaiveEngine");
  EXPECT_STREQ(Engine::Create("ThreadedEngine")->Type(), "ThreadedEngine");
  EXPECT_STREQ(Engine::Create("ThreadedEnginePerDeviceAsync")->Type(), "ThreadedEnginePerDevice");
  EXPECT_THROW(Engine::Create("FastEngine"), dmlc::Error);
}

TEST(EngineFactory, get_returns_one_working_engine_of_the_configured_type) {
  std::string type = env::GetString("MXNET_ENGINE_TYPE");  // "Async" names the same engine
  if (type.size() > 5 && type.substr(type.size() - 5) == "Async") type.resize(type.size() - 5);
  Engine* engine = Engine::Get();
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine, Engine::_GetSharedRef().get());
  EXPECT_EQ(std::string(engine->Type()), type);
  VarHandle x = engine->NewVariable();
  int value = 0;
  engine->PushSync([&](RunContext) { value = 4; }, kCPU, {}, {x});
  EXPECT_EQ(ErrorOf([&] { engine->WaitForVar(x); }), "");
  EXPECT_EQ(value, 4);
  engine->DeleteVariable([](RunContext) {}, kCPU, x);
  EXPECT_EQ(ErrorOf([&] { engine->WaitForAll(); }), "");
}

TEST(OprQueue, higher_priority_pops_first_and_ties_keep_push_order) {
  engine::OprBlock blocks[6];
  engine::OprQueue queue;
  for (int i = 0; i < 6; ++i) {
    blocks[i].priority = std::vector<int>{0, 3, -1, 0, 3, 7}[i];
    queue.Push(&blocks[i]);
  }
  for (int i : {5, 1, 4, 0, 3, 2}) {
    ASSERT_FALSE(queue.empty());
    EXPECT_EQ(queue.Pop(), &blocks[i]);
  }
  EXPECT_TRUE(queue.empty());
}

}  // namespace
}  // namespace mxnet
