// Chrome trace JSON of recorded events, and the string helpers the profiler's outputs share.
#include <cinttypes>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_set>

#include "nnvm/node.h"
#include "profiler/event.h"

namespace mxnet {
namespace profiler {

const std::string* Intern(const std::string& s) {
  static std::mutex* mu = new std::mutex();  // never destroyed: used during exit
  static auto* table = new std::unordered_set<std::string>();
  std::lock_guard<std::mutex> lock(*mu);
  return &*table->insert(s).first;  // node-based: addresses stay valid
}

const std::string* OperatorCategory() {
  static const std::string* c = Intern("operator");
  return c;
}
const std::string* ApiCategory() {
  static const std::string* c = Intern("MXNET_C_API");
  return c;
}
const std::string* MemoryCategory() {
  static const std::string* c = Intern("memory");
  return c;
}

std::string DeviceName(const Context& ctx) {
  const char* type = "cpu";
  switch (ctx.dev_type) {
    case Context::kGPU: type = "gpu"; break;
    case Context::kCPUPinned: type = "cpu_pinned"; break;
    case Context::kCPUShared: type = "cpu_shared"; break;
    default: break;
  }
  return std::string(type) + "/" + std::to_string(ctx.dev_id);
}

void AppendJsonString(std::string* out, const char* s) {
  out->push_back('"');
  for (; s != nullptr && *s != '\0'; ++s) {
    const unsigned char c = static_cast<unsigned char>(*s);
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      default:
        if (c < 0x20) {
          char buf[8];
          snprintf(buf, sizeof(buf), "\\u%04x", c);
          out->append(buf);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
  out->push_back('"');
}

namespace {

void AppendUs(std::string* out, int64_t ns) {  // microseconds with ns precision
  char buf[40];
  if (ns < 0) ns = 0;
  snprintf(buf, sizeof(buf), "%" PRId64 ".%03d", ns / 1000, static_cast<int>(ns % 1000));
  out->append(buf);
}

void AppendInt(std::string* out, int64_t v) { out->append(std::to_string(v)); }

// "args": {"args": {attr: value}, "shapes": [[2, 3], [3]], "device": "cpu/0"}
void AppendOpArgs(std::string* out, const Event& ev) {
  out->append(",\"args\":{\"device\":");
  AppendJsonString(out, DeviceName(ev.ctx));
  if (const OpDetail* d = DetailOf(ev)) {
    out->append(",\"args\":{");
    bool first = true;
    if (d->attrs) {
      for (const auto& kv : d->attrs->dict) {
        if (!first) out->push_back(',');
        first = false;
        AppendJsonString(out, kv.first);
        out->push_back(':');
        AppendJsonString(out, kv.second);
      }
    }
    out->append("},\"shapes\":[");
    for (size_t i = 0; i < d->shapes.size(); ++i) {
      if (i) out->push_back(',');
      out->push_back('[');
      const TShape& s = d->shapes[i];
      for (int j = 0; j < s.ndim(); ++j) {
        if (j) out->push_back(',');
        AppendInt(out, s[j]);
      }
      out->push_back(']');
    }
    out->push_back(']');
  }
  out->push_back('}');
}

void BeginEvent(std::string* out, bool* first, const char* name, const std::string& cat,
                char ph, int64_t ts_ns, int pid, uint32_t tid) {
  out->append(*first ? "\n" : ",\n");
  *first = false;
  out->append("{\"name\":");
  AppendJsonString(out, name ? name : "(unnamed)");
  out->append(",\"cat\":");
  AppendJsonString(out, cat);
  out->append(",\"ph\":\"");
  out->push_back(ph);
  out->append("\",\"ts\":");
  AppendUs(out, ts_ns);
  out->append(",\"pid\":");
  AppendInt(out, pid);
  out->append(",\"tid\":");
  AppendInt(out, tid);
}

}  // namespace

void AppendTraceEvents(const std::vector<Event>& events, int pid, std::string* out,
                       bool* first) {
  for (const Event& ev : events) {
    switch (ev.kind) {
      case EventKind::kOperator: {
        const OpDetail* d = DetailOf(ev);
        const char* name = (d && !d->scoped_name.empty()) ? d->scoped_name.c_str() : ev.name;
        BeginEvent(out, first, name, CategoryOf(ev, d), 'X', ev.ts_ns, pid, ev.tid);
        out->append(",\"dur\":");
        AppendUs(out, ev.dur_ns);
        AppendOpArgs(out, ev);
        out->push_back('}');
        break;
      }
      case EventKind::kApi:
      case EventKind::kDuration:
        BeginEvent(out, first, ev.name, *ev.category, 'X', ev.ts_ns, pid, ev.tid);
        out->append(",\"dur\":");
        AppendUs(out, ev.dur_ns);
        out->push_back('}');
        break;
      case EventKind::kCounter:
        BeginEvent(out, first, ev.name, *ev.category, 'C', ev.ts_ns, pid, ev.tid);
        out->append(",\"args\":{");
        AppendJsonString(out, ev.name);
        out->push_back(':');
        AppendInt(out, ev.value);
        out->append("}}");
        break;
      case EventKind::kMarker:
        BeginEvent(out, first, ev.name, *ev.category, 'i', ev.ts_ns, pid, ev.tid);
        out->append(",\"s\":\"");
        out->push_back(ev.scope);
        out->append("\"}");
        break;
      case EventKind::kMemAlloc:
      case EventKind::kMemFree: {
        const std::string dev = DeviceName(ev.ctx);
        BeginEvent(out, first, ev.kind == EventKind::kMemAlloc ? "alloc" : "free",
                   *ev.category, 'i', ev.ts_ns, pid, ev.tid);
        out->append(",\"s\":\"t\",\"args\":{\"device\":");
        AppendJsonString(out, dev);
        out->append(",\"size\":");
        AppendInt(out, ev.value);
        out->append(",\"bytes_in_use\":");
        AppendInt(out, ev.value2);
        out->append("}}");
        const std::string counter = "Memory: " + dev;
        BeginEvent(out, first, counter.c_str(), *ev.category, 'C', ev.ts_ns, pid, ev.tid);
        out->append(",\"args\":{\"bytes_in_use\":");
        AppendInt(out, ev.value2);
        out->append("}}");
        break;
      }
    }
  }
}

}  // namespace profiler
}  // namespace mxnet
