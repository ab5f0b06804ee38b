// Storage types of a CachedOp's outputs and gradients (FInferStorageType of _CachedOp and
// _backward_CachedOp): the graph storage-type pass over its forward + gradient graph, so a
// CachedOp node inside a bound graph gets the storage types its nodes will produce.
#include "imperative/cached_op.h"
#include "imperative/infer_storage_type.h"

namespace mxnet {

std::vector<int> CachedOp::EntryStorageTypes(int dev_mask, const std::vector<int>& in,
                                             bool backward) const {
  const size_t n_out = output_entries_.size(), n_in = input_entries_.size();
  const size_t first_input = backward ? n_out : 0;
  std::vector<int> st(idx_->num_node_entries(), kUndefinedStorage);
  for (size_t i = 0; i < n_in && first_input + i < in.size(); ++i) {
    st[input_entries_[i]] = in[first_input + i];
  }
  for (size_t i = 0; backward && i < head_grad_entries_.size() && i < in.size(); ++i) {
    if (head_grad_entries_[i] != UINT32_MAX) st[head_grad_entries_[i]] = in[i];
  }
  imperative::InferStorageTypes(*idx_, dev_mask, &st);
  return st;
}

bool CachedOp::InferStorageType(int dev_mask, DispatchMode* mode, std::vector<int>* in,
                                std::vector<int>* out) const {
  const std::vector<int> st = EntryStorageTypes(dev_mask, *in, false);
  for (size_t i = 0; i < input_entries_.size(); ++i) (*in)[i] = st[input_entries_[i]];
  out->resize(output_entries_.size() + saved_entries_.size(), kUndefinedStorage);
  // Outputs given a storage type (bound arrays) keep it: the result is converted into them.
  for (size_t i = 0; i < output_entries_.size(); ++i) {
    if ((*out)[i] == kUndefinedStorage) (*out)[i] = st[output_entries_[i]];
  }
  for (size_t i = 0; i < saved_entries_.size(); ++i) {
    int& s = (*out)[output_entries_.size() + i];
    if (s == kUndefinedStorage) s = st[saved_entries_[i]];
  }
  *mode = DispatchMode::kFComputeEx;  // runs as FNDArrayFunction: any storage types
  return true;
}

bool CachedOp::InferBackwardStorageType(int dev_mask, DispatchMode* mode,
                                        const std::vector<int>& in,
                                        std::vector<int>* out) const {
  out->resize(input_entries_.size(), kUndefinedStorage);
  if (has_backward_) {
    const std::vector<int> st = EntryStorageTypes(dev_mask, in, true);
    for (size_t i = 0; i < grad_entries_.size(); ++i) {
      if ((*out)[i] == kUndefinedStorage) (*out)[i] = st[grad_entries_[i]];
    }
  }
  for (int& s : *out) {
    if (s == kUndefinedStorage) s = kDefaultStorage;
  }
  *mode = DispatchMode::kFComputeEx;
  return true;
}

}  // namespace mxnet
