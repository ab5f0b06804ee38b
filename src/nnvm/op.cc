// Storage of the operator registry and its attribute maps.
#include "nnvm/op.h"

#include <algorithm>
#include <map>

namespace nnvm {
namespace {

struct Registry {
  std::recursive_mutex mu;
  std::vector<std::unique_ptr<Op>> ops;
  std::unordered_map<std::string, Op*> by_name;  // names and aliases
  std::unordered_map<std::string, std::unique_ptr<std::any>> attrs;
};

Registry& GetRegistry() {
  static Registry* reg = new Registry();  // lives for the whole process
  return *reg;
}

}  // namespace

std::recursive_mutex& Op::AttrMutex() { return GetRegistry().mu; }

std::any* Op::AttrSlot(const std::string& attr_name, const std::function<void(std::any*)>& init) {
  Registry& reg = GetRegistry();
  auto it = reg.attrs.find(attr_name);
  if (it != reg.attrs.end()) return it->second.get();
  auto slot = std::make_unique<std::any>();
  init(slot.get());
  std::any* p = slot.get();
  reg.attrs.emplace(attr_name, std::move(slot));
  return p;
}

Op& Op::Register(const std::string& name) {
  Registry& reg = GetRegistry();
  std::lock_guard<std::recursive_mutex> lock(reg.mu);
  // One name, one declaration: a second Register of a name would silently merge two
  // definitions. Another name for the same op goes through add_alias.
  auto it = reg.by_name.find(name);
  if (it != reg.by_name.end()) {
    LOG(FATAL) << "operator " << name << " is registered twice"
               << (it->second->name == name ? "" : " (it is an alias of " + it->second->name + ")")
               << ": each operator has one declaration; use add_alias for another name";
  }
  reg.ops.push_back(std::make_unique<Op>());
  Op* op = reg.ops.back().get();
  op->name = name;
  op->index_ = static_cast<uint32_t>(reg.ops.size() - 1);
  reg.by_name.emplace(name, op);
  return *op;
}

Op& Op::add_alias(const std::string& alias) {
  Registry& reg = GetRegistry();
  std::lock_guard<std::recursive_mutex> lock(reg.mu);
  auto it = reg.by_name.find(alias);
  if (it != reg.by_name.end() && it->second != this) {
    LOG(FATAL) << "operator " << name << ": alias " << alias << " is already the name of operator "
               << it->second->name;
  }
  reg.by_name[alias] = this;
  return *this;
}

const Op* Op::Get(const std::string& name) {
  Registry& reg = GetRegistry();
  std::lock_guard<std::recursive_mutex> lock(reg.mu);
  auto it = reg.by_name.find(name);
  return it == reg.by_name.end() ? nullptr : it->second;
}

const Op* Op::GetOrThrow(const std::string& name) {
  const Op* op = Get(name);
  if (op == nullptr) LOG(FATAL) << "operator " << name << " is not registered";
  return op;
}

std::vector<std::string> Op::ListAllNames() {
  Registry& reg = GetRegistry();
  std::lock_guard<std::recursive_mutex> lock(reg.mu);
  std::vector<std::string> names;
  names.reserve(reg.by_name.size());
  for (const auto& kv : reg.by_name) names.push_back(kv.first);
  std::sort(names.begin(), names.end());
  return names;
}

uint32_t Node::num_outputs() const {
  if (is_variable()) return 1;
  return attrs.op->get_num_outputs ? attrs.op->get_num_outputs(attrs) : attrs.op->num_outputs;
}

uint32_t Node::num_inputs() const {
  if (is_variable()) return 0;
  return attrs.op->get_num_inputs ? attrs.op->get_num_inputs(attrs) : attrs.op->num_inputs;
}

ObjectPtr CreateNode(const std::string& op_name, std::string node_name,
                     std::vector<NodeEntry> inputs,
                     std::unordered_map<std::string, std::string> dict) {
  ObjectPtr n = Node::Create();
  n->attrs.op = Op::GetOrThrow(op_name);
  n->attrs.name = std::move(node_name);
  n->attrs.dict = std::move(dict);
  if (n->attrs.op->attr_parser) n->attrs.op->attr_parser(&n->attrs);
  n->inputs = std::move(inputs);
  return n;
}

ObjectPtr CreateVariableNode(const std::string& name) {
  ObjectPtr n = Node::Create();
  n->attrs.name = name;
  return n;
}

}  // namespace nnvm
