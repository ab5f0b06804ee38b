// Symbol: creation, copies, outputs, internals, names, attributes and debug text.
#include "nnvm/symbol.h"

#include <dmlc/logging.h>

#include <map>
#include <ostream>
#include <unordered_set>

#include "mxnet/op_attr_types.h"
#include "nnvm/gradient.h"
#include "nnvm/graph_json.h"
#include "nnvm/op.h"

namespace nnvm {
namespace {

// The one node giving every output, or nullptr for a group of several nodes.
Node* SingleHead(const std::vector<NodeEntry>& outputs) {
  if (outputs.empty()) return nullptr;
  Node* node = outputs[0].node.get();
  for (const NodeEntry& e : outputs) {
    if (e.node.get() != node) return nullptr;
  }
  return node;
}

uint32_t NumVisibleOutputs(const Node& n) {
  static const auto& visible = Op::GetAttr<mxnet::FNumVisibleOutputs>("FNumVisibleOutputs");
  if (!n.is_variable() && visible.contains(n.op())) return visible[n.op()](n.attrs);
  return n.num_outputs();
}

}  // namespace

const std::vector<std::string>& HiddenAttrKeys() {
  static const std::vector<std::string> keys = {"ctx_group", "lr_mult", "wd_mult",
                                                "force_mirroring", "mirror_stage"};
  return keys;
}

std::string HiddenAttrKey(const std::string& key, const std::string& value) {
  for (const std::string& k : HiddenAttrKeys()) {
    size_t pos = key.rfind(k);
    if (pos == 0 && key.size() == k.size()) return "__" + key + "__";
    if (pos != std::string::npos && pos > 0 && pos + k.size() == key.size()) {
      LOG(FATAL) << "setting variable attributes with " << key << " is deprecated. "
                 << "please instead use\nw = Variable(" << k << "=" << value << ")\n"
                 << "sym = YourSymbolName(" << key.substr(0, pos - 1) << "=w)";
    }
  }
  return key;
}

std::string UnhiddenAttrKey(const std::string& key) {
  for (const std::string& k : HiddenAttrKeys()) {
    if (key.size() == k.size() + 4 && key.compare(0, 2, "__") == 0 &&
        key.compare(2, k.size(), k) == 0 && key.compare(key.size() - 2, 2, "__") == 0) {
      return k;
    }
  }
  return "";
}

Symbol Symbol::CreateFunctor(const Op* op, std::unordered_map<std::string, std::string> kwargs) {
  CHECK(op != nullptr) << "Symbol: operator handle is null";
  ObjectPtr n = Node::Create();
  n->attrs.op = op;
  n->attrs.dict = std::move(kwargs);
  if (op->attr_parser) op->attr_parser(&n->attrs);
  Symbol s;
  uint32_t nout = NumVisibleOutputs(*n);
  for (uint32_t i = 0; i < nout; ++i) s.outputs.emplace_back(n, i, 0);
  return s;
}

Symbol Symbol::CreateVariable(const std::string& name) {
  ObjectPtr n = CreateVariableNode(name);
  n->attrs.parsed = VariableParam();
  Symbol s;
  s.outputs.emplace_back(std::move(n), 0, 0);
  return s;
}

Symbol Symbol::CreateGroup(const std::vector<Symbol>& symbols) {
  Symbol s;
  for (const Symbol& part : symbols) {
    s.outputs.insert(s.outputs.end(), part.outputs.begin(), part.outputs.end());
  }
  return s;
}

Symbol Symbol::Copy() const {
  std::unordered_map<const Node*, ObjectPtr> copies;
  for (const ObjectPtr& n : TopoSort(outputs)) {
    ObjectPtr c = Node::Create();
    c->attrs = n->attrs;
    for (const NodeEntry& e : n->inputs) {
      c->inputs.emplace_back(copies.at(e.node.get()), e.index, e.version);
    }
    for (const ObjectPtr& d : n->control_deps) c->control_deps.push_back(copies.at(d.get()));
    copies.emplace(n.get(), std::move(c));
  }
  Symbol s;
  for (const NodeEntry& h : outputs) s.outputs.emplace_back(copies.at(h.node.get()), h.index, h.version);
  return s;
}

Symbol Symbol::operator[](size_t index) const {
  CHECK_LT(index, outputs.size()) << "Symbol: output index " << index << " out of range; the "
                                  << "symbol has " << outputs.size() << " output(s)";
  if (outputs.size() == 1) return *this;
  Symbol s;
  s.outputs.push_back(outputs[index]);
  return s;
}

Symbol Symbol::GetInternals() const {
  Symbol s;
  for (const ObjectPtr& n : TopoSort(outputs)) {
    if (n->is_variable()) {
      const auto* param = std::any_cast<VariableParam>(&n->attrs.parsed);
      s.outputs.emplace_back(n, 0, param ? param->version : 0);
    } else {
      uint32_t nout = NumVisibleOutputs(*n);
      for (uint32_t i = 0; i < nout; ++i) s.outputs.emplace_back(n, i, 0);
    }
  }
  return s;
}

Symbol Symbol::GetChildren() const {
  Symbol s;
  std::unordered_set<const Node*> seen;
  for (const NodeEntry& h : outputs) {
    if (!seen.insert(h.node.get()).second) continue;
    s.outputs.insert(s.outputs.end(), h.node->inputs.begin(), h.node->inputs.end());
  }
  return s;
}

std::vector<ObjectPtr> Symbol::ListInputs(ListInputOption option) const {
  static const auto& fmutate = Op::GetAttr<mxnet::FMutateInputs>("FMutateInputs");
  std::vector<ObjectPtr> order = TopoSort(outputs);
  std::unordered_set<const Node*> mutated;
  if (option != kAll) {
    for (const ObjectPtr& n : order) {
      if (n->is_variable() || !fmutate.contains(n->op())) continue;
      for (uint32_t i : fmutate[n->op()](n->attrs)) {
        if (i < n->inputs.size()) mutated.insert(n->inputs[i].node.get());
      }
    }
  }
  std::vector<ObjectPtr> ret;
  for (const ObjectPtr& n : order) {
    if (!n->is_variable()) continue;
    bool is_aux = mutated.count(n.get()) != 0;
    if (option == kAll || (option == kAuxiliaryStates) == is_aux) ret.push_back(n);
  }
  return ret;
}

std::vector<std::string> Symbol::ListInputNames(ListInputOption option) const {
  std::vector<std::string> names;
  for (const ObjectPtr& n : ListInputs(option)) names.push_back(n->attrs.name);
  return names;
}

std::vector<std::string> Symbol::ListOutputNames() const { return nnvm::ListOutputNames(outputs); }

bool Symbol::GetAttr(const std::string& key, std::string* out) const {
  Node* node = SingleHead(outputs);
  if (node == nullptr) return false;
  if (key == "name") {
    *out = node->attrs.name;
    return true;
  }
  if (key == "op_name") {
    *out = node->is_variable() ? "null" : node->op()->name;
    return true;
  }
  if (key == "_value_index") {
    out->clear();
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (i > 0) *out += ", ";
      *out += std::to_string(outputs[i].index);
    }
    return true;
  }
  auto it = node->attrs.dict.find(key);
  if (it == node->attrs.dict.end()) return false;
  *out = it->second;
  return true;
}

void Symbol::SetAttrs(const std::vector<std::pair<std::string, std::string>>& attrs) {
  Node* node = SingleHead(outputs);
  CHECK(node != nullptr) << "Symbol._set_attr works on a symbol with one node, not on a group of "
                         << outputs.size() << " outputs";
  for (const auto& kv : attrs) {
    if (kv.first == "name") {
      node->attrs.name = kv.second;
    } else {
      node->attrs.dict[kv.first] = kv.second;
    }
  }
  if (!node->is_variable() && node->op()->attr_parser) node->op()->attr_parser(&node->attrs);
}

std::unordered_map<std::string, std::string> Symbol::ListAttrsShallow() const {
  if (outputs.empty()) return {};
  return outputs[0].node->attrs.dict;
}

std::vector<std::tuple<std::string, std::string, std::string>> Symbol::ListAttrsRecursive() const {
  std::vector<std::tuple<std::string, std::string, std::string>> ret;
  for (const ObjectPtr& n : TopoSort(outputs)) {
    std::map<std::string, std::string> sorted(n->attrs.dict.begin(), n->attrs.dict.end());
    for (const auto& kv : sorted) ret.emplace_back(n->attrs.name, kv.first, kv.second);
  }
  return ret;
}

void Symbol::Print(std::ostream& os) const {
  Node* head = SingleHead(outputs);
  if (outputs.size() == 1 && head->inputs.empty() && head->control_deps.empty()) {
    if (head->is_variable()) {
      os << "Variable:" << head->attrs.name << '\n';
    } else {
      os << "AtomicFunctor  Op:" << head->op()->name << '\n';
    }
    return;
  }
  os << "Symbol Outputs:\n";
  for (size_t i = 0; i < outputs.size(); ++i) {
    os << "\toutput[" << i << "]=" << outputs[i].node->attrs.name << '(' << outputs[i].index
       << ")\n";
  }
  for (const ObjectPtr& n : TopoSort(outputs)) {
    if (n->is_variable()) {
      os << "Variable:" << n->attrs.name << '\n';
      continue;
    }
    os << "--------------------\n";
    os << "Op:" << n->op()->name << ", Name=" << n->attrs.name << '\n' << "Inputs:\n";
    for (size_t i = 0; i < n->inputs.size(); ++i) {
      const NodeEntry& e = n->inputs[i];
      os << "\targ[" << i << "]=" << e.node->attrs.name << '(' << e.index << ")";
      if (e.node->is_variable()) os << " version=" << e.version;
      os << '\n';
    }
    if (!n->attrs.dict.empty()) {
      os << "Attrs:\n";
      std::map<std::string, std::string> sorted(n->attrs.dict.begin(), n->attrs.dict.end());
      for (const auto& kv : sorted) os << '\t' << kv.first << '=' << kv.second << '\n';
    }
    if (!n->control_deps.empty()) {
      os << "Control deps:\n";
      for (size_t i = 0; i < n->control_deps.size(); ++i) {
        os << "\tcdep[" << i << "]=" << n->control_deps[i]->attrs.name << '\n';
      }
    }
  }
}

}  // namespace nnvm
