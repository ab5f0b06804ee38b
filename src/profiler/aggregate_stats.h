// Aggregate statistics: count/total/min/max/avg per name per category, and memory per device.
#ifndef MXNET_PROFILER_AGGREGATE_STATS_H_
#define MXNET_PROFILER_AGGREGATE_STATS_H_

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "profiler/event.h"

namespace mxnet {
namespace profiler {

/*! \brief Not thread-safe: the profiler calls it under its own lock. */
class AggregateStats {
 public:
  void Add(const std::vector<Event>& events);
  /*! \brief MXNet's table layout: one block per category, then "Device Storage" (kB). */
  std::string Table(int sort_by, bool ascending) const;
  /*! \brief {"Time": {category: {name: {Count, Total, Min, Max, Avg}}}, "Counter": ...,
   *  "Memory": {"Device Storage": {"Memory: cpu/0": {Count, Min, Max, Avg}}}, "Unit": ...}. */
  std::string Json(int sort_by, bool ascending) const;
  void Clear();

  struct Stat {
    uint64_t count{0};
    double total{0};  // ns for durations; summed values for counters and memory
    double min{0};
    double max{0};
    void Add(double v);
  };
  using Table_ = std::map<std::string, std::unordered_map<std::string, Stat>>;

 private:
  Table_ durations_;  // category -> name -> durations (ns)
  Table_ counters_;   // category -> counter name -> values
  Table_ memory_;     // "Device Storage" -> "Memory: <dev>" -> bytes in use after each event
};

}  // namespace profiler
}  // namespace mxnet

#endif  // MXNET_PROFILER_AGGREGATE_STATS_H_
