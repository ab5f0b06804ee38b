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
  nnvm::IndexedGraph idx(sym.outputs);
  std::vector<uint32_t> readers(idx.num_node_entries(), 0);
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    for (const auto& in : idx[nid].inputs) ++readers[idx.entry_id(in)];
  }
  for (const auto& o : idx.outputs()) ++readers[idx.entry_id(o)];
  // relu node -> the BatchNorm node it follows, for each pair to fuse
  std::unordered_map<const nnvm::Node*, const nnvm::Node*> fuse;
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    const nnvm::Node& n = *idx[nid].source;
    if (!IsReLU(n)) continue;
    const auto& in = idx[nid].inputs[0];
    const nnvm::Node& bn = *idx[in.node_id].source;
    if (bn.is_variable() || bn.op() != batch_norm || in.index != 0 ||
        readers[idx.entry_id(in)] != 1) {
      continue;
    }
    fuse.emplace(&n, &bn);
  }
  if (fuse.empty()) return sym;
  // Copy the graph; a fused BatchNorm becomes the new op, and its ReLU is that node.
  std::unordered_map<const nnvm::Node*, nnvm::ObjectPtr> copies;
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    const nnvm::Node* n = idx[nid].source;
    auto f = fuse.find(n);
    if (f != fuse.end()) {
      copies.emplace(n, copies.at(f->second));
      continue;
    }
    nnvm::ObjectPtr c = nnvm::Node::Create();
    c->attrs = n->attrs;
    for (const nnvm::NodeEntry& e : n->inputs) {
      c->inputs.emplace_back(copies.at(e.node.get()), e.index, e.version);
    }
    for (const nnvm::ObjectPtr& d : n->control_deps) c->control_deps.push_back(copies.at(d.get()));
    copies.emplace(n, std::move(c));
  }
  for (const auto& kv : fuse) {
    nnvm::NodeAttrs& attrs = copies.at(kv.second)->attrs;
    attrs.op = fused;
    if (fused->attr_parser) fused->attr_parser(&attrs);
  }
  nnvm::Symbol out;
  for (const nnvm::NodeEntry& h : sym.outputs) {
    out.outputs.emplace_back(copies.at(h.node.get()), h.index, h.version);
  }
  return out;
}

}  // namespace imperative
}  // namespace mxnet
