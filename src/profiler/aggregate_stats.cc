// Aggregate statistics: accumulation from drained events, and the table and JSON renderings.
#include "profiler/aggregate_stats.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <utility>

#include "profiler/profiler.h"

namespace mxnet {
namespace profiler {
namespace {

constexpr const char* kDeviceStorage = "Device Storage";

using Row = std::pair<const std::string*, const AggregateStats::Stat*>;

double SortValue(const AggregateStats::Stat& s, int sort_by) {
  switch (sort_by) {
    case kSortAvg: return s.count ? s.total / s.count : 0;
    case kSortMin: return s.min;
    case kSortMax: return s.max;
    case kSortCount: return static_cast<double>(s.count);
    default: return s.total;
  }
}

std::vector<Row> Sorted(const std::unordered_map<std::string, AggregateStats::Stat>& m,
                        int sort_by, bool ascending) {
  std::vector<Row> rows;
  rows.reserve(m.size());
  for (const auto& kv : m) rows.emplace_back(&kv.first, &kv.second);
  std::sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    double va = SortValue(*a.second, sort_by), vb = SortValue(*b.second, sort_by);
    if (va != vb) return ascending ? va < vb : va > vb;
    return *a.first < *b.first;  // stable, readable order among ties
  });
  return rows;
}

void Appendf(std::string* out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void Appendf(std::string* out, const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  if (n > 0) out->append(buf, std::min<size_t>(n, sizeof(buf) - 1));
}

void AppendName(std::string* out, const std::string& name) {
  // Name column: 25 wide, left aligned; longer names push the row (as MXNet's setw).
  out->append(name);
  if (name.size() < 25) out->append(25 - name.size(), ' ');
}

void TableHeader(std::string* out, const std::string& title, const char* const cols[5]) {
  out->append(title).append("\n=================\n");
  AppendName(out, "Name");
  Appendf(out, "%16s %16s %16s %16s %16s\n", cols[0], cols[1], cols[2], cols[3], cols[4]);
  AppendName(out, "----");
  Appendf(out, "%16s %16s %16s %16s %16s\n", "-----------", "---------", "-------------",
          "-------------", "-------------");
}

void JsonStat(std::string* out, const AggregateStats::Stat& s, double scale, bool with_total) {
  Appendf(out, "{\"Count\": %llu", static_cast<unsigned long long>(s.count));
  if (with_total) Appendf(out, ", \"Total\": %.4f", s.total * scale);
  Appendf(out, ", \"Min\": %.4f, \"Max\": %.4f, \"Avg\": %.4f}", s.min * scale, s.max * scale,
          s.count ? s.total / s.count * scale : 0.0);
}

void JsonSection(std::string* out, const AggregateStats::Table_& t, double scale,
                 bool with_total, int sort_by, bool ascending) {
  out->append("{");
  bool first_cat = true;
  for (const auto& cat : t) {
    if (cat.second.empty()) continue;
    out->append(first_cat ? "\n    " : ",\n    ");
    first_cat = false;
    AppendJsonString(out, cat.first);
    out->append(": {");
    bool first = true;
    for (const Row& r : Sorted(cat.second, sort_by, ascending)) {
      out->append(first ? "\n      " : ",\n      ");
      first = false;
      AppendJsonString(out, *r.first);
      out->append(": ");
      JsonStat(out, *r.second, scale, with_total);
    }
    out->append("\n    }");
  }
  out->append(first_cat ? "}" : "\n  }");
}

}  // namespace

void AggregateStats::Stat::Add(double v) {
  if (count == 0) {
    min = max = v;
  } else {
    min = std::min(min, v);
    max = std::max(max, v);
  }
  ++count;
  total += v;
}

void AggregateStats::Add(const std::vector<Event>& events) {
  for (const Event& ev : events) {
    switch (ev.kind) {
      case EventKind::kOperator:
      case EventKind::kApi:
      case EventKind::kDuration: {
        const OpDetail* d = DetailOf(ev);
        const char* name = (d && !d->scoped_name.empty()) ? d->scoped_name.c_str() : ev.name;
        durations_[CategoryOf(ev, d)][name ? name : "(unnamed)"].Add(
            static_cast<double>(ev.dur_ns));
        break;
      }
      case EventKind::kCounter:
        counters_[*ev.category][ev.name].Add(static_cast<double>(ev.value));
        break;
      case EventKind::kMemAlloc:
      case EventKind::kMemFree:
        memory_[kDeviceStorage]["Memory: " + DeviceName(ev.ctx)].Add(
            static_cast<double>(ev.value2));
        break;
      case EventKind::kMarker:
        break;
    }
  }
}

void AggregateStats::Clear() {
  durations_.clear();
  counters_.clear();
  memory_.clear();
}

std::string AggregateStats::Table(int sort_by, bool ascending) const {
  static const char* const kTimeCols[5] = {"Total Count", "Time (ms)", "Min Time (ms)",
                                           "Max Time (ms)", "Avg Time (ms)"};
  static const char* const kCounterCols[5] = {"Total Count", "Total Value", "Min Value",
                                              "Max Value", "Avg Value"};
  static const char* const kMemCols[5] = {"Total Count", "", "Min Use (kB)", "Max Use (kB)",
                                          "Avg Use (kB)"};
  std::string out = "\nProfile Statistics:\n\tNote the difference in units for different entries.\n";
  for (const auto& cat : durations_) {
    if (cat.second.empty()) continue;
    TableHeader(&out, cat.first, kTimeCols);
    for (const Row& r : Sorted(cat.second, sort_by, ascending)) {
      const Stat& s = *r.second;
      AppendName(&out, *r.first);
      Appendf(&out, "%16llu %16.4f %16.4f %16.4f %16.4f\n",
              static_cast<unsigned long long>(s.count), s.total / 1e6, s.min / 1e6,
              s.max / 1e6, s.count ? s.total / s.count / 1e6 : 0.0);
    }
    out.append("\n");
  }
  for (const auto& cat : counters_) {
    if (cat.second.empty()) continue;
    TableHeader(&out, cat.first + " (counters)", kCounterCols);
    for (const Row& r : Sorted(cat.second, sort_by, ascending)) {
      const Stat& s = *r.second;
      AppendName(&out, *r.first);
      Appendf(&out, "%16llu %16.0f %16.0f %16.0f %16.4f\n",
              static_cast<unsigned long long>(s.count), s.total, s.min, s.max,
              s.count ? s.total / s.count : 0.0);
    }
    out.append("\n");
  }
  for (const auto& cat : memory_) {
    if (cat.second.empty()) continue;
    TableHeader(&out, cat.first, kMemCols);
    for (const Row& r : Sorted(cat.second, sort_by, ascending)) {
      const Stat& s = *r.second;
      AppendName(&out, *r.first);
      Appendf(&out, "%16llu %16s %16.4f %16.4f %16.4f\n",
              static_cast<unsigned long long>(s.count), "", s.min / 1024, s.max / 1024,
              s.count ? s.total / s.count / 1024 : 0.0);
    }
    out.append("\n");
  }
  return out;
}

std::string AggregateStats::Json(int sort_by, bool ascending) const {
  std::string out = "{\n  \"Time\": ";
  JsonSection(&out, durations_, 1e-6, true, sort_by, ascending);
  out.append(",\n  \"Counter\": ");
  JsonSection(&out, counters_, 1.0, true, sort_by, ascending);
  out.append(",\n  \"Memory\": ");
  JsonSection(&out, memory_, 1.0 / 1024, false, sort_by, ascending);
  out.append(",\n  \"Unit\": {\"Time\": \"ms\", \"Memory\": \"kB\"}\n}\n");
  return out;
}

}  // namespace profiler
}  // namespace mxnet
