// IndexedGraph: a numbered, topologically ordered view of the graph reaching some outputs.
#ifndef NNVM_GRAPH_H_
#define NNVM_GRAPH_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "nnvm/node.h"

namespace nnvm {

/*!
 * \brief Nodes numbered in topological order (inputs and control deps before users, the
 * order TopoSort gives) and their output entries numbered node by node, so passes keep
 * per-node and per-entry attributes in flat vectors. The view holds the nodes alive.
 */
class IndexedGraph {
 public:
  /*! \brief An entry by number: output `index` of node `node_id`. */
  struct NodeEntryRef {
    uint32_t node_id;
    uint32_t index;
    uint32_t version;
  };
  struct NodeInfo {
    const Node* source;
    std::vector<NodeEntryRef> inputs;
    std::vector<uint32_t> control_deps;
  };

  explicit IndexedGraph(const std::vector<NodeEntry>& outputs);

  size_t num_nodes() const { return nodes_.size(); }
  size_t num_node_entries() const { return entry_rptr_.back(); }
  const NodeInfo& operator[](uint32_t nid) const { return nodes_[nid]; }
  const ObjectPtr& node_ptr(uint32_t nid) const { return owned_[nid]; }
  uint32_t entry_id(uint32_t nid, uint32_t index) const { return entry_rptr_[nid] + index; }
  uint32_t entry_id(const NodeEntryRef& e) const { return entry_rptr_[e.node_id] + e.index; }
  /*! \brief Id of a node of this graph (dmlc::Error when it is not in it). */
  uint32_t node_id(const Node* node) const;
  uint32_t entry_id(const NodeEntry& e) const { return entry_id(node_id(e.node.get()), e.index); }
  bool exist(const Node* node) const { return node2id_.count(node) != 0; }
  /*! \brief Every variable, in topological order. */
  const std::vector<uint32_t>& input_nodes() const { return input_nodes_; }
  /*! \brief The variables some op writes (FMutateInputs): the auxiliary states. */
  const std::vector<uint32_t>& mutable_input_nodes() const { return mutable_input_nodes_; }
  /*! \brief The variables no op writes (Symbol.list_arguments), in topological order. */
  const std::vector<uint32_t>& arg_nodes() const { return arg_nodes_; }
  const std::vector<NodeEntryRef>& outputs() const { return outputs_; }

 private:
  std::vector<NodeInfo> nodes_;
  std::vector<ObjectPtr> owned_;
  std::vector<uint32_t> entry_rptr_;
  std::vector<uint32_t> input_nodes_, mutable_input_nodes_, arg_nodes_;
  std::vector<NodeEntryRef> outputs_;
  std::unordered_map<const Node*, uint32_t> node2id_;
};

}  // namespace nnvm

#endif  // NNVM_GRAPH_H_
