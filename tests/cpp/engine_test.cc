// Tests of the dependency engine, each run over NaiveEngine, ThreadedEngine and
// ThreadedEnginePerDevice.
#include <gtest/gtest.h>
#include <signal.h>
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
const Context kCPU = Context::CPU();

// Sets an environment variable for the lifetime of the object (and the env registry's cache).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = std::make_unique<std::string>(old);
    setenv(name, value, 1);
    env::ResetCache();
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
    env::ResetCache();
  }

 private:
  const char* name_;
  std::unique_ptr<std::string> old_;
};

std::unique_ptr<Engine> MakeEngine(const std::string& type) {
  ScopedEnv cpu("MXNET_CPU_WORKER_NTHREADS", "4");
  ScopedEnv priority("MXNET_CPU_PRIORITY_NTHREADS", "2");
  return Engine::Create(type.c_str());
}

// Runs f on its own thread; a hang ends the test binary with a message instead of blocking.
void RunWithTimeout(const std::function<void()>& f, std::chrono::seconds limit = 60s) {
  std::promise<void> result;
  std::future<void> finished = result.get_future();
  std::thread runner([&f, &result] {
    try {
      f();
      result.set_value();
    } catch (...) {
      result.set_exception(std::current_exception());
    }
  });
  if (finished.wait_for(limit) != std::future_status::ready) {
    std::fprintf(stderr, "engine test did not finish within %llds (deadlock?)\n",
                 static_cast<long long>(limit.count()));
    std::fflush(stderr);
    std::_Exit(1);
  }
  runner.join();
  finished.get();
}

// Threads that play the part of asynchronous work calling on_complete later; joined at the
// end of the test so none is alive when a later test forks.
class CallbackThreads {
 public:
  ~CallbackThreads() {
    std::lock_guard<std::mutex> lock(mu_);
    for (std::thread& t : threads_) t.join();
  }
  void Spawn(std::function<void()> f) {
    std::lock_guard<std::mutex> lock(mu_);
    threads_.emplace_back(std::move(f));
  }

 private:
  std::mutex mu_;
  std::vector<std::thread> threads_;
};

// The message of the dmlc::Error f raises, or "" when it raises nothing.
std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const dmlc::Error& e) {
    return e.what();
  }
  return "";
}

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// Waits for a forked child; kills it and reports -1 when it runs past the limit.
int WaitChild(pid_t pid, std::chrono::seconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::this_thread::sleep_for(10ms);
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return -1;
}

class EngineTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { engine_ = MakeEngine(GetParam()); }
  void TearDown() override {
    try {
      engine_->WaitForAll();
    } catch (const dmlc::Error&) {
    }
    for (VarHandle v : vars_) engine_->DeleteVariable([](RunContext) {}, kCPU, v);
    engine_->WaitForAll();
    engine_.reset();
  }
  VarHandle NewVar() {
    vars_.push_back(engine_->NewVariable());
    return vars_.back();
  }
  bool Threaded() const { return GetParam() != "NaiveEngine"; }

  std::unique_ptr<Engine> engine_;
  std::vector<VarHandle> vars_;
};

TEST_P(EngineTest, random_dag_matches_sequential_result) {
  constexpr int kVars = 128;
  constexpr int kOps = 12000;
  constexpr int64_t kP = 1000000007;
  struct OpSpec {
    std::vector<int> reads, writes;
    int64_t salt;
  };
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
      std::vector<VarHandle> const_vars, mutable_vars;
      for (int r : op->reads) const_vars.push_back(vars[r]);
      for (int w : op->writes) mutable_vars.push_back(vars[w]);
      const int priority = rng() % 8 == 0 ? static_cast<int>(rng() % 5) - 2 : 0;
      const FnProperty prop = rng() % 10 == 0 ? FnProperty::kCPUPrioritized : FnProperty::kNormal;
      if (i % 50 == 0) {  // completes from another thread
        engine_->PushAsync(
            [&values, &callbacks, op, apply](RunContext, CallbackOnComplete done) {
              callbacks.Spawn([&values, op, apply, done] {
                apply(&values, *op);
                done();
              });
            },
            kCPU, const_vars, mutable_vars, FnProperty::kAsync, priority, "random_async");
      } else if (i % 3 == 0) {
        engine_->PushAsync(
            [&values, op, apply](RunContext, CallbackOnComplete done) {
              apply(&values, *op);
              done();
            },
            kCPU, const_vars, mutable_vars, prop, priority, "random_async_inline");
      } else {
        engine_->PushSync([&values, op, apply](RunContext) { apply(&values, *op); }, kCPU,
                          const_vars, mutable_vars, prop, priority, "random_sync");
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
  std::atomic<int> arrived{0};
  std::atomic<int> saw_other_reader{0};
  // Both reads become ready when the write finishes; each waits until the other arrives.
  engine_->PushSync([&](RunContext) { value = 1; }, kCPU, {}, {x});
  for (int i = 0; i < 2; ++i) {
    engine_->PushSync(
        [&](RunContext) {
          EXPECT_EQ(value, 1);
          arrived.fetch_add(1);
          auto deadline = std::chrono::steady_clock::now() + 20s;
          while (arrived.load() < 2 && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(1ms);
          }
          if (arrived.load() == 2) saw_other_reader.fetch_add(1);
        },
        kCPU, {x}, {});
  }
  RunWithTimeout([&] { engine_->WaitForAll(); });
  EXPECT_EQ(saw_other_reader.load(), 2) << "the two reads of one var did not overlap";
}

TEST_P(EngineTest, write_waits_for_earlier_reads) {
  VarHandle x = NewVar();
  std::atomic<int> reads_done{0};
  int reads_seen_by_write = -1;
  int value = 0;
  int seen_by_later_read = -1;
  for (int i = 0; i < 3; ++i) {
    engine_->PushSync(
        [&](RunContext) {
          std::this_thread::sleep_for(10ms);  // a write that did not wait would run meanwhile
          reads_done.fetch_add(1);
        },
        kCPU, {x}, {});
  }
  engine_->PushSync([&](RunContext) { reads_seen_by_write = reads_done.load(); value = 7; }, kCPU,
                    {}, {x});
  engine_->PushSync([&](RunContext) { seen_by_later_read = value; }, kCPU, {x}, {});
  RunWithTimeout([&] { engine_->WaitForAll(); });
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
    // Priorities reorder ready ops only; they never reorder uses of one var.
    const int priority = static_cast<int>(rng() % 7) - 3;
    engine_->PushSync([&log, i](RunContext) { log.push_back(i); }, kCPU, {}, {x},
                      FnProperty::kNormal, priority);
    if (i % 10 == 9) {
      engine_->PushSync([&, i](RunContext) { seen_by_reads[i / 10] = log.size(); }, kCPU, {x},
                        {}, FnProperty::kCPUPrioritized, -priority);
    }
  }
  RunWithTimeout([&] { engine_->WaitForVar(x); });
  ASSERT_EQ(log.size(), static_cast<size_t>(kWrites));
  for (int i = 0; i < kWrites; ++i) ASSERT_EQ(log[i], i) << "write " << i << " out of order";
  RunWithTimeout([&] { engine_->WaitForAll(); });
  for (size_t k = 0; k < seen_by_reads.size(); ++k) {
    EXPECT_EQ(seen_by_reads[k], 10 * (k + 1)) << "read " << k << " saw the wrong writes";
  }
}

TEST_P(EngineTest, exception_is_raised_at_wait_and_engine_recovers) {
  VarHandle x = NewVar();
  VarHandle y = NewVar();
  int value = 0;
  EXPECT_NO_THROW(engine_->PushSync(
      [](RunContext) { throw std::runtime_error("boom in op"); }, kCPU, {}, {x}));
  EXPECT_NO_THROW(engine_->PushSync([](RunContext) { LOG(FATAL) << "fatal in op"; }, kCPU, {}, {y}));
  std::string first;
  RunWithTimeout([&] { first = ErrorOf([&] { engine_->WaitForVar(x); }); });
  EXPECT_TRUE(Contains(first, "boom in op")) << first;
  EXPECT_TRUE(Contains(ErrorOf([&] { engine_->WaitForVar(y); }), "fatal in op"));
  EXPECT_EQ(ErrorOf([&] { engine_->WaitForVar(x); }), "") << "a wait clears the var's error";
  EXPECT_EQ(ErrorOf([&] { engine_->WaitForAll(); }), "") << "both errors were already reported";
  engine_->PushSync([&](RunContext) { value = 5; }, kCPU, {}, {x});
  RunWithTimeout([&] { engine_->WaitForVar(x); });
  EXPECT_EQ(value, 5);
}

TEST_P(EngineTest, exception_propagates_to_readers_outputs) {
  VarHandle x = NewVar(), y = NewVar(), z = NewVar();
  bool second_ran = false, third_ran = false;
  engine_->PushSync([](RunContext) { throw std::runtime_error("bad input"); }, kCPU, {}, {x});
  engine_->PushSync([&](RunContext) { second_ran = true; }, kCPU, {x}, {y});
  engine_->PushSync([&](RunContext) { third_ran = true; }, kCPU, {y}, {z});
  std::string at_z;
  RunWithTimeout([&] { at_z = ErrorOf([&] { engine_->WaitForVar(z); }); });
  EXPECT_TRUE(Contains(at_z, "bad input")) << at_z;
  EXPECT_FALSE(second_ran) << "an op reading a failed var must not run";
  EXPECT_FALSE(third_ran);
  EXPECT_TRUE(Contains(ErrorOf([&] { engine_->WaitForVar(y); }), "bad input"));
  EXPECT_TRUE(Contains(ErrorOf([&] { engine_->WaitForVar(x); }), "bad input"));
}

TEST_P(EngineTest, write_to_failed_var_is_skipped_until_a_no_skip_write_clears_it) {
  VarHandle x = NewVar();
  bool plain_ran = false, no_skip_ran = false;
  engine_->PushSync([](RunContext) { throw std::runtime_error("first failure"); }, kCPU, {}, {x});
  engine_->PushSync([&](RunContext) { plain_ran = true; }, kCPU, {}, {x});
  engine_->PushSync([&](RunContext) { no_skip_ran = true; }, kCPU, {}, {x}, FnProperty::kNoSkip);
  RunWithTimeout([&] { EXPECT_EQ(ErrorOf([&] { engine_->WaitForVar(x); }), ""); });
  EXPECT_FALSE(plain_ran);
  EXPECT_TRUE(no_skip_ran);
  EXPECT_TRUE(Contains(ErrorOf([&] { engine_->WaitForAll(); }), "first failure"))
      << "an error no var wait reported is reported by WaitForAll";
}

TEST_P(EngineTest, wait_for_all_rethrows_then_clears) {
  std::vector<VarHandle> failed;
  int ok_count = 0;
  VarHandle ok = NewVar();
  for (int i = 0; i < 5; ++i) {
    failed.push_back(NewVar());
    engine_->PushSync([i](RunContext) { throw std::runtime_error("failure " + std::to_string(i)); },
                      kCPU, {}, {failed.back()});
    engine_->PushSync([&](RunContext) { ++ok_count; }, kCPU, {}, {ok});
  }
  std::string error;
  RunWithTimeout([&] { error = ErrorOf([&] { engine_->WaitForAll(); }); });
  EXPECT_TRUE(Contains(error, "failure ")) << error;
  EXPECT_EQ(ok_count, 5) << "ops on clean vars still run";
  EXPECT_EQ(ErrorOf([&] { engine_->WaitForAll(); }), "");
  // The failed vars still hold their errors (their data was never written).
  EXPECT_TRUE(Contains(ErrorOf([&] { engine_->WaitForVar(failed[3]); }), "failure 3"));
  engine_->PushSync([&](RunContext) { ++ok_count; }, kCPU, {}, {ok});
  RunWithTimeout([&] { engine_->WaitForAll(); });
  EXPECT_EQ(ok_count, 6);
}

TEST_P(EngineTest, async_fn_error_via_callback) {
  VarHandle x = NewVar(), y = NewVar(), z = NewVar();
  bool reader_ran = false;
  int value = 0, seen = -1;
  CallbackThreads callbacks;
  engine_->PushAsync(
      [&callbacks](RunContext, CallbackOnComplete done) {
        callbacks.Spawn([done] {
          std::this_thread::sleep_for(5ms);
          dmlc::Error err("async failure from callback");
          done(&err);
        });
      },
      kCPU, {}, {x}, FnProperty::kAsync);
  engine_->PushSync([&](RunContext) { reader_ran = true; }, kCPU, {x}, {y});
  engine_->PushAsync(
      [&value, &callbacks](RunContext, CallbackOnComplete done) {
        callbacks.Spawn([&value, done] {
          std::this_thread::sleep_for(5ms);
          value = 9;
          done();
        });
      },
      kCPU, {}, {z}, FnProperty::kAsync);
  engine_->PushSync([&](RunContext) { seen = value; }, kCPU, {z}, {});
  std::string error;
  RunWithTimeout([&] { error = ErrorOf([&] { engine_->WaitForVar(y); }); });
  EXPECT_TRUE(Contains(error, "async failure from callback")) << error;
  EXPECT_FALSE(reader_ran);
  RunWithTimeout([&] { engine_->WaitForAll(); });
  EXPECT_EQ(seen, 9) << "a read after an async write sees its result";
}

TEST_P(EngineTest, wait_for_all_under_concurrent_pushers) {
  constexpr int kThreads = 4, kOpsPerThread = 400, kVars = 8;
  std::vector<VarHandle> vars;
  for (int i = 0; i < kVars; ++i) vars.push_back(NewVar());
  std::vector<int64_t> counts(kVars, 0), expected(kVars, 0);
  auto pick = [](std::mt19937* rng) { return static_cast<int>((*rng)() % kVars); };
  for (int t = 0; t < kThreads; ++t) {
    std::mt19937 rng(t);
    for (int i = 0; i < kOpsPerThread; ++i) {
      int a = pick(&rng), b = pick(&rng);
      expected[a] += 1;
      expected[b] += 10;
    }
  }
  RunWithTimeout([&] {
    std::vector<std::thread> pushers;
    for (int t = 0; t < kThreads; ++t) {
      pushers.emplace_back([&, t] {
        std::mt19937 rng(t);
        for (int i = 0; i < kOpsPerThread; ++i) {
          int a = pick(&rng), b = pick(&rng);
          // Two writes per op, in either order across threads.
          engine_->PushSync(
              [&counts, a, b](RunContext) {
                counts[a] += 1;
                counts[b] += 10;
              },
              kCPU, {}, {vars[a], vars[b]});
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
  for (int i = 0; i < 20; ++i) {
    engine_->PushSync([&log, i](RunContext) {
      std::this_thread::sleep_for(200us);
      log.push_back(i);
    }, kCPU, {}, {x});
  }
  for (int i = 0; i < 3; ++i) {
    engine_->PushSync([&](RunContext) {
      std::this_thread::sleep_for(2ms);
      reads_done.fetch_add(1);
    }, kCPU, {x}, {});
  }
  engine_->DeleteVariable([&](RunContext) {
    writes_at_delete = log.size();
    reads_at_delete = reads_done.load();
  }, kCPU, x);
  // A var holding an error is deleted too (the delete function still runs).
  VarHandle failed = engine_->NewVariable();
  bool failed_deleted = false;
  engine_->PushSync([](RunContext) { throw std::runtime_error("x"); }, kCPU, {}, {failed});
  engine_->DeleteVariable([&](RunContext) { failed_deleted = true; }, kCPU, failed);
  RunWithTimeout([&] { ErrorOf([&] { engine_->WaitForAll(); }); });
  EXPECT_EQ(writes_at_delete, 20u);
  EXPECT_EQ(reads_at_delete, 3);
  EXPECT_TRUE(failed_deleted);
  // Recycled vars start fresh: no error, no pending work.
  std::atomic<int> deleted{0};
  int64_t sum = 0;
  for (int i = 0; i < 100; ++i) {
    VarHandle v = engine_->NewVariable();
    engine_->PushSync([&sum, i](RunContext) { sum += i; }, kCPU, {}, {v});
    RunWithTimeout([&] { EXPECT_EQ(ErrorOf([&] { engine_->WaitForVar(v); }), ""); });
    engine_->DeleteVariable([&](RunContext) { deleted.fetch_add(1); }, kCPU, v);
  }
  RunWithTimeout([&] { engine_->WaitForAll(); });
  EXPECT_EQ(deleted.load(), 100);
  EXPECT_EQ(sum, 4950);
}

TEST_P(EngineTest, priority_ops_all_run_and_keep_var_order) {
  constexpr int kVars = 4, kOps = 400;
  std::vector<VarHandle> vars;
  for (int i = 0; i < kVars; ++i) vars.push_back(NewVar());
  std::vector<std::vector<int>> logs(kVars);
  std::mt19937 rng(3);
  for (int i = 0; i < kOps; ++i) {
    const int v = i % kVars;
    const FnProperty prop = i % 3 == 0 ? FnProperty::kCPUPrioritized : FnProperty::kNormal;
    engine_->PushSync([&logs, v, i](RunContext) { logs[v].push_back(i); }, kCPU, {}, {vars[v]},
                      prop, static_cast<int>(rng() % 21) - 10);
  }
  RunWithTimeout([&] { engine_->WaitForAll(); });
  for (int v = 0; v < kVars; ++v) {
    ASSERT_EQ(logs[v].size(), static_cast<size_t>(kOps / kVars));
    for (size_t k = 0; k < logs[v].size(); ++k) EXPECT_EQ(logs[v][k], v + kVars * static_cast<int>(k));
  }
}

TEST_P(EngineTest, duplicate_and_overlapping_vars_are_deduplicated) {
  VarHandle x = NewVar(), y = NewVar();
  std::atomic<int> writers_inside{0};
  std::atomic<bool> overlapped{false};
  int runs = 0;
  RunWithTimeout([&] {
    for (int i = 0; i < 200; ++i) {
      // y is listed twice as written and once as read: it counts as one write.
      engine_->PushSync([&](RunContext) {
        if (writers_inside.fetch_add(1) != 0) overlapped = true;
        ++runs;
        writers_inside.fetch_sub(1);
      }, kCPU, {x, x, y}, {y, y});
    }
    engine_->WaitForAll();
  });
  EXPECT_EQ(runs, 200);
  EXPECT_FALSE(overlapped.load()) << "two writes of y ran at once";
}

TEST_P(EngineTest, reusable_operator_runs_once_per_push) {
  VarHandle x = NewVar();
  int count = 0;
  OprHandle op = engine_->NewOperator(
      [&count](RunContext, CallbackOnComplete done) {
        ++count;
        done();
      },
      {}, {x}, FnProperty::kNormal, "reusable");
  for (int i = 0; i < 100; ++i) engine_->Push(op, kCPU, i % 3);
  engine_->DeleteOperator(op);  // pushed instances still run
  RunWithTimeout([&] { engine_->WaitForAll(); });
  EXPECT_EQ(count, 100);
}

TEST_P(EngineTest, wait_for_var_inside_op_does_not_deadlock) {
  VarHandle x = NewVar(), y = NewVar();
  int y_value = 0, seen = -1;
  engine_->PushSync([&](RunContext) {
    std::this_thread::sleep_for(5ms);
    y_value = 1;
  }, kCPU, {}, {y});
  engine_->PushSync([&](RunContext) {
    engine_->WaitForVar(y);  // another worker finishes y meanwhile
    seen = y_value;
  }, kCPU, {}, {x});
  if (!Threaded()) {  // NaiveEngine: even a wait on the var the op itself writes returns
    engine_->PushSync([&](RunContext) { engine_->WaitForVar(x); }, kCPU, {}, {x});
  }
  RunWithTimeout([&] { engine_->WaitForAll(); });
  EXPECT_EQ(seen, 1);
}

TEST_P(EngineTest, wait_for_all_inside_op_fails_that_op_on_threaded_engines) {
  VarHandle x = NewVar();
  bool returned = false;
  engine_->PushSync([&](RunContext) {
    engine_->WaitForAll();
    returned = true;
  }, kCPU, {}, {x});
  std::string error;
  RunWithTimeout([&] { error = ErrorOf([&] { engine_->WaitForVar(x); }); });
  if (Threaded()) {
    EXPECT_TRUE(Contains(error, "WaitForAll")) << error;
    EXPECT_FALSE(returned);
  } else {  // NaiveEngine has nothing to wait for and returns
    EXPECT_EQ(error, "");
    EXPECT_TRUE(returned);
  }
}

TEST_P(EngineTest, stop_and_start_keep_pending_work) {
  VarHandle x = NewVar();
  int count = 0;
  for (int i = 0; i < 10; ++i) engine_->PushSync([&](RunContext) { ++count; }, kCPU, {}, {x});
  engine_->Stop();
  EXPECT_EQ(count, 10) << "Stop finishes the work pushed before it";
  for (int i = 0; i < 10; ++i) engine_->PushSync([&](RunContext) { ++count; }, kCPU, {}, {x});
  engine_->Start();
  RunWithTimeout([&] { engine_->WaitForAll(); });
  EXPECT_EQ(count, 20);
}

std::atomic<int> g_hook_starts{0}, g_hook_ends{0}, g_hook_bad_name{0};
void CountStart(const engine::OprExecInfo& info) {
  if (info.name == nullptr || std::string(info.name) != "hooked_op") g_hook_bad_name++;
  g_hook_starts++;
}
void CountEnd(const engine::OprExecInfo&) { g_hook_ends++; }

TEST_P(EngineTest, profiler_hooks_see_each_run) {
  VarHandle x = NewVar();
  g_hook_starts = g_hook_ends = g_hook_bad_name = 0;
  engine::SetOprHooks(CountStart, CountEnd);
  for (int i = 0; i < 10; ++i) {
    engine_->PushSync([](RunContext) {}, kCPU, {}, {x}, FnProperty::kNormal, 0, "hooked_op");
  }
  RunWithTimeout([&] { engine_->WaitForAll(); });
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
    g_exit_engine = MakeEngine(GetParam());
    std::vector<VarHandle> vars;
    for (int i = 0; i < 4; ++i) vars.push_back(g_exit_engine->NewVariable());
    for (int i = 0; i < 100; ++i) {
      g_exit_engine->PushSync([](RunContext) {
        std::this_thread::sleep_for(1ms);
        g_exit_counter++;
      }, kCPU, {}, {vars[i % 4]});
    }
    VarHandle v = Engine::Get()->NewVariable();
    for (int i = 0; i < 50; ++i) {
      Engine::Get()->PushSync([](RunContext) {
        std::this_thread::sleep_for(1ms);
        g_exit_counter++;
      }, kCPU, {}, {v});
    }
    std::exit(0);
  }
  EXPECT_EQ(WaitChild(pid, 30s), 0) << "a process exiting with queued engine work must exit 0";
}

TEST_P(EngineTest, forked_child_has_working_engine) {
  VarHandle x = NewVar();
  int64_t value = 0;
  auto step = [&value](RunContext) { value = (value * 3 + 1) % 1000003; };
  auto expect_after = [](int steps) {
    int64_t v = 0;
    for (int i = 0; i < steps; ++i) v = (v * 3 + 1) % 1000003;
    return v;
  };
  for (int i = 0; i < 100; ++i) engine_->PushSync(step, kCPU, {}, {x});  // not waited for
  std::fflush(nullptr);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    bool ok = value == expect_after(100);  // the engine finished its work before fork
    for (int i = 0; i < 50; ++i) engine_->PushSync(step, kCPU, {}, {x});
    engine_->WaitForVar(x);
    ok = ok && value == expect_after(150);
    VarHandle y = engine_->NewVariable();
    int reads = 0;
    engine_->PushSync([&](RunContext) { ++reads; }, kCPU, {x}, {y});
    engine_->WaitForAll();
    ok = ok && reads == 1;
    std::_Exit(ok ? 0 : 1);
  }
  EXPECT_EQ(WaitChild(pid, 30s), 0) << "the forked child's engine did not work";
  for (int i = 0; i < 10; ++i) engine_->PushSync(step, kCPU, {}, {x});
  RunWithTimeout([&] { engine_->WaitForVar(x); });
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
  EXPECT_TRUE(Contains(error, "gpu(0)")) << error;
  EXPECT_TRUE(Contains(error, "gpu_only_op")) << error;
  OprHandle op = engine_->NewOperator([&](RunContext, CallbackOnComplete done) { done(); }, {},
                                      {x});
  EXPECT_THROW(engine_->Push(op, Context::GPU(1)), dmlc::Error);
  engine_->DeleteOperator(op);
  RunWithTimeout([&] { EXPECT_EQ(ErrorOf([&] { engine_->WaitForAll(); }), ""); });
  EXPECT_FALSE(ran);
  int value = 0;
  engine_->PushSync([&](RunContext) { value = 3; }, kCPU, {}, {x});
  RunWithTimeout([&] { engine_->WaitForVar(x); });
  EXPECT_EQ(value, 3) << "the engine keeps working after refusing a GPU op";
#endif
}

INSTANTIATE_TEST_SUITE_P(AllEngines, EngineTest,
                         ::testing::Values("NaiveEngine", "ThreadedEngine",
                                           "ThreadedEnginePerDevice"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(EngineFactory, create_accepts_async_suffix_and_rejects_unknown_names) {
  EXPECT_STREQ(Engine::Create("NaiveEngineAsync")->Type(), "NaiveEngine");
  EXPECT_STREQ(Engine::Create("ThreadedEngine")->Type(), "ThreadedEngine");
  EXPECT_STREQ(Engine::Create("ThreadedEnginePerDeviceAsync")->Type(), "ThreadedEnginePerDevice");
  EXPECT_THROW(Engine::Create("FastEngine"), dmlc::Error);
}

TEST(EngineSingleton, get_returns_one_working_engine_of_the_configured_type) {
  std::string type = env::GetString("MXNET_ENGINE_TYPE");
  if (type.size() > 5 && type.compare(type.size() - 5, 5, "Async") == 0) type.resize(type.size() - 5);
  Engine* engine = Engine::Get();
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine, Engine::_GetSharedRef().get());
  EXPECT_EQ(std::string(engine->Type()), type);
  VarHandle x = engine->NewVariable();
  int value = 0;
  engine->PushSync([&](RunContext) { value = 4; }, kCPU, {}, {x});
  RunWithTimeout([&] { engine->WaitForVar(x); });
  EXPECT_EQ(value, 4);
  engine->DeleteVariable([](RunContext) {}, kCPU, x);
  RunWithTimeout([&] { engine->WaitForAll(); });
}

TEST(OprQueue, higher_priority_pops_first_and_ties_keep_push_order) {
  engine::OprBlock blocks[6];
  const int priorities[6] = {0, 3, -1, 0, 3, 7};
  engine::OprQueue queue;
  for (int i = 0; i < 6; ++i) {
    blocks[i].priority = priorities[i];
    queue.Push(&blocks[i]);
  }
  const int expected_order[6] = {5, 1, 4, 0, 3, 2};
  for (int i : expected_order) {
    ASSERT_FALSE(queue.empty());
    EXPECT_EQ(queue.Pop(), &blocks[i]);
  }
  EXPECT_TRUE(queue.empty());
}

}  // namespace
}  // namespace mxnet
