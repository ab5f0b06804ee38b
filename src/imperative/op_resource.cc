// Per-call resources of operators: worker-local temp space and counter-based random streams.
#include "imperative/op_resource.h"

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

#include "mxnet/op_attr_types.h"
#include "mxnet/storage.h"

namespace mxnet {
namespace {

struct TempSpace {
  void* ptr{nullptr};
  size_t size{0};
  ~TempSpace() { std::free(ptr); }
};

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

void* OpContext::RequestTempSpace(size_t bytes) const {
  thread_local TempSpace space;
  if (space.size < bytes) {
    std::free(space.ptr);
    size_t rounded = (bytes + kStorageAlign - 1) / kStorageAlign * kStorageAlign;
    space.ptr = std::aligned_alloc(kStorageAlign, rounded);
    CHECK(space.ptr != nullptr) << "temp space: out of memory allocating " << bytes << " bytes";
    space.size = rounded;
  }
  return space.ptr;
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
