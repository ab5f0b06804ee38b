// Partitioning a graph: growing the subgraphs a property selects, breaking cycles through
// outside nodes, and replacing each subgraph with the node the property makes.
#include <dmlc/logging.h>

#include <algorithm>
#include <deque>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "nnvm/graph.h"
#include "operator/subgraph/subgraph_property.h"

namespace mxnet {
namespace op {
namespace {

// Each edge (an entry in some node's inputs, or a graph output) numbered in the order a
// depth-first walk from the outputs meets it; subgraph inputs and outputs follow this order
// so the partitioned graph lists its variables as the original does.
using EdgeOrder = std::unordered_map<const nnvm::NodeEntry*, size_t>;

EdgeOrder OrderEdges(std::vector<nnvm::NodeEntry>* outputs) {
  EdgeOrder order;
  std::unordered_set<const nnvm::Node*> visited;
  struct Frame {
    nnvm::Node* node;
    size_t next;
    const nnvm::NodeEntry* edge;
  };
  std::vector<Frame> stack;
  for (nnvm::NodeEntry& out : *outputs) {
    if (!visited.insert(out.node.get()).second) {
      order.emplace(&out, order.size());
      continue;
    }
    stack.push_back({out.node.get(), 0, &out});
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next == top.node->inputs.size()) {
        order.emplace(top.edge, order.size());
        stack.pop_back();
        continue;
      }
      nnvm::NodeEntry& e = top.node->inputs[top.next++];
      if (visited.insert(e.node.get()).second) {
        stack.push_back({e.node.get(), 0, &e});
      } else {
        order.emplace(&e, order.size());
      }
    }
  }
  return order;
}

using Consumers = std::vector<std::vector<uint32_t>>;

Consumers FindConsumers(const nnvm::IndexedGraph& idx) {
  Consumers c(idx.num_nodes());
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    for (const auto& e : idx[nid].inputs) {
      auto& list = c[e.node_id];
      if (list.empty() || list.back() != nid) list.push_back(nid);
    }
  }
  return c;
}

// Drops from `in` every node downstream of an outside node that both depends on the set and
// feeds it: replacing the set by one node would otherwise make a cycle. Repeats until none.
void RemoveCycles(const nnvm::IndexedGraph& idx, const Consumers& consumers,
                  std::vector<char>* in) {
  const uint32_t n = static_cast<uint32_t>(idx.num_nodes());
  std::vector<char>& s = *in;
  while (true) {
    std::vector<char> below(n, 0), above(n, 0), taint(n, 0);
    for (uint32_t i = 0; i < n; ++i) {
      if (s[i]) continue;
      for (const auto& e : idx[i].inputs) below[i] |= s[e.node_id] | below[e.node_id];
    }
    for (uint32_t i = n; i-- > 0;) {
      if (s[i]) continue;
      for (uint32_t c : consumers[i]) above[i] |= s[c] | above[c];
    }
    bool cycle = false;
    for (uint32_t i = 0; i < n; ++i) {
      taint[i] = !s[i] && below[i] && above[i];
      cycle |= taint[i] != 0;
      for (const auto& e : idx[i].inputs) taint[i] |= taint[e.node_id];
    }
    if (!cycle) return;
    for (uint32_t i = 0; i < n; ++i) {
      if (taint[i]) s[i] = 0;
    }
  }
}

// The subgraphs (node ids in topological order) prop selects; no node is in two.
std::vector<std::vector<uint32_t>> FindSubgraphs(const nnvm::IndexedGraph& idx,
                                                 const Consumers& consumers,
                                                 const SubgraphProperty& prop,
                                                 const std::unordered_set<std::string>& names) {
  const uint32_t n = static_cast<uint32_t>(idx.num_nodes());
  std::vector<char> taken(n, 0);
  std::vector<std::vector<uint32_t>> found;
  auto node = [&](uint32_t i) { return idx.node_ptr(i).get(); };
  for (uint32_t seed = 0; seed < n; ++seed) {
    if (taken[seed] || node(seed)->is_variable()) continue;
    std::unique_ptr<SubgraphSelector> sel = prop.CreateSubgraphSelector(names);
    if (!sel->Select(*node(seed))) continue;
    std::vector<char> in(n, 0);
    in[seed] = 1;
    std::deque<uint32_t> queue{seed};
    auto admit = [&](uint32_t j) {
      in[j] = 1;
      queue.push_back(j);
    };
    auto free_op = [&](uint32_t j) { return !in[j] && !taken[j] && !node(j)->is_variable(); };
    while (!queue.empty()) {
      uint32_t cur = queue.front();
      queue.pop_front();
      for (const auto& e : idx[cur].inputs) {
        if (free_op(e.node_id) && sel->SelectInput(*node(cur), *node(e.node_id))) admit(e.node_id);
      }
      for (uint32_t c : consumers[cur]) {
        if (free_op(c) && sel->SelectOutput(*node(cur), *node(c))) admit(c);
      }
    }
    std::vector<nnvm::Node*> candidates;
    for (uint32_t i = 0; i < n; ++i) {
      if (in[i]) candidates.push_back(node(i));
    }
    std::unordered_set<const nnvm::Node*> kept;
    for (nnvm::Node* k : sel->Filter(candidates)) kept.insert(k);
    for (uint32_t i = 0; i < n; ++i) in[i] = in[i] && kept.count(node(i));
    RemoveCycles(idx, consumers, &in);
    std::vector<uint32_t> ids;
    for (uint32_t i = 0; i < n; ++i) {
      if (in[i]) {
        ids.push_back(i);
        taken[i] = 1;
      }
    }
    if (!ids.empty()) found.push_back(std::move(ids));
  }
  return found;
}

std::string EntryName(const nnvm::NodeEntry& e) {
  nnvm::Symbol s;
  s.outputs.push_back(e);
  return s.ListOutputNames()[0];
}

using EntryKey = std::pair<const nnvm::Node*, uint32_t>;

// Replaces the nodes of one subgraph with prop's node; the outside edges that read them
// (other nodes' inputs, graph outputs) are re-pointed at it. live: every node outside
// the subgraphs replaced so far (the new nodes included).
void ReplaceSubgraph(const std::unordered_set<const nnvm::Node*>& members,
                     const std::vector<nnvm::Node*>& in_order, int id,
                     const SubgraphProperty& prop, const PartitionOptions& opts,
                     std::vector<nnvm::NodeEntry>* outputs, std::vector<nnvm::ObjectPtr>* live,
                     EdgeOrder* order) {
  auto by_order = [&](const nnvm::NodeEntry* a, const nnvm::NodeEntry* b) {
    return order->at(a) < order->at(b);
  };
  // Inputs: one variable per incoming edge ("<entry name><n>"), or per entry with dedup.
  std::vector<nnvm::NodeEntry*> in_edges;
  for (nnvm::Node* m : in_order) {
    for (nnvm::NodeEntry& e : m->inputs) {
      if (!members.count(e.node.get())) in_edges.push_back(&e);
    }
  }
  std::stable_sort(in_edges.begin(), in_edges.end(), by_order);
  std::vector<nnvm::NodeEntry> originals;
  std::map<std::string, int> uses;
  std::map<EntryKey, nnvm::NodeEntry> dedup_vars;
  std::unordered_map<const nnvm::Node*, std::pair<nnvm::NodeEntry, size_t>> var_source;
  for (nnvm::NodeEntry* e : in_edges) {
    originals.push_back(*e);
    const std::string name = EntryName(*e);
    const EntryKey key{e->node.get(), e->index};
    int count = uses[name]++;
    if (opts.dedup_subgraph && dedup_vars.count(key)) {
      *e = dedup_vars[key];
      continue;
    }
    nnvm::NodeEntry var(nnvm::CreateVariableNode(name + std::to_string(opts.dedup_subgraph ? 0 : count)),
                        0, 0);
    var_source.emplace(var.node.get(), std::make_pair(originals.back(), order->at(e)));
    dedup_vars[key] = var;
    *e = var;
  }
  // Outputs: the entries read outside, each once, in edge order.
  std::vector<nnvm::NodeEntry*> out_edges;
  for (const nnvm::ObjectPtr& n : *live) {
    if (members.count(n.get())) continue;
    for (nnvm::NodeEntry& e : n->inputs) {
      if (members.count(e.node.get())) out_edges.push_back(&e);
    }
  }
  for (nnvm::NodeEntry& e : *outputs) {
    if (members.count(e.node.get())) out_edges.push_back(&e);
  }
  std::stable_sort(out_edges.begin(), out_edges.end(), by_order);
  nnvm::Symbol sub;
  std::map<EntryKey, uint32_t> out_index;
  for (nnvm::NodeEntry* e : out_edges) {
    if (out_index.emplace(EntryKey{e->node.get(), e->index}, sub.outputs.size()).second) {
      sub.outputs.push_back(*e);
    }
  }
  nnvm::ObjectPtr node = prop.CreateSubgraphNode(sub, id);
  if (!node) {
    for (size_t i = 0; i < in_edges.size(); ++i) *in_edges[i] = originals[i];
    return;
  }
  if (node->inputs.empty()) {
    for (const nnvm::ObjectPtr& v : sub.ListInputs(nnvm::Symbol::kAll)) node->inputs.emplace_back(v, 0, 0);
  }
  for (nnvm::NodeEntry& in : node->inputs) {  // the subgraph's variables -> what they stand for
    auto it = var_source.find(in.node.get());
    CHECK(it != var_source.end()) << "subgraph property: node " << node->attrs.name
                                  << " takes an input that is not a variable of its subgraph";
    in = it->second.first;
    (*order)[&in] = it->second.second;
  }
  for (nnvm::NodeEntry* e : out_edges) {
    uint32_t index = out_index.at(EntryKey{e->node.get(), e->index});
    *e = nnvm::NodeEntry(node, index, 0);
  }
  live->erase(std::remove_if(live->begin(), live->end(),
                             [&](const nnvm::ObjectPtr& n) { return members.count(n.get()) != 0; }),
              live->end());
  live->push_back(node);
}

}  // namespace

nnvm::Symbol PartitionGraph(const nnvm::Symbol& sym, const SubgraphProperty& prop,
                            const PartitionOptions& opts) {
  nnvm::Symbol g = sym.Copy();
  nnvm::IndexedGraph idx(g.outputs);
  for (uint32_t i = 0; i < idx.num_nodes(); ++i) {
    CHECK(idx[i].control_deps.empty())
        << "partitioning: node " << idx[i].source->attrs.name
        << " has control dependencies, which subgraph backends do not support";
  }
  const std::unordered_set<std::string>& names =
      opts.op_names != nullptr ? *opts.op_names : prop.op_names();
  std::vector<std::vector<uint32_t>> subgraphs =
      FindSubgraphs(idx, FindConsumers(idx), prop, names);
  if (subgraphs.empty()) return g;
  EdgeOrder order = OrderEdges(&g.outputs);
  std::vector<nnvm::ObjectPtr> live;
  for (uint32_t i = 0; i < idx.num_nodes(); ++i) live.push_back(idx.node_ptr(i));
  for (size_t k = 0; k < subgraphs.size(); ++k) {
    std::unordered_set<const nnvm::Node*> members;
    std::vector<nnvm::Node*> in_order;
    for (uint32_t i : subgraphs[k]) {
      members.insert(idx.node_ptr(i).get());
      in_order.push_back(idx.node_ptr(i).get());
    }
    ReplaceSubgraph(members, in_order, static_cast<int>(k), prop, opts, &g.outputs, &live, &order);
  }
  return g;
}

}  // namespace op
}  // namespace mxnet
