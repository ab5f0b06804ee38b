// Bulk execution: a thread's consecutive small synchronous ops pushed as one engine op.
//
// Each push costs dependency bookkeeping on every var, a hand-off to a worker and a
// completion; for ops of a few microseconds that is most of the time. While a thread's bulk
// size (set_bulk_size, mx.engine.bulk, the executors' MXNET_EXEC_BULK_EXEC_* segments) is
// above 0, the synchronous ops it pushes are gathered instead: one pending bulk per thread,
// of one engine, one context and one FnProperty (kNormal or kCPUSmall: small ops keep running
// in the pushing thread, beside the workers, instead of joining their queue). The bulk is
// pushed as one op, named "ImperativeBulk" as in MXNet, that writes the union of the ops'
// writes and reads the union of their reads less those writes, and runs the functions in
// push order.
//
// As in MXNet 1.9.1 the bulk is one op for errors too: an op that throws stops the bulk (the
// later ops of it do not run) and the error reaches every var the bulk writes; a var holding
// an error that any of its ops reads skips the whole bulk.
//
// Differences from MXNet: the bulk is pushed before this thread waits for a var it uses,
// deletes a var it uses or pushes an op that cannot join (MXNet pushes it on every wait and
// on every push that cannot join); ops are not bulked while the profiler records operators
// (MXNet stops only while it aggregates statistics), so a trace shows every op.
#include <algorithm>
#include <mutex>
#include <unordered_set>
#include <utility>
#include <vector>

#include "engine/threaded_engine.h"

namespace mxnet {
namespace engine {

namespace {

struct BulkItem {
  Engine::RawSyncFn raw;
  Engine::SyncFn fn;
  size_t writes_end{0};  // its writes: BulkBatch::writes from the previous item's end to here
};

// The gathered functions: the pushed op's state.
struct BulkBatch {
  std::vector<BulkItem> items;
  std::vector<VarHandle> writes;  // every item's writes, in item order (duplicates kept)

  static void Run(RunContext ctx, void* state) {
    auto* batch = static_cast<BulkBatch*>(state);
    ctx.is_bulk = true;
    size_t begin = 0;
    for (BulkItem& it : batch->items) {
      if (it.raw.run != nullptr) {
        it.raw.run(ctx, it.raw.state);
      } else {
        it.fn(ctx);
      }
      // Content stamps (VarVersion) change with each write, as if each op completed on its
      // own: a later op of the bulk caching by stamp (oneDNN weights) sees the new content.
      for (size_t i = begin; i < it.writes_end; ++i) {
        ThreadedVar::Cast(batch->writes[i])->NewVersion();
      }
      begin = it.writes_end;
    }
  }
  // Every item's state is released, whether it ran, threw, or was never reached.
  static void Release(void* state) {
    auto* batch = static_cast<BulkBatch*>(state);
    for (BulkItem& it : batch->items) {
      if (it.raw.release != nullptr) it.raw.release(it.raw.state);
    }
    delete batch;
  }
};

// Engines alive now: a thread that exits with a pending bulk pushes it only to a live one.
std::mutex g_live_mu;
std::unordered_set<ThreadedEngine*>& LiveEngines() {
  static auto* live = new std::unordered_set<ThreadedEngine*>();
  return *live;
}

}  // namespace

struct BulkState {
  int size{0};
  ThreadedEngine* engine{nullptr};  // whose ops the pending bulk holds (null: none)
  Context ctx;
  FnProperty prop{FnProperty::kNormal};
  BulkBatch* batch{nullptr};  // holds the writes
  std::vector<VarHandle> reads;

  bool Pending() const { return batch != nullptr; }
  bool Uses(VarHandle v) const {
    return std::find(batch->writes.begin(), batch->writes.end(), v) != batch->writes.end() ||
           std::find(reads.begin(), reads.end(), v) != reads.end();
  }
  ~BulkState() {  // thread exit: the gathered ops still run
    if (!Pending()) return;
    std::lock_guard<std::mutex> lock(g_live_mu);
    if (LiveEngines().count(engine) != 0) {
      engine->PushBulk(this);
    } else {
      BulkBatch::Release(batch);
    }
  }
};

namespace {
thread_local BulkState tls_bulk;
}  // namespace

ThreadedEngine::ThreadedEngine() {
  std::lock_guard<std::mutex> lock(g_live_mu);
  LiveEngines().insert(this);
}

ThreadedEngine::~ThreadedEngine() {
  std::lock_guard<std::mutex> lock(g_live_mu);
  LiveEngines().erase(this);
}

void ThreadedEngine::PushBulk(BulkState* state) {
  BulkBatch* batch = state->batch;
  state->batch = nullptr;
  state->engine = nullptr;
  ThreadedOpr* opr = NewOpr(state->reads.data(), state->reads.size(), batch->writes.data(),
                            batch->writes.size(), state->prop, "ImperativeBulk",
                            /*take_detail=*/false);
  state->reads.clear();
  opr->raw_fn = {&BulkBatch::Run, &BulkBatch::Release, batch};
  PushBlock(opr, state->ctx, 0);
}

void ThreadedEngine::FlushThreadBulk() {
  if (tls_bulk.engine == this) PushBulk(&tls_bulk);
}

void ThreadedEngine::FlushThreadBulkUsing(VarHandle var) {
  if (tls_bulk.engine == this && tls_bulk.Uses(var)) PushBulk(&tls_bulk);
}

int ThreadedEngine::set_bulk_size(int size) {
  if (tls_bulk.Pending()) tls_bulk.engine->PushBulk(&tls_bulk);
  Engine::set_bulk_size(size);  // Engine::bulk_size(): the last size any thread set
  return std::exchange(tls_bulk.size, size);
}

bool ThreadedEngine::TryBulk(RawSyncFn* raw, SyncFn* fn, Context ctx, const VarHandle* const_vars,
                             size_t num_const, const VarHandle* mutable_vars, size_t num_mutable,
                             FnProperty prop, int priority) {
  BulkState& st = tls_bulk;
  const bool joinable = st.size > 0 && CanBulk() && priority == 0 &&
                        (prop == FnProperty::kNormal || prop == FnProperty::kCPUSmall) &&
                        !InsideOp() && !OprHooksInstalled() &&
                        !workers_gone_.load(std::memory_order_acquire);
  if (st.Pending() && (!joinable || st.engine != this || st.ctx != ctx || st.prop != prop)) {
    st.engine->PushBulk(&st);
  }
  if (!joinable) return false;
  if (!st.Pending()) {
    st.batch = new BulkBatch();
    st.batch->items.reserve(std::min(st.size, 64));
    st.engine = this;
    st.ctx = ctx;
    st.prop = prop;
  }
  BulkItem item;
  if (raw != nullptr) {
    item.raw = *raw;
    *raw = RawSyncFn();
  } else {
    item.fn = std::move(*fn);
  }
  st.batch->writes.insert(st.batch->writes.end(), mutable_vars, mutable_vars + num_mutable);
  item.writes_end = st.batch->writes.size();
  st.batch->items.push_back(std::move(item));
  st.reads.insert(st.reads.end(), const_vars, const_vars + num_const);
  SetNextOprDetail(nullptr);  // set for an op the profiler sees; a bulked one has none
  if (static_cast<int>(st.batch->items.size()) >= st.size) PushBulk(&st);
  return true;
}

}  // namespace engine
}  // namespace mxnet
