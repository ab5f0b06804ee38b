// Recorded events and the per-thread buffers that collect them (internal to src/profiler).
#ifndef MXNET_PROFILER_EVENT_H_
#define MXNET_PROFILER_EVENT_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/spin_lock.h"

#include "engine/opr_hooks.h"
#include "mxnet/base.h"

namespace nnvm {
struct NodeAttrs;
}

namespace mxnet {
namespace profiler {

/*! \brief What Imperative::Invoke attaches to an op it pushes while profiling. */
struct OpDetail final : public engine::OprDetail {
  std::string scoped_name;  // "<scope>:<op>" while a scope is set, else empty
  std::shared_ptr<const nnvm::NodeAttrs> attrs;
  std::vector<TShape> shapes;  // of the inputs
  const std::string* category{nullptr};  // set to file it elsewhere than "operator"
};

enum class EventKind : uint8_t {
  kOperator,   // X: an engine op (detail may hold an OpDetail)
  kApi,        // X: a C API call
  kDuration,   // X: a custom Task, Frame or Event
  kCounter,    // C: a custom Counter's new value
  kMarker,     // i: a custom Marker (scope: 'g', 'p' or 't')
  kMemAlloc,   // i + C: an allocation (value: size, value2: bytes in use after)
  kMemFree,    // i + C: a free
};

/*! \brief One recorded event; names and categories outlive it (static or interned). */
struct Event {
  const char* name{nullptr};
  const std::string* category{nullptr};
  std::shared_ptr<const engine::OprDetail> detail;
  int64_t ts_ns{0};
  int64_t dur_ns{0};
  int64_t value{0};
  int64_t value2{0};
  Context ctx;
  uint32_t tid{0};
  EventKind kind{EventKind::kOperator};
  char scope{'t'};
};

/*! \brief The events of one thread. The owner appends under mu (uncontended but for drains),
 *  into chunks of fixed capacity: a growing buffer never moves (or re-touches) what it holds. */
struct ThreadBuffer {
  static constexpr size_t kChunkEvents = 4096;
  common::SpinLock mu;  // uncontended but while a dump drains the buffer
  std::vector<std::vector<Event>> chunks;  // each reserved to kChunkEvents; the last one fills
  uint32_t tid{0};
  struct Open {
    const void* id;
    int64_t start_ns;
  };
  std::vector<Open> open_ops;  // ops started on this thread, not yet ended; owner only
};

/*! \brief The calling thread's buffer, created and registered on first use (never freed). */
ThreadBuffer* ThisThreadBuffer();
/*! \brief An empty chunk of capacity kChunkEvents: one a drain gave back (its memory already
 *  paged in), else a new one. */
std::vector<Event> TakeChunk();
/*! \brief Give a drained chunk back for reuse (up to a few; the rest is freed). */
void ReturnChunk(std::vector<Event>&& chunk);

/*! \brief Record one event of this thread: fill(Event&) sets its fields in place (it starts
 *  default-initialized, with tid set). */
template <typename Fill>
inline void Append(Fill fill) {
  ThreadBuffer* buf = ThisThreadBuffer();
  std::lock_guard<common::SpinLock> lock(buf->mu);
  if (buf->chunks.empty() || buf->chunks.back().size() == ThreadBuffer::kChunkEvents) {
    buf->chunks.push_back(TakeChunk());
  }
  Event& ev = buf->chunks.back().emplace_back();
  ev.tid = buf->tid;
  fill(ev);
}

/*! \brief The op detail of an operator event (null when it has none). */
inline const OpDetail* DetailOf(const Event& ev) {
  return dynamic_cast<const OpDetail*>(ev.detail.get());
}
/*! \brief The category an event is filed under (an op detail may file it elsewhere). */
inline const std::string& CategoryOf(const Event& ev, const OpDetail* d) {
  return d != nullptr && d->category != nullptr ? *d->category : *ev.category;
}

/*! \brief A string kept for the life of the process; equal strings give the same pointer. */
const std::string* Intern(const std::string& s);

/*! \brief Well-known categories (MXNet's names). */
const std::string* OperatorCategory();  // "operator"
const std::string* ApiCategory();       // "MXNET_C_API"
const std::string* MemoryCategory();    // "memory"

/*! \brief "cpu/0", "gpu/1", "cpu_pinned/0", as MXNet names devices in its profiles. */
std::string DeviceName(const Context& ctx);

/*! \brief Append s to out as a JSON string literal (quotes included). */
void AppendJsonString(std::string* out, const char* s);
inline void AppendJsonString(std::string* out, const std::string& s) {
  AppendJsonString(out, s.c_str());
}

/*! \brief The Chrome trace "traceEvents" entries of events, comma-separated, no brackets. */
void AppendTraceEvents(const std::vector<Event>& events, int pid, std::string* out,
                       bool* first);

}  // namespace profiler
}  // namespace mxnet

#endif  // MXNET_PROFILER_EVENT_H_
