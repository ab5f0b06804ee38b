// The resource manager: per-device temp-space copies over Storage, each serialized by an engine
// variable, and the per-device seeds of counter-based random streams.
#include "imperative/op_resource.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "common/env.h"
#include "mxnet/engine.h"
#include "mxnet/storage.h"

namespace mxnet {
namespace resource {

// Large temp blocks of one device, shared by all its copies: a call takes the smallest
// cached block that fits (or a new one) and gives it back when it returns. Blocks are not
// given to the storage pool, which caches by exact size: the large requests (a
// convolution's reordered tensors) come in many sizes, each of which the pool would then
// hold. At most max_cached blocks stay, the largest; more are only taken while more
// calls run at once.
class LargeTempBlocks {
 public:
  explicit LargeTempBlocks(size_t max_cached) : max_cached_(std::max<size_t>(max_cached, 1)) {}
  Storage::Handle Take(size_t bytes, const Context& ctx) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto best = free_.end();
      for (auto it = free_.begin(); it != free_.end(); ++it) {
        if (it->size >= bytes && (best == free_.end() || it->size < best->size)) best = it;
      }
      if (best != free_.end()) {
        Storage::Handle h = *best;
        free_.erase(best);
        return h;
      }
    }
    return Storage::Get()->Alloc(bytes, ctx);
  }
  void Give(const Storage::Handle& h) {
    Storage::Handle drop;
    {
      std::lock_guard<std::mutex> lock(mu_);
      free_.push_back(h);
      if (free_.size() <= max_cached_) return;
      auto smallest = std::min_element(
          free_.begin(), free_.end(),
          [](const Storage::Handle& a, const Storage::Handle& b) { return a.size < b.size; });
      drop = *smallest;
      free_.erase(smallest);
    }
    Storage::Get()->DirectFree(drop);
  }

 private:
  std::mutex mu_;
  const size_t max_cached_;
  std::vector<Storage::Handle> free_;
};

// One copy of a device's temp space: a Storage block that grows to the largest request seen
// below kKeepBytes; larger requests take a block of the device's LargeTempBlocks for the
// call. Only the kernel holding var (written by the call) touches it, so it needs no lock.
class TempSpace {
 public:
  static constexpr size_t kKeepBytes = size_t{4} << 20;

  TempSpace(const Context& ctx, LargeTempBlocks* large)
      : ctx_(ctx), var_(Engine::Get()->NewResourceVariable()), large_(large) {}
  engine::Var* var() const { return var_; }
  const Context& context() const { return ctx_; }
  void* Get(size_t bytes) {
    bytes = (std::max<size_t>(bytes, 1) + kStorageAlign - 1) / kStorageAlign * kStorageAlign;
    if (handle_.dptr != nullptr && handle_.size >= bytes) return handle_.dptr;
    Release();
    // Host memory only: a GPU kernel may still be using its block when the call returns.
    large_block_ = bytes >= kKeepBytes && ctx_.dev_mask() == Context::kCPU;
    handle_ = large_block_ ? large_->Take(bytes, ctx_) : Storage::Get()->Alloc(bytes, ctx_);
    return handle_.dptr;
  }
  void ReleaseAfterCall() {
    if (large_block_) Release();
  }

 private:
  void Release() {
    if (handle_.dptr == nullptr) return;
    if (large_block_) large_->Give(handle_);
    else Storage::Get()->Free(handle_);
    handle_ = Storage::Handle();
    large_block_ = false;
  }

  Context ctx_;
  engine::Var* var_;
  LargeTempBlocks* large_;
  Storage::Handle handle_;
  bool large_block_{false};
};

}  // namespace resource

namespace {

struct DeviceTempSpaces {
  std::unique_ptr<resource::LargeTempBlocks> large;
  std::vector<std::unique_ptr<resource::TempSpace>> copies;
  size_t next{0};
};

struct ResourceManager {
  std::mutex mu;
  std::map<Context, DeviceTempSpaces> temp;
};

ResourceManager& Manager() {
  static ResourceManager* m = new ResourceManager();  // lives for the whole process
  return *m;
}

struct RandomStreams {
  std::mutex mu;
  uint64_t default_seed{0};
  std::map<Context, std::pair<uint64_t, uint64_t>> per_ctx;  // seed, next stream
};

RandomStreams& Streams() {
  static RandomStreams* s = new RandomStreams();
  return *s;
}

// The temp space a TempSpaceScope gives this thread, and its context.
thread_local const Resource* tls_temp_space = nullptr;
thread_local Context tls_temp_ctx;

}  // namespace

TempSpaceScope::TempSpaceScope(const Resource* space)
    : prev_(tls_temp_space), prev_ctx_(tls_temp_ctx) {
  if (space == nullptr) return;
  tls_temp_space = space;
  tls_temp_ctx = space->space->context();
}

TempSpaceScope::~TempSpaceScope() {
  tls_temp_space = prev_;
  tls_temp_ctx = prev_ctx_;
}

Resource RequestResource(const Context& ctx, const ResourceRequest& req) {
  Resource r{req};
  if (req.type != ResourceRequest::kTempSpace) return r;
  if (tls_temp_space != nullptr && tls_temp_ctx == ctx) return *tls_temp_space;
  ResourceManager& m = Manager();
  std::lock_guard<std::mutex> lock(m.mu);
  DeviceTempSpaces& dev = m.temp[ctx];
  if (dev.copies.empty()) {
    int64_t n = env::GetInt(ctx.dev_mask() == Context::kGPU ? "MXNET_GPU_TEMP_COPY"
                                                           : "MXNET_CPU_TEMP_COPY");
    // As many large blocks as ops usually run at once on the device: its worker threads.
    const int64_t workers = env::GetInt("MXNET_CPU_WORKER_NTHREADS");
    dev.large = std::make_unique<resource::LargeTempBlocks>(
        static_cast<size_t>(std::max<int64_t>(workers, 1)));
    for (int64_t i = 0; i < std::max<int64_t>(n, 1); ++i) {
      dev.copies.push_back(std::make_unique<resource::TempSpace>(ctx, dev.large.get()));
    }
  }
  resource::TempSpace* space = dev.copies[dev.next++ % dev.copies.size()].get();
  r.var = space->var();
  r.space = space;
  return r;
}

void ReleaseTempSpaces(const std::vector<Resource>& requested) {
  for (const Resource& r : requested) {
    if (r.req.type == ResourceRequest::kTempSpace && r.space != nullptr) {
      r.space->ReleaseAfterCall();
    }
  }
}

void* OpContext::RequestTempSpace(size_t bytes) const {
  for (const Resource& r : requested) {
    if (r.req.type == ResourceRequest::kTempSpace) return r.space->Get(bytes);
  }
  LOG(FATAL) << "Operator " << op_name << " asked for " << bytes << " bytes of temp space but "
             << "does not declare ResourceRequest::kTempSpace in its FResourceRequest";
  return nullptr;
}

void NextRandomStream(const Context& ctx, uint64_t* seed, uint64_t* stream) {
  RandomStreams& s = Streams();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.per_ctx.find(ctx);
  if (it == s.per_ctx.end()) it = s.per_ctx.emplace(ctx, std::make_pair(s.default_seed, 0)).first;
  *seed = it->second.first;
  *stream = it->second.second++;
}

void SeedRandomStreams(uint64_t seed, const Context* ctx) {
  RandomStreams& s = Streams();
  std::lock_guard<std::mutex> lock(s.mu);
  if (ctx == nullptr) {
    s.default_seed = seed;
    s.per_ctx.clear();
  } else {
    s.per_ctx[*ctx] = std::make_pair(seed, 0);
  }
}

}  // namespace mxnet
