// Identity outputs in a CachedOp run: an output its op declares equal to an input
// (FInplaceIdentity, as elemwise_add's gradient or _copy) takes the input's array itself, as
// MXNet 1.9.1's memory plan shares their storage, instead of a copy being made.
#include "common/env.h"
#include "imperative/cached_op.h"
#include "mxnet/op_attr_types.h"
#include "nnvm/op.h"
#include "operator/inplace_identity.h"

namespace mxnet {

void CachedOp::FindIdentities(const nnvm::IndexedGraph& idx, const std::vector<bool>& is_output) {
  static const auto& finplace = nnvm::Op::GetAttr<FInplaceOption>("FInplaceOption");
  static const auto& fidentity = nnvm::Op::GetAttr<FInplaceIdentity>("FInplaceIdentity");
  static const auto& fmutate = nnvm::Op::GetAttr<FMutateInputs>("FMutateInputs");
  static const auto& fwrite = nnvm::Op::GetAttr<FWriteArguments>("FWriteArguments");
  identity_.assign(idx.num_nodes(), {});
  if (!env::GetBool("MXNET_EXEC_ENABLE_INPLACE")) return;
  // Arrays the caller gives or gets may not be shared: they can be changed afterwards; nor
  // values an operator writes (a shared one would change the other's readers' value too).
  std::vector<bool> visible(is_output);
  for (uint32_t e : grad_entries_) visible[e] = true;
  for (uint32_t e : input_entries_) visible[e] = true;
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    const nnvm::Node& n = *idx[nid].source;
    if (n.is_variable()) continue;
    std::vector<uint32_t> written;
    if (fmutate.contains(n.op())) written = fmutate[n.op()](n.attrs);
    if (fwrite.contains(n.op())) {
      for (uint32_t i : fwrite[n.op()](n.attrs)) written.push_back(i);
    }
    for (uint32_t i : written) {
      if (i < n.inputs.size()) visible[idx.entry_id(n.inputs[i])] = true;
    }
  }
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    const nnvm::Node& n = *idx[nid].source;
    if (n.is_variable() || !finplace.contains(n.op()) || !fidentity.contains(n.op())) continue;
    const auto pairs = finplace[n.op()](n.attrs);
    const std::vector<bool> same = fidentity[n.op()](n.attrs);
    for (size_t k = 0; k < pairs.size() && k < same.size(); ++k) {
      const int in = pairs[k].first, out = pairs[k].second;
      if (!same[k] || in < 0 || in >= static_cast<int>(n.inputs.size()) || out < 0 ||
          out >= static_cast<int>(n.num_outputs())) {
        continue;
      }
      if (visible[idx.entry_id(nid, out)] || visible[idx.entry_id(n.inputs[in])]) continue;
      identity_[nid].emplace_back(in, out);
    }
  }
}

bool CachedOp::ShareIdentities(uint32_t nid, const std::vector<bool>& unused,
                               std::vector<NDArray>* entries, std::vector<bool>* shared) const {
  static const auto& finfer_shape = nnvm::Op::GetAttr<mxnet::FInferShape>("FInferShape");
  static const auto& finfer_type = nnvm::Op::GetAttr<mxnet::FInferType>("FInferType");
  const nnvm::IndexedGraph& idx = *idx_;
  const auto& inode = idx[nid];
  const nnvm::Op* op = inode.source->op();
  const uint32_t n_out = inode.source->num_outputs();
  shared->assign(n_out, false);
  if (!finfer_shape.contains(op) || !finfer_type.contains(op)) return false;
  // The output's shape and dtype as the op infers them: a shared array must have both.
  std::vector<TShape> in_shapes, out_shapes(n_out);
  std::vector<int> in_types, out_types(n_out, -1);
  for (const auto& e : inode.inputs) {
    const NDArray& a = (*entries)[idx.entry_id(e)];
    in_shapes.push_back(a.shape());
    in_types.push_back(a.dtype());
  }
  if (!finfer_shape[op](inode.source->attrs, &in_shapes, &out_shapes) ||
      !finfer_type[op](inode.source->attrs, &in_types, &out_types)) {
    return false;
  }
  for (const auto& p : identity_[nid]) {
    NDArray& out = (*entries)[idx.entry_id(nid, p.second)];
    const NDArray& in = (*entries)[idx.entry_id(inode.inputs[p.first])];
    if (unused[p.second] || !out.is_none() || in.storage_type() != kDefaultStorage ||
        out_shapes[p.second] != in.shape() || out_types[p.second] != in.dtype()) {
      continue;
    }
    out = in;
    (*shared)[p.second] = true;
  }
  for (uint32_t i = 0; i < n_out; ++i) {
    if (!unused[i] && !(*shared)[i]) return false;
  }
  return true;
}

}  // namespace mxnet
