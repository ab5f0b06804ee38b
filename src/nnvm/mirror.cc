// Backward mirroring (MXNET_BACKWARD_DO_MIRROR, __force_mirroring__): the pass that gives the
// gradient graph its own copies of cheap forward nodes, so the memory plan frees their
// outputs after forward and backward recomputes them from the values it keeps anyway.
#include "nnvm/mirror.h"

#include <dmlc/logging.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "common/env.h"
#include "mxnet/op_attr_types.h"
#include "nnvm/gradient.h"
#include "nnvm/op.h"

namespace nnvm {
namespace {

// The node's __force_mirroring__ attribute as a bool (dmlc's spelling: 0/1, true/false).
bool ForceMirroring(const Node& node) {
  auto it = node.attrs.dict.find("__force_mirroring__");
  if (it == node.attrs.dict.end()) return false;
  std::string v = it->second;
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  if (v == "1" || v == "true") return true;
  if (v == "0" || v == "false") return false;
  LOG(FATAL) << "Node " << node.attrs.name << ": attribute __force_mirroring__ (force_mirroring) "
             << "expects a bool (0, 1, True, False), given '" << it->second << "'";
  return false;
}

// Backward ops that read only the shape (and dtype) of an input: recomputing that input would
// cost a forward op for nothing.
bool ReadsShapeOnly(const Node& node) {
  static const Op* zeros_like = Op::Get("zeros_like");
  static const Op* ones_like = Op::Get("ones_like");
  return node.op() == zeros_like || node.op() == ones_like;
}

// Batch normalization writes its moving statistics (and 1 into gamma with fix_gamma) but its
// outputs do not depend on what it writes there: in training they come from the batch, and
// otherwise the statistics are only read. So a copy may run again if its writes go elsewhere.
bool WritesOnlyStatistics(const Node& node) {
  static const std::unordered_set<std::string> ops = {"BatchNorm", "BatchNorm_v1",
                                                      "_contrib_BatchNormWithReLU"};
  return ops.count(node.op()->name) != 0;
}

// The inputs node writes (FMutateInputs, FWriteArguments).
std::vector<uint32_t> WrittenInputs(const Node& node) {
  static const auto& mutate = Op::GetAttr<mxnet::FMutateInputs>("FMutateInputs");
  static const auto& writes = Op::GetAttr<mxnet::FWriteArguments>("FWriteArguments");
  std::vector<uint32_t> idx;
  if (mutate.contains(node.op())) idx = mutate[node.op()](node.attrs);
  if (writes.contains(node.op())) {
    for (uint32_t i : writes[node.op()](node.attrs)) idx.push_back(i);
  }
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  return idx;
}

}  // namespace

bool IsDeterministicOp(const Op* op, const NodeAttrs& attrs) {
  static const auto& mutate = Op::GetAttr<mxnet::FMutateInputs>("FMutateInputs");
  static const auto& writes = Op::GetAttr<mxnet::FWriteArguments>("FWriteArguments");
  static const auto& ndfunc = Op::GetAttr<mxnet::FNDArrayFunction>("FNDArrayFunction");
  static const auto& resources = Op::GetAttr<mxnet::FResourceRequest>("FResourceRequest");
  if (mutate.contains(op) || writes.contains(op) || ndfunc.contains(op)) return false;
  if (!attrs.subgraphs.empty()) return false;  // control flow: its graphs are not in the dict
  if (resources.contains(op)) {
    for (const mxnet::ResourceRequest& r : resources[op](attrs)) {
      if (r.type != mxnet::ResourceRequest::kTempSpace) return false;
    }
  }
  return true;
}

bool NeedMirror(const Node& node, bool do_mirror) {
  // A node without inputs (_zeros, ...) has nothing to be recomputed from, and its shape may
  // come from its readers in forward, which a copy does not have.
  if (node.is_variable() || node.inputs.empty()) return false;
  const bool forced = ForceMirroring(node);
  if (!forced && !do_mirror) return false;  // the common case: mirroring off
  const std::string& op = node.op()->name;
  if (op == "Dropout") return false;
  if (!IsDeterministicOp(node.op(), node.attrs) && !WritesOnlyStatistics(node)) return false;
  if (forced) return true;
  return op != "Convolution" && op != "FullyConnected" && op != "Concat" && op != "SoftmaxOutput";
}

size_t MirrorBackward(const std::vector<NodeEntry>& fwd_outputs, std::vector<NodeEntry>* grads,
                      bool do_mirror) {
  // Copies of the mirrored forward nodes, in topological order so that a copy's inputs are
  // mapped before it; a node that is not mirrored maps to itself. Graph outputs are kept
  // anyway: their nodes are not mirrored.
  std::unordered_set<const Node*> outputs;
  for (const NodeEntry& e : fwd_outputs) outputs.insert(e.node.get());
  std::unordered_map<const Node*, ObjectPtr> mirror;
  bool any = false;
  for (const ObjectPtr& n : TopoSort(fwd_outputs)) {
    if (outputs.count(n.get()) || !NeedMirror(*n, do_mirror)) {
      mirror[n.get()] = n;
      continue;
    }
    ObjectPtr copy = Node::Create();
    *copy = *n;
    copy->attrs.name += "_mirror";
    for (NodeEntry& e : copy->inputs) e.node = mirror.at(e.node.get());
    for (ObjectPtr& d : copy->control_deps) d = mirror.at(d.get());
    // What the copy writes (batch norm's moving statistics) goes to scratch copies, so the
    // values forward wrote are written once.
    for (uint32_t i : WrittenInputs(*copy)) {
      NodeEntry& in = copy->inputs.at(i);
      in = NodeEntry(CreateNode("_copy", copy->attrs.name + "_in" + std::to_string(i), {in}), 0, 0);
    }
    mirror[n.get()] = std::move(copy);
    any = true;
  }
  if (!any) return 0;

  // Backward nodes (those not in forward) read the copies instead of the forward values.
  std::unordered_map<const Node*, ObjectPtr> read;  // copies backward reads directly
  for (const ObjectPtr& n : TopoSort(*grads)) {
    if (mirror.count(n.get()) || n->is_variable() || ReadsShapeOnly(*n)) continue;
    for (NodeEntry& e : n->inputs) {
      auto it = mirror.find(e.node.get());
      if (it == mirror.end() || it->second == e.node) continue;
      e.node = it->second;
      read.emplace(e.node.get(), e.node);
    }
  }
  // The copies backward runs: those it reads and the copies they read in turn.
  std::unordered_set<const Node*> copies;
  for (const auto& kv : mirror) {
    if (kv.second.get() != kv.first) copies.insert(kv.second.get());
  }
  std::vector<NodeEntry> roots;
  for (const auto& kv : read) roots.emplace_back(kv.second, 0, 0);
  size_t count = 0;
  for (const ObjectPtr& n : TopoSort(roots)) count += copies.count(n.get());
  return count;
}

size_t MirrorBackward(const std::vector<NodeEntry>& fwd_outputs, std::vector<NodeEntry>* grads) {
  return MirrorBackward(fwd_outputs, grads, mxnet::env::GetInt("MXNET_BACKWARD_DO_MIRROR") != 0);
}

}  // namespace nnvm
