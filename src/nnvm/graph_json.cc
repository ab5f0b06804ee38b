// Export of a graph as MXNet's Symbol shows it: -symbol.json text, listed names, autograd names.
#include "nnvm/graph_json.h"

#include <dmlc/logging.h>

#include <algorithm>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "common/np_shape.h"
#include "mxnet/op_attr_types.h"
#include "nnvm/gradient.h"
#include "nnvm/op.h"
#include "nnvm/symbol.h"

namespace nnvm {
namespace {

// The version MXNet 1.9.1 stamps into every graph it saves.
constexpr int kMXNetVersion = 10901;

// A JSON string as dmlc::JSONWriter writes it: only \r \n \t \\ \" are escaped (MXNet's reader
// knows no other escapes), everything else is copied as is.
void WriteString(std::ostream& os, const std::string& s) {
  os << '"';
  for (char ch : s) {
    switch (ch) {
      case '\r': os << "\\r"; break;
      case '\n': os << "\\n"; break;
      case '\t': os << "\\t"; break;
      case '\\': os << "\\\\"; break;
      case '"': os << "\\\""; break;
      default: os << ch;
    }
  }
  os << '"';
}

// A node's kwargs, keys sorted; one pair stays on one line, more go one per line (as dmlc).
void WriteAttrs(std::ostream& os, const std::unordered_map<std::string, std::string>& dict) {
  std::vector<std::pair<std::string, std::string>> kv(dict.begin(), dict.end());
  std::sort(kv.begin(), kv.end());
  bool multi_line = kv.size() > 1;
  os << '{';
  for (size_t i = 0; i < kv.size(); ++i) {
    if (i > 0) os << ", ";
    if (multi_line) os << "\n        ";
    WriteString(os, kv[i].first);
    os << ": ";
    WriteString(os, kv[i].second);
  }
  if (multi_line) os << "\n      ";
  os << '}';
}

// An array as dmlc's writer lays out a vector of plain values: one line up to 10 items, else
// one item per line indented by the array's nesting depth (depth 2 for a top-level field).
template <typename WriteItem>
void WriteArray(std::ostream& os, size_t n, int depth, WriteItem write_item) {
  const bool multi_line = n > 10;
  const std::string item_indent = "\n" + std::string(2 * depth, ' ');
  os << '[';
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) os << ", ";
    if (multi_line) os << item_indent;
    write_item(i);
  }
  if (multi_line && n > 0) os << '\n' << std::string(2 * (depth - 1), ' ');
  os << ']';
}

template <typename T>
void WriteIntArray(std::ostream& os, const std::vector<T>& v, int depth) {
  WriteArray(os, v.size(), depth, [&](size_t i) { os << v[i]; });
}

using NodeIds = std::unordered_map<const Node*, uint32_t>;

void WriteEntries(std::ostream& os, const std::vector<NodeEntry>& entries, const NodeIds& ids,
                  int depth) {
  WriteArray(os, entries.size(), depth, [&](size_t i) {
    const NodeEntry& e = entries[i];
    os << '[' << ids.at(e.node.get()) << ", " << e.index << ", " << e.version << ']';
  });
}

}  // namespace

namespace {

// The document; nested (a control-flow op's subgraph) is written without graph attrs, as
// MXNet 1.9.1 writes those.
std::string SaveGraph(const std::vector<NodeEntry>& heads, bool nested) {
  for (const NodeEntry& h : heads) CHECK(h.node) << "SaveJSON: a head of the graph is empty";
  std::vector<ObjectPtr> order = TopoSort(heads);
  NodeIds ids;
  std::vector<uint32_t> arg_nodes;
  std::vector<uint32_t> row_ptr{0};
  for (uint32_t i = 0; i < order.size(); ++i) {
    ids[order[i].get()] = i;
    if (order[i]->is_variable()) arg_nodes.push_back(i);
    row_ptr.push_back(row_ptr.back() + order[i]->num_outputs());
  }

  std::ostringstream os;
  os << "{\n  \"nodes\": [";
  for (size_t i = 0; i < order.size(); ++i) {
    const Node& n = *order[i];
    os << (i > 0 ? ", " : "") << "\n    {\n      \"op\": ";
    WriteString(os, n.is_variable() ? "null" : n.op()->name);
    os << ", \n      \"name\": ";
    WriteString(os, n.attrs.name);
    if (!n.attrs.dict.empty()) {
      os << ", \n      \"attrs\": ";
      WriteAttrs(os, n.attrs.dict);
    }
    os << ", \n      \"inputs\": ";
    WriteEntries(os, n.inputs, ids, 4);
    if (!n.control_deps.empty()) {
      std::vector<uint32_t> deps;
      for (const ObjectPtr& d : n.control_deps) deps.push_back(ids.at(d.get()));
      os << ", \n      \"control_deps\": ";
      WriteIntArray(os, deps, 4);
    }
    if (!n.attrs.subgraphs.empty()) {  // control flow: each graph nested, indented under the node
      os << ", \n      \"subgraphs\": [";
      for (size_t k = 0; k < n.attrs.subgraphs.size(); ++k) {
        std::string text = SaveGraph(n.attrs.subgraphs[k]->outputs, true);
        std::string indented;
        for (char ch : text) {
          indented += ch;
          if (ch == '\n') indented += "        ";
        }
        os << (k > 0 ? ", " : "") << "\n        " << indented;
      }
      os << "\n      ]";
    }
    os << "\n    }";
  }
  if (!order.empty()) os << "\n  ";
  os << "], \n  \"arg_nodes\": ";
  WriteIntArray(os, arg_nodes, 2);
  os << ", \n  \"node_row_ptr\": ";
  WriteIntArray(os, row_ptr, 2);
  os << ", \n  \"heads\": ";
  WriteEntries(os, heads, ids, 2);
  // graph attrs, sorted; is_np_shape marks a graph saved with numpy shape semantics on
  if (nested) {
    os << "\n}";
  } else if (mxnet::common::NumpyShapeState() != 0) {
    os << ", \n  \"attrs\": {\n    \"is_np_shape\": [\"int\", 1], \n    \"mxnet_version\": "
       << "[\"int\", " << kMXNetVersion << "]\n  }\n}";
  } else {
    os << ", \n  \"attrs\": {\"mxnet_version\": [\"int\", " << kMXNetVersion << "]}\n}";
  }
  return os.str();
}

}  // namespace

std::string SaveJSON(const std::vector<NodeEntry>& heads) { return SaveGraph(heads, false); }

std::vector<NodeEntry> CopyWithAutogradNames(const std::vector<NodeEntry>& heads) {
  std::unordered_map<const Node*, ObjectPtr> copies;
  size_t n_vars = 0, n_ops = 0;
  for (const ObjectPtr& n : TopoSort(heads)) {
    ObjectPtr c = Node::Create();
    c->attrs = n->attrs;
    if (n->is_variable()) {
      c->attrs.name = (n->attrs.name.empty() ? "null" : "var") + std::to_string(n_vars++);
    } else {
      c->attrs.name = "node_" + std::to_string(n_ops++);
    }
    for (const NodeEntry& in : n->inputs) {
      c->inputs.emplace_back(copies.at(in.node.get()), in.index, in.version);
    }
    for (const ObjectPtr& d : n->control_deps) c->control_deps.push_back(copies.at(d.get()));
    copies.emplace(n.get(), std::move(c));
  }
  std::vector<NodeEntry> out;
  out.reserve(heads.size());
  for (const NodeEntry& h : heads) out.emplace_back(copies.at(h.node.get()), h.index, h.version);
  return out;
}

std::vector<std::string> ListVariableNames(const std::vector<NodeEntry>& heads, bool aux) {
  static const auto& fmutate = Op::GetAttr<mxnet::FMutateInputs>("FMutateInputs");
  std::vector<ObjectPtr> order = TopoSort(heads);
  std::unordered_set<const Node*> mutated;
  for (const ObjectPtr& n : order) {
    if (n->is_variable() || !fmutate.contains(n->op())) continue;
    for (uint32_t i : fmutate[n->op()](n->attrs)) {
      if (i < n->inputs.size()) mutated.insert(n->inputs[i].node.get());
    }
  }
  std::vector<std::string> names;
  for (const ObjectPtr& n : order) {
    if (n->is_variable() && mutated.count(n.get()) == (aux ? 1u : 0u)) {
      names.push_back(n->attrs.name);
    }
  }
  return names;
}

std::string OutputName(const Node& n, uint32_t index) {
  static const auto& flist = Op::GetAttr<mxnet::FListOutputNames>("FListOutputNames");
  std::string out;
  if (flist.contains(n.op())) {
    std::vector<std::string> outs = flist[n.op()](n.attrs);
    CHECK_LT(index, outs.size()) << "Operator " << n.op()->name << " lists " << outs.size()
                                 << " output names, output " << index << " requested";
    out = outs[index];
  } else if (n.num_outputs() == 1) {
    out = "output";
  } else {
    out = "output" + std::to_string(index);
  }
  return n.attrs.name.empty() ? out : n.attrs.name + "_" + out;
}

std::vector<std::string> ListOutputNames(const std::vector<NodeEntry>& heads) {
  std::vector<std::string> names;
  names.reserve(heads.size());
  for (const NodeEntry& h : heads) {
    names.push_back(h.node->is_variable() ? h.node->attrs.name : OutputName(*h.node, h.index));
  }
  return names;
}

}  // namespace nnvm
