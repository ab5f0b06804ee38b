// Loading -symbol.json of every MXNet version (0.8 to 1.9) into a Symbol, with the upgrades
// MXNet 1.9 applies to older files.
#include <dmlc/logging.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>

#include "common/np_shape.h"
#include "mxnet/op_attr_types.h"
#include "nnvm/gradient.h"
#include "nnvm/op.h"
#include "nnvm/symbol.h"

namespace nnvm {
namespace {

constexpr int kRunningVersion = 10901;  // MXNet 1.9.1, the version whose files we write
constexpr int MakeVersion(int major, int minor, int patch) {
  return major * 10000 + minor * 100 + patch;
}

// ------------------------------------------------------------------ a small JSON reader
struct JValue {
  enum Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind{kNull};
  bool b{false};
  double num{0};
  std::string str;
  std::vector<JValue> arr;
  std::vector<std::pair<std::string, JValue>> obj;

  const JValue* Find(const std::string& key) const {
    for (const auto& kv : obj) {
      if (kv.first == key) return &kv.second;
    }
    return nullptr;
  }
};

class JParser {
 public:
  explicit JParser(const std::string& text) : s_(text) {}

  JValue ParseDocument() {
    JValue v = Parse(0);
    SkipSpace();
    if (pos_ != s_.size()) Fail("trailing characters after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void Fail(const std::string& what) const {
    size_t line = 1 + std::count(s_.begin(), s_.begin() + std::min(pos_, s_.size()), '\n');
    throw dmlc::Error("Symbol JSON: malformed at line " + std::to_string(line) + " (offset " +
                      std::to_string(pos_) + "): " + what);
  }
  void SkipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' ||
                                s_[pos_] == '\t')) {
      ++pos_;
    }
  }
  char Peek() {
    SkipSpace();
    if (pos_ >= s_.size()) Fail("unexpected end of text");
    return s_[pos_];
  }
  void Expect(char c) {
    if (Peek() != c) Fail(std::string("expected '") + c + "', found '" + s_[pos_] + "'");
    ++pos_;
  }
  static void AppendUtf8(std::string* out, unsigned cp) {
    if (cp < 0x80) {
      *out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      *out += static_cast<char>(0xC0 | (cp >> 6));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      *out += static_cast<char>(0xE0 | (cp >> 12));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  std::string ParseString() {
    Expect('"');
    std::string out;
    while (true) {
      if (pos_ >= s_.size()) Fail("unterminated string");
      char c = s_[pos_++];
      if (c == '"') break;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) Fail("unterminated escape");
      char e = s_[pos_++];
      switch (e) {
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          if (pos_ + 4 > s_.size()) Fail("short \\u escape");
          AppendUtf8(&out, static_cast<unsigned>(std::stoul(s_.substr(pos_, 4), nullptr, 16)));
          pos_ += 4;
          break;
        }
        default: out += e;  // \" \\ \/
      }
    }
    return out;
  }
  JValue Parse(int depth) {
    if (depth > 200) Fail("nested too deeply");
    JValue v;
    char c = Peek();
    if (c == '{') {
      ++pos_;
      v.kind = JValue::kObject;
      if (Peek() == '}') { ++pos_; return v; }
      while (true) {
        std::string key = ParseString();
        Expect(':');
        v.obj.emplace_back(std::move(key), Parse(depth + 1));
        if (Peek() == ',') { ++pos_; continue; }
        Expect('}');
        return v;
      }
    }
    if (c == '[') {
      ++pos_;
      v.kind = JValue::kArray;
      if (Peek() == ']') { ++pos_; return v; }
      while (true) {
        v.arr.push_back(Parse(depth + 1));
        if (Peek() == ',') { ++pos_; continue; }
        Expect(']');
        return v;
      }
    }
    if (c == '"') {
      v.kind = JValue::kString;
      v.str = ParseString();
      return v;
    }
    if (s_.compare(pos_, 4, "true") == 0) { pos_ += 4; v.kind = JValue::kBool; v.b = true; return v; }
    if (s_.compare(pos_, 5, "false") == 0) { pos_ += 5; v.kind = JValue::kBool; return v; }
    if (s_.compare(pos_, 4, "null") == 0) { pos_ += 4; return v; }
    size_t start = pos_;
    while (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '-' ||
                                s_[pos_] == '+' || s_[pos_] == '.' || s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
    }
    if (start == pos_) Fail(std::string("unexpected character '") + c + "'");
    v.kind = JValue::kNumber;
    try {
      v.num = std::stod(s_.substr(start, pos_ - start));
    } catch (const std::exception&) {
      Fail("bad number " + s_.substr(start, pos_ - start));
    }
    return v;
  }

  const std::string& s_;
  size_t pos_{0};
};

// ------------------------------------------------------------------ graph from JSON
[[noreturn]] void BadGraph(const std::string& what) {
  throw dmlc::Error("Symbol JSON: " + what);
}

// A parsed value written back as JSON text.
void WriteJSON(const JValue& v, std::string* out) {
  switch (v.kind) {
    case JValue::kNull: *out += "null"; return;
    case JValue::kBool: *out += v.b ? "true" : "false"; return;
    case JValue::kNumber: {
      std::ostringstream os;
      os.precision(17);
      os << v.num;
      *out += os.str();
      return;
    }
    case JValue::kString:
      *out += '"';
      for (char c : v.str) {
        if (c == '"' || c == '\\') {
          *out += '\\';
          *out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          *out += buf;
        } else {
          *out += c;
        }
      }
      *out += '"';
      return;
    case JValue::kArray:
      *out += '[';
      for (size_t i = 0; i < v.arr.size(); ++i) {
        if (i) *out += ", ";
        WriteJSON(v.arr[i], out);
      }
      *out += ']';
      return;
    case JValue::kObject:
      *out += '{';
      for (size_t i = 0; i < v.obj.size(); ++i) {
        if (i) *out += ", ";
        WriteJSON(JValue{JValue::kString, false, 0, v.obj[i].first, {}, {}}, out);
        *out += ": ";
        WriteJSON(v.obj[i].second, out);
      }
      *out += '}';
      return;
  }
}

uint32_t AsIndex(const JValue& v, const std::string& what) {
  if (v.kind != JValue::kNumber || v.num < 0) BadGraph(what + " must be a non-negative integer");
  return static_cast<uint32_t>(v.num);
}

struct LoadedNode {
  ObjectPtr node;
  std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> inputs;
  std::vector<uint32_t> control_deps;
};

void ReadDict(const JValue& v, const std::string& node_name,
              std::unordered_map<std::string, std::string>* dict) {
  if (v.kind != JValue::kObject) BadGraph("node " + node_name + ": attributes must be an object");
  for (const auto& kv : v.obj) {
    if (kv.second.kind != JValue::kString) {
      BadGraph("node " + node_name + ": attribute " + kv.first + " must be a string");
    }
    (*dict)[kv.first] = kv.second.str;
  }
}

std::tuple<uint32_t, uint32_t, uint32_t> ReadEntry(const JValue& v, const std::string& where) {
  if (v.kind != JValue::kArray || v.arr.size() < 2 || v.arr.size() > 3) {
    BadGraph(where + ": an entry must be [node, index] or [node, index, version]");
  }
  return {AsIndex(v.arr[0], where + " node id"), AsIndex(v.arr[1], where + " output index"),
          v.arr.size() == 3 ? AsIndex(v.arr[2], where + " version") : 0};
}

// A graph document; a nested one (control flow's subgraphs) has no version of its own and
// takes default_version, its file's.
Symbol LoadDocument(const JValue& doc, int default_version);

LoadedNode ReadNode(const JValue& v, size_t id, int version) {
  if (v.kind != JValue::kObject) BadGraph("node " + std::to_string(id) + " is not an object");
  const JValue* op = v.Find("op");
  const JValue* name = v.Find("name");
  const JValue* inputs = v.Find("inputs");
  if (name == nullptr || name->kind != JValue::kString) {
    BadGraph("node " + std::to_string(id) + " has no \"name\"");
  }
  const std::string& node_name = name->str;
  if (op == nullptr || op->kind != JValue::kString) BadGraph("node " + node_name + " has no \"op\"");
  LoadedNode ln;
  ln.node = Node::Create();
  ln.node->attrs.name = node_name;
  if (op->str != "null") {
    const Op* found = Op::Get(op->str);
    if (found == nullptr) {
      BadGraph("node " + node_name + ": operator " + op->str + " is not registered");
    }
    ln.node->attrs.op = found;
  }
  // 1.x writes "attrs", 0.9-0.11 "attr", 0.8 "param" (kwargs) beside "attr" (user attrs).
  for (const char* key : {"param", "attr", "attrs"}) {
    if (const JValue* d = v.Find(key)) ReadDict(*d, node_name, &ln.node->attrs.dict);
  }
  if (inputs != nullptr) {
    if (inputs->kind != JValue::kArray) BadGraph("node " + node_name + ": inputs must be a list");
    for (const JValue& e : inputs->arr) ln.inputs.push_back(ReadEntry(e, "node " + node_name));
  }
  if (const JValue* deps = v.Find("control_deps")) {
    if (deps->kind != JValue::kArray) BadGraph("node " + node_name + ": control_deps must be a list");
    for (const JValue& d : deps->arr) ln.control_deps.push_back(AsIndex(d, "node " + node_name + " control dep"));
  }
  static const auto& finput_graph = Op::GetAttr<mxnet::FInputGraph>("FInputGraph");
  const JValue* subgraphs = v.Find("subgraphs");
  if (subgraphs != nullptr && !ln.node->is_variable() && finput_graph.contains(ln.node->op())) {
    // Control flow (_foreach, _while_loop, _cond): each graph, loaded as a symbol, in order.
    if (subgraphs->kind != JValue::kArray) BadGraph("node " + node_name + ": subgraphs must be a list");
    for (const JValue& g : subgraphs->arr) {
      ln.node->attrs.subgraphs.push_back(std::make_shared<Symbol>(LoadDocument(g, version)));
    }
  } else if (subgraphs != nullptr) {
    // MXNet 1.9's partitioned graphs (_CachedOp, _sg_mkldnn_*): the node's graph, handed to
    // the op's parser as its "subgraph" kwarg, the form mx.sym._internal._CachedOp takes.
    if (subgraphs->kind != JValue::kArray || subgraphs->arr.size() != 1 ||
        subgraphs->arr[0].kind != JValue::kObject) {
      BadGraph("node " + node_name + ": subgraphs expected a list of one graph");
    }
    std::string text;
    WriteJSON(subgraphs->arr[0], &text);
    if (subgraphs->arr[0].Find("attrs") == nullptr) {  // a nested graph of the running version
      text.insert(text.size() - 1, ", \"attrs\": {\"mxnet_version\": [\"int\", " +
                                       std::to_string(kRunningVersion) + "]}");
    }
    ln.node->attrs.dict["subgraph"] = text;
  }
  return ln;
}

// The op's parser over the node's kwargs; its error names the node.
void ParseNode(Node* n) {
  if (n->is_variable() || !n->op()->attr_parser) return;
  try {
    n->op()->attr_parser(&n->attrs);
  } catch (const dmlc::Error& e) {
    throw dmlc::Error("Symbol JSON: node " + n->attrs.name + " (operator " + n->op()->name +
                      "): " + e.what());
  }
}

void ParseAll(const std::vector<ObjectPtr>& order) {
  for (const ObjectPtr& n : order) {
    if (n->is_variable()) {
      n->attrs.parsed = VariableParam();
    } else {
      ParseNode(n.get());
    }
  }
}

// ------------------------------------------------------------------ upgrades (as MXNet 1.9)
// Old files spell hidden keys plainly ("lr_mult") or per input ("weight_lr_mult"); take them
// out so the op's parser accepts the rest, then put them back where they belong.
void UpgradeFixParsing(const std::vector<ObjectPtr>& order) {
  static const auto& flist = Op::GetAttr<mxnet::FListInputNames>("FListInputNames");
  for (const ObjectPtr& n : order) {
    std::vector<std::pair<std::string, std::string>> hidden;
    for (auto it = n->attrs.dict.begin(); it != n->attrs.dict.end();) {
      bool is_hidden = false;
      for (const std::string& k : HiddenAttrKeys()) {
        size_t pos = it->first.rfind(k);
        if (pos == 0 || (pos != std::string::npos && pos + k.size() == it->first.size())) {
          is_hidden = true;
          break;
        }
      }
      if (is_hidden) {
        hidden.emplace_back(*it);
        it = n->attrs.dict.erase(it);
      } else {
        ++it;
      }
    }
    ParseNode(n.get());
    for (const auto& kv : hidden) {
      bool placed = false;
      for (const std::string& k : HiddenAttrKeys()) {
        size_t pos = kv.first.rfind(k);
        if (pos == 0 && k.size() == kv.first.size()) {
          n->attrs.dict["__" + k + "__"] = kv.second;
          placed = true;
          break;
        }
        if (pos != std::string::npos && pos > 1 && pos + k.size() == kv.first.size()) {
          if (n->is_variable() || !flist.contains(n->op())) break;
          std::vector<std::string> names = flist[n->op()](n->attrs);
          auto it = std::find(names.begin(), names.end(), kv.first.substr(0, pos - 1));
          if (it != names.end()) {
            size_t idx = static_cast<size_t>(it - names.begin());
            if (idx < n->inputs.size() && n->inputs[idx].node->is_variable()) {
              n->inputs[idx].node->attrs.dict["__" + k + "__"] = kv.second;
              placed = true;
            }
          }
          break;
        }
      }
      if (!placed) n->attrs.dict[kv.first] = kv.second;
    }
  }
}

// Before 0.9 auxiliary states (BatchNorm's moving mean/var) were not stored: add them.
void UpgradeAddMissingInputs(const std::vector<ObjectPtr>& order) {
  static const auto& flist = Op::GetAttr<mxnet::FListInputNames>("FListInputNames");
  for (const ObjectPtr& n : order) {
    if (n->is_variable() || n->inputs.size() >= n->num_inputs() || !flist.contains(n->op())) continue;
    std::vector<std::string> names = flist[n->op()](n->attrs);
    for (size_t i = n->inputs.size(); i < n->num_inputs() && i < names.size(); ++i) {
      std::string var_name = n->attrs.name.empty() ? names[i] : n->attrs.name + "_" + names[i];
      Symbol var = Symbol::CreateVariable(var_name);
      var.outputs[0].node->attrs.dict = n->attrs.dict;
      n->inputs.push_back(var.outputs[0]);
    }
  }
}

// 0.9.4 moved default initializers of some inputs into the graph (FSetInputVarAttrOnCompose).
void UpgradeInputVarAttrs(const std::vector<ObjectPtr>& order) {
  static const auto& fset = Op::GetAttr<mxnet::FSetInputVarAttrOnCompose>("FSetInputVarAttrOnCompose");
  for (const ObjectPtr& n : order) {
    if (n->is_variable() || !fset.contains(n->op())) continue;
    for (size_t i = 0; i < n->inputs.size(); ++i) {
      if (n->inputs[i].node->is_variable()) fset[n->op()](n->attrs, n->inputs[i].node, static_cast<int>(i));
    }
  }
}

// 0.9.5 made argmin/argmax's axis optional; -1 used to mean "none".
void UpgradeArgReduceAxis(const std::vector<ObjectPtr>& order) {
  for (const ObjectPtr& n : order) {
    if (n->is_variable() || (n->op()->name != "argmin" && n->op()->name != "argmax")) continue;
    auto it = n->attrs.dict.find("axis");
    if (it == n->attrs.dict.end() || it->second != "-1") continue;
    n->attrs.dict.erase(it);
    ParseNode(n.get());
  }
}

// A file saved without numpy shape semantics, loaded with them on: 0 meant "unknown" there.
void ConvertShapesToNumpy(const std::vector<ObjectPtr>& order) {
  for (const ObjectPtr& n : order) {
    auto it = n->attrs.dict.find("__shape__");
    if (!n->is_variable() || it == n->attrs.dict.end()) continue;
    std::vector<long long> dims;
    std::string digits;
    for (char c : it->second + ",") {
      if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
        digits += c;
      } else if (c == ',' || c == ')' || c == ']') {
        if (!digits.empty()) dims.push_back(std::stoll(digits));
        digits.clear();
      }
    }
    if (dims.empty()) {
      it->second = "None";
      continue;
    }
    std::string text = "[";
    for (size_t i = 0; i < dims.size(); ++i) {
      text += (i ? "," : "") + std::to_string(dims[i] == 0 ? -1 : dims[i]);
    }
    it->second = text + "]";
  }
}

void CheckInputCounts(const std::vector<ObjectPtr>& order) {
  for (const ObjectPtr& n : order) {
    if (n->is_variable()) continue;
    uint32_t want = n->num_inputs();
    if (n->inputs.size() != want) {
      BadGraph("node " + n->attrs.name + " (operator " + n->op()->name + ") has " +
               std::to_string(n->inputs.size()) + " inputs, the operator takes " +
               std::to_string(want));
    }
  }
}

}  // namespace

Symbol LoadJSON(const std::string& json) {
  return LoadDocument(JParser(json).ParseDocument(), MakeVersion(0, 8, 0));
}

namespace {

Symbol LoadDocument(const JValue& doc, int default_version) {
  if (doc.kind != JValue::kObject) BadGraph("the document is not an object");
  const JValue* nodes = doc.Find("nodes");
  const JValue* heads = doc.Find("heads");
  if (nodes == nullptr || nodes->kind != JValue::kArray) BadGraph("no \"nodes\" list");
  if (heads == nullptr || heads->kind != JValue::kArray) BadGraph("no \"heads\" list");
  if (doc.Find("arg_nodes") == nullptr) BadGraph("no \"arg_nodes\" list");

  int version = default_version;
  bool saved_np_shape = false;
  if (const JValue* attrs = doc.Find("attrs")) {
    if (const JValue* np = attrs->Find("is_np_shape")) {
      saved_np_shape = np->kind == JValue::kArray && np->arr.size() == 2 &&
                       np->arr[1].kind == JValue::kNumber && np->arr[1].num != 0;
    }
    if (const JValue* v = attrs->Find("mxnet_version")) {
      if (v->kind == JValue::kArray && v->arr.size() == 2 && v->arr[1].kind == JValue::kNumber) {
        version = static_cast<int>(v->arr[1].num);
      } else {
        BadGraph("attrs.mxnet_version must be [\"int\", <version>]");
      }
    }
  }

  std::vector<LoadedNode> loaded;
  loaded.reserve(nodes->arr.size());
  for (size_t i = 0; i < nodes->arr.size(); ++i) loaded.push_back(ReadNode(nodes->arr[i], i, version));
  for (size_t i = 0; i < loaded.size(); ++i) {
    LoadedNode& ln = loaded[i];
    for (const auto& [id, index, ver] : ln.inputs) {
      if (id >= i) {
        BadGraph("node " + ln.node->attrs.name + ": input node " + std::to_string(id) +
                 (id >= loaded.size() ? " does not exist" : " comes after it (nodes must be in "
                                                            "topological order)"));
      }
      ln.node->inputs.emplace_back(loaded[id].node, index, ver);
    }
    for (uint32_t id : ln.control_deps) {
      if (id >= i) BadGraph("node " + ln.node->attrs.name + ": control dependency " + std::to_string(id) + " is not an earlier node");
      ln.node->control_deps.push_back(loaded[id].node);
    }
  }
  Symbol s;
  for (const JValue& h : heads->arr) {
    auto [id, index, ver] = ReadEntry(h, "heads");
    if (id >= loaded.size()) BadGraph("head node " + std::to_string(id) + " does not exist");
    s.outputs.emplace_back(loaded[id].node, index, ver);
  }

  std::vector<ObjectPtr> order = TopoSort(s.outputs);
  if (version < kRunningVersion) UpgradeFixParsing(order);
  ParseAll(order);
  if (version < MakeVersion(0, 9, 0)) {
    UpgradeAddMissingInputs(order);
    order = TopoSort(s.outputs);
  }
  if (version < MakeVersion(0, 9, 4)) UpgradeInputVarAttrs(order);
  if (version < MakeVersion(0, 9, 5)) UpgradeArgReduceAxis(order);
  if (mxnet::common::NumpyShapeState() != 0 && !saved_np_shape) ConvertShapesToNumpy(order);
  CheckInputCounts(order);
  for (const NodeEntry& h : s.outputs) {
    if (h.index >= h.node->num_outputs()) {
      BadGraph("head " + h.node->attrs.name + " output " + std::to_string(h.index) +
               " does not exist; the node has " + std::to_string(h.node->num_outputs()));
    }
  }
  return s;
}

}  // namespace

}  // namespace nnvm
