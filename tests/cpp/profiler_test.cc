// Tests of src/profiler: config parsing, state, engine op events, dumps, aggregates, memory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cctype>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/env.h"
#include "mxnet/c_api.h"
#include "mxnet/engine.h"
#include "mxnet/storage.h"
#include "profiler/profile_objects.h"
#include "profiler/profiler.h"

namespace mxnet {
namespace profiler {
namespace {

// A strict JSON syntax check (enough to tell a valid trace from a truncated one).
class JsonChecker {
 public:
  explicit JsonChecker(const std::string& s) : s_(s) {}
  bool Valid() {
    Ws();
    if (!Value()) return false;
    Ws();
    return i_ == s_.size();
  }

 private:
  void Ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool Lit(const char* w) {
    size_t n = std::strlen(w);
    if (s_.compare(i_, n, w) != 0) return false;
    i_ += n;
    return true;
  }
  bool String() {
    if (i_ >= s_.size() || s_[i_] != '"') return false;
    for (++i_; i_ < s_.size(); ++i_) {
      if (s_[i_] == '\\') {
        ++i_;
      } else if (s_[i_] == '"') {
        ++i_;
        return true;
      } else if (static_cast<unsigned char>(s_[i_]) < 0x20) {
        return false;
      }
    }
    return false;
  }
  bool Number() {
    size_t start = i_;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.' ||
                              s_[i_] == 'e' || s_[i_] == 'E' || s_[i_] == '+' || s_[i_] == '-'))
      ++i_;
    return i_ > start;
  }
  bool Value() {
    Ws();
    if (i_ >= s_.size()) return false;
    char c = s_[i_];
    if (c == '{') return Container('}', true);
    if (c == '[') return Container(']', false);
    if (c == '"') return String();
    if (c == 't') return Lit("true");
    if (c == 'f') return Lit("false");
    if (c == 'n') return Lit("null");
    return Number();
  }
  bool Container(char close, bool object) {
    ++i_;
    Ws();
    if (i_ < s_.size() && s_[i_] == close) return ++i_, true;
    while (true) {
      Ws();
      if (object) {
        if (!String()) return false;
        Ws();
        if (i_ >= s_.size() || s_[i_++] != ':') return false;
      }
      if (!Value()) return false;
      Ws();
      if (i_ >= s_.size()) return false;
      if (s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (s_[i_] == close) return ++i_, true;
      return false;
    }
  }
  const std::string& s_;
  size_t i_{0};
};

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

size_t Count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

std::string TempPath(const std::string& name) {
  return "/tmp/mxnet_profiler_test_" + std::to_string(getpid()) + "_" + name;
}

ProfilerConfig Config(const std::string& filename, bool continuous = false) {
  ProfilerConfig c = ParseConfig({{"profile_all", "True"}, {"filename", filename}});
  c.continuous_dump = continuous;
  return c;
}

// Leaves the profiler stopped, with its statistics and kept events cleared.
void Reset() {
  Profiler* p = Profiler::Get();
  p->SetState(false);
  p->SetConfig(Config(TempPath("reset.json")));
  p->Dump(true);
  p->AggregateStats(true, 0, kSortTotal, false);
  std::remove(TempPath("reset.json").c_str());
}

TEST(ProfilerConfigTest, unknown_keys_and_bad_values_name_the_key) {
  auto message = [](std::vector<std::pair<std::string, std::string>> kv) {
    try {
      ParseConfig(kv);
    } catch (const dmlc::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({{"profile_everything", "True"}}).find("profile_everything"), std::string::npos);
  EXPECT_NE(message({{"profile_memory", "maybe"}}).find("profile_memory"), std::string::npos);
  EXPECT_NE(message({{"dump_period", "-1"}}).find("dump_period"), std::string::npos);
  EXPECT_NE(message({{"profile_process", "server"}}).find("server"), std::string::npos);
  EXPECT_NE(message({{"filename", "/nonexistent_dir_xyz/p.json"}}).find("filename"),
            std::string::npos);
  ProfilerConfig c = ParseConfig({{"profile_symbolic", "False"}, {"profile_api", "0"},
                                  {"aggregate_stats", "True"}, {"profile_process", "worker"}});
  EXPECT_EQ(c.mode, kImperative | kMemory);
  EXPECT_TRUE(c.aggregate_stats);
  EXPECT_EQ(ParseConfig({{"profile_all", "1"}, {"profile_api", "False"}}).mode, 15);
}

TEST(ProfilerStateTest, records_only_while_running_and_not_paused) {
  Reset();
  Profiler* p = Profiler::Get();
  EXPECT_FALSE(Recording(kImperative));
  p->SetState(true);
  EXPECT_TRUE(p->IsRunning());
  EXPECT_TRUE(Recording(kImperative));
  p->SetPaused(true);
  EXPECT_FALSE(Recording(kImperative));
  p->SetPaused(false);
  EXPECT_TRUE(Recording(kImperative));
  p->SetState(false);
  EXPECT_FALSE(Recording(kImperative | kAPI | kMemory));
}

TEST(ProfilerClockTest, fast_clock_is_monotonic_and_runs_at_the_steady_clock_rate) {
  EnableFastClock();  // the time-stamp counter where the kernel's clock is the TSC
  int64_t prev = NowNs();
  for (int i = 0; i < 100000; ++i) {
    const int64_t now = NowNs();
    ASSERT_GE(now, prev) << "the profiler clock went backwards";
    prev = now;
  }
  const auto s0 = std::chrono::steady_clock::now();
  const int64_t n0 = NowNs();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const int64_t n1 = NowNs();
  const auto s1 = std::chrono::steady_clock::now();
  const double steady_ns = std::chrono::duration<double, std::nano>(s1 - s0).count();
  // n1 - n0 lies inside [s0, s1]; the bracket is at most a scheduling delay wider.
  EXPECT_LE(n1 - n0, steady_ns * 1.001 + 1000);
  EXPECT_GE(n1 - n0, 50e6 * 0.999);
  // And it stays on the steady clock's time line (the origin of trace timestamps).
  const int64_t steady_now = clock_detail::SteadyNs();
  EXPECT_LT(std::abs(NowNs() - steady_now), 1000000) << "more than 1 ms off steady_clock";
}

// Ops pushed from several threads to an engine with many workers: every op appears once,
// with a non-negative duration, and ops writing one variable do not overlap.
TEST(ProfilerEngineTest, op_events_from_many_workers_are_complete_and_ordered) {
  Reset();
  setenv("MXNET_CPU_WORKER_NTHREADS", "8", 1);
  env::ResetCache();
  std::unique_ptr<Engine> engine = Engine::Create("ThreadedEnginePerDevice");
  unsetenv("MXNET_CPU_WORKER_NTHREADS");
  env::ResetCache();
  const std::string file = TempPath("ops.json");
  Profiler* p = Profiler::Get();
  p->SetConfig(Config(file));
  p->SetState(true);
  constexpr int kThreads = 4, kOpsPerThread = 200;
  VarHandle shared = engine->NewVariable();
  std::vector<std::thread> pushers;
  for (int t = 0; t < kThreads; ++t) {
    pushers.emplace_back([&] {
      VarHandle own = engine->NewVariable();
      for (int i = 0; i < kOpsPerThread; ++i) {
        engine->PushSync([](RunContext) {}, Context::CPU(), {}, {own}, FnProperty::kNormal, 0,
                         "profiled_op");
        if (i % 10 == 0) {
          engine->PushSync([](RunContext) { std::this_thread::yield(); }, Context::CPU(), {},
                           {shared}, FnProperty::kNormal, 0, "serial_op");
        }
      }
      engine->WaitForAll();
      engine->DeleteVariable({}, Context::CPU(), own);
    });
  }
  for (auto& t : pushers) t.join();
  engine->WaitForAll();
  p->SetState(false);
  p->Dump(false);
  const std::string trace = ReadFile(file);
  EXPECT_TRUE(JsonChecker(trace).Valid());
  EXPECT_EQ(Count(trace, "\"name\":\"profiled_op\""), size_t{kThreads * kOpsPerThread});
  EXPECT_EQ(Count(trace, "\"name\":\"serial_op\""), size_t{kThreads * kOpsPerThread / 10});
  EXPECT_EQ(Count(trace, "\"dur\":-"), 0u);
  // serial_op events (all on one variable) must not overlap in time.
  std::vector<std::pair<double, double>> spans;
  for (size_t pos = trace.find("\"name\":\"serial_op\""); pos != std::string::npos;
       pos = trace.find("\"name\":\"serial_op\"", pos + 1)) {
    double ts = std::atof(trace.c_str() + trace.find("\"ts\":", pos) + 5);
    double dur = std::atof(trace.c_str() + trace.find("\"dur\":", pos) + 6);
    spans.emplace_back(ts, ts + dur);
  }
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i) EXPECT_LE(spans[i - 1].second, spans[i].first + 1e-3);
  // The aggregate agrees with the trace.
  const std::string json = p->AggregateStats(false, 1, kSortCount, false);
  EXPECT_TRUE(JsonChecker(json).Valid()) << json;
  EXPECT_NE(json.find("\"profiled_op\": {\"Count\": 800,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"serial_op\": {\"Count\": 80,"), std::string::npos) << json;
  // Sorted by count descending: profiled_op first; ascending: serial_op first.
  EXPECT_LT(json.find("profiled_op"), json.find("serial_op"));
  const std::string asc = p->AggregateStats(false, 1, kSortCount, true);
  EXPECT_GT(asc.find("profiled_op"), asc.find("serial_op"));
  const std::string table = p->AggregateStats(true, 0, kSortTotal, false);
  EXPECT_NE(table.find("operator\n================="), std::string::npos) << table;
  EXPECT_EQ(p->AggregateStats(false, 1, kSortTotal, false).find("profiled_op"),
            std::string::npos);  // reset cleared it
  engine->DeleteVariable({}, Context::CPU(), shared);
  engine->WaitForAll();
  std::remove(file.c_str());
}

TEST(ProfilerDumpTest, continuous_dump_file_is_valid_after_every_flush) {
  Reset();
  std::unique_ptr<Engine> engine = Engine::Create("ThreadedEngine");
  const std::string file = TempPath("continuous.json");
  Profiler* p = Profiler::Get();
  ProfilerConfig c = Config(file, true);
  c.dump_period = 1000;  // flushes come from Dump(false) in this test
  p->SetConfig(c);
  p->SetState(true);
  VarHandle v = engine->NewVariable();
  for (int round = 1; round <= 3; ++round) {
    for (int i = 0; i < 5; ++i) {
      engine->PushSync([](RunContext) {}, Context::CPU(), {}, {v}, FnProperty::kNormal, 0,
                       "cont_op");
    }
    engine->WaitForAll();
    p->Dump(false);
    const std::string trace = ReadFile(file);
    EXPECT_TRUE(JsonChecker(trace).Valid()) << "after flush " << round << ":\n" << trace;
    EXPECT_EQ(Count(trace, "\"name\":\"cont_op\""), size_t(5 * round));
  }
  p->SetState(false);
  p->Dump(true);
  EXPECT_TRUE(JsonChecker(ReadFile(file)).Valid());
  engine->DeleteVariable({}, Context::CPU(), v);
  engine->WaitForAll();
  std::remove(file.c_str());
}

TEST(ProfilerMemoryTest, memory_events_agree_with_storage_counters) {
  Reset();
  const std::string file = TempPath("memory.json");
  Profiler* p = Profiler::Get();
  p->SetConfig(Config(file));
  p->SetState(true);
  Storage* s = Storage::Get();
  std::vector<Storage::Handle> hs;
  for (size_t n : {1000, 5000, 123456}) hs.push_back(s->Alloc(n, Context::CPU()));
  s->Free(hs[1]);
  const size_t in_use = s->BytesInUse(Context::CPU());
  p->SetState(false);
  p->Dump(true);
  const std::string trace = ReadFile(file);
  EXPECT_TRUE(JsonChecker(trace).Valid());
  EXPECT_GE(Count(trace, "\"name\":\"alloc\""), 3u);
  EXPECT_GE(Count(trace, "\"name\":\"free\""), 1u);
  const size_t last = trace.rfind("\"bytes_in_use\":");
  ASSERT_NE(last, std::string::npos);
  EXPECT_EQ(std::strtoull(trace.c_str() + last + 15, nullptr, 10), in_use);
  const std::string table = p->AggregateStats(true, 0, kSortTotal, false);
  EXPECT_NE(table.find("Memory: cpu/0"), std::string::npos) << table;
  s->Free(hs[0]);
  s->Free(hs[2]);
  std::remove(file.c_str());
}

TEST(ProfilerCApiTest, custom_objects_and_bad_arguments) {
  Reset();
  const std::string file = TempPath("objects.json");
  const char* keys[] = {"profile_all", "filename"};
  const char* vals[] = {"True", file.c_str()};
  ASSERT_EQ(MXSetProcessProfilerConfig(2, keys, vals, nullptr), 0) << MXGetLastError();
  const char* bad_keys[] = {"no_such_key"};
  EXPECT_EQ(MXSetProfilerConfig(1, bad_keys, vals), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("no_such_key"), std::string::npos);
  EXPECT_EQ(MXSetProcessProfilerState(1, 1, nullptr), -1);  // server process
  EXPECT_EQ(MXSetProfilerState(7), -1);
  ASSERT_EQ(MXSetProfilerState(1), 0);
  ProfileHandle domain, task, counter, event;
  ASSERT_EQ(MXProfileCreateDomain("my_domain", &domain), 0);
  ASSERT_EQ(MXProfileCreateTask(domain, "my_task", &task), 0);
  ASSERT_EQ(MXProfileCreateCounter(domain, "my_counter", &counter), 0);
  ASSERT_EQ(MXProfileCreateEvent("my_event", &event), 0);
  EXPECT_EQ(MXProfileDurationStart(counter), -1);  // not a duration
  EXPECT_EQ(MXProfileDurationStart(task), 0);
  EXPECT_EQ(MXProfileDurationStart(event), 0);
  EXPECT_EQ(MXProfileSetCounter(counter, 10), 0);
  EXPECT_EQ(MXProfileAdjustCounter(counter, -3), 0);
  EXPECT_EQ(MXProfileSetMarker(domain, "my_marker", "process"), 0);
  EXPECT_EQ(MXProfileSetMarker(domain, "my_marker", "galaxy"), -1);
  EXPECT_EQ(MXProfileDurationStop(event), 0);
  EXPECT_EQ(MXProfileDurationStop(task), 0);
  ASSERT_EQ(MXSetProfilerState(0), 0);
  ASSERT_EQ(MXDumpProfile(1), 0) << MXGetLastError();
  const std::string trace = ReadFile(file);
  EXPECT_TRUE(JsonChecker(trace).Valid());
  EXPECT_NE(trace.find("\"name\":\"my_task\",\"cat\":\"my_domain\",\"ph\":\"X\""),
            std::string::npos) << trace;
  EXPECT_NE(trace.find("\"name\":\"my_event\""), std::string::npos);
  EXPECT_NE(trace.find("\"args\":{\"my_counter\":7}"), std::string::npos);
  EXPECT_NE(trace.find("\"name\":\"my_marker\",\"cat\":\"my_domain\",\"ph\":\"i\""),
            std::string::npos);
  EXPECT_NE(trace.find("\"cat\":\"MXNET_C_API\""), std::string::npos);
  const char* out = nullptr;
  EXPECT_EQ(MXAggregateProfileStatsPrintEx(&out, 1, 1, 9, 0), -1);  // bad sort key
  EXPECT_EQ(MXAggregateProfileStatsPrintEx(&out, 1, 0, 0, 0), 0);
  EXPECT_NE(std::string(out).find("my_task"), std::string::npos);
  for (ProfileHandle h : {task, counter, event, domain}) EXPECT_EQ(MXProfileDestroyHandle(h), 0);
  std::remove(file.c_str());
}

TEST(ProfilerDumpTest, unwritable_file_fails_at_dump_and_profiler_stays_usable) {
  Reset();
  const std::string dir = TempPath("gone_dir");
  ASSERT_EQ(system(("mkdir -p " + dir).c_str()), 0);
  Profiler* p = Profiler::Get();
  p->SetConfig(Config(dir + "/p.json"));
  p->SetState(true);
  ProfileDomain d("d");
  ProfileDuration task(d.name, "kept_task");
  task.Start();
  task.Stop();
  p->SetState(false);
  ASSERT_EQ(system(("rm -rf " + dir).c_str()), 0);
  EXPECT_THROW(p->Dump(true), dmlc::Error);
  const std::string file = TempPath("usable.json");
  p->SetConfig(Config(file));
  p->Dump(true);
  EXPECT_NE(ReadFile(file).find("kept_task"), std::string::npos);  // events were kept
  std::remove(file.c_str());
}

}  // namespace
}  // namespace profiler
}  // namespace mxnet
