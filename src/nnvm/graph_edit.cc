// CutSubgraph: the graph traced inside a subgraph's AttrScope, cut off at its inputs.
#include "nnvm/graph_edit.h"

#include "nnvm/gradient.h"
#include "nnvm/graph_json.h"
#include "nnvm/symbol.h"

namespace nnvm {

std::vector<NodeEntry> CutSubgraph(const Symbol& sym) {
  static const char* kKey = "__subgraph_name__";
  std::vector<NodeEntry> cut;
  if (sym.outputs.empty()) return cut;
  const auto& head_dict = sym.outputs[0].node->attrs.dict;
  auto it = head_dict.find(kKey);
  if (it == head_dict.end()) return cut;
  const std::string name = it->second;
  auto inside = [&](const Node& n) {
    auto f = n.attrs.dict.find(kKey);
    return f != n.attrs.dict.end() && f->second == name;
  };
  std::vector<NodeEntry*> edges;
  for (const ObjectPtr& n : TopoSort(sym.outputs)) {
    if (!inside(*n)) continue;
    for (NodeEntry& e : n->inputs) {
      if (!inside(*e.node)) edges.push_back(&e);
    }
  }
  std::vector<ObjectPtr> vars;  // per cut entry: the variable that replaces it
  for (NodeEntry* e : edges) {
    ObjectPtr var;
    for (size_t i = 0; i < cut.size(); ++i) {
      if (cut[i].node == e->node && cut[i].index == e->index) var = vars[i];
    }
    if (!var) var = CreateVariableNode(ListOutputNames({*e})[0]);
    cut.push_back(*e);
    vars.push_back(var);
    *e = NodeEntry(var, 0, 0);
  }
  return cut;
}

}  // namespace nnvm
