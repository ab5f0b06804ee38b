// OpenMP thread counts of operations run by engine workers; see op_threads.h.
#include "engine/op_threads.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>

#if MXNET_USE_OPENMP
#include <omp.h>
#endif

#include "common/env.h"

namespace mxnet {
namespace engine {
namespace {

// A frontend that pushed within this window, and has not started waiting since, is busy.
// Between two pushes of a Python loop there is Python work of tens to a few hundred
// microseconds, not more.
constexpr int64_t kBusyWindowNs = 1000000;
// It is given a core only once it has been busy this long: a loop that pushes one step and
// waits for it (pushing takes a millisecond or two) would otherwise start the step's first,
// longest-running operations on fewer threads just before it starts waiting.
constexpr int64_t kSustainedNs = 5000000;
// How often the cores other processes use are sampled (/proc/stat counts in 10 ms ticks).
constexpr int64_t kLoadIntervalNs = 200000000;

std::atomic<int64_t> g_last_push_ns{0};  // 0: the frontend waits (or never pushed)
std::atomic<int64_t> g_busy_since_ns{0};  // the first push after the last wait or pause
std::atomic<int> g_base_threads{0};      // 0: not known yet
std::atomic<int> g_free_cores{1 << 20};  // cores other processes left us, rounded
std::atomic<int64_t> g_next_sample_ns{0};
thread_local bool tls_worker = false;
thread_local int tls_threads = 0;  // the count this worker last set; 0: none yet
thread_local uint64_t tls_env_generation = ~uint64_t{0};
thread_local bool tls_adaptive = true;

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int BaseThreadsImpl() {
  int n = g_base_threads.load(std::memory_order_relaxed);
  if (n > 0) return n;
#if MXNET_USE_OPENMP
  n = std::max(1, omp_get_max_threads());  // a worker's default: OMP_NUM_THREADS or the cores
#else
  n = 1;
#endif
  int unknown = 0;
  g_base_threads.compare_exchange_strong(unknown, n, std::memory_order_relaxed);
  return g_base_threads.load(std::memory_order_relaxed);
}

// Busy CPU seconds of the whole machine (all cores) since boot; < 0 when unknown.
double MachineBusySeconds() {
  FILE* f = std::fopen("/proc/stat", "r");
  if (f == nullptr) return -1;
  unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
                     steal = 0;
  const int got = std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice,
                              &system, &idle, &iowait, &irq, &softirq, &steal);
  std::fclose(f);
  if (got < 4) return -1;
  static const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  return static_cast<double>(user + nice + system + irq + softirq + steal) / ticks;
}

double ProcessCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// Every kLoadIntervalNs, one worker measures how many cores the rest of the machine kept busy
// (its busy time less this process's) and stores the cores left, rounded.
void SampleLoad(int64_t now) {
  int64_t next = g_next_sample_ns.load(std::memory_order_relaxed);
  if (now < next ||
      !g_next_sample_ns.compare_exchange_strong(next, now + kLoadIntervalNs,
                                                std::memory_order_relaxed)) {
    return;
  }
  static double last_machine = -1, last_self = 0;
  static int64_t last_ns = 0;
  const double machine = MachineBusySeconds();
  const double self = ProcessCpuSeconds();
  if (machine >= 0 && last_machine >= 0 && now > last_ns) {
    const double seconds = 1e-9 * static_cast<double>(now - last_ns);
    const double others = std::max(0.0, (machine - last_machine) - (self - last_self)) / seconds;
    static const long cores = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
    const int free_cores = std::max(1, static_cast<int>(std::lround(cores - others)));
    g_free_cores.store(free_cores, std::memory_order_relaxed);
  }
  last_machine = machine;
  last_self = self;
  last_ns = now;
}

}  // namespace

void MarkWorkerThread() { tls_worker = true; }

void NoteFrontendPush() {
  if (tls_worker) return;
  const int64_t now = NowNs();
  const int64_t last = g_last_push_ns.exchange(now, std::memory_order_relaxed);
  if (last == 0 || now - last >= kBusyWindowNs) {
    g_busy_since_ns.store(now, std::memory_order_relaxed);
  }
}

void NoteFrontendWait() {
  if (!tls_worker) g_last_push_ns.store(0, std::memory_order_relaxed);
}

void UseOpThreads() {
#if MXNET_USE_OPENMP
  int n = OpThreadsBase();
  const uint64_t generation = env::CacheGeneration();
  if (generation != tls_env_generation) {
    // oneDNN's GEMMs and convolutions round differently for another thread count.
    tls_adaptive = env::GetBool("MXNET_OMP_ADAPTIVE_THREADS") &&
                   !env::GetBool("MXNET_ENFORCE_DETERMINISM");
    tls_env_generation = generation;
  }
  if (n > 1 && tls_adaptive) {
    const int64_t now = NowNs();
    SampleLoad(now);
    const int64_t last = g_last_push_ns.load(std::memory_order_relaxed);
    const bool busy = last != 0 && now - last < kBusyWindowNs &&
                      now - g_busy_since_ns.load(std::memory_order_relaxed) >= kSustainedNs;
    n = OpThreadCount(n, g_free_cores.load(std::memory_order_relaxed), busy);
  }
  if (n != tls_threads) {
    omp_set_num_threads(n);
    tls_threads = n;
  }
#endif
}

void SetOpThreadsBase(int n) { g_base_threads.store(std::max(1, n), std::memory_order_relaxed); }

int OpThreadsBase() { return BaseThreadsImpl(); }

int64_t LastFrontendPushNs() { return g_last_push_ns.load(std::memory_order_relaxed); }

int OpThreadCount(int base, int free_cores, bool frontend_busy) {
  return std::max(1, std::min(base, free_cores) - (frontend_busy ? 1 : 0));
}

}  // namespace engine
}  // namespace mxnet
