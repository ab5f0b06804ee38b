// CommDeviceTree: the 'device' store's Comm under MXNET_KVSTORE_USETREE=1 (MXNet 1.9.1's): sums
// each key up a reduction tree of the pushing devices and copies values down it.
//
// At the first push from several devices one tree per root is planned over their link weights
// (tree_topology.h; GPUs: NVLink/P2P weights, other contexts: all pairs alike). A key is summed
// up tree 0 into its root; a key of more than MXNET_KVSTORE_TREE_ARRAY_BOUND elements with at
// least 2 rows per device is cut into one block of rows per device, block r summed up tree r
// and copied down tree r again, so every device ends with the whole sum (reduce-scatter then
// all-gather, as 1.9.1). A pull copies down tree 0, or, of such a cut key's own sum, from each
// device's copy. Pushes the trees do not fit (compressed, sparse, other devices, another
// dtype) are summed by the plain CommDevice, as 1.9.1 hands compressed and row_sparse
// pushes to it.
#include <dmlc/logging.h>

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/env.h"
#include "kvstore/comm.h"
#include "kvstore/gpu_p2p.h"
#include "kvstore/tree_topology.h"
#include "mxnet/cuda_config.h"

namespace mxnet {
namespace kvstore {
namespace {

class CommDeviceTree : public Comm {
 public:
  explicit CommDeviceTree(std::unique_ptr<Comm> flat)
      : flat_(std::move(flat)), cfg_(ReduceConfig::FromEnv()) {
    array_bound_ = env::GetInt("MXNET_KVSTORE_TREE_ARRAY_BOUND");
    opts_.backtrack = env::GetBool("MXNET_KVSTORE_TREE_BACKTRACK");
    opts_.link_usage_penalty =
        static_cast<float>(env::GetFloat("MXNET_KVSTORE_TREE_LINK_USAGE_PENALTY"));
    opts_.log = env::GetBool("MXNET_KVSTORE_LOGTREE");
  }

  void Init(int key, const TShape& shape, int dtype) override {
    flat_->Init(key, shape, dtype);
    keys_[key] = KeyBuffers{shape, dtype};
  }

  NDArray Reduce(int key, const std::vector<NDArray>& src, int priority) override {
    flat_->SetGradientCompression(gc_);
    KeyBuffers& kb = keys_.at(key);
    std::vector<int> dev;
    const bool fits = Fit(src, kb, &dev);
    // Compressed gradients are summed as by CommDevice (1.9.1 too); the pull still uses the tree.
    if ((gc_ && gc_->type() != CompressionType::kNone) || src.size() == 1 || !fits) {
      return flat_->Reduce(key, src, priority);
    }
    std::vector<NDArray> by_dev(devs_.size());
    for (size_t i = 0; i < src.size(); ++i) by_dev[dev[i]] = src[i];
    Allocate(&kb);
    const int n = static_cast<int>(devs_.size());
    if (!kb.cut) {
      kb.result = ReduceUp(&kb, by_dev, 0, 0, priority);
      return kb.result;
    }
    for (int r = 0; r < n; ++r) {
      ReduceUp(&kb, by_dev, r, r, priority);
      for (const TreeSend& s : BroadcastSends(trees_[r])) {
        CopyFromTo(kb.merged[s.from].Slice(kb.rows[r], kb.rows[r + 1]),
                   kb.merged[s.to].Slice(kb.rows[r], kb.rows[r + 1]), priority);
      }
    }
    kb.result = kb.merged[0];
    return kb.result;
  }

  void Broadcast(int key, const NDArray& src, const std::vector<NDArray*>& dst,
                 int priority) override {
    std::vector<NDArray*> by_dev;
    if (!MatchOutputs(src, dst, &by_dev)) {
      flat_->Broadcast(key, src, dst, priority);
      return;
    }
    const KeyBuffers& kb = keys_.at(key);
    if (kb.cut && !kb.result.is_none() && src.var() == kb.result.var()) {
      // This key's own sum: every device already holds a copy.
      for (size_t d = 0; d < devs_.size(); ++d) CopyFromTo(kb.merged[d], *by_dev[d], priority);
      return;
    }
    const DeviceTree& tree = trees_[0];
    CopyFromTo(src, *by_dev[tree.root()], priority);
    for (const TreeSend& s : BroadcastSends(tree)) {
      CopyFromTo(*by_dev[s.from], *by_dev[s.to], priority);
    }
  }

 private:
  struct KeyBuffers {
    TShape shape;
    int dtype;
    bool allocated{false};
    bool cut{false};
    std::vector<int64_t> rows;    // with cut: device r sums rows [rows[r], rows[r+1])
    std::vector<NDArray> merged;  // per device: partial sums, then (cut) the whole sum
    std::vector<NDArray> recv;    // per device: what arrives from a device of other memory
    NDArray result;               // the last sum returned
  };

  // Whether the trees can sum src: dense values of the key's dtype, one from each planned
  // device (the first push from several distinct devices plans the trees); dev[i] is src[i]'s.
  bool Fit(const std::vector<NDArray>& src, const KeyBuffers& kb, std::vector<int>* dev) {
    for (const NDArray& s : src) {
      if (s.storage_type() != kDefaultStorage || s.dtype() != kb.dtype) return false;
    }
    if (devs_.empty()) {
      if (src.size() < 2) return false;
      std::vector<Context> devs;
      for (const NDArray& s : src) {
        for (const Context& c : devs) {
          if (c == s.ctx()) return false;
        }
        devs.push_back(s.ctx());
      }
      Plan(devs);
    }
    if (src.size() != devs_.size()) return false;
    std::vector<char> taken(devs_.size(), 0);
    for (const NDArray& s : src) {
      const int d = DeviceOf(s.ctx());
      if (d < 0 || taken[d]) return false;
      taken[d] = 1;
      dev->push_back(d);
    }
    return true;
  }

  int DeviceOf(const Context& ctx) const {
    for (size_t d = 0; d < devs_.size(); ++d) {
      if (devs_[d] == ctx) return static_cast<int>(d);
    }
    return -1;
  }

  // One output per planned device, dense and of src's dtype (else the plain copies are used).
  bool MatchOutputs(const NDArray& src, const std::vector<NDArray*>& dst,
                    std::vector<NDArray*>* by_dev) const {
    if (trees_.empty() || dst.size() != devs_.size()) return false;
    by_dev->assign(devs_.size(), nullptr);
    for (NDArray* o : dst) {
      const int d = DeviceOf(o->ctx());
      if (d < 0 || (*by_dev)[d] != nullptr || o->storage_type() != kDefaultStorage ||
          o->dtype() != src.dtype() || o->shape() != src.shape()) {
        return false;
      }
      (*by_dev)[d] = o;
    }
    return true;
  }

  void Plan(const std::vector<Context>& devs) {
    devs_ = devs;
    const int n = static_cast<int>(devs.size());
    LOG(INFO) << "Using " << (opts_.backtrack ? "Backtracking" : "Kernighan-Lin")
              << " to generate trees";
    std::vector<int> gpus;
    for (const Context& c : devs) {
      if (c.dev_mask() == Context::kGPU) gpus.push_back(c.dev_id);
    }
    std::vector<float> links;
#if MXNET_USE_CUDA
    if (static_cast<int>(gpus.size()) == n) links = QueryGpuLinkMatrix(gpus, opts_.log);
#endif
    if (links.empty()) links = UniformLinkMatrix(n);  // contexts sharing memory (or mixed)
    trees_ = ComputeTrees(links, n, opts_);
    LOG(INFO) << "Using Tree";
    std::map<size_t, int> sizes;
    for (const auto& k : keys_) sizes[k.second.shape.Size()]++;
    for (const auto& s : sizes) {
      LOG(INFO) << "Size " << s.first << " occurs " << s.second << " times";
    }
  }

  void Allocate(KeyBuffers* kb) {
    if (kb->allocated) return;
    const int64_t n = static_cast<int64_t>(devs_.size());
    const int64_t first = kb->shape.ndim() > 0 ? kb->shape[0] : 0;
    kb->cut = static_cast<int64_t>(kb->shape.Size()) > array_bound_ && first >= 2 * n;
    const int64_t block = kb->cut ? first / n : first;
    kb->rows.assign(n + 1, 0);
    for (int64_t r = 1; r < n; ++r) kb->rows[r] = kb->rows[r - 1] + block;
    kb->rows[n] = first;
    for (const Context& c : devs_) kb->merged.emplace_back(kb->shape, c, true, kb->dtype);
    kb->recv.resize(devs_.size());
    kb->allocated = true;
  }

  // Sums by_dev (of a cut key: its block of rows `block`) up tree t; returns the root's sum (in
  // its merged buffer).
  NDArray ReduceUp(KeyBuffers* kb, const std::vector<NDArray>& by_dev, int t, int block,
                   int priority) {
    auto part = [&](const NDArray& a) {
      return kb->cut ? a.Slice(kb->rows[block], kb->rows[block + 1]) : a;
    };
    std::vector<NDArray> sum(by_dev.size());  // what each device holds so far
    for (size_t d = 0; d < by_dev.size(); ++d) sum[d] = part(by_dev[d]);
    for (const TreeSend& s : ReduceSends(trees_[t])) {
      NDArray out = part(kb->merged[s.to]);
      NDArray in = sum[s.from];
      if (!SameMemory(in.ctx(), out.ctx())) {
        NDArray& recv = kb->recv[s.to];
        if (recv.is_none()) recv = NDArray(kb->shape, devs_[s.to], true, kb->dtype);
        CopyFromTo(in, part(recv), priority);
        in = part(recv);
      }
      PushReduceSum({sum[s.to], in}, out, cfg_, priority);
      sum[s.to] = out;
    }
    return sum[trees_[t].root()];
  }

  std::unique_ptr<Comm> flat_;  // CommDevice: what the trees do not fit
  ReduceConfig cfg_;
  TreeOptions opts_;
  int64_t array_bound_;
  std::vector<Context> devs_;         // the planned devices; tree i is rooted at devs_[i]
  std::vector<DeviceTree> trees_;
  std::unordered_map<int, KeyBuffers> keys_;
};

}  // namespace

std::unique_ptr<Comm> CreateCommDeviceTree(std::unique_ptr<Comm> flat) {
  return std::make_unique<CommDeviceTree>(std::move(flat));
}

}  // namespace kvstore
}  // namespace mxnet
