// The profiler's core: state, configuration, hooks into engine/storage/imperative, event
// collection, trace files (whole or continuous) and the autostart at library load.
#include "profiler/profiler.h"

#include <dmlc/logging.h>
#include <pthread.h>
#include <unistd.h>

#include <chrono>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>

#include "common/env.h"
#include "engine/opr_hooks.h"
#include "imperative/invoke_hook.h"
#include "operator/custom/custom_op.h"
#include "profiler/aggregate_stats.h"
#include "profiler/event.h"
#include "profiler/profile_objects.h"
#include "storage/storage_hooks.h"

namespace mxnet {
namespace profiler {

std::atomic<int> g_active_mask{0};

namespace {

// ---- per-thread buffers ----

struct BufferRegistry {
  std::mutex mu;
  std::vector<std::unique_ptr<ThreadBuffer>> buffers;  // never freed: threads may still write
};
BufferRegistry& Buffers() {
  static BufferRegistry* r = new BufferRegistry();
  return *r;
}
thread_local ThreadBuffer* tls_buffer = nullptr;  // trivially destructible on purpose

struct SpareChunks {
  static constexpr size_t kMax = 16;  // about 6 MB of events kept for reuse
  std::mutex mu;
  std::vector<std::vector<Event>> chunks;
};
SpareChunks& Spares() {
  static SpareChunks* s = new SpareChunks();  // never destroyed, like the buffers
  return *s;
}

// ---- the state behind Profiler ----

struct ContinuousFile {
  FILE* fp{nullptr};
  long terminator_pos{0};  // where the closing "]...}" starts; the next flush writes there
  std::set<uint32_t> named_tids;
};

struct State {
  std::mutex mu;  // guards everything below
  ProfilerConfig config;
  bool running{false};
  bool paused{false};
  bool autostarted{false};
  std::vector<Event> kept;  // drained, not yet written
  AggregateStats stats;
  ContinuousFile cfile;
  // periodic flusher (continuous_dump while running)
  std::thread* flusher{nullptr};
  bool stop_flusher{false};
  std::condition_variable flusher_cv;
};
State& S() {
  static State* s = new State();  // never destroyed: used from atexit and late threads
  return *s;
}

// scope prefix for op names; interned, so readers need no lock
// The scope of the calling thread (profiler.scope is per thread in Python, too).
thread_local const std::string* g_scope = nullptr;

std::unordered_map<const void*, int64_t>& AsyncOpen() {  // kAsync ops; guarded by AsyncMu
  static auto* m = new std::unordered_map<const void*, int64_t>();
  return *m;
}
std::mutex& AsyncMu() {
  static auto* mu = new std::mutex();
  return *mu;
}

// ---- hooks ----

// The engine's own bookkeeping ops. Called for every op: most names differ at the first letter.
bool Skipped(const char* name) {
  if (name == nullptr) return true;
  switch (name[0]) {
    case 'W': return std::strcmp(name, "WaitForVar") == 0;
    case 'D': return std::strcmp(name, "DeleteVariable") == 0;
    case 'C': return std::strcmp(name, "CustomOperatorWait") == 0;
    default: return false;
  }
}

// ---- custom operators (MXNet's "Custom Operator" category) ----
// While a custom operator's Python forward/backward runs, its time is a duration
// "<op_type>::pure_python" and the ops it invokes are named "<op_type>::<op>"; all three go to
// the "Custom Operator" category. Nested calls (NaiveEngine) stack.

const std::string* CustomOperatorCategory() {
  static const std::string* c = Intern("Custom Operator");
  return c;
}

struct CustomCall {
  const std::string* name;
  int64_t start_ns;
};
thread_local std::vector<CustomCall>* tls_custom_calls = nullptr;  // never freed, like buffers

void OnCustomCall(const std::string& name, bool begin) {
  if (tls_custom_calls == nullptr) tls_custom_calls = new std::vector<CustomCall>();
  std::vector<CustomCall>& calls = *tls_custom_calls;
  if (begin) {
    calls.push_back(CustomCall{Intern(name), NowNs()});
    return;
  }
  if (calls.empty()) return;  // began before the hook was installed
  CustomCall call = calls.back();
  calls.pop_back();
  if (!Recording(kImperative)) return;
  const char* event_name = Intern(*call.name + "::pure_python")->c_str();
  Append([&](Event& ev) {
    ev.kind = EventKind::kDuration;
    ev.name = event_name;
    ev.category = CustomOperatorCategory();
    ev.ts_ns = call.start_ns;
    ev.dur_ns = NowNs() - call.start_ns;
  });
}

void OnOpStart(const engine::OprExecInfo& info) {
  if (!Recording(kImperative) || Skipped(info.name)) return;
  const int64_t now = NowNs();
  if (info.prop == FnProperty::kAsync) {  // may complete on another thread
    std::lock_guard<std::mutex> lock(AsyncMu());
    AsyncOpen()[info.id] = now;
    return;
  }
  ThisThreadBuffer()->open_ops.push_back(ThreadBuffer::Open{info.id, now});
}

void OnOpEnd(const engine::OprExecInfo& info) {
  const int64_t now = NowNs();
  int64_t start = -1;
  if (info.prop == FnProperty::kAsync) {
    std::lock_guard<std::mutex> lock(AsyncMu());
    auto it = AsyncOpen().find(info.id);
    if (it == AsyncOpen().end()) return;
    start = it->second;
    AsyncOpen().erase(it);
  } else {
    if (tls_buffer == nullptr) return;
    auto& open = tls_buffer->open_ops;
    for (size_t i = open.size(); i-- > 0;) {
      if (open[i].id == info.id) {
        start = open[i].start_ns;
        open.erase(open.begin() + i);
        break;
      }
    }
    if (start < 0) return;  // started before the profiler ran
  }
  if (!Recording(kImperative)) return;
  Append([&](Event& ev) {
    ev.kind = EventKind::kOperator;
    ev.name = info.name;
    ev.category = OperatorCategory();
    if (info.detail != nullptr) ev.detail = *info.detail;  // may file it elsewhere: CategoryOf
    ev.ts_ns = start;
    ev.dur_ns = now - start;
    ev.ctx = info.ctx;
  });
}

// A loop invokes one op with the same attrs on the same shapes again and again: the detail
// made for the last such call serves again (details are never changed once made). A few per
// thread, never freed (like the buffers); each entry keeps its attrs alive, so an attrs
// pointer cannot be reused by another op while it is cached.
struct DetailCache {
  static constexpr size_t kSize = 8;
  std::shared_ptr<const OpDetail> entries[kSize];
  const std::string* scope[kSize] = {};
  const std::string* custom[kSize] = {};
  size_t next{0};
};
thread_local DetailCache* tls_details = nullptr;

bool SameShapes(const OpDetail& d, const std::vector<NDArray*>& inputs) {
  if (d.shapes.size() != inputs.size()) return false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!(d.shapes[i] == inputs[i]->shape())) return false;
  }
  return true;
}

std::shared_ptr<const engine::OprDetail> OnInvoke(
    const std::shared_ptr<const nnvm::NodeAttrs>& attrs, const std::vector<NDArray*>& inputs) {
  if (!Recording(kImperative)) return nullptr;
  if (tls_details == nullptr) tls_details = new DetailCache();
  DetailCache& cache = *tls_details;
  const std::string* scope = g_scope;
  const std::string* custom = (tls_custom_calls != nullptr && !tls_custom_calls->empty())
                                  ? tls_custom_calls->back().name
                                  : nullptr;
  for (size_t i = 0; i < DetailCache::kSize; ++i) {
    const OpDetail* d = cache.entries[i].get();
    if (d != nullptr && d->attrs == attrs && cache.scope[i] == scope &&
        cache.custom[i] == custom && SameShapes(*d, inputs)) {
      return cache.entries[i];
    }
  }
  auto d = std::make_shared<OpDetail>();
  d->attrs = attrs;
  d->shapes.reserve(inputs.size());
  for (const NDArray* in : inputs) d->shapes.push_back(in->shape());
  if (scope != nullptr) d->scoped_name = *scope + attrs->op->name;
  if (custom != nullptr) {
    d->scoped_name = *custom + "::" + attrs->op->name;
    d->category = CustomOperatorCategory();
  }
  const size_t slot = cache.next++ % DetailCache::kSize;
  cache.entries[slot] = d;
  cache.scope[slot] = scope;
  cache.custom[slot] = custom;
  return d;
}

void OnStorage(const storage::StorageEvent& e) {
  if (!Recording(kMemory)) return;
  Append([&](Event& ev) {
    ev.kind = e.alloc ? EventKind::kMemAlloc : EventKind::kMemFree;
    ev.category = MemoryCategory();
    ev.ts_ns = NowNs();
    ev.value = static_cast<int64_t>(e.size);
    ev.value2 = static_cast<int64_t>(e.in_use_after);
    ev.ctx = e.ctx;
  });
}

// Called with S().mu held: publish the mask, then (un)install the hooks it needs.
void ApplyStateLocked() {
  State& s = S();
  const int mask = (s.running && !s.paused) ? (s.config.mode | kActive) : 0;
  g_active_mask.store(mask, std::memory_order_release);
  const bool ops = (mask & kImperative) != 0;
  engine::SetOprHooks(ops ? &OnOpStart : nullptr, ops ? &OnOpEnd : nullptr);
  imperative::SetInvokeHook(ops ? &OnInvoke : nullptr);
  custom::SetCustomCallHook(ops ? &OnCustomCall : nullptr);
  storage::SetStorageHook((mask & kMemory) ? &OnStorage : nullptr);
}

// ---- collecting and writing ----

void DrainLocked() {
  State& s = S();
  std::vector<Event> taken;
  {
    BufferRegistry& r = Buffers();
    std::lock_guard<std::mutex> lock(r.mu);
    for (auto& buf : r.buffers) {
      std::vector<std::vector<Event>> chunks;
      {
        std::lock_guard<common::SpinLock> block(buf->mu);
        chunks.swap(buf->chunks);
      }
      for (std::vector<Event>& chunk : chunks) {
        taken.insert(taken.end(), std::make_move_iterator(chunk.begin()),
                     std::make_move_iterator(chunk.end()));
        ReturnChunk(std::move(chunk));
      }
    }
  }
  if (taken.empty()) return;
  s.stats.Add(taken);
  if (s.kept.empty()) {
    s.kept.swap(taken);
  } else {
    s.kept.insert(s.kept.end(), std::make_move_iterator(taken.begin()),
                  std::make_move_iterator(taken.end()));
  }
}

// "M" events naming the process and each thread not named yet.
void AppendMetadata(const std::vector<Event>& events, int pid, std::set<uint32_t>* named,
                    bool process_too, std::string* out, bool* first) {
  if (process_too) {
    out->append(*first ? "\n" : ",\n");
    *first = false;
    out->append("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
                ",\"tid\":0,\"args\":{\"name\":\"MXNet\"}}");
  }
  for (const Event& ev : events) {
    if (!named->insert(ev.tid).second) continue;
    out->append(*first ? "\n" : ",\n");
    *first = false;
    out->append("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
                ",\"tid\":" + std::to_string(ev.tid) + ",\"args\":{\"name\":\"thread " +
                std::to_string(ev.tid) + "\"}}");
  }
}

const char kTerminator[] = "\n],\n\"displayTimeUnit\": \"ms\"\n}\n";

[[noreturn]] void FailFile(const std::string& filename, const char* what) {
  throw dmlc::Error(std::string("profiler: cannot ") + what + " the profile output file '" +
                    filename + "' (set_config filename): " + std::strerror(errno));
}

void WriteWholeLocked() {
  State& s = S();
  const int pid = static_cast<int>(getpid());
  std::string out = "{\"traceEvents\": [";
  bool first = true;
  std::set<uint32_t> named;
  AppendMetadata(s.kept, pid, &named, true, &out, &first);
  AppendTraceEvents(s.kept, pid, &out, &first);
  out.append(kTerminator);
  const std::string& fn = s.config.filename;
  FILE* fp = std::fopen(fn.c_str(), "w");
  if (fp == nullptr) FailFile(fn, "open");
  const bool ok = std::fwrite(out.data(), 1, out.size(), fp) == out.size();
  const bool closed = std::fclose(fp) == 0;
  if (!ok || !closed) FailFile(fn, "write");
}

void FlushContinuousLocked(bool finished) {
  State& s = S();
  ContinuousFile& f = s.cfile;
  const int pid = static_cast<int>(getpid());
  std::string out;
  bool first = true;
  if (f.fp == nullptr) {
    f.fp = std::fopen(s.config.filename.c_str(), "w");
    if (f.fp == nullptr) FailFile(s.config.filename, "open");
    f.named_tids.clear();
    out = "{\"traceEvents\": [";
    AppendMetadata(s.kept, pid, &f.named_tids, true, &out, &first);
    f.terminator_pos = 0;
  } else {
    first = false;  // the array already holds the process metadata
    if (std::fseek(f.fp, f.terminator_pos, SEEK_SET) != 0) FailFile(s.config.filename, "seek in");
    AppendMetadata(s.kept, pid, &f.named_tids, false, &out, &first);
  }
  AppendTraceEvents(s.kept, pid, &out, &first);
  const long body_end = f.terminator_pos + static_cast<long>(out.size());
  out.append(kTerminator);
  if (std::fwrite(out.data(), 1, out.size(), f.fp) != out.size() || std::fflush(f.fp) != 0) {
    FailFile(s.config.filename, "write");
  }
  f.terminator_pos = body_end;
  s.kept.clear();
  if (finished) {
    std::fclose(f.fp);
    f.fp = nullptr;
  }
}

void DumpLocked(bool finished) {
  State& s = S();
  DrainLocked();
  if (s.config.continuous_dump || s.cfile.fp != nullptr) {
    FlushContinuousLocked(finished);
  } else {
    WriteWholeLocked();
    if (finished) s.kept.clear();
  }
}

void FlusherLoop() {
  State& s = S();
  std::unique_lock<std::mutex> lock(s.mu);
  bool warned = false;
  while (!s.stop_flusher) {
    const auto period = std::chrono::duration<double>(std::max(0.01, s.config.dump_period));
    s.flusher_cv.wait_for(lock, period);
    if (s.stop_flusher) break;
    try {
      DrainLocked();
      FlushContinuousLocked(false);
    } catch (const std::exception& e) {
      if (!warned) LOG(WARNING) << e.what();
      warned = true;
    }
  }
}

// Stop the flusher; call without S().mu held.
void StopFlusher() {
  State& s = S();
  std::thread* t = nullptr;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    t = s.flusher;
    s.flusher = nullptr;
    s.stop_flusher = true;
    s.flusher_cv.notify_all();
  }
  if (t != nullptr) {
    if (t->get_id() == std::this_thread::get_id()) {
      t->detach();
    } else {
      t->join();
    }
    delete t;  // NOLINT: paired with the new in StartFlusherLocked (fork-safe raw pointer)
  }
}

void StartFlusherLocked() {
  State& s = S();
  if (s.flusher != nullptr) return;
  s.stop_flusher = false;
  s.flusher = new std::thread(FlusherLoop);  // NOLINT: see StopFlusher
}

// fork(): only the forking thread survives; the child forgets the flusher and the open
// continuous file (the parent owns both) and starts stopped.
void ForkPrepare() {
  S().mu.lock();
  Spares().mu.lock();
}
void ForkParent() {
  Spares().mu.unlock();
  S().mu.unlock();
}
void ForkChild() {
  State& s = S();
  s.flusher = nullptr;  // the thread does not exist here; leak the object
  s.cfile.fp = nullptr;
  s.running = false;
  s.kept.clear();
  ApplyStateLocked();
  Spares().mu.unlock();
  s.mu.unlock();
}

bool ParseBool(const std::string& key, const std::string& v) {
  if (v == "1" || v == "True" || v == "true") return true;
  if (v == "0" || v == "False" || v == "false") return false;
  LOG(FATAL) << "profiler set_config: argument " << key
             << " expected a boolean (True/False/1/0), given '" << v << "'";
  return false;
}

}  // namespace

// ---- public functions ----

ThreadBuffer* ThisThreadBuffer() {
  if (tls_buffer != nullptr) return tls_buffer;
  auto buf = std::make_unique<ThreadBuffer>();
  BufferRegistry& r = Buffers();
  std::lock_guard<std::mutex> lock(r.mu);
  buf->tid = static_cast<uint32_t>(r.buffers.size() + 1);
  tls_buffer = buf.get();
  r.buffers.push_back(std::move(buf));
  return tls_buffer;
}

std::vector<Event> TakeChunk() {
  SpareChunks& s = Spares();
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (!s.chunks.empty()) {
      std::vector<Event> chunk = std::move(s.chunks.back());
      s.chunks.pop_back();
      return chunk;
    }
  }
  std::vector<Event> chunk;
  chunk.reserve(ThreadBuffer::kChunkEvents);
  return chunk;
}

void ReturnChunk(std::vector<Event>&& chunk) {
  chunk.clear();
  if (chunk.capacity() != ThreadBuffer::kChunkEvents) return;
  SpareChunks& s = Spares();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.chunks.size() < SpareChunks::kMax) s.chunks.push_back(std::move(chunk));
}

ProfilerConfig ParseConfig(const std::vector<std::pair<std::string, std::string>>& kv) {
  ProfilerConfig c;
  bool all = false, symbolic = true, imperative = true, memory = true, api = true;
  for (const auto& p : kv) {
    const std::string& k = p.first;
    const std::string& v = p.second;
    if (k == "profile_all") {
      all = ParseBool(k, v);
    } else if (k == "profile_symbolic") {
      symbolic = ParseBool(k, v);
    } else if (k == "profile_imperative") {
      imperative = ParseBool(k, v);
    } else if (k == "profile_memory") {
      memory = ParseBool(k, v);
    } else if (k == "profile_api") {
      api = ParseBool(k, v);
    } else if (k == "continuous_dump") {
      c.continuous_dump = ParseBool(k, v);
    } else if (k == "aggregate_stats") {
      c.aggregate_stats = ParseBool(k, v);
    } else if (k == "filename") {
      CHECK(!v.empty()) << "profiler set_config: argument filename must not be empty";
      c.filename = v;
    } else if (k == "dump_period") {
      char* end = nullptr;
      errno = 0;
      const double d = std::strtod(v.c_str(), &end);
      CHECK(!v.empty() && end != nullptr && *end == '\0' && errno == 0 && d > 0)
          << "profiler set_config: argument dump_period expected a positive number of "
             "seconds, given '" << v << "'";
      c.dump_period = d;
    } else if (k == "profile_process") {
      CHECK(v == "worker" || v == "server")
          << "profiler set_config: argument profile_process expected 'worker' or 'server', "
             "given '" << v << "'";
      CHECK(v == "worker") << "profiler set_config: profile_process='server' needs a "
                              "distributed KVStore, which this build does not have";
    } else {
      LOG(FATAL) << "profiler set_config: unknown argument '" << k << "' (expected profile_all, "
                    "profile_symbolic, profile_imperative, profile_memory, profile_api, "
                    "filename, continuous_dump, dump_period, aggregate_stats or "
                    "profile_process)";
    }
  }
  c.mode = all ? (kSymbolic | kImperative | kAPI | kMemory)
               : ((symbolic ? kSymbolic : 0) | (imperative ? kImperative : 0) |
                  (api ? kAPI : 0) | (memory ? kMemory : 0));
  // An unwritable place is reported now, cheaply: the directory must exist and be writable.
  std::string dir = ".";
  const size_t slash = c.filename.rfind('/');
  if (slash != std::string::npos) dir = slash == 0 ? "/" : c.filename.substr(0, slash);
  if (access(dir.c_str(), W_OK) != 0) {
    LOG(FATAL) << "profiler set_config: argument filename '" << c.filename
               << "' is not writable: directory '" << dir << "': " << std::strerror(errno);
  }
  return c;
}

Profiler* Profiler::Get() {
  static Profiler* p = [] {
    pthread_atfork(ForkPrepare, ForkParent, ForkChild);
    return new Profiler();  // NOLINT: never destroyed, used at exit
  }();
  return p;
}

void Profiler::SetConfig(const ProfilerConfig& config) {
  State& s = S();
  bool restart_flusher = false;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.cfile.fp != nullptr &&
        (!config.continuous_dump || config.filename != s.config.filename)) {
      DrainLocked();
      FlushContinuousLocked(true);  // finish the old continuous file under its old name
    }
    s.config = config;
    ApplyStateLocked();
    restart_flusher = s.running && config.continuous_dump;
    if (!restart_flusher && s.flusher != nullptr) s.stop_flusher = true;
  }
  if (!restart_flusher) {
    StopFlusher();
  } else {
    std::lock_guard<std::mutex> lock(s.mu);
    StartFlusherLocked();
  }
}

ProfilerConfig Profiler::config() {
  std::lock_guard<std::mutex> lock(S().mu);
  return S().config;
}

void Profiler::SetState(bool running) {
  State& s = S();
  {
    std::lock_guard<std::mutex> lock(s.mu);
    s.running = running;
    if (running) {
      s.paused = false;
      EnableFastClock();
    }
    ApplyStateLocked();
    if (running && s.config.continuous_dump) StartFlusherLocked();
  }
  if (!running) StopFlusher();
}

bool Profiler::IsRunning() {
  std::lock_guard<std::mutex> lock(S().mu);
  return S().running;
}

void Profiler::SetPaused(bool paused) {
  std::lock_guard<std::mutex> lock(S().mu);
  S().paused = paused;
  ApplyStateLocked();
}

void Profiler::Dump(bool finished) {
  std::lock_guard<std::mutex> lock(S().mu);
  DumpLocked(finished);
}

std::string Profiler::AggregateStats(bool reset, int format, int sort_by, bool ascending) {
  CHECK(format == 0 || format == 1) << "profiler dumps: argument format expected 0 (table) or "
                                       "1 (json), given " << format;
  CHECK(sort_by >= kSortTotal && sort_by <= kSortCount)
      << "profiler dumps: argument sort_by expected 0 (total), 1 (avg), 2 (min), 3 (max) or "
         "4 (count), given " << sort_by;
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  DrainLocked();
  std::string out = format == 0 ? s.stats.Table(sort_by, ascending)
                                : s.stats.Json(sort_by, ascending);
  if (reset) s.stats.Clear();
  return out;
}

void Profiler::SetScope(const std::string& scope) {
  if (scope.empty() || scope == "<unk>:" || scope == "<unk>") {
    g_scope = nullptr;
    return;
  }
  g_scope = Intern(scope.back() == ':' ? scope : scope + ":");
}

void Profiler::ShutdownAtExit() {
  SetState(false);
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  try {
    if (s.cfile.fp != nullptr) {
      DrainLocked();
      FlushContinuousLocked(true);
    } else if (s.autostarted) {
      DumpLocked(true);
    }
  } catch (const std::exception& e) {
    LOG(WARNING) << "profiler: at exit: " << e.what();
  }
}

void ApiCallScope::Finish() {
  if (!Recording(kAPI)) return;
  Append([&](Event& ev) {
    ev.kind = EventKind::kApi;
    ev.name = fn_;
    ev.category = ApiCategory();
    ev.ts_ns = start_;
    ev.dur_ns = NowNs() - start_;
  });
}

// ---- custom objects ----

const std::string* EventCategory() {
  static const std::string* c = Intern("event");
  return c;
}

ProfileDomain::ProfileDomain(const std::string& n) : name(Intern(n)) {}

ProfileDuration::ProfileDuration(const std::string* cat, const std::string& n)
    : category(cat), name(Intern(n)) {}

void ProfileDuration::Start() { start_ns.store(NowNs(), std::memory_order_relaxed); }

void ProfileDuration::Stop() {
  const int64_t start = start_ns.exchange(-1, std::memory_order_relaxed);
  if (start < 0 || !Recording(~0)) return;
  Append([&](Event& ev) {
    ev.kind = EventKind::kDuration;
    ev.name = name->c_str();
    ev.category = category;
    ev.ts_ns = start;
    ev.dur_ns = NowNs() - start;
  });
}

ProfileCounter::ProfileCounter(const std::string* cat, const std::string& n)
    : category(cat), name(Intern(n)) {}

void ProfileCounter::Set(uint64_t v) {
  value.store(static_cast<int64_t>(v), std::memory_order_relaxed);
  Record(static_cast<int64_t>(v));
}

void ProfileCounter::Adjust(int64_t delta) {
  Record(value.fetch_add(delta, std::memory_order_relaxed) + delta);
}

void ProfileCounter::Record(int64_t v) {
  if (!Recording(~0)) return;
  Append([&](Event& ev) {
    ev.kind = EventKind::kCounter;
    ev.name = name->c_str();
    ev.category = category;
    ev.ts_ns = NowNs();
    ev.value = v;
  });
}

void SetMarker(const std::string* category, const std::string& name, const std::string& scope) {
  char s = 't';
  if (scope == "global") {
    s = 'g';
  } else if (scope == "process") {
    s = 'p';
  } else if (scope != "thread" && scope != "task" && scope != "marker") {
    LOG(FATAL) << "profiler Marker: argument scope expected 'global', 'process', 'thread', "
                  "'task' or 'marker', given '" << scope << "'";
  }
  if (!Recording(~0)) return;
  const char* interned = Intern(name)->c_str();
  Append([&](Event& ev) {
    ev.kind = EventKind::kMarker;
    ev.name = interned;
    ev.category = category;
    ev.ts_ns = NowNs();
    ev.scope = s;
  });
}

// ---- at library load and at exit ----

namespace {
struct AtLoad {
  AtLoad() {
    std::atexit([] { Profiler::Get()->ShutdownAtExit(); });
    if (!env::GetBool("MXNET_PROFILER_AUTOSTART")) return;
    ProfilerConfig c;
    c.mode = static_cast<int>(env::GetInt("MXNET_PROFILER_MODE")) &
             (kSymbolic | kImperative | kAPI | kMemory);
    c.filename = "profile.json";
    Profiler* p = Profiler::Get();
    p->SetConfig(c);
    {
      std::lock_guard<std::mutex> lock(S().mu);
      S().autostarted = true;
    }
    p->SetState(true);
  }
} g_at_load;
}  // namespace

}  // namespace profiler
}  // namespace mxnet
