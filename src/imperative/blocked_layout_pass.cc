// Marks the values of a CachedOp graph that stay in oneDNN's blocked layout: union-find over
// the entries the layout groups of the operators tie together; a class is held blocked
// unless one of its entries is seen by something that reads or writes it plain.
#include "imperative/blocked_layout_pass.h"

#include <numeric>

#include "common/env.h"
#include "nnvm/op.h"
#include "operator/nn/onednn/onednn_base.h"
#include "operator/nn/onednn/onednn_layout.h"

namespace mxnet {
namespace imperative {

namespace {

class EntryClasses {
 public:
  explicit EntryClasses(size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0u); }
  uint32_t Find(uint32_t e) {
    while (parent_[e] != e) e = parent_[e] = parent_[parent_[e]];
    return e;
  }
  void Join(uint32_t a, uint32_t b) { parent_[Find(a)] = Find(b); }

 private:
  std::vector<uint32_t> parent_;
};

}  // namespace

std::shared_ptr<const std::vector<std::shared_ptr<const nnvm::NodeAttrs>>> MarkBlockedLayouts(
    const nnvm::IndexedGraph& idx, uint32_t begin, uint32_t end,
    const std::vector<std::shared_ptr<const nnvm::NodeAttrs>>& attrs,
    const std::vector<bool>& keep) {
  using op::onednn::LayoutGroup;
  if (op::onednn::BlockSize() == 0) return nullptr;
  static const auto& fgroups = nnvm::Op::GetAttr<op::onednn::FBlockedLayout>("FBlockedLayout");
  const size_t n_entries = idx.num_node_entries();
  EntryClasses classes(n_entries);
  std::vector<bool> plain(keep);  // entries something sees plain
  plain.resize(n_entries, false);
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    const auto& inode = idx[nid];
    const uint32_t n_out = inode.source->num_outputs();
    if (inode.source->is_variable() || nid < begin || nid >= end) {
      // Variables are the caller's arrays, and values the range does not compute arrive
      // plain; nodes outside the range do not run with it, so what they read is not looked at
      // (what they read of the range's values is kept).
      for (uint32_t i = 0; i < n_out; ++i) plain[idx.entry_id(nid, i)] = true;
      continue;
    }
    std::vector<bool> in_grouped(inode.inputs.size(), false), out_grouped(n_out, false);
    if (fgroups.contains(inode.source->op())) {
      for (const LayoutGroup& g : fgroups[inode.source->op()](*attrs[nid])) {
        std::vector<uint32_t> members;
        for (uint32_t i : g.inputs) {
          if (i >= inode.inputs.size() || i >= 64) continue;
          in_grouped[i] = true;
          members.push_back(idx.entry_id(inode.inputs[i]));
        }
        for (uint32_t o : g.outputs) {
          if (o >= n_out || o >= 64) continue;
          out_grouped[o] = true;
          members.push_back(idx.entry_id(nid, o));
        }
        for (size_t k = 1; k < members.size(); ++k) classes.Join(members[0], members[k]);
      }
    }
    for (size_t i = 0; i < inode.inputs.size(); ++i) {
      if (!in_grouped[i]) plain[idx.entry_id(inode.inputs[i])] = true;
    }
    for (uint32_t o = 0; o < n_out; ++o) {
      if (!out_grouped[o]) plain[idx.entry_id(nid, o)] = true;
    }
  }
  std::vector<bool> class_plain(n_entries, false);
  for (uint32_t e = 0; e < n_entries; ++e) {
    if (plain[e]) class_plain[classes.Find(e)] = true;
  }
  auto blocked = [&](uint32_t e) { return !class_plain[classes.Find(e)]; };
  auto marked = std::make_shared<std::vector<std::shared_ptr<const nnvm::NodeAttrs>>>(attrs);
  bool any = false;
  for (uint32_t nid = begin; nid < end; ++nid) {
    const auto& inode = idx[nid];
    if (inode.source->is_variable()) continue;
    op::onednn::LayoutMarks m;
    for (size_t i = 0; i < inode.inputs.size() && i < 64; ++i) {
      if (blocked(idx.entry_id(inode.inputs[i]))) m.in |= uint64_t{1} << i;
    }
    for (uint32_t o = 0; o < inode.source->num_outputs() && o < 64; ++o) {
      if (blocked(idx.entry_id(nid, o))) m.out |= uint64_t{1} << o;
    }
    if (!m.any()) continue;
    (*marked)[nid] = std::make_shared<const nnvm::NodeAttrs>(op::onednn::WithMarks(*attrs[nid], m));
    any = true;
  }
  if (!any) return nullptr;
  return marked;
}

bool BlockedLayoutsWanted() {
  return op::onednn::Enabled() && env::GetBool("MXNET_ONEDNN_BLOCKED_LAYOUT");
}

}  // namespace imperative
}  // namespace mxnet
