// BatchNorm then ReLU as one node in a CachedOp's graph (fuse_bn_relu_pass.h).
#include "imperative/fuse_bn_relu_pass.h"

#include <unordered_map>
#include <vector>

#include "common/env.h"
#include "nnvm/graph.h"
#include "nnvm/op.h"

namespace mxnet {
namespace imperative {
namespace {

bool IsReLU(const nnvm::Node& n) {
  if (n.is_variable() || n.inputs.size() != 1) return false;
  if (n.op()->name == "relu") return true;
  if (n.op()->name != "Activation") return false;
  auto it = n.attrs.dict.find("act_type");
  return it != n.attrs.dict.end() && it->second == "relu";
}

}  // namespace

nnvm::Symbol FuseBatchNormReLU(const nnvm::Symbol& sym) {
  if (!env::GetBool("MXNET_FUSE_BN_RELU")) return sym;
  static const nnvm::Op* batch_norm = nnvm::Op::GetOrThrow("BatchNorm");
  static const nnvm::Op* fused = nnvm::Op::GetOrThrow("_contrib_BatchNormWithReLU");
  // Edited in a copy: each such BatchNorm becomes the fused op and its ReLU's readers read it.
  nnvm::Symbol out = sym.Copy();
  nnvm::IndexedGraph idx(out.outputs);
  std::vector<uint32_t> readers(idx.num_node_entries(), 0);
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    for (const auto& in : idx[nid].inputs) ++readers[idx.entry_id(in)];
  }
  for (const auto& o : idx.outputs()) ++readers[idx.entry_id(o)];
  std::unordered_map<const nnvm::Node*, nnvm::ObjectPtr> relu_to_bn;
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    const auto& in = idx[nid].inputs;
    if (!IsReLU(*idx[nid].source) || in[0].index != 0 || readers[idx.entry_id(in[0])] != 1) {
      continue;
    }
    const nnvm::ObjectPtr& bn = idx.node_ptr(in[0].node_id);
    if (bn->op() != batch_norm) continue;
    bn->attrs.op = fused;
    if (fused->attr_parser) fused->attr_parser(&bn->attrs);
    relu_to_bn.emplace(idx[nid].source, bn);
  }
  if (relu_to_bn.empty()) return sym;
  auto rewire = [&](nnvm::NodeEntry* e) {
    auto it = relu_to_bn.find(e->node.get());
    if (it != relu_to_bn.end()) *e = nnvm::NodeEntry(it->second, 0, e->version);
  };
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    for (nnvm::NodeEntry& e : idx.node_ptr(nid)->inputs) rewire(&e);
  }
  for (nnvm::NodeEntry& e : out.outputs) rewire(&e);
  return out;
}

}  // namespace imperative
}  // namespace mxnet
