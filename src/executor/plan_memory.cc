// Memory planning of a bound graph: free-list matching and in-place reuse.
#include "executor/plan_memory.h"

#include <map>

#include "common/env.h"
#include "mxnet/op_attr_types.h"
#include "nnvm/op.h"

namespace mxnet {
namespace exec {

StoragePlanOptions StoragePlanOptions::FromEnv() {
  StoragePlanOptions o;
  o.inplace = env::GetBool("MXNET_EXEC_ENABLE_INPLACE");
  const int64_t range = env::GetInt("NNVM_EXEC_MATCH_RANGE");
  o.match_range = range < 1 ? 1 : static_cast<size_t>(range);
  return o;
}

namespace {

class FreeBlocks {
 public:
  FreeBlocks(StoragePlan* plan, size_t match_range) : plan_(plan), range_(match_range) {}

  void Put(int b) { free_.emplace(plan_->bytes[b], b); }

  int Take(size_t bytes) {
    auto fit = free_.lower_bound(bytes);
    if (fit != free_.end() && fit->first / range_ <= bytes) return Erase(fit);
    if (fit != free_.begin()) {
      auto smaller = std::prev(fit);
      if (smaller->first >= bytes / range_) {
        int b = Erase(smaller);
        plan_->bytes[b] = bytes;
        return b;
      }
    }
    plan_->bytes.push_back(bytes);
    return static_cast<int>(plan_->bytes.size() - 1);
  }

 private:
  int Erase(std::multimap<size_t, int>::iterator it) {
    int b = it->second;
    free_.erase(it);
    return b;
  }
  StoragePlan* plan_;
  size_t range_;
  std::multimap<size_t, int> free_;  // bytes -> block
};

}  // namespace

StoragePlan PlanStorage(const nnvm::IndexedGraph& idx, const std::vector<size_t>& entry_bytes,
                        const std::vector<bool>& given, const std::vector<bool>& pinned,
                        const StoragePlanOptions& options) {
  static const auto& finplace = nnvm::Op::GetAttr<FInplaceOption>("FInplaceOption");
  const size_t n_entries = idx.num_node_entries();
  StoragePlan plan;
  plan.block.assign(n_entries, -1);
  std::vector<uint32_t> readers(n_entries, 0);
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    for (const auto& in : idx[nid].inputs) ++readers[idx.entry_id(in)];
  }
  std::vector<int> owner;  // per block: the live entry using it
  FreeBlocks free_blocks(&plan, options.match_range);
  auto release = [&](uint32_t e) {
    const int b = plan.block[e];
    if (b < 0 || pinned[e] || readers[e] != 0 || owner[b] != static_cast<int>(e)) return;
    owner[b] = -1;
    free_blocks.Put(b);
  };
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    const auto& inode = idx[nid];
    if (inode.source->is_variable()) continue;
    std::vector<std::pair<int, int>> inplace;
    if (options.inplace && finplace.contains(inode.source->op())) {
      inplace = finplace[inode.source->op()](inode.source->attrs);
    }
    for (uint32_t i = 0; i < inode.source->num_outputs(); ++i) {
      const uint32_t e = idx.entry_id(nid, i);
      if (given[e] || entry_bytes[e] == 0) continue;
      int b = -1;
      for (const auto& p : inplace) {
        if (p.second != static_cast<int>(i) || p.first < 0 ||
            p.first >= static_cast<int>(inode.inputs.size())) {
          continue;
        }
        const uint32_t e_in = idx.entry_id(inode.inputs[p.first]);
        uint32_t reads_here = 0;
        for (const auto& in : inode.inputs) reads_here += idx.entry_id(in) == e_in;
        const int b_in = plan.block[e_in];
        if (b_in < 0 || pinned[e_in] || owner[b_in] != static_cast<int>(e_in) ||
            readers[e_in] != reads_here || reads_here != 1 ||
            entry_bytes[e_in] != entry_bytes[e]) {
          continue;
        }
        b = b_in;  // the input dies here: its block passes to the output
        break;
      }
      if (b < 0) {
        b = free_blocks.Take(entry_bytes[e]);
        if (static_cast<size_t>(b) >= owner.size()) owner.resize(b + 1, -1);
      }
      plan.block[e] = b;
      owner[b] = static_cast<int>(e);
    }
    for (const auto& in : inode.inputs) {
      const uint32_t e = idx.entry_id(in);
      if (readers[e] > 0) --readers[e];
      release(e);
    }
    for (uint32_t i = 0; i < inode.source->num_outputs(); ++i) release(idx.entry_id(nid, i));
  }
  return plan;
}

}  // namespace exec
}  // namespace mxnet
