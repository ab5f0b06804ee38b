// Bulk execution of the threaded engines (set_bulk_size): gathered ops, flushes, errors.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "mxnet/engine.h"

namespace mxnet {
namespace {

using namespace std::chrono_literals;
const Context kCPU = Context::CPU();

// The calling thread's bulk size for one test; back to 0 after it.
struct BulkSize {
  BulkSize(Engine* e, int size) : engine(e) { engine->set_bulk_size(size); }
  ~BulkSize() { engine->set_bulk_size(0); }
  Engine* engine;
};

// True when pred holds within the limit (polling).
template <typename Pred>
bool Eventually(Pred pred, std::chrono::milliseconds limit = 5000ms) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

class BulkTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { engine = Engine::Create(GetParam().c_str()); }
  void TearDown() override { engine.reset(); }
  std::unique_ptr<Engine> engine;
};

TEST_P(BulkTest, gathered_ops_wait_for_a_flush_and_run_in_push_order) {
  VarHandle v = engine->NewVariable();
  std::vector<int> order;
  std::atomic<int> ran{0};
  {
    BulkSize bulk(engine.get(), 10);
    for (int i = 0; i < 3; ++i) {
      engine->PushSync([&, i](RunContext ctx) {
        EXPECT_TRUE(ctx.is_bulk);
        order.push_back(i);
        ++ran;
      }, kCPU, {}, {v});
    }
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(ran.load(), 0) << "a bulk of 3 with size 10 ran before any flush";
    engine->WaitForVar(v);  // flushes the bulk
    EXPECT_EQ(ran.load(), 3);
    // A full bulk is pushed without a wait.
    for (int i = 3; i < 23; ++i) {
      engine->PushSync([&, i](RunContext) { order.push_back(i); ++ran; }, kCPU, {}, {v});
    }
    EXPECT_TRUE(Eventually([&] { return ran.load() == 23; }));
  }
  engine->WaitForAll();
  ASSERT_EQ(order.size(), 23u);
  for (int i = 0; i < 23; ++i) EXPECT_EQ(order[i], i);
  engine->DeleteVariable([](RunContext) {}, kCPU, v);
  engine->WaitForAll();
}

TEST_P(BulkTest, dependencies_hold_across_bulks_and_unbulked_ops) {
  VarHandle a = engine->NewVariable(), b = engine->NewVariable(), c = engine->NewVariable();
  int va = 0, vb = 0, vc = 0;
  {
    BulkSize bulk(engine.get(), 3);
    for (int round = 0; round < 20; ++round) {
      engine->PushSync([&](RunContext) { va += 1; }, kCPU, {}, {a});
      engine->PushSync([&](RunContext) { vb = va * 2; }, kCPU, {a}, {b});
      // An op that cannot join (async) pushes the pending bulk first.
      engine->PushAsync([&](RunContext, CallbackOnComplete done) {
        vc = vb + 1;
        done();
      }, kCPU, {b}, {c}, FnProperty::kNormal);
      engine->PushSync([&](RunContext) { va = vc; }, kCPU, {c}, {a});
    }
  }
  engine->WaitForVar(a);
  // Each round: va += 1; vb = 2 va; vc = vb + 1; va = vc.
  int ea = 0, eb = 0, ec = 0;
  for (int round = 0; round < 20; ++round) {
    ea += 1;
    eb = ea * 2;
    ec = eb + 1;
    ea = ec;
  }
  EXPECT_EQ(va, ea);
  EXPECT_EQ(vb, eb);
  EXPECT_EQ(vc, ec);
  for (VarHandle v : {a, b, c}) engine->DeleteVariable([](RunContext) {}, kCPU, v);
  engine->WaitForAll();
}

TEST_P(BulkTest, set_bulk_size_and_wait_for_all_push_the_pending_bulk) {
  VarHandle v = engine->NewVariable();
  std::atomic<int> ran{0};
  engine->set_bulk_size(8);
  engine->PushSync([&](RunContext) { ++ran; }, kCPU, {}, {v});
  engine->PushSync([&](RunContext) { ++ran; }, kCPU, {v}, {});
  EXPECT_EQ(engine->set_bulk_size(0), 8);
  EXPECT_TRUE(Eventually([&] { return ran.load() == 2; }));
  {
    BulkSize bulk(engine.get(), 8);
    engine->PushSync([&](RunContext) { ++ran; }, kCPU, {}, {v});
    engine->WaitForAll();
    EXPECT_EQ(ran.load(), 3);
  }
  engine->DeleteVariable([](RunContext) {}, kCPU, v);
  engine->WaitForAll();
}

TEST_P(BulkTest, an_op_of_another_kind_or_context_pushes_the_pending_bulk) {
  VarHandle v = engine->NewVariable(), w = engine->NewVariable();
  std::atomic<int> first{0}, second{0};
  {
    BulkSize bulk(engine.get(), 10);
    engine->PushSync([&](RunContext) { ++first; }, kCPU, {}, {v}, FnProperty::kNormal);
    // A small op does not join a bulk of worker ops: the bulk goes, the small op waits.
    engine->PushSync([&](RunContext) { ++second; }, kCPU, {}, {w}, FnProperty::kCPUSmall);
    EXPECT_TRUE(Eventually([&] { return first.load() == 1; }));
    EXPECT_EQ(second.load(), 0);
    // Another context (cpu(1)) pushes the small op's bulk.
    engine->PushSync([&](RunContext) { ++first; }, Context::CPU(1), {}, {v});
    EXPECT_TRUE(Eventually([&] { return second.load() == 1; }));
  }
  engine->WaitForAll();
  EXPECT_EQ(first.load(), 2);
  for (VarHandle x : {v, w}) engine->DeleteVariable([](RunContext) {}, kCPU, x);
  engine->WaitForAll();
}

TEST_P(BulkTest, deleting_a_var_of_the_pending_bulk_runs_the_bulk_first) {
  VarHandle v = engine->NewVariable();
  std::vector<std::string> events;
  std::mutex mu;
  auto log = [&](const char* what) {
    std::lock_guard<std::mutex> lock(mu);
    events.push_back(what);
  };
  {
    BulkSize bulk(engine.get(), 10);
    engine->PushSync([&](RunContext) { log("write"); }, kCPU, {}, {v});
    engine->DeleteVariable([&](RunContext) { log("delete"); }, kCPU, v);
  }
  engine->WaitForAll();
  EXPECT_EQ(events, (std::vector<std::string>{"write", "delete"}));
}

TEST_P(BulkTest, an_error_stops_the_bulk_and_reaches_its_writes) {
  VarHandle before = engine->NewVariable(), bad = engine->NewVariable();
  VarHandle after = engine->NewVariable(), other = engine->NewVariable();
  std::atomic<int> after_ran{0};
  {
    BulkSize bulk(engine.get(), 10);
    engine->PushSync([](RunContext) {}, kCPU, {}, {before});
    engine->PushSync([](RunContext) { throw std::runtime_error("bulked op failed"); }, kCPU, {},
                     {bad});
    engine->PushSync([&](RunContext) { ++after_ran; }, kCPU, {}, {after});
  }
  // As MXNet 1.9.1: the later ops of the bulk do not run and every var it writes holds the
  // error, which is reported once.
  try {
    engine->WaitForVar(after);
    FAIL() << "no error at the wait";
  } catch (const dmlc::Error& e) {
    EXPECT_NE(std::string(e.what()).find("bulked op failed"), std::string::npos) << e.what();
  }
  EXPECT_EQ(after_ran.load(), 0);
  EXPECT_NO_THROW(engine->WaitForVar(bad));  // reported already
  // A var outside the bulk is untouched, and the error does not come back at WaitForAll.
  engine->PushSync([](RunContext) {}, kCPU, {}, {other});
  EXPECT_NO_THROW(engine->WaitForVar(other));
  EXPECT_NO_THROW(engine->WaitForAll());
  // An op reading a var of the failed bulk before the report would be skipped; after the
  // report the vars read clean and a new bulk runs.
  {
    BulkSize bulk(engine.get(), 10);
    engine->PushSync([&](RunContext) { ++after_ran; }, kCPU, {bad}, {after});
  }
  EXPECT_NO_THROW(engine->WaitForVar(after));
  EXPECT_EQ(after_ran.load(), 1);
  for (VarHandle v : {before, bad, after, other}) {
    engine->DeleteVariable([](RunContext) {}, kCPU, v);
  }
  engine->WaitForAll();
}

TEST_P(BulkTest, an_error_held_by_an_input_skips_the_bulk) {
  VarHandle poisoned = engine->NewVariable(), out = engine->NewVariable();
  engine->PushSync([](RunContext) { throw std::runtime_error("earlier failure"); }, kCPU, {},
                   {poisoned});
  std::atomic<int> ran{0};
  {
    BulkSize bulk(engine.get(), 10);
    engine->PushSync([&](RunContext) { ++ran; }, kCPU, {poisoned}, {out});
  }
  EXPECT_THROW(engine->WaitForVar(out), dmlc::Error);
  EXPECT_EQ(ran.load(), 0);
  for (VarHandle v : {poisoned, out}) engine->DeleteVariable([](RunContext) {}, kCPU, v);
  EXPECT_NO_THROW(engine->WaitForAll());
}

TEST_P(BulkTest, a_thread_that_exits_with_a_pending_bulk_still_runs_it) {
  VarHandle v = engine->NewVariable();
  std::atomic<int> ran{0};
  std::thread t([&] {
    engine->set_bulk_size(10);
    engine->PushSync([&](RunContext) { ++ran; }, kCPU, {}, {v});
  });
  t.join();
  engine->WaitForVar(v);
  EXPECT_EQ(ran.load(), 1);
  engine->DeleteVariable([](RunContext) {}, kCPU, v);
  engine->WaitForAll();
}

INSTANTIATE_TEST_SUITE_P(ThreadedEngines, BulkTest,
                         ::testing::Values("ThreadedEngine", "ThreadedEnginePerDevice"));

TEST(BulkNaiveEngine, ignores_the_bulk_size) {
  std::unique_ptr<Engine> engine = Engine::Create("NaiveEngine");
  VarHandle v = engine->NewVariable();
  int ran = 0;
  EXPECT_EQ(engine->set_bulk_size(10), 0);
  engine->PushSync([&](RunContext ctx) {
    EXPECT_FALSE(ctx.is_bulk);
    ++ran;
  }, kCPU, {}, {v});
  EXPECT_EQ(ran, 1);  // ran at its push
  EXPECT_EQ(engine->set_bulk_size(0), 10);
  engine->DeleteVariable([](RunContext) {}, kCPU, v);
  engine->WaitForAll();
}

}  // namespace
}  // namespace mxnet
