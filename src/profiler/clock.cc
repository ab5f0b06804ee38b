// The profiler's clock: steady_clock, or the time-stamp counter scaled to it (see clock.h).
#include "profiler/clock.h"

#include <chrono>
#include <fstream>
#include <mutex>
#include <string>

namespace mxnet {
namespace profiler {
namespace clock_detail {

namespace {
const std::chrono::steady_clock::time_point g_origin = std::chrono::steady_clock::now();

// The kernel uses the TSC as its clock only after checking that it is invariant and in step
// across CPUs; that is the condition for reading it directly.
bool KernelClockIsTsc() {
  std::ifstream f("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string name;
  return static_cast<bool>(f >> name) && name == "tsc";
}

#if MXNET_PROFILER_HAS_TSC
// One (tsc, ns) pair read as close together as this thread manages: the tightest bracket of
// a few tries, so a preemption during one read does not skew the calibration.
void Sample(uint64_t* tsc, int64_t* ns) {
  int64_t best = -1;
  for (int i = 0; i < 16; ++i) {
    const int64_t before = SteadyNs();
    const uint64_t t = __builtin_ia32_rdtsc();
    const int64_t after = SteadyNs();
    if (best < 0 || after - before < best) {
      best = after - before;
      *tsc = t;
      *ns = before + (after - before) / 2;
    }
  }
}
#endif
}  // namespace

TscScale g_tsc;

int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              g_origin)
      .count();
}

}  // namespace clock_detail

void EnableFastClock() {
#if MXNET_PROFILER_HAS_TSC
  static std::once_flag once;
  std::call_once(once, [] {
    if (!clock_detail::KernelClockIsTsc()) return;
    uint64_t tsc0, tsc1;
    int64_t ns0, ns1;
    clock_detail::Sample(&tsc0, &ns0);
    do {
      clock_detail::Sample(&tsc1, &ns1);
    } while (ns1 - ns0 < 2000000);  // 2 ms: the rate to about 1e-5
    if (tsc1 <= tsc0) return;
    clock_detail::TscScale& s = clock_detail::g_tsc;
    s.ns_per_tick = static_cast<double>(ns1 - ns0) / static_cast<double>(tsc1 - tsc0);
    s.tsc0 = tsc1;
    s.ns0 = ns1;
    s.ready.store(true, std::memory_order_release);
  });
#endif
}

}  // namespace profiler
}  // namespace mxnet
