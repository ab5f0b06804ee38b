// The Gradient pass over an NNVM graph (reverse topological accumulation of FGradient).
#include "nnvm/gradient.h"

#include <dmlc/logging.h>

#include <unordered_map>
#include <unordered_set>

#include "mxnet/op_attr_types.h"
#include "nnvm/op.h"

namespace nnvm {
namespace {

struct EntryKey {
  const Node* node;
  uint32_t index;
  bool operator==(const EntryKey& o) const { return node == o.node && index == o.index; }
};
struct EntryHash {
  size_t operator()(const EntryKey& k) const {
    return std::hash<const void*>()(k.node) ^ (static_cast<size_t>(k.index) * 0x9e3779b97f4a7c15ULL);
  }
};

NodeEntry Sum(const std::vector<NodeEntry>& parts, const std::string& name) {
  if (parts.size() == 1) return parts[0];
  return NodeEntry(CreateNode("add_n", name + "_sum_grad", parts,
                              {{"num_args", std::to_string(parts.size())}}),
                   0, 0);
}

// Gradient nodes run where their forward node runs (MXNet 1.9.1): the nodes FGradient just
// made for fwd (those reachable from in_grads that no earlier step made) take fwd's
// __ctx_group__, which group2ctx placement reads.
void TagGradNodes(const Node& fwd, const std::vector<NodeEntry>& in_grads,
                  const std::unordered_set<const Node*>& forward,
                  std::unordered_set<const Node*>* seen) {
  auto group = fwd.attrs.dict.find("__ctx_group__");
  std::vector<Node*> stack;
  for (const NodeEntry& e : in_grads) stack.push_back(e.node.get());
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    if (n == nullptr || n->is_variable() || forward.count(n) || !seen->insert(n).second) continue;
    if (group != fwd.attrs.dict.end()) n->attrs.dict.emplace(group->first, group->second);
    for (const NodeEntry& in : n->inputs) stack.push_back(in.node.get());
  }
}

}  // namespace

std::vector<ObjectPtr> TopoSort(const std::vector<NodeEntry>& heads) {
  std::vector<ObjectPtr> order;
  std::unordered_set<const Node*> visited;
  // Iterative post-order DFS so deep graphs do not overflow the stack.
  std::vector<std::pair<ObjectPtr, size_t>> stack;
  for (const NodeEntry& h : heads) {
    if (!h.node || visited.count(h.node.get())) continue;
    visited.insert(h.node.get());
    stack.emplace_back(h.node, 0);
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      size_t n_in = node->inputs.size();
      if (next < n_in + node->control_deps.size()) {
        const ObjectPtr& child =
            next < n_in ? node->inputs[next].node : node->control_deps[next - n_in];
        ++next;
        if (child && !visited.count(child.get())) {
          visited.insert(child.get());
          stack.emplace_back(child, 0);
        }
      } else {
        order.push_back(node);
        stack.pop_back();
      }
    }
  }
  return order;
}

std::vector<NodeEntry> Gradient(const std::vector<NodeEntry>& ys, const std::vector<NodeEntry>& xs,
                                const std::vector<NodeEntry>& ys_out_grad) {
  CHECK_EQ(ys.size(), ys_out_grad.size()) << "Gradient: one head gradient per output is needed";
  static const auto& fgrad = Op::GetAttr<mxnet::FGradient>("FGradient");
  static const auto& nondiff = Op::GetAttr<mxnet::TIsNonDifferentiable>("TIsNonDifferentiable");

  std::vector<ObjectPtr> order = TopoSort(ys);
  // Nodes that depend on some x: only they carry gradient.
  std::unordered_set<const Node*> needed;
  for (const NodeEntry& x : xs) needed.insert(x.node.get());
  for (const ObjectPtr& n : order) {
    for (const NodeEntry& in : n->inputs) {
      if (needed.count(in.node.get())) {
        needed.insert(n.get());
        break;
      }
    }
  }

  std::unordered_set<const Node*> forward, grad_nodes;
  for (const ObjectPtr& n : order) forward.insert(n.get());
  std::unordered_set<const Node*> x_nodes;
  for (const NodeEntry& x : xs) x_nodes.insert(x.node.get());
  std::unordered_map<EntryKey, std::vector<NodeEntry>, EntryHash> grads;
  for (size_t i = 0; i < ys.size(); ++i) {
    grads[{ys[i].node.get(), ys[i].index}].push_back(ys_out_grad[i]);
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const ObjectPtr& n = *it;
    if (n->is_variable() || !needed.count(n.get())) continue;
    uint32_t n_out = n->num_outputs();
    std::vector<NodeEntry> out_grads(n_out);
    bool any = false;
    for (uint32_t i = 0; i < n_out; ++i) {
      auto g = grads.find({n.get(), i});
      if (g != grads.end() && !g->second.empty()) {
        out_grads[i] = Sum(g->second, n->attrs.name);
        any = true;
      }
    }
    if (!any) continue;
    if (nondiff.get(n->op(), false)) continue;
    if (!fgrad.contains(n->op())) {
      LOG(FATAL) << "Operator " << n->op()->name << " is not differentiable: it has no gradient "
                 << "(FGradient) and is on the path from a variable to the output";
    }
    for (uint32_t i = 0; i < n_out; ++i) {
      if (!out_grads[i]) {
        out_grads[i] = NodeEntry(CreateNode("zeros_like", n->attrs.name + "_zero_ograd",
                                            {NodeEntry(n, i, 0)}),
                                 0, 0);
      }
    }
    std::vector<NodeEntry> in_grads = fgrad[n->op()](n, out_grads);
    CHECK_EQ(in_grads.size(), n->inputs.size())
        << "Operator " << n->op()->name << ": FGradient returned " << in_grads.size()
        << " gradients for " << n->inputs.size() << " inputs";
    TagGradNodes(*n, in_grads, forward, &grad_nodes);
    for (size_t i = 0; i < in_grads.size(); ++i) {
      if (!in_grads[i]) continue;
      const NodeEntry& in = n->inputs[i];
      if (!needed.count(in.node.get())) continue;
      grads[{in.node.get(), in.index}].push_back(in_grads[i]);
    }
    if (!x_nodes.count(n.get())) {  // release what this node consumed
      for (uint32_t i = 0; i < n_out; ++i) grads.erase({n.get(), i});
    }
  }

  std::vector<NodeEntry> ret;
  ret.reserve(xs.size());
  for (const NodeEntry& x : xs) {
    auto g = grads.find({x.node.get(), x.index});
    if (g != grads.end() && !g->second.empty()) {
      ret.push_back(Sum(g->second, x.node->attrs.name));
    } else {
      ret.push_back(NodeEntry(CreateNode("zeros_like", x.node->attrs.name + "_zero_grad", {x}), 0, 0));
    }
  }
  return ret;
}

}  // namespace nnvm
