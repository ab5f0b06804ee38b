// Symbol::Compose: giving a symbol its inputs (MXNet's Symbol._compose and op(...) calls).
#include <dmlc/logging.h>

#include <algorithm>
#include <sstream>
#include <unordered_set>

#include "mxnet/op_attr_types.h"
#include "nnvm/gradient.h"
#include "nnvm/op.h"
#include "nnvm/symbol.h"

namespace nnvm {
namespace {

// Names of the node's inputs: the op's FListInputNames; else its array arguments when they
// match the input count; else "data" for one input (as NNVM), arg0, arg1... otherwise.
std::vector<std::string> InputNames(const Node& n) {
  static const auto& flist = Op::GetAttr<mxnet::FListInputNames>("FListInputNames");
  if (flist.contains(n.op())) return flist[n.op()](n.attrs);
  uint32_t n_in = n.num_inputs();
  std::vector<std::string> names;
  for (const ArgumentInfo& a : n.op()->arguments) {
    if (a.type.rfind("NDArray", 0) == 0 || a.type.rfind("Symbol", 0) == 0) names.push_back(a.name);
  }
  if (names.size() == n_in) return names;
  if (n_in == 1) return {"data"};
  names.clear();
  for (uint32_t i = 0; i < n_in; ++i) names.push_back("arg" + std::to_string(i));
  return names;
}

VariableParam& VarParam(Node* var) {
  auto* p = std::any_cast<VariableParam>(&var->attrs.parsed);
  if (p == nullptr) {
    var->attrs.parsed = VariableParam();
    p = std::any_cast<VariableParam>(&var->attrs.parsed);
  }
  return *p;
}

// Entries from variables record the variable's version; inputs the op mutates bump it.
void UpdateNodeVersion(Node* n) {
  static const auto& fmutate = Op::GetAttr<mxnet::FMutateInputs>("FMutateInputs");
  for (NodeEntry& e : n->inputs) {
    if (e.node->is_variable()) e.version = VarParam(e.node.get()).version;
  }
  if (n->is_variable() || !fmutate.contains(n->op())) return;
  for (uint32_t i : fmutate[n->op()](n->attrs)) {
    if (i >= n->inputs.size()) continue;
    NodeEntry& e = n->inputs[i];
    CHECK(e.node->is_variable()) << "Operator " << n->op()->name << " (" << n->attrs.name
                                 << ") writes its input " << i << ", which must be a Variable, "
                                 << "given the output of " << e.node->attrs.name;
    e.version = ++VarParam(e.node.get()).version;
  }
}

[[noreturn]] void KeywordMismatch(const std::string& where, const std::vector<std::string>& given,
                                  const std::vector<std::string>& expected) {
  std::ostringstream os;
  os << where << ": keyword argument mismatch: given [";
  for (size_t i = 0; i < given.size(); ++i) os << (i ? ", " : "") << given[i];
  os << "], the inputs are [";
  for (size_t i = 0; i < expected.size(); ++i) os << (i ? ", " : "") << expected[i];
  os << "]";
  throw dmlc::Error(os.str());
}

std::vector<std::string> SortedKeys(const std::unordered_map<std::string, const Symbol*>& kw) {
  std::vector<std::string> keys;
  for (const auto& kv : kw) keys.push_back(kv.first);
  std::sort(keys.begin(), keys.end());
  return keys;
}

bool IsAtomic(const std::vector<NodeEntry>& outputs) {
  const Node* node = outputs[0].node.get();
  for (const NodeEntry& e : outputs) {
    if (e.node.get() != node) return false;
  }
  return node->inputs.empty() && node->control_deps.empty();
}

std::string DefaultVarName(const std::string& node_name, const std::string& input_name) {
  return node_name.empty() ? input_name : node_name + "_" + input_name;
}

void ComposeAtomic(Node* n, const std::vector<const Symbol*>& args,
                   const std::unordered_map<std::string, const Symbol*>& kwargs,
                   const std::string& name) {
  static const auto& fset = Op::GetAttr<mxnet::FSetInputVarAttrOnCompose>(
      "FSetInputVarAttrOnCompose");
  CHECK(!n->is_variable() || (args.empty() && kwargs.empty()))
      << "Symbol.Compose: variable " << n->attrs.name << " takes no inputs";
  if (n->is_variable()) return;
  const uint32_t n_req = n->num_inputs();
  CHECK_LE(args.size(), n_req) << "Operator " << n->op()->name << " (" << n->attrs.name
                               << "): too many inputs, it takes " << n_req << ", given "
                               << args.size();
  n->inputs.resize(n_req);
  for (size_t i = 0; i < args.size(); ++i) n->inputs[i] = args[i]->outputs[0];
  if (args.size() != n_req) {
    std::vector<std::string> names = InputNames(*n);
    CHECK_EQ(names.size(), n_req) << "Operator " << n->op()->name << " (" << n->attrs.name
                                  << "): not enough inputs, it takes " << n_req << ", given "
                                  << args.size() << " and its inputs have no names";
    size_t matched = 0;
    for (size_t i = args.size(); i < n_req; ++i) {
      auto it = kwargs.find(names[i]);
      if (it != kwargs.end()) {
        n->inputs[i] = it->second->outputs[0];
        ++matched;
      } else {
        Symbol var = Symbol::CreateVariable(DefaultVarName(name, names[i]));
        // a created variable carries the op's attrs (lr_mult, ctx_group and kwargs), as in 1.9
        var.outputs[0].node->attrs.dict = n->attrs.dict;
        n->inputs[i] = var.outputs[0];
      }
    }
    if (matched != kwargs.size()) {
      n->inputs.clear();
      std::vector<std::string> rest(names.begin() + args.size(), names.end());
      KeywordMismatch("Symbol.Compose of operator " + n->op()->name, SortedKeys(kwargs), rest);
    }
  } else if (!kwargs.empty()) {
    n->inputs.clear();
    KeywordMismatch("Symbol.Compose of operator " + n->op()->name + " (all inputs given "
                    "positionally)", SortedKeys(kwargs), {});
  }
  UpdateNodeVersion(n);
  if (fset.contains(n->op())) {
    for (size_t i = 0; i < n->inputs.size(); ++i) {
      if (n->inputs[i].node->is_variable()) fset[n->op()](n->attrs, n->inputs[i].node, static_cast<int>(i));
    }
  }
}

// Replace the variables of a built graph: positional args in topological order, then by name.
void ComposeGraph(Symbol* s, const std::vector<const Symbol*>& args,
                  const std::unordered_map<std::string, const Symbol*>& kwargs) {
  std::vector<ObjectPtr> order = TopoSort(s->outputs);
  std::unordered_map<const Node*, const NodeEntry*> replace;
  size_t arg_counter = 0, matched = 0;
  for (const ObjectPtr& n : order) {
    if (!n->is_variable()) continue;
    if (arg_counter < args.size()) {
      replace[n.get()] = &args[arg_counter++]->outputs[0];
    } else {
      auto it = kwargs.find(n->attrs.name);
      if (it != kwargs.end()) {
        replace[n.get()] = &it->second->outputs[0];
        ++matched;
      }
    }
  }
  if (matched != kwargs.size() || arg_counter < args.size()) {
    KeywordMismatch("Symbol.Compose", SortedKeys(kwargs), s->ListInputNames(Symbol::kAll));
  }
  for (const ObjectPtr& n : order) {
    bool changed = false;
    for (NodeEntry& e : n->inputs) {
      auto it = replace.find(e.node.get());
      if (it != replace.end()) {
        e = *it->second;
        changed = true;
      }
    }
    if (changed) UpdateNodeVersion(n.get());
  }
}

// An op taking graphs (FInputGraph: control flow) keeps the positional args at those indices
// as its subgraphs; the rest are its inputs.
std::vector<const Symbol*> TakeInputGraphs(Symbol* s, const std::vector<const Symbol*>& args) {
  static const auto& fgraph = Op::GetAttr<mxnet::FInputGraph>("FInputGraph");
  Node* n = s->outputs[0].node.get();
  if (!IsAtomic(s->outputs) || n->is_variable() || !fgraph.contains(n->op())) return args;
  std::vector<uint32_t> graph_idx = fgraph[n->op()](n->attrs);
  std::vector<const Symbol*> rest;
  n->attrs.subgraphs.clear();
  for (size_t i = 0; i < args.size(); ++i) {
    if (std::find(graph_idx.begin(), graph_idx.end(), i) == graph_idx.end()) {
      rest.push_back(args[i]);
    } else {
      n->attrs.subgraphs.push_back(std::make_shared<Symbol>(*args[i]));
    }
  }
  CHECK_EQ(n->attrs.subgraphs.size(), graph_idx.size())
      << "Operator " << n->op()->name << " (" << n->attrs.name << "): " << graph_idx.size()
      << " graph(s) expected as its first positional argument(s), given "
      << n->attrs.subgraphs.size();
  return rest;
}

}  // namespace

void Symbol::Compose(const std::vector<const Symbol*>& given,
                     const std::unordered_map<std::string, const Symbol*>& kwargs,
                     const std::string& name) {
  CHECK(!outputs.empty()) << "Symbol.Compose: the symbol is empty";
  const std::vector<const Symbol*> args = TakeInputGraphs(this, given);
  for (size_t i = 0; i < args.size(); ++i) {
    CHECK_EQ(args[i]->outputs.size(), 1U) << "Symbol.Compose: argument " << i << " is a group of "
                                          << args[i]->outputs.size()
                                          << " outputs, a single output is required";
  }
  for (const auto& kv : kwargs) {
    CHECK_EQ(kv.second->outputs.size(), 1U) << "Symbol.Compose: keyword argument " << kv.first
                                            << " is a group of " << kv.second->outputs.size()
                                            << " outputs, a single output is required";
  }
  if (!name.empty()) outputs[0].node->attrs.name = name;
  if (IsAtomic(outputs)) {
    ComposeAtomic(outputs[0].node.get(), args, kwargs, name);
  } else {
    CHECK(args.empty()) << "Symbol.Compose: a composed graph takes its inputs by name only, "
                        << "given " << args.size() << " positional input(s)";
    ComposeGraph(this, args, kwargs);
  }
}

}  // namespace nnvm
