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

// One copy of a device's temp space: a Storage block that grows to the largest request seen.
// Only the kernel holding var (written by the call) touches it, so it needs no lock.
class TempSpace {
 public:
  static constexpr size_t kKeepBytes = size_t{4} << 20;  // smaller blocks stay with the copy

  explicit TempSpace(const Context& ctx) : ctx_(ctx), var_(Engine::Get()->NewResourceVariable()) {}
  engine::Var* var() const { return var_; }
  void* Get(size_t bytes) {
    if (handle_.size < bytes || handle_.dptr == nullptr) {
      if (handle_.dptr != nullptr) Storage::Get()->Free(handle_);
      handle_ = Storage::Handle();
      size_t rounded = (std::max<size_t>(bytes, 1) + kStorageAlign - 1) / kStorageAlign *
                       kStorageAlign;
      handle_ = Storage::Get()->Alloc(rounded, ctx_);
    }
    return handle_.dptr;
  }
  // A large block goes back to the storage pool between calls: each of the copies would
  // otherwise keep the largest request any operator made of it (a ResNet's first
  // convolution: hundreds of MB, held once per copy). The pool hands it to whatever asks
  // next, this copy's next large request or an array. Host memory only: a GPU kernel may
  // still be using its block when the call returns.
  void ReleaseAfterCall() {
    if (handle_.dptr == nullptr || handle_.size < kKeepBytes) return;
    if (ctx_.dev_mask() != Context::kCPU) return;
    Storage::Get()->Free(handle_);
    handle_ = Storage::Handle();
  }

 private:
  Context ctx_;
  engine::Var* var_;
  Storage::Handle handle_;
};

}  // namespace resource

namespace {

struct DeviceTempSpaces {
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

}  // namespace

Resource RequestResource(const Context& ctx, const ResourceRequest& req) {
  Resource r{req};
  if (req.type != ResourceRequest::kTempSpace) return r;
  ResourceManager& m = Manager();
  std::lock_guard<std::mutex> lock(m.mu);
  DeviceTempSpaces& dev = m.temp[ctx];
  if (dev.copies.empty()) {
    int64_t n = env::GetInt(ctx.dev_mask() == Context::kGPU ? "MXNET_GPU_TEMP_COPY"
                                                           : "MXNET_CPU_TEMP_COPY");
    for (int64_t i = 0; i < std::max<int64_t>(n, 1); ++i) {
      dev.copies.push_back(std::make_unique<resource::TempSpace>(ctx));
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
