// Memory planning of a bound graph: free-list matching, in-place reuse and identity sharing.
#include "executor/plan_memory.h"

#include <dmlc/logging.h>

#include <map>

#include "common/env.h"
#include "mxnet/op_attr_types.h"
#include "nnvm/op.h"
#include "operator/inplace_identity.h"

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

// The free blocks of one device.
class FreeBlocks {
 public:
  FreeBlocks(StoragePlan* plan, size_t match_range, int device)
      : plan_(plan), range_(match_range), device_(device) {}

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
    plan_->device.push_back(device_);
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
  int device_;
  std::multimap<size_t, int> free_;  // bytes -> block
};

// A pinned entry holds its block for good.
constexpr uint64_t kPinnedRefs = uint64_t{1} << 40;

}  // namespace

StoragePlan PlanStorage(const nnvm::IndexedGraph& idx, const std::vector<size_t>& entry_bytes,
                        const std::vector<bool>& given, const std::vector<bool>& pinned,
                        const StoragePlanOptions& options, const std::vector<int>& entry_dtypes,
                        const std::vector<int>& node_device,
                        const std::vector<bool>& is_output) {
  static const auto& finplace = nnvm::Op::GetAttr<FInplaceOption>("FInplaceOption");
  static const auto& fidentity = nnvm::Op::GetAttr<FInplaceIdentity>("FInplaceIdentity");
  const size_t n_entries = idx.num_node_entries();
  StoragePlan plan;
  plan.block.assign(n_entries, -1);
  std::vector<uint32_t> readers(n_entries, 0);
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    for (const auto& in : idx[nid].inputs) ++readers[idx.entry_id(in)];
  }
  // per block: the reads still due of all entries in it (kPinnedRefs and more when pinned)
  std::vector<uint64_t> refs;
  std::vector<bool> holds_output;  // per block: some entry in it is a graph output
  auto output = [&](uint32_t e) { return !is_output.empty() && is_output[e]; };
  std::map<int, FreeBlocks> free_blocks;  // device -> its free blocks
  auto entry_refs = [&](uint32_t e) { return readers[e] + (pinned[e] ? kPinnedRefs : 0); };
  auto free_of = [&](int dev) -> FreeBlocks& {
    auto it = free_blocks.find(dev);
    if (it == free_blocks.end()) {
      it = free_blocks.emplace(dev, FreeBlocks(&plan, options.match_range, dev)).first;
    }
    return it->second;
  };
  auto unref = [&](int b, uint64_t n) {
    if (b < 0) return;
    refs[b] -= n;
    if (refs[b] == 0) free_of(plan.device[b]).Put(b);
  };
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    const auto& inode = idx[nid];
    if (inode.source->is_variable()) continue;
    const nnvm::Op* op = inode.source->op();
    const int dev = node_device.empty() ? 0 : node_device[nid];
    std::vector<std::pair<int, int>> inplace;
    std::vector<bool> identity;
    if (options.inplace && finplace.contains(op)) {
      inplace = finplace[op](inode.source->attrs);
      if (fidentity.contains(op)) {
        identity = fidentity[op](inode.source->attrs);
        CHECK_EQ(identity.size(), inplace.size())
            << "Operator " << op->name << ": FInplaceOption gives " << inplace.size()
            << " pairs, FInplaceIdentity " << identity.size() << " flags";
      }
    }
    // inputs an output overwrites: no other output may share them
    std::vector<bool> overwritten(inode.inputs.size(), false);
    for (size_t k = 0; k < inplace.size(); ++k) {
      const auto& p = inplace[k];
      if (p.first < 0 || p.first >= static_cast<int>(inode.inputs.size()) || p.second < 0 ||
          p.second >= static_cast<int>(inode.source->num_outputs()) || overwritten[p.first]) {
        continue;
      }
      const uint32_t e = idx.entry_id(nid, p.second);
      const uint32_t e_in = idx.entry_id(inode.inputs[p.first]);
      const int b_in = plan.block[e_in];
      if (given[e] || plan.block[e] >= 0 || entry_bytes[e] == 0 || b_in < 0 ||
          plan.device[b_in] != dev || entry_bytes[e_in] != entry_bytes[e] ||
          entry_refs(e) == 0) {
        continue;
      }
      // the same values: the output may alias the input while others still read it
      const bool same = !identity.empty() && identity[k] && !entry_dtypes.empty() &&
                        entry_dtypes[e] == entry_dtypes[e_in] &&
                        !(output(e) && holds_output[b_in]);
      if (!same && refs[b_in] != 1) continue;  // else only this read of the block is left
      if (!same) overwritten[p.first] = true;  // several outputs equal to it may share it
      plan.block[e] = b_in;
      refs[b_in] += entry_refs(e);
      holds_output[b_in] = holds_output[b_in] || output(e);
    }
    for (uint32_t i = 0; i < inode.source->num_outputs(); ++i) {
      const uint32_t e = idx.entry_id(nid, i);
      if (given[e] || entry_bytes[e] == 0 || plan.block[e] >= 0) continue;
      const int b = free_of(dev).Take(entry_bytes[e]);
      if (static_cast<size_t>(b) >= refs.size()) {
        refs.resize(b + 1, 0);
        holds_output.resize(b + 1, false);
      }
      plan.block[e] = b;
      refs[b] = entry_refs(e);
      holds_output[b] = output(e);
    }
    for (const auto& in : inode.inputs) unref(plan.block[idx.entry_id(in)], 1);
    for (uint32_t i = 0; i < inode.source->num_outputs(); ++i) {  // outputs nobody reads
      const uint32_t e = idx.entry_id(nid, i);
      if (plan.block[e] >= 0 && entry_refs(e) == 0 && refs[plan.block[e]] == 0) {
        free_of(dev).Put(plan.block[e]);
      }
    }
  }
  return plan;
}

}  // namespace exec
}  // namespace mxnet
