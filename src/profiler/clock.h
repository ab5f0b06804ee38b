// The profiler's clock: nanoseconds since the library loaded, on one monotonic time line.
#ifndef MXNET_PROFILER_CLOCK_H_
#define MXNET_PROFILER_CLOCK_H_

#include <atomic>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#define MXNET_PROFILER_HAS_TSC 1  // read with __builtin_ia32_rdtsc (no intrinsics header)
#else
#define MXNET_PROFILER_HAS_TSC 0
#endif

namespace mxnet {
namespace profiler {
namespace clock_detail {
struct TscScale {
  std::atomic<bool> ready{false};
  uint64_t tsc0{0};
  int64_t ns0{0};
  double ns_per_tick{0.0};
};
extern TscScale g_tsc;
int64_t SteadyNs();
}  // namespace clock_detail

/*!
 * \brief Make NowNs read the CPU's time-stamp counter from now on, where that is the kernel's
 *  own clock source ("tsc": invariant and checked to agree across cores): a few ns per read
 *  instead of a clock_gettime call, which every recorded event pays once or twice. Calibrated
 *  against steady_clock once (about 2 ms, at the first start of the profiler); elsewhere NowNs
 *  stays on steady_clock.
 */
void EnableFastClock();

/*! \brief Nanoseconds since the profiler's clock origin. */
inline int64_t NowNs() {
#if MXNET_PROFILER_HAS_TSC
  const clock_detail::TscScale& s = clock_detail::g_tsc;
  if (s.ready.load(std::memory_order_acquire)) {
    const uint64_t ticks = __builtin_ia32_rdtsc() - s.tsc0;
    return s.ns0 + static_cast<int64_t>(static_cast<double>(ticks) * s.ns_per_tick);
  }
#endif
  return clock_detail::SteadyNs();
}

}  // namespace profiler
}  // namespace mxnet

#endif  // MXNET_PROFILER_CLOCK_H_
