// group2ctx placement: contexts per node, copy nodes between them (see place_device.h).
#include "executor/place_device.h"

#include <dmlc/logging.h>

#include <tuple>

#include "mxnet/op_attr_types.h"
#include "nnvm/graph.h"
#include "nnvm/op.h"

namespace mxnet {
namespace exec {

PlacedGraph PlaceDevices(const std::vector<nnvm::NodeEntry>& heads,
                         const std::map<std::string, Context>& group2ctx,
                         const Context& default_ctx,
                         const std::unordered_map<const nnvm::Node*, Context>& fixed) {
  static const auto& fmutate = nnvm::Op::GetAttr<FMutateInputs>("FMutateInputs");
  static const nnvm::Op* copy_op = nnvm::Op::GetOrThrow("_CrossDeviceCopy");
  nnvm::IndexedGraph idx(heads);
  const uint32_t n = static_cast<uint32_t>(idx.num_nodes());
  std::vector<Context> ctx(n);
  std::vector<bool> placed(n, false);
  auto place = [&](uint32_t nid, const Context& c) {
    ctx[nid] = c;
    placed[nid] = true;
  };
  // Forward sweep: variables, groups, backward nodes, then the first placed input.
  for (uint32_t nid = 0; nid < n; ++nid) {
    const nnvm::Node& node = *idx[nid].source;
    if (node.is_variable()) {
      auto it = fixed.find(&node);
      if (it != fixed.end()) place(nid, it->second);
      continue;
    }
    auto g = node.attrs.dict.find("__ctx_group__");
    if (g != node.attrs.dict.end()) {
      auto c = group2ctx.find(g->second);
      CHECK(c != group2ctx.end()) << "bind: node " << node.attrs.name << " is in ctx_group '"
                                  << g->second << "', which group2ctx does not map to a context";
      place(nid, c->second);
      continue;
    }
    const auto& deps = idx[nid].control_deps;
    if (!deps.empty() && placed[deps[0]]) {
      place(nid, ctx[deps[0]]);
      continue;
    }
    for (const auto& in : idx[nid].inputs) {
      if (placed[in.node_id]) {
        place(nid, ctx[in.node_id]);
        break;
      }
    }
  }
  // Backward sweep: what is still unplaced runs where its reader runs.
  for (uint32_t nid = n; nid-- > 0;) {
    if (!placed[nid]) continue;
    for (const auto& in : idx[nid].inputs) {
      if (!placed[in.node_id]) place(in.node_id, ctx[nid]);
    }
  }
  for (uint32_t nid = 0; nid < n; ++nid) {
    if (!placed[nid]) place(nid, default_ctx);
  }

  // Copy nodes: a node reading across contexts (or reading a node that changed) is rebuilt.
  PlacedGraph out;
  std::vector<nnvm::ObjectPtr> rebuilt(n);
  std::map<std::tuple<uint32_t, uint32_t, Context>, nnvm::ObjectPtr> copies;
  auto current = [&](uint32_t nid) { return rebuilt[nid] ? rebuilt[nid] : idx.node_ptr(nid); };
  for (uint32_t nid = 0; nid < n; ++nid) {
    const auto& inode = idx[nid];
    const nnvm::Node& node = *inode.source;
    bool change = false;
    for (const auto& in : inode.inputs) change = change || rebuilt[in.node_id] || !(ctx[in.node_id] == ctx[nid]);
    for (uint32_t d : inode.control_deps) change = change || rebuilt[d];
    if (!change) {
      out.node_ctx[&node] = ctx[nid];
      continue;
    }
    if (fmutate.contains(node.op())) {
      for (uint32_t i : fmutate[node.op()](node.attrs)) {
        const uint32_t src = inode.inputs.at(i).node_id;
        CHECK(ctx[src] == ctx[nid])
            << "bind: operator " << node.op()->name << " (node " << node.attrs.name
            << ") writes its input " << i << " (" << idx[src].source->attrs.name << "), which is "
            << "on " << ctx[src] << ", while the node runs on " << ctx[nid]
            << ": a mutable state cannot go across devices";
      }
    }
    nnvm::ObjectPtr copy_of = nnvm::Node::Create();
    copy_of->attrs = node.attrs;
    copy_of->info = node.info;
    for (size_t i = 0; i < inode.inputs.size(); ++i) {
      const auto& in = inode.inputs[i];
      nnvm::NodeEntry src(current(in.node_id), in.index, in.version);
      if (ctx[in.node_id] == ctx[nid]) {
        copy_of->inputs.push_back(src);
        continue;
      }
      nnvm::ObjectPtr& c = copies[std::make_tuple(in.node_id, in.index, ctx[nid])];
      if (!c) {
        c = nnvm::Node::Create();
        c->attrs.op = copy_op;
        c->attrs.name = idx[in.node_id].source->attrs.name + "_" + std::to_string(in.index) +
                        "_copy";
        c->inputs.push_back(src);
        out.node_ctx[c.get()] = ctx[nid];
      }
      copy_of->inputs.emplace_back(c, 0, 0);
    }
    for (uint32_t d : inode.control_deps) copy_of->control_deps.push_back(current(d));
    out.node_ctx[copy_of.get()] = ctx[nid];
    rebuilt[nid] = copy_of;
  }
  for (const nnvm::NodeEntry& h : heads) {
    out.heads.emplace_back(current(idx.node_id(h.node.get())), h.index, h.version);
  }
  return out;
}

}  // namespace exec
}  // namespace mxnet
