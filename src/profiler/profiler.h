// The profiler: what it records (engine ops, C API calls, memory, custom objects), its state,
// configuration and outputs (Chrome trace file, aggregate statistics).
#ifndef MXNET_PROFILER_PROFILER_H_
#define MXNET_PROFILER_PROFILER_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mxnet/base.h"
#include "profiler/clock.h"

namespace mxnet {
namespace profiler {

/*! \brief What is recorded (MXNET_PROFILER_MODE bits, as MXNet's ProfilerMode). */
enum ProfilerMode : int { kSymbolic = 1, kImperative = 2, kAPI = 4, kMemory = 8 };
/*! \brief Bit of the active mask meaning "running and not paused". */
constexpr int kActive = 16;
/*! \brief MXNet 1.9's default mode: symbolic ops, API calls and memory. */
constexpr int kDefaultMode = kSymbolic | kAPI | kMemory;

/*! \brief mode bits | kActive while recording, 0 otherwise; the one load on hot paths. */
extern std::atomic<int> g_active_mask;
inline bool Recording(int bits) {
  int m = g_active_mask.load(std::memory_order_relaxed);
  return (m & kActive) != 0 && (m & bits) != 0;
}

/*! \brief The settings of set_config (MXNet's ProfileConfigParam). */
struct ProfilerConfig {
  int mode{kDefaultMode};
  std::string filename{"profile.json"};
  bool continuous_dump{true};  // MXNet 1.9's default
  double dump_period{1.0};  // seconds between periodic flushes with continuous_dump
  bool aggregate_stats{false};
};

/*!
 * \brief Parse set_config's key/value pairs (values as Python's str() writes them: "True",
 *  "0", "1.5", "worker"). Keys not given take ProfileConfigParam's defaults. Throws
 *  dmlc::Error naming the key for an unknown key, a bad value, or profile_process="server".
 */
ProfilerConfig ParseConfig(const std::vector<std::pair<std::string, std::string>>& kv);

/*! \brief Sort keys of the aggregate table, in MXNet's C API numbering. */
enum SortBy : int { kSortTotal = 0, kSortAvg = 1, kSortMin = 2, kSortMax = 3, kSortCount = 4 };

/*! \brief The process-wide profiler. All methods are thread-safe. */
class Profiler {
 public:
  static Profiler* Get();

  void SetConfig(const ProfilerConfig& config);
  ProfilerConfig config();
  /*! \brief Start (true) or stop (false) recording; hooks are installed only while running. */
  void SetState(bool running);
  bool IsRunning();
  /*! \brief Pause or resume recording while running (global, not recursive). */
  void SetPaused(bool paused);
  /*!
   * \brief Write the Chrome trace to the configured file. Without continuous_dump the file is
   *  rewritten with every event kept so far; with it, new events are appended and the file
   *  stays valid JSON. finished: drop the kept events (and close a continuous file).
   *  Throws dmlc::Error when the file cannot be written; events are then kept.
   */
  void Dump(bool finished);
  /*! \brief The aggregate statistics as text (format 0) or JSON (format 1). */
  std::string AggregateStats(bool reset, int format, int sort_by, bool ascending);
  /*! \brief The scope prefixed to the names of ops invoked from now on ("" or "<unk>:": none). */
  void SetScope(const std::string& scope);
  /*! \brief Stop, and finish what must be written (continuous file, autostart dump). */
  void ShutdownAtExit();

 private:
  Profiler() = default;
};

/*! \brief Times one C API call when API profiling is on (used by API_BEGIN). */
class ApiCallScope {
 public:
  explicit ApiCallScope(const char* fn) : fn_(fn), start_(Recording(kAPI) ? NowNs() : -1) {}
  ~ApiCallScope() {
    if (start_ >= 0) Finish();
  }
  ApiCallScope(const ApiCallScope&) = delete;
  ApiCallScope& operator=(const ApiCallScope&) = delete;

 private:
  void Finish();
  const char* fn_;
  int64_t start_;
};

}  // namespace profiler
}  // namespace mxnet

#endif  // MXNET_PROFILER_PROFILER_H_
