// The two ways a KVStore merges pushed arrays: CommCPU ("local") and CommDevice ("device").
#include "kvstore/comm.h"

#include <dmlc/logging.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <tuple>

#include "common/env.h"
#include "common/type_switch.h"
#include "kvstore/gpu_kernels.h"
#include "kvstore/gpu_p2p.h"
#include "mxnet/cuda_config.h"

namespace mxnet {
namespace kvstore {
namespace {

// Elements summed per task when threads share a big array (MXNet's step, 4096).
constexpr int64_t kReduceStep = 4 << 10;

// out[begin:end) = in[0] + in[1] + ..., adding the others four at a time as
// out += ((a + b) + c) + d, the order MXNet's CommCPU uses, so sums agree to the bit.
template <typename DType>
void SumRange(const std::vector<const DType*>& in, DType* out, int64_t begin, int64_t end) {
  if (out != in[0]) std::copy(in[0] + begin, in[0] + end, out + begin);
  for (size_t j = 1; j < in.size(); j += 4) {
    const DType* a = in[j];
    switch (std::min<size_t>(in.size() - j, 4)) {
      case 1:
        for (int64_t i = begin; i < end; ++i) out[i] = static_cast<DType>(out[i] + a[i]);
        break;
      case 2: {
        const DType* b = in[j + 1];
        for (int64_t i = begin; i < end; ++i) out[i] = static_cast<DType>(out[i] + (a[i] + b[i]));
        break;
      }
      case 3: {
        const DType *b = in[j + 1], *c = in[j + 2];
        for (int64_t i = begin; i < end; ++i) {
          out[i] = static_cast<DType>(out[i] + ((a[i] + b[i]) + c[i]));
        }
        break;
      }
      default: {
        const DType *b = in[j + 1], *c = in[j + 2], *d = in[j + 3];
        for (int64_t i = begin; i < end; ++i) {
          out[i] = static_cast<DType>(out[i] + (((a[i] + b[i]) + c[i]) + d[i]));
        }
      }
    }
  }
}

template <typename DType>
void ReduceSumCPU(const std::vector<const DType*>& in, DType* out, int64_t total,
                  const ReduceConfig& cfg) {
  if (total < cfg.bigarray_bound || cfg.nthreads <= 1) {
    SumRange(in, out, 0, total);
    return;
  }
  const int64_t step = std::min<int64_t>(cfg.bigarray_bound, kReduceStep);
  const int64_t ntask = (total + step - 1) / step;
#pragma omp parallel for schedule(static) num_threads(cfg.nthreads)
  for (int64_t t = 0; t < ntask; ++t) {
    SumRange(in, out, t * step, std::min(total, (t + 1) * step));
  }
}

}  // namespace

bool SameMemory(Context a, Context b) {
  return a == b || (a.dev_mask() == Context::kCPU && b.dev_mask() == Context::kCPU);
}

ReduceConfig ReduceConfig::FromEnv() {
  ReduceConfig cfg;
  cfg.nthreads = static_cast<int>(std::max<int64_t>(1, env::GetInt("MXNET_KVSTORE_REDUCTION_NTHREADS")));
  cfg.bigarray_bound = std::max<int64_t>(1, env::GetInt("MXNET_KVSTORE_BIGARRAY_BOUND"));
  return cfg;
}

void PushReduceSum(const std::vector<NDArray>& srcs, const NDArray& out, const ReduceConfig& cfg,
                   int priority) {
  CHECK(!srcs.empty());
  std::vector<VarHandle> reads;
  for (const NDArray& s : srcs) {
    CHECK(SameMemory(s.ctx(), out.ctx())) << "KVStore: summing an array on " << s.ctx()
                                          << " into one on " << out.ctx();
    CHECK_EQ(s.shape(), out.shape()) << "KVStore.push: values of one key must have one shape, "
                                     << "given " << s.shape() << " and " << out.shape();
    CHECK_EQ(s.dtype(), out.dtype()) << "KVStore: summing " << DTypeName(s.dtype())
                                     << " into " << DTypeName(out.dtype());
    if (s.var() != out.var()) reads.push_back(s.var());
  }
  if (out.ctx().dev_mask() == Context::kGPU) {
#if MXNET_USE_CUDA
    Engine::Get()->PushSync(
        [srcs, out](RunContext rctx) {
          std::vector<const void*> in;
          for (const NDArray& s : srcs) in.push_back(s.data().dptr_);
          GpuSum(in, out.data().dptr_, static_cast<int64_t>(out.shape().Size()), out.dtype(),
                 rctx.stream);
        },
        out.ctx(), reads, {out.var()}, FnProperty::kNormal, priority, "KVStoreReduceGPU");
    return;
#else
    LOG(FATAL) << "KVStore: summing arrays on " << out.ctx() << " needs a USE_CUDA=ON build";
#endif
  }
  Engine::Get()->PushSync(
      [srcs, out, cfg](RunContext) {
        const int64_t total = static_cast<int64_t>(out.shape().Size());
        TBlob o = out.data();
        MXNET_NUMERIC_TYPE_SWITCH(out.dtype(), DType, {
          std::vector<const DType*> in;
          in.reserve(srcs.size());
          for (const NDArray& s : srcs) in.push_back(s.data().dptr<DType>());
          ReduceSumCPU(in, o.dptr<DType>(), total, cfg);
        });
      },
      Context::CPU(), reads, {out.var()}, FnProperty::kCPUPrioritized, priority, "KVStoreReduce");
}

void PushCopyToAll(const NDArray& src, const std::vector<NDArray*>& dst, const ReduceConfig& cfg,
                   int priority) {
  // One engine op copies src into every CPU output of its dtype (big arrays by cfg.nthreads
  // threads); the others, and outputs sharing src's memory, go through CopyFromTo.
  std::vector<NDArray> targets;
  std::vector<VarHandle> writes;
  for (NDArray* d : dst) {
    CHECK_EQ(d->shape(), src.shape()) << "KVStore.pull: the output has shape " << d->shape()
                                      << ", the value of the key " << src.shape();
    // (Sparse outputs go through CopyFromTo, which converts.)
    if (src.ctx().dev_mask() == Context::kCPU && d->ctx().dev_mask() == Context::kCPU &&
        d->dtype() == src.dtype() && d->var() != src.var() &&
        src.storage_type() == kDefaultStorage && d->storage_type() == kDefaultStorage) {
      const bool seen = std::any_of(targets.begin(), targets.end(), [d](const NDArray& t) {
        return t.chunk_id() == d->chunk_id() && t.byte_offset() == d->byte_offset();
      });
      if (seen) continue;  // the same output twice: one copy
      targets.push_back(*d);
      writes.push_back(d->var());
    } else {
      CopyFromTo(src, *d, priority);
    }
  }
  if (targets.empty()) return;
  Engine::Get()->PushSync(
      [src, targets, cfg](RunContext) {
        const char* from = static_cast<const char*>(src.data().dptr_);
        const int64_t bytes = static_cast<int64_t>(src.shape().Size() * DTypeSize(src.dtype()));
        std::vector<char*> to;
        for (const NDArray& t : targets) to.push_back(static_cast<char*>(t.data().dptr_));
        const int64_t step = int64_t{1} << 20;
        const int64_t nchunk = (bytes + step - 1) / step;
        const bool parallel = bytes / 4 >= cfg.bigarray_bound && cfg.nthreads > 1;
#pragma omp parallel for schedule(static) num_threads(cfg.nthreads) if (parallel) collapse(2)
        for (int64_t k = 0; k < static_cast<int64_t>(to.size()); ++k) {
          for (int64_t c = 0; c < nchunk; ++c) {
            const int64_t begin = c * step;
            std::memcpy(to[k] + begin, from + begin, std::min(step, bytes - begin));
          }
        }
      },
      Context::CPU(), {src.var()}, writes, FnProperty::kCPUPrioritized, priority,
      "KVStoreBroadcast");
}

namespace {

// An engine op that sets an array (CPU or GPU) to zero.
void PushZero(const NDArray& a, int priority) {
  Engine::Get()->PushSync(
      [a](RunContext rctx) {
        TBlob b = a.data();
        const size_t bytes = a.shape().Size() * DTypeSize(a.dtype());
#if MXNET_USE_CUDA
        if (a.ctx().dev_mask() == Context::kGPU) {
          GpuZero(b.dptr_, static_cast<int64_t>(bytes), rctx.stream);
          return;
        }
#endif
        std::memset(b.dptr_, 0, bytes);
      },
      a.ctx(), {}, {a.var()}, FnProperty::kNormal, priority, "KVStoreZeroResidual");
}

// The pushed values as dense arrays on the merge buffer's device and of its dtype: values
// elsewhere (another GPU, the CPU), of another dtype or sparse are first copied (converting,
// as MXNet's copies into its merge buffers do).
std::vector<NDArray> ForSum(const std::vector<NDArray>& src, const NDArray& merged,
                            std::vector<NDArray>* bufs, int priority) {
  std::vector<NDArray> out(src.size());
  if (bufs->size() < src.size()) bufs->resize(src.size());
  for (size_t i = 0; i < src.size(); ++i) {
    if (SameMemory(src[i].ctx(), merged.ctx()) && src[i].dtype() == merged.dtype() &&
        src[i].storage_type() == kDefaultStorage) {
      out[i] = src[i];
      continue;
    }
    NDArray& b = (*bufs)[i];
    if (b.is_none()) b = NDArray(merged.shape(), merged.ctx(), true, merged.dtype());
    CopyFromTo(src[i], b, priority);
    out[i] = b;
  }
  return out;
}

class CommCPU : public Comm {
 public:
  CommCPU() : cfg_(ReduceConfig::FromEnv()) {}

  void Init(int key, const TShape& shape, int dtype) override {
    bufs_[key].merged = NDArray(shape, store_ctx(), true, dtype);
  }

  NDArray Reduce(int key, const std::vector<NDArray>& src, int priority) override {
    if (src.size() == 1) return src[0];
    Buffer& buf = bufs_[key];
    PushReduceSum(ForSum(src, buf.merged, &buf.copies, priority), buf.merged, cfg_, priority);
    return buf.merged;
  }

  void Broadcast(int key, const NDArray& src, const std::vector<NDArray*>& dst,
                 int priority) override {
    PushCopyToAll(src, dst, cfg_, priority);
  }

 private:
  struct Buffer {
    NDArray merged;
    std::vector<NDArray> copies;
  };
  ReduceConfig cfg_;
  std::unordered_map<int, Buffer> bufs_;
};

class CommDevice : public Comm {
 public:
  CommDevice() : cfg_(ReduceConfig::FromEnv()) {
    enable_p2p_ = env::GetBool("MXNET_ENABLE_GPU_P2P");
  }

  void Init(int key, const TShape& shape, int dtype) override {
    keys_.emplace_back(key, shape, dtype);
    inited_ = false;
  }

  NDArray Reduce(int key, const std::vector<NDArray>& src, int priority) override {
    const bool compress = gc_ && gc_->type() != CompressionType::kNone;
    if (!compress && src.size() == 1) return src[0];
    InitMergeBuffers(src);
    Buffer& buf = bufs_[key];
    if (compress) return ReduceCompressed(&buf, src, priority);
    PushReduceSum(ForSum(src, buf.merged, &buf.copies, priority), buf.merged, cfg_, priority);
    return buf.merged;
  }

  void Broadcast(int key, const NDArray& src, const std::vector<NDArray*>& dst,
                 int priority) override {
    PushCopyToAll(src, dst, cfg_, priority);
  }

 private:
  struct Buffer {
    NDArray merged;
    std::vector<NDArray> copies;
    std::vector<NDArray> residual, send, recv, dequantized;
  };

  // Each pushing device quantizes its gradient against its own residual; the codes travel to
  // the merge device, are expanded there and summed (MXNet's CommDevice::ReduceCompressed).
  NDArray ReduceCompressed(Buffer* buf, const std::vector<NDArray>& src, int priority) {
    const TShape& shape = buf->merged.shape();
    if (buf->residual.empty()) {
      const int64_t small = gc_->GetCompressedSize(static_cast<int64_t>(shape.Size()));
      for (const NDArray& s : src) {
        NDArray residual(shape, s.ctx(), false, buf->merged.dtype());
        PushZero(residual, priority);
        buf->residual.push_back(residual);
        buf->send.emplace_back(TShape({small}), s.ctx(), false, buf->merged.dtype());
        buf->recv.emplace_back(TShape({small}), buf->merged.ctx(), false, buf->merged.dtype());
        buf->dequantized.emplace_back(shape, buf->merged.ctx(), false, buf->merged.dtype());
      }
    }
    CHECK_EQ(src.size(), buf->residual.size())
        << "KVStore.push with gradient compression: a key must be pushed from the same "
        << buf->residual.size() << " device(s) each time, given " << src.size();
    for (size_t i = 0; i < src.size(); ++i) {
      gc_->Quantize(src[i], &buf->send[i], &buf->residual[i], priority);
      if (buf->send[i].ctx() != buf->recv[i].ctx()) {
        CopyFromTo(buf->send[i], buf->recv[i], priority);
      } else {
        buf->recv[i] = buf->send[i];
      }
      gc_->Dequantize(buf->recv[i], &buf->dequantized[i], priority);
    }
    PushReduceSum(buf->dequantized, buf->merged, cfg_, priority);
    return buf->merged;
  }

  // Merge buffers go to the pushing devices, biggest keys first, each to the device holding
  // the fewest elements so far (MXNet's placement).
  void InitMergeBuffers(const std::vector<NDArray>& src) {
    if (inited_) return;
    std::stable_sort(keys_.begin(), keys_.end(), [](const KeyAttrs& a, const KeyAttrs& b) {
      return std::get<1>(a).Size() > std::get<1>(b).Size();
    });
    // Keyed by (device type, id): cpu(0) and gpu(0) are two places.
    std::map<std::pair<int, int>, std::pair<Context, size_t>> load;
    for (const NDArray& a : src) load[{a.ctx().dev_mask(), a.ctx().dev_id}] = {a.ctx(), 0};
#if MXNET_USE_CUDA
    if (enable_p2p_) {
      std::vector<int> gpus;  // each pushing GPU once
      for (const auto& place : load) {
        if (place.first.first == Context::kGPU) gpus.push_back(place.first.second);
      }
      if (gpus.size() > 1) EnableGpuPeerAccess(gpus);
    }
#endif
    for (const KeyAttrs& k : keys_) {
      Buffer& buf = bufs_[std::get<0>(k)];
      auto best = load.begin();
      for (auto it = load.begin(); it != load.end(); ++it) {
        if (it->second.second <= best->second.second) best = it;
      }
      if (buf.merged.is_none()) {
        buf.merged = NDArray(std::get<1>(k), best->second.first, true, std::get<2>(k));
      }
      best->second.second += std::get<1>(k).Size();
    }
    inited_ = true;
  }

  using KeyAttrs = std::tuple<int, TShape, int>;
  ReduceConfig cfg_;
  bool enable_p2p_{true};
  bool inited_{false};
  std::vector<KeyAttrs> keys_;
  std::unordered_map<int, Buffer> bufs_;
};

}  // namespace

std::unique_ptr<Comm> CreateCommCPU() { return std::make_unique<CommCPU>(); }
std::unique_ptr<Comm> CreateCommDevice() {
  if (env::GetBool("MXNET_KVSTORE_USETREE")) {
    return CreateCommDeviceTree(std::make_unique<CommDevice>());
  }
  return std::make_unique<CommDevice>();
}

}  // namespace kvstore
}  // namespace mxnet
