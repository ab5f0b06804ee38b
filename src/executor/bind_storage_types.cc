// simple_bind's storage types (see bind_storage_types.h).
#include "executor/bind_storage_types.h"

#include "executor/gradient_graph.h"
#include "imperative/infer_storage_type.h"
#include "mxnet/imperative.h"

namespace mxnet {
namespace exec {

BindStorageTypes InferBindStorageTypes(const nnvm::Symbol& sym,
                                       const std::map<std::string, int>& given,
                                       const std::vector<uint32_t>& reqs, int dev_mask) {
  nnvm::IndexedGraph fwd(sym.outputs);
  std::vector<bool> want_grad(reqs.size());
  for (size_t i = 0; i < reqs.size(); ++i) want_grad[i] = reqs[i] != kGradNull;
  const TrainingGraph tg = BuildTrainingGraph(sym, fwd, want_grad);
  nnvm::IndexedGraph idx(tg.heads);
  std::vector<int> stypes(idx.num_node_entries(), kUndefinedStorage);
  auto entry_of = [&](uint32_t fwd_nid) { return idx.entry_id(idx.node_id(fwd[fwd_nid].source), 0); };
  for (uint32_t nid : fwd.arg_nodes()) {
    auto it = given.find(fwd[nid].source->attrs.name);
    if (it != given.end()) stypes[entry_of(nid)] = it->second;
  }
  imperative::InferStorageTypes(idx, dev_mask, &stypes);
  BindStorageTypes r;
  for (uint32_t nid : fwd.arg_nodes()) r.args.push_back(stypes[entry_of(nid)]);
  for (uint32_t nid : fwd.mutable_input_nodes()) r.aux.push_back(stypes[entry_of(nid)]);
  r.grads.assign(r.args.size(), kUndefinedStorage);
  for (size_t k = 0; k < tg.x_args.size(); ++k) {
    r.grads[tg.x_args[k]] = stypes[idx.entry_id(tg.heads[sym.outputs.size() + k])];
  }
  return r;
}

}  // namespace exec
}  // namespace mxnet
