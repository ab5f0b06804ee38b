// CachedOp: a symbol's graph run as one operator (hybridized blocks, MXCreateCachedOp).
#ifndef MXNET_IMPERATIVE_CACHED_OP_H_
#define MXNET_IMPERATIVE_CACHED_OP_H_

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "mxnet/imperative.h"
#include "nnvm/graph.h"
#include "nnvm/symbol.h"

namespace mxnet {

/*!
 * \brief A graph invoked like one operator. Its inputs are the symbol's variables in
 * list_inputs order, its visible outputs the symbol's outputs. Invoked under autograd it is
 * recorded as one "_CachedOp" node whose hidden outputs keep the forward values its
 * gradient graph (built once, with the Gradient pass) reads; backward is one
 * "_backward_CachedOp" node running that graph. Nodes run through Imperative::Invoke.
 */
class CachedOp : public std::enable_shared_from_this<CachedOp> {
 public:
  /*! \brief flags: MXNet's (static_alloc, static_shape, data_indices, ...), kept as given. */
  CachedOp(const nnvm::Symbol& sym, std::vector<std::pair<std::string, std::string>> flags);

  /*! \brief Run on inputs (one per list_inputs name); returns the visible outputs and
   *  records the call when autograd records. out (optional): arrays receiving them. */
  std::vector<NDArray> Invoke(const Context& default_ctx, const std::vector<NDArray*>& inputs,
                              const std::vector<NDArray*>& out = {});

  const nnvm::Symbol& symbol() const { return sym_; }
  const std::vector<std::pair<std::string, std::string>>& flags() const { return flags_; }
  uint32_t num_inputs() const { return static_cast<uint32_t>(input_entries_.size()); }
  uint32_t num_outputs() const { return static_cast<uint32_t>(sym_.outputs.size()); }
  /*! \brief Forward values kept for backward (hidden outputs of the recorded node). */
  uint32_t num_saved() const { return static_cast<uint32_t>(saved_entries_.size()); }
  /*! \brief Inputs the graph writes (auxiliary states such as BatchNorm's moving mean). */
  const std::vector<uint32_t>& mutable_inputs() const { return mutable_inputs_; }

  // The two operators' bodies (FNDArrayFunction of _CachedOp and _backward_CachedOp).
  void Forward(const std::vector<NDArray>& inputs, std::vector<NDArray>* outputs) const;
  // unused_grads (optional, one flag per input): gradients nobody reads, not computed.
  void Backward(const std::vector<NDArray>& inputs, const std::vector<bool>* unused_grads,
                std::vector<NDArray>* outputs) const;
  // The same, taking the inputs: each is reset to none here, and its value is dropped after
  // its last reader in the gradient graph (forward values then go back to the pool while
  // backward runs, where no one else holds them).
  void Backward(std::vector<NDArray>* inputs, const std::vector<bool>* unused_grads,
                std::vector<NDArray>* outputs) const;
  /*! \brief Shapes / dtypes of a _CachedOp node (all its outputs, hidden ones included). */
  bool InferShape(std::vector<TShape>* in, std::vector<TShape>* out) const;
  bool InferType(std::vector<int>* in, std::vector<int>* out) const;
  /*! \brief Storage types of a _CachedOp / _backward_CachedOp node (cached_op_storage.cc). */
  bool InferStorageType(int dev_mask, DispatchMode* mode, std::vector<int>* in,
                        std::vector<int>* out) const;
  bool InferBackwardStorageType(int dev_mask, DispatchMode* mode, const std::vector<int>& in,
                                std::vector<int>* out) const;

 private:
  // Runs nodes [begin, end). An entry already set when its node runs is the array that node
  // writes (an out= target). Each value is dropped after its last reader unless keep says so.
  // unused: per node, the outputs nobody reads (kNullOp); null runs every output with
  // autograd recording each op (inlining).
  // node_attrs (optional): the nodes' attrs to run with (default attrs_).
  void Run(uint32_t begin, uint32_t end, std::vector<NDArray>* entries,
           const std::vector<std::vector<bool>>* unused, const std::vector<bool>& keep,
           const std::vector<std::shared_ptr<const nnvm::NodeAttrs>>* node_attrs = nullptr) const;
  // Fills identity_ (cached_op_identity.cc).
  void FindIdentities(const nnvm::IndexedGraph& idx, const std::vector<bool>& is_output);
  // Outputs of node nid that are their input (FInplaceIdentity pairs in identity_) take the
  // input's array instead of a copy, where shapes, dtypes and storage allow: sets them in
  // entries and their flags in shared. Returns whether every output read was shared.
  bool ShareIdentities(uint32_t nid, const std::vector<bool>& unused,
                       std::vector<NDArray>* entries, std::vector<bool>* shared) const;
  // The per-node unused outputs of the backward range when unused_grads are not wanted
  // (cached for the last pattern asked).
  std::shared_ptr<const std::vector<std::vector<bool>>> UnusedInBackward(
      const std::vector<bool>& unused_grads) const;
  // Storage type of every entry from the inputs' (backward: head gradients, then inputs).
  std::vector<int> EntryStorageTypes(int dev_mask, const std::vector<int>& in,
                                     bool backward) const;
  template <typename T>
  bool InferAttr(std::vector<T>* in, std::vector<T>* out,
                 size_t (*pass)(const nnvm::IndexedGraph&, std::vector<T>*)) const;

  // Recording with few ops (inline_limit): the ops are recorded one by one, as if the
  // graph had run imperatively, instead of one _CachedOp node.
  std::vector<NDArray> InvokeInlined(const std::vector<NDArray*>& inputs) const;

  nnvm::Symbol sym_;
  std::vector<std::pair<std::string, std::string>> flags_;
  bool inlining_{false};  // not static_alloc and at most inline_limit ops
  std::vector<nnvm::NodeEntry> heads_;  // outputs, then the gradient of each input
  std::unique_ptr<nnvm::IndexedGraph> idx_;
  uint32_t num_forward_nodes_{0};
  bool has_backward_{false};
  std::string no_backward_reason_;
  std::vector<uint32_t> input_entries_, output_entries_, head_grad_entries_, grad_entries_;
  std::vector<uint32_t> saved_entries_, mutable_inputs_;
  std::vector<std::shared_ptr<const nnvm::NodeAttrs>> attrs_;
  // attrs_ with the blocked-layout marks (blocked_layout_pass.h) of a forward for inference /
  // of a forward keeping the values backward reads and that backward; null where nothing is
  // marked. Chosen when the graph is made, so a forward and its backward always agree.
  std::shared_ptr<const std::vector<std::shared_ptr<const nnvm::NodeAttrs>>> blocked_infer_,
      blocked_train_;
  std::vector<std::vector<bool>> unused_infer_, unused_train_;
  // Per entry: how many inputs of forward nodes / of backward nodes read it.
  std::vector<uint32_t> reads_fwd_, reads_bwd_;
  // Entries kept to the end: the outputs (inference); the outputs and saved values
  // (training); the input gradients (backward).
  std::vector<bool> keep_infer_, keep_train_, keep_backward_;
  mutable std::mutex plan_mu_;
  mutable std::vector<bool> plan_key_;
  mutable std::shared_ptr<const std::vector<std::vector<bool>>> plan_;
  // Per node: (input, output) pairs whose output may be the input's array itself; never an
  // output the caller sees (outputs, input gradients), one taking a graph input, nor a value
  // an operator writes (FMutateInputs, FWriteArguments).
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> identity_;
  std::vector<bool> grad_direct_;  // per input: its gradient node may write the caller's array
};

}  // namespace mxnet

#endif  // MXNET_IMPERATIVE_CACHED_OP_H_
