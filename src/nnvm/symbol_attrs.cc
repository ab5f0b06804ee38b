// MXNet's rules for symbol attributes as the fronts see them: hidden keys (lr_mult is stored
// as __lr_mult__ and listed under both names), shared by the C API and the Python extension.
#include <dmlc/logging.h>

#include "nnvm/op.h"
#include "nnvm/symbol.h"

namespace nnvm {

Symbol CreateAtomicSymbol(const Op* op,
                          const std::vector<std::pair<std::string, std::string>>& kwargs) {
  CHECK(op != nullptr) << "CreateAtomicSymbol: operator handle is null";
  std::unordered_map<std::string, std::string> dict;
  for (const auto& kv : kwargs) {
    std::string key = kv.first;
    for (const std::string& k : HiddenAttrKeys()) {
      // an op's own kwarg may start with a hidden name only if it is exactly that name
      if (key.rfind(k, 0) == 0) {
        key = "__" + key + "__";
        break;
      }
      size_t pos = key.rfind(k);
      if (pos != std::string::npos && pos + k.size() == key.size()) {
        key = HiddenAttrKey(key, kv.second);  // raises with how to write it now
        break;
      }
    }
    dict[key] = kv.second;
  }
  try {
    return Symbol::CreateFunctor(op, std::move(dict));
  } catch (const dmlc::Error& e) {
    std::string msg = e.what();
    if (msg.find(op->name) == std::string::npos) msg = "Operator " + op->name + ": " + msg;
    throw dmlc::Error(msg);
  }
}

bool GetFrontAttr(const Symbol& s, const std::string& key, std::string* out) {
  if (s.GetAttr(key, out)) return true;
  for (const std::string& k : HiddenAttrKeys()) {
    if (k == key) return s.GetAttr("__" + key + "__", out);
  }
  return false;
}

void SetFrontAttr(Symbol* s, const std::string& key, const std::string& value) {
  s->SetAttrs({{HiddenAttrKey(key, value), value}});
}

std::vector<std::pair<std::string, std::string>> ListFrontAttrs(const Symbol& s, bool recursive) {
  std::vector<std::pair<std::string, std::string>> ret;
  auto add = [&ret](const std::string& prefix, const std::string& key, const std::string& value) {
    ret.emplace_back(prefix + key, value);
    std::string plain = UnhiddenAttrKey(key);
    if (!plain.empty()) ret.emplace_back(prefix + plain, value);
  };
  if (recursive) {
    for (const auto& [node, key, value] : s.ListAttrsRecursive()) add(node + "$", key, value);
  } else {
    for (const auto& kv : s.ListAttrsShallow()) add("", kv.first, kv.second);
  }
  return ret;
}

Symbol GenAtomicSymbol(const Symbol& s) {
  CHECK(!s.outputs.empty()) << "_gen_atomic_symbol: the symbol has no outputs";
  const Node* node = s.outputs[0].node.get();
  for (const NodeEntry& e : s.outputs) {
    CHECK(e.node.get() == node) << "_gen_atomic_symbol works on a symbol of one node, not on a "
                                   "group of several";
  }
  CHECK(!node->is_variable()) << "_gen_atomic_symbol: " << node->attrs.name << " is a variable";
  return Symbol::CreateFunctor(node->op(), node->attrs.dict);
}

}  // namespace nnvm
