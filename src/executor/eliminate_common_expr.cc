// Common-subexpression elimination: merge op nodes with the same op, attributes and inputs.
#include "executor/eliminate_common_expr.h"

#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mxnet/op_attr_types.h"
#include "nnvm/gradient.h"
#include "nnvm/graph_json.h"
#include "nnvm/mirror.h"
#include "nnvm/node.h"
#include "nnvm/op.h"

namespace mxnet {

using nnvm::NodeEntry;
using nnvm::ObjectPtr;

namespace {

using InputKey = std::vector<std::pair<const nnvm::Node*, uint32_t>>;

InputKey KeyOf(const nnvm::Node& n) {
  InputKey key;
  for (const NodeEntry& e : n.inputs) key.emplace_back(e.node.get(), e.index);
  return key;
}

// One sweep: every node whose inputs, op and attributes equal an earlier node's is replaced
// by that node in its readers and in the outputs. Returns whether anything was replaced.
bool MergeOnce(nnvm::Symbol* s) {
  std::vector<ObjectPtr> order = nnvm::TopoSort(s->outputs);
  std::map<InputKey, std::vector<ObjectPtr>> by_inputs;  // first nodes seen per input list
  std::unordered_map<const nnvm::Node*, ObjectPtr> replace;
  for (const ObjectPtr& n : order) {
    if (n->is_variable() || n->inputs.empty() || !nnvm::IsDeterministicOp(n->op(), n->attrs)) continue;
    std::vector<ObjectPtr>& seen = by_inputs[KeyOf(*n)];
    ObjectPtr same;
    for (const ObjectPtr& m : seen) {
      if (m->op() == n->op() && m->attrs.dict == n->attrs.dict) {
        same = m;
        break;
      }
    }
    if (same) {
      replace.emplace(n.get(), same);
    } else {
      seen.push_back(n);
    }
  }
  if (replace.empty()) return false;
  auto redirect = [&](ObjectPtr* p) {
    auto it = replace.find(p->get());
    if (it != replace.end()) *p = it->second;
  };
  for (const ObjectPtr& n : order) {
    if (replace.count(n.get())) continue;
    for (NodeEntry& e : n->inputs) redirect(&e.node);
    for (ObjectPtr& d : n->control_deps) redirect(&d);
  }
  for (const auto& kv : replace) {  // the merged node waits for what the removed one did
    const ObjectPtr& src = kv.second;
    for (const ObjectPtr& d : kv.first->control_deps) src->control_deps.push_back(d);
  }
  for (NodeEntry& o : s->outputs) redirect(&o.node);
  return true;
}

}  // namespace

nnvm::Symbol EliminateCommonExpr(const nnvm::Symbol& sym) {
  nnvm::Symbol s = sym.Copy();
  while (MergeOnce(&s)) {
  }
  // Outputs that became one entry: each repeat reads it through its own copy node.
  std::map<std::pair<const nnvm::Node*, uint32_t>, size_t> repeats;
  for (NodeEntry& o : s.outputs) {
    auto it = repeats.emplace(std::make_pair(o.node.get(), o.index), 0).first;
    if (it->second++ == 0) continue;
    std::string name = o.node->attrs.name + "_" + std::to_string(it->second - 2) + "_copy";
    o = NodeEntry(nnvm::CreateNode("_copy", std::move(name), {o}), 0, 0);
  }
  // Merging keeps the first node of each group, so the variables keep their order; should a
  // control dependency ever change it, the bound arrays would no longer match: keep sym then.
  for (bool aux : {false, true}) {
    if (nnvm::ListVariableNames(s.outputs, aux) != nnvm::ListVariableNames(sym.outputs, aux)) {
      return sym;
    }
  }
  return s;
}

}  // namespace mxnet
