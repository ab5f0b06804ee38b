// InferShape and InferType: propagating each op's FInferShape / FInferType over a graph.
#include <dmlc/logging.h>

#include <cctype>
#include <sstream>
#include <unordered_map>

#include "common/np_shape.h"
#include "mxnet/op_attr_types.h"
#include "nnvm/op.h"
#include "nnvm/pass.h"

namespace nnvm {
namespace {

using mxnet::TShape;

bool NumpyShape() { return mxnet::common::NumpyShapeState() != mxnet::kNumpyShapeOff; }

bool Known(const TShape& s) { return s.IsKnown(); }
bool Known(int t) { return t >= 0; }

std::string Text(const TShape& s) {
  if (s.is_none()) return "None";
  std::ostringstream os;
  os << s;
  return os.str();
}
std::string Text(int t) { return t < 0 ? "None" : mxnet::DTypeName(t); }

// "(2, 3)", "[2,3]", "(2,)", "()": MXNet's text form of a shape; a bare "7" is (7,), as
// MXNet reads the shape=7 of symbol.var.
TShape ParseShapeAttr(const Node& var, const std::string& text) {
  std::vector<mxnet::dim_t> dims;
  size_t i = 0;
  auto skip = [&] { while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i; };
  skip();
  if (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '-')) {
    char* end = nullptr;
    const long long v = std::strtoll(text.c_str() + i, &end, 10);
    while (*end != '\0' && std::isspace(static_cast<unsigned char>(*end))) ++end;
    CHECK(*end == '\0') << "Variable " << var.attrs.name << ": attribute __shape__ expected a "
                        << "shape such as (2, 3), given '" << text << "'";
    return ShapeFromLegacy(TShape({static_cast<mxnet::dim_t>(v)}));
  }
  bool ok = i < text.size() && (text[i] == '(' || text[i] == '[');
  char close = ok && text[i] == '[' ? ']' : ')';
  ++i;
  while (ok) {
    skip();
    if (i < text.size() && text[i] == close) break;
    char* end = nullptr;
    long long v = std::strtoll(text.c_str() + i, &end, 10);
    if (end == text.c_str() + i) { ok = false; break; }
    dims.push_back(v);
    i = end - text.c_str();
    skip();
    if (i < text.size() && text[i] == ',') ++i;
  }
  CHECK(ok) << "Variable " << var.attrs.name << ": attribute __shape__ expected a shape such as "
            << "(2, 3), given '" << text << "'";
  TShape s(dims.begin(), dims.end());
  return ShapeFromLegacy(s);
}

int ParseTypeAttr(const Node& var, const std::string& text) {
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (end != text.c_str() && *end == '\0') return static_cast<int>(v);
  int t = mxnet::DTypeFromName(text);
  CHECK_GE(t, 0) << "Variable " << var.attrs.name << ": attribute __dtype__ expected a dtype "
                 << "code or name, given '" << text << "'";
  return t;
}

template <typename T>
struct Traits;
template <>
struct Traits<TShape> {
  using FInfer = mxnet::FInferShape;
  static constexpr const char* kInfer = "FInferShape";
  static constexpr const char* kAttr = "__shape__";
  static constexpr const char* kWhat = "shape";
  static TShape Parse(const Node& n, const std::string& s) { return ParseShapeAttr(n, s); }
  static TShape Unknown() { return TShape(); }
};
template <>
struct Traits<int> {
  using FInfer = mxnet::FInferType;
  static constexpr const char* kInfer = "FInferType";
  static constexpr const char* kAttr = "__dtype__";
  static constexpr const char* kWhat = "dtype";
  static int Parse(const Node& n, const std::string& s) { return ParseTypeAttr(n, s); }
  static int Unknown() { return -1; }
};

template <typename T>
std::string Describe(const std::vector<T>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + Text(v[i]);
  return s + "]";
}

// One node: fill what its rule can decide; true when all its entries are known.
template <typename T>
bool InferNode(const IndexedGraph& idx, uint32_t nid, std::vector<T>* attrs,
               std::vector<T>* in, std::vector<T>* out) {
  using Tr = Traits<T>;
  static const auto& finfer = Op::GetAttr<typename Tr::FInfer>(Tr::kInfer);
  const auto& inode = idx[nid];
  const Node& node = *inode.source;
  if (node.is_variable()) {
    T& slot = (*attrs)[idx.entry_id(nid, 0)];
    if (!Known(slot)) {
      auto it = node.attrs.dict.find(Tr::kAttr);
      if (it != node.attrs.dict.end()) slot = Tr::Parse(node, it->second);
    }
    return Known(slot);
  }
  uint32_t n_out = node.num_outputs();
  in->resize(inode.inputs.size());
  out->resize(n_out);
  for (size_t i = 0; i < in->size(); ++i) (*in)[i] = (*attrs)[idx.entry_id(inode.inputs[i])];
  for (uint32_t i = 0; i < n_out; ++i) (*out)[i] = (*attrs)[idx.entry_id(nid, i)];
  if (!finfer.contains(node.op())) {
    LOG(FATAL) << "Error in operator " << node.attrs.name << ": operator " << node.op()->name
               << " has no " << Tr::kWhat << " inference (" << Tr::kInfer << ")";
  }
  const std::vector<T> in0 = *in, out0 = *out;
  try {
    finfer[node.op()](node.attrs, in, out);
  } catch (const std::exception& e) {
    std::ostringstream os;
    os << "Error in operator " << node.attrs.name << ": " << e.what() << " (operator "
       << node.op()->name << ", input " << Tr::kWhat << "s " << Describe(in0) << ", output "
       << Tr::kWhat << "s " << Describe(out0) << ")";
    throw dmlc::Error(os.str());
  }
  CHECK_EQ(in->size(), inode.inputs.size()) << node.op()->name << ": " << Tr::kInfer
                                            << " changed the number of inputs";
  CHECK_EQ(out->size(), n_out) << node.op()->name << ": " << Tr::kInfer
                               << " changed the number of outputs";
  bool done = true;
  for (size_t i = 0; i < in->size(); ++i) {
    (*attrs)[idx.entry_id(inode.inputs[i])] = (*in)[i];
    done = done && Known((*in)[i]);
  }
  for (uint32_t i = 0; i < n_out; ++i) {
    (*attrs)[idx.entry_id(nid, i)] = (*out)[i];
    done = done && Known((*out)[i]);
  }
  return done;
}

// Forward then backward sweeps until a sweep learns nothing (MXNet's fixed point).
template <typename T>
size_t InferAttr(const IndexedGraph& idx, std::vector<T>* attrs) {
  CHECK_EQ(attrs->size(), idx.num_node_entries())
      << "Infer" << Traits<T>::kWhat << ": one value per graph entry is needed";
  std::vector<bool> finished(idx.num_nodes(), false);
  std::vector<T> in, out;
  auto count_unknown = [&] {
    size_t n = 0;
    for (const T& a : *attrs) n += Known(a) ? 0 : 1;
    return n;
  };
  size_t num_unknown = count_unknown();
  for (int sweep = 0; num_unknown > 0; ++sweep) {
    uint32_t n = static_cast<uint32_t>(idx.num_nodes());
    for (uint32_t k = 0; k < n; ++k) {
      uint32_t nid = sweep % 2 == 0 ? k : n - 1 - k;
      if (!finished[nid]) finished[nid] = InferNode(idx, nid, attrs, &in, &out);
    }
    size_t now = count_unknown();
    if (now >= num_unknown && sweep > 0) break;
    num_unknown = now;
  }
  return num_unknown;
}

template <typename T>
SymbolAttrs<T> InferSymbol(const std::vector<NodeEntry>& heads,
                           const std::vector<std::string>& keys, const std::vector<T>& known,
                           size_t (*pass)(const IndexedGraph&, std::vector<T>*)) {
  IndexedGraph idx(heads);
  std::vector<T> attrs(idx.num_node_entries(), Traits<T>::Unknown());
  if (keys.empty()) {
    CHECK_LE(known.size(), idx.arg_nodes().size())
        << "infer_" << Traits<T>::kWhat << ": " << known.size() << " positional "
        << Traits<T>::kWhat << "s given, the symbol has " << idx.arg_nodes().size()
        << " arguments";
    for (size_t i = 0; i < known.size(); ++i) attrs[idx.entry_id(idx.arg_nodes()[i], 0)] = known[i];
  } else {
    CHECK_EQ(keys.size(), known.size()) << "infer_" << Traits<T>::kWhat
                                        << ": one value per name is needed";
    std::unordered_map<std::string, uint32_t> by_name;
    for (uint32_t nid : idx.input_nodes()) by_name.emplace(idx[nid].source->attrs.name, nid);
    for (size_t i = 0; i < keys.size(); ++i) {
      auto it = by_name.find(keys[i]);
      if (it == by_name.end()) {
        std::ostringstream os;
        os << "Keyword argument name " << keys[i] << " not found.\nCandidate arguments:\n\t[";
        size_t k = 0;
        for (uint32_t nid : idx.input_nodes()) {
          os << (k++ ? ", " : "") << idx[nid].source->attrs.name;
        }
        os << "]";
        throw dmlc::Error(os.str());
      }
      attrs[idx.entry_id(it->second, 0)] = known[i];
    }
  }
  size_t unknown = pass(idx, &attrs);
  SymbolAttrs<T> r;
  for (uint32_t nid : idx.arg_nodes()) r.arg.push_back(attrs[idx.entry_id(nid, 0)]);
  for (uint32_t nid : idx.mutable_input_nodes()) r.aux.push_back(attrs[idx.entry_id(nid, 0)]);
  for (const auto& e : idx.outputs()) r.out.push_back(attrs[idx.entry_id(e)]);
  r.complete = unknown == 0;
  return r;
}

}  // namespace

size_t InferShape(const IndexedGraph& idx, std::vector<TShape>* shapes) {
  mxnet::common::GraphShapeInferenceScope in_graph;
  return InferAttr(idx, shapes);
}

size_t InferType(const IndexedGraph& idx, std::vector<int>* types) {
  return InferAttr(idx, types);
}

SymbolAttrs<TShape> InferSymbolShapes(const std::vector<NodeEntry>& heads,
                                      const std::vector<std::string>& keys,
                                      const std::vector<TShape>& known) {
  return InferSymbol<TShape>(heads, keys, known, &InferShape);
}

SymbolAttrs<int> InferSymbolTypes(const std::vector<NodeEntry>& heads,
                                  const std::vector<std::string>& keys,
                                  const std::vector<int>& known) {
  return InferSymbol<int>(heads, keys, known, &InferType);
}

TShape ShapeFromLegacy(const TShape& s) {
  if (NumpyShape() || s.is_none()) return s;
  if (s.ndim() == 0) return TShape();
  TShape r = s;
  for (auto& d : r) {
    if (d == 0) d = -1;
  }
  return r;
}

TShape ShapeToLegacy(const TShape& s) {
  if (NumpyShape()) return s;
  if (s.is_none()) return TShape(0);
  TShape r = s;
  for (auto& d : r) {
    if (d < 0) d = 0;
  }
  return r;
}

}  // namespace nnvm
