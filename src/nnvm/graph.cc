// IndexedGraph: numbering the nodes (topological order) and entries of a graph.
#include "nnvm/graph.h"

#include <dmlc/logging.h>

#include <unordered_set>

#include "mxnet/op_attr_types.h"
#include "nnvm/gradient.h"
#include "nnvm/op.h"

namespace nnvm {

IndexedGraph::IndexedGraph(const std::vector<NodeEntry>& outputs) {
  static const auto& fmutate = Op::GetAttr<mxnet::FMutateInputs>("FMutateInputs");
  owned_ = TopoSort(outputs);
  nodes_.reserve(owned_.size());
  entry_rptr_.reserve(owned_.size() + 1);
  entry_rptr_.push_back(0);
  std::unordered_set<uint32_t> mutated;
  for (uint32_t nid = 0; nid < owned_.size(); ++nid) {
    const Node* n = owned_[nid].get();
    node2id_[n] = nid;
    NodeInfo info;
    info.source = n;
    info.inputs.reserve(n->inputs.size());
    for (const NodeEntry& e : n->inputs) {
      info.inputs.push_back({node2id_.at(e.node.get()), e.index, e.version});
    }
    for (const ObjectPtr& c : n->control_deps) {
      if (c) info.control_deps.push_back(node2id_.at(c.get()));
    }
    if (n->is_variable()) {
      input_nodes_.push_back(nid);
    } else if (fmutate.contains(n->op())) {
      for (uint32_t i : fmutate[n->op()](n->attrs)) {
        if (i < info.inputs.size()) mutated.insert(info.inputs[i].node_id);
      }
    }
    entry_rptr_.push_back(entry_rptr_.back() + (n->is_variable() ? 1 : n->num_outputs()));
    nodes_.push_back(std::move(info));
  }
  for (uint32_t nid : input_nodes_) {
    (mutated.count(nid) ? mutable_input_nodes_ : arg_nodes_).push_back(nid);
  }
  for (const NodeEntry& e : outputs) {
    CHECK(e.node) << "IndexedGraph: an output entry has no node";
    outputs_.push_back({node2id_.at(e.node.get()), e.index, e.version});
  }
}

uint32_t IndexedGraph::node_id(const Node* node) const {
  auto it = node2id_.find(node);
  CHECK(it != node2id_.end()) << "IndexedGraph: node " << (node ? node->attrs.name : "null")
                              << " is not in this graph";
  return it->second;
}

}  // namespace nnvm
