// CachedOp: building the forward + gradient graph of a symbol once, and the _CachedOp /
// _backward_CachedOp operators that run it node by node through Imperative::Invoke.
#include "imperative/cached_op.h"
#include "imperative/blocked_layout_pass.h"
#include "imperative/bulk_exec.h"
#include "imperative/fuse_bn_relu_pass.h"

#include <algorithm>
#include <optional>

#include <dmlc/logging.h>

#include <unordered_set>

#include "imperative/ndarray_function.h"
#include "mxnet/op_attr_types.h"
#include "nnvm/gradient.h"
#include "nnvm/mirror.h"
#include "nnvm/op.h"
#include "nnvm/pass.h"
#include "operator/subgraph/subgraph_property.h"

namespace mxnet {
namespace {

constexpr uint32_t kNoEntry = UINT32_MAX;

const CachedOp& State(const nnvm::NodeAttrs& attrs) {
  auto* p = std::any_cast<std::shared_ptr<CachedOp>>(&attrs.parsed);
  CHECK(p != nullptr && *p) << "Operator " << (attrs.op ? attrs.op->name : "_CachedOp")
                            << " can only be created from a symbol (mx.nd.CachedOp)";
  return **p;
}

bool HasState(const nnvm::NodeAttrs& attrs) {
  auto* p = std::any_cast<std::shared_ptr<CachedOp>>(&attrs.parsed);
  return p != nullptr && *p;
}

bool FlagIsTrue(const std::string& v) { return v == "True" || v == "true" || v == "1"; }

// Autograd off inside the graph: the recorded node is the CachedOp itself.
class NoRecordScope {
 public:
  NoRecordScope() : prev_(Imperative::Get()->set_is_recording(false)) {}
  ~NoRecordScope() { Imperative::Get()->set_is_recording(prev_); }

 private:
  bool prev_;
};

}  // namespace

CachedOp::CachedOp(const nnvm::Symbol& sym,
                   std::vector<std::pair<std::string, std::string>> flags)
    : sym_(sym), flags_(std::move(flags)) {
  CHECK(!sym_.outputs.empty()) << "CachedOp: the symbol has no outputs";
  // The graph run: sym_, or a copy with fused nodes (same variables, in the same order).
  const nnvm::Symbol run = imperative::FuseBatchNormReLU(sym_);
  nnvm::IndexedGraph fwd(run.outputs);
  num_forward_nodes_ = static_cast<uint32_t>(fwd.num_nodes());
  int64_t inline_limit = 2;
  bool static_alloc = false;
  for (const auto& kv : flags_) {
    if (kv.first == "static_alloc") static_alloc = FlagIsTrue(kv.second);
    if (kv.first != "inline_limit") continue;
    try {
      inline_limit = std::stoll(kv.second);
    } catch (const std::exception&) {
      LOG(FATAL) << "CachedOp: flag inline_limit expects an integer, given '" << kv.second << "'";
    }
  }
  inlining_ = !static_alloc && static_cast<int64_t>(fwd.num_nodes() - fwd.input_nodes().size()) <=
                                   inline_limit;
  heads_ = run.outputs;
  std::vector<nnvm::NodeEntry> xs, head_grads;
  for (uint32_t nid : fwd.input_nodes()) xs.emplace_back(fwd.node_ptr(nid), 0, 0);
  for (size_t i = 0; i < sym_.outputs.size(); ++i) {
    head_grads.emplace_back(nnvm::CreateVariableNode("head_grad" + std::to_string(i)), 0, 0);
  }
  // The gradient graph, unless some op on the way cannot be differentiated: then the op
  // still runs forward, and backward raises that error.
  try {
    std::vector<nnvm::NodeEntry> grads = nnvm::Gradient(run.outputs, xs, head_grads);
    nnvm::MirrorBackward(run.outputs, &grads);  // MXNET_BACKWARD_DO_MIRROR
    heads_.insert(heads_.end(), grads.begin(), grads.end());
    has_backward_ = true;
  } catch (const dmlc::Error& e) {
    no_backward_reason_ = e.what();
  }
  idx_ = std::make_unique<nnvm::IndexedGraph>(heads_);
  const nnvm::IndexedGraph& idx = *idx_;
  std::unordered_set<uint32_t> mutated(fwd.mutable_input_nodes().begin(),
                                       fwd.mutable_input_nodes().end());
  for (size_t i = 0; i < fwd.input_nodes().size(); ++i) {
    uint32_t nid = fwd.input_nodes()[i];
    input_entries_.push_back(idx.entry_id(idx.node_id(fwd[nid].source), 0));
    if (mutated.count(nid)) mutable_inputs_.push_back(static_cast<uint32_t>(i));
  }
  for (const nnvm::NodeEntry& o : run.outputs) output_entries_.push_back(idx.entry_id(o));
  const size_t n_entries = idx.num_node_entries();
  std::vector<bool> read_fwd(n_entries, false), read_bwd(n_entries, false);
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    for (const auto& in : idx[nid].inputs) {
      (nid < num_forward_nodes_ ? read_fwd : read_bwd)[idx.entry_id(in)] = true;
    }
  }
  if (has_backward_) {
    for (size_t i = 0; i < head_grads.size(); ++i) {
      head_grad_entries_.push_back(idx.exist(head_grads[i].node.get()) ? idx.entry_id(head_grads[i])
                                                                     : kNoEntry);
    }
    for (size_t i = sym_.outputs.size(); i < heads_.size(); ++i) {
      uint32_t e = idx.entry_id(heads_[i]);
      grad_entries_.push_back(e);
      read_bwd[e] = true;
    }
    // Forward values backward reads (variables excepted: they are the inputs).
    for (uint32_t nid = 0; nid < num_forward_nodes_; ++nid) {
      if (idx[nid].source->is_variable()) continue;
      for (uint32_t i = 0; i < idx[nid].source->num_outputs(); ++i) {
        if (read_bwd[idx.entry_id(nid, i)]) saved_entries_.push_back(idx.entry_id(nid, i));
      }
    }
  }
  std::vector<bool> is_output(n_entries, false), is_saved(n_entries, false);
  for (uint32_t e : output_entries_) is_output[e] = true;
  for (uint32_t e : saved_entries_) is_saved[e] = true;
  reads_fwd_.assign(n_entries, 0);
  reads_bwd_.assign(n_entries, 0);
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    for (const auto& in : idx[nid].inputs) {
      ++(nid < num_forward_nodes_ ? reads_fwd_ : reads_bwd_)[idx.entry_id(in)];
    }
  }
  keep_infer_ = is_output;
  keep_train_ = is_output;
  for (uint32_t e : saved_entries_) keep_train_[e] = true;
  keep_backward_.assign(n_entries, false);
  std::vector<uint32_t> grad_uses(n_entries, 0);
  for (uint32_t e : grad_entries_) {
    keep_backward_[e] = true;
    ++grad_uses[e];
  }
  // A gradient computed by a backward node, read by nothing else and the gradient of one
  // input only, can be written straight into an array the caller gives.
  std::vector<bool> computed_in_backward(n_entries, false);
  for (uint32_t nid = num_forward_nodes_; nid < idx.num_nodes(); ++nid) {
    if (idx[nid].source->is_variable()) continue;
    for (uint32_t i = 0; i < idx[nid].source->num_outputs(); ++i) {
      computed_in_backward[idx.entry_id(nid, i)] = true;
    }
  }
  for (uint32_t e : grad_entries_) {
    grad_direct_.push_back(computed_in_backward[e] && grad_uses[e] == 1 && reads_bwd_[e] == 0);
  }
  FindIdentities(idx, is_output);
  attrs_.resize(idx.num_nodes());
  unused_infer_.resize(idx.num_nodes());
  unused_train_.resize(idx.num_nodes());
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    const nnvm::Node& n = *idx[nid].source;
    if (n.is_variable()) continue;
    attrs_[nid] = std::make_shared<const nnvm::NodeAttrs>(n.attrs);
    uint32_t n_out = n.num_outputs();
    unused_infer_[nid].assign(n_out, false);
    unused_train_[nid].assign(n_out, false);
    for (uint32_t i = 0; i < n_out; ++i) {
      uint32_t e = idx.entry_id(nid, i);
      if (nid < num_forward_nodes_) {
        unused_infer_[nid][i] = !read_fwd[e] && !is_output[e];
        unused_train_[nid][i] = !read_fwd[e] && !is_output[e] && !is_saved[e];
      } else {
        unused_train_[nid][i] = !read_bwd[e];
      }
    }
  }
  if (imperative::BlockedLayoutsWanted()) {
    blocked_infer_ = imperative::MarkBlockedLayouts(idx, 0, num_forward_nodes_, attrs_, is_output);
    // Training marks forward and backward together: the values backward reads pass between
    // them as hidden outputs only the two see. The gradients of the inputs are the caller's.
    std::vector<bool> seen(is_output);
    for (uint32_t e : grad_entries_) seen[e] = true;
    blocked_train_ = imperative::MarkBlockedLayouts(idx, 0, static_cast<uint32_t>(idx.num_nodes()),
                                                    attrs_, seen);
  }
}

void CachedOp::Run(uint32_t begin, uint32_t end, std::vector<NDArray>* entries,
                   const std::vector<std::vector<bool>>* unused,
                   const std::vector<bool>& keep,
                   const std::vector<std::shared_ptr<const nnvm::NodeAttrs>>* node_attrs) const {
  const nnvm::IndexedGraph& idx = *idx_;
  const auto& run_attrs = node_attrs != nullptr ? *node_attrs : attrs_;
  Context ctx = Context::CPU();
  for (uint32_t e : input_entries_) {
    if (!(*entries)[e].is_none()) {
      ctx = (*entries)[e].ctx();
      break;
    }
  }
  // Unless inlined (unused null: each op is recorded, and autograd may read any output),
  // the recorded node is the CachedOp itself.
  std::optional<NoRecordScope> no_record;
  if (unused != nullptr) no_record.emplace();
  std::vector<NDArray> ins, outs;
  std::vector<NDArray*> in_ptrs;
  std::vector<bool> shared, unused_left;
  std::vector<uint32_t> reads_left = begin < num_forward_nodes_ ? reads_fwd_ : reads_bwd_;
  // The ops go to the engine in bulks (MXNET_EXEC_BULK_EXEC_*, bulk_exec.h).
  imperative::BulkScope bulk(imperative::CachedOpBulkSize(
      flags_, begin >= num_forward_nodes_, unused == &unused_infer_, end - begin, ctx));
  for (uint32_t nid = begin; nid < end; ++nid) {
    const auto& inode = idx[nid];
    if (inode.source->is_variable()) continue;
    // A backward node none of whose outputs is read does no work (forward nodes may still
    // update state, as BatchNorm's moving statistics).
    if (unused != nullptr && nid >= num_forward_nodes_ &&
        std::all_of((*unused)[nid].begin(), (*unused)[nid].end(), [](bool u) { return u; })) {
      for (const auto& in : inode.inputs) --reads_left[idx.entry_id(in)];
      continue;
    }
    ins.clear();
    in_ptrs.clear();
    for (const auto& e : inode.inputs) {
      const NDArray& a = (*entries)[idx.entry_id(e)];
      CHECK(!a.is_none()) << "CachedOp: node " << inode.source->attrs.name << " reads an entry "
                          << "that was not computed";
      ins.push_back(a);
    }
    for (NDArray& a : ins) in_ptrs.push_back(&a);
    const uint32_t n_out = inode.source->num_outputs();
    const std::vector<bool>* node_unused = unused != nullptr ? &(*unused)[nid] : nullptr;
    // Identity outputs take their input's array (cached_op_identity.cc); the op runs for the
    // other outputs, if any is read.
    shared.clear();
    bool all_shared = false;
    if (node_unused != nullptr && !identity_[nid].empty()) {
      all_shared = ShareIdentities(nid, *node_unused, entries, &shared);
      if (std::find(shared.begin(), shared.end(), true) == shared.end()) {
        shared.clear();
      } else {
        unused_left = *node_unused;
        for (uint32_t i = 0; i < n_out; ++i) unused_left[i] = unused_left[i] || shared[i];
        node_unused = &unused_left;
      }
    }
    auto is_shared = [&](uint32_t i) { return !shared.empty() && shared[i]; };
    if (!all_shared) {
      outs.clear();
      for (uint32_t i = 0; i < n_out; ++i) {
        if (!is_shared(i) && !(*entries)[idx.entry_id(nid, i)].is_none()) {
          for (uint32_t j = 0; j < n_out; ++j) {
            outs.push_back(is_shared(j) ? NDArray() : (*entries)[idx.entry_id(nid, j)]);
          }
          break;
        }
      }
      Imperative::Get()->Invoke(ctx, run_attrs[nid], in_ptrs, &outs, node_unused);
      for (uint32_t i = 0; i < outs.size(); ++i) {
        if (!is_shared(i)) (*entries)[idx.entry_id(nid, i)] = outs[i];
      }
    }
    ins.clear();
    for (const auto& in : inode.inputs) {
      uint32_t e = idx.entry_id(in);
      if (--reads_left[e] == 0 && !keep[e]) (*entries)[e] = NDArray();
    }
  }
}

void CachedOp::Forward(const std::vector<NDArray>& inputs, std::vector<NDArray>* outputs) const {
  CHECK_EQ(inputs.size(), input_entries_.size())
      << "CachedOp: " << input_entries_.size() << " inputs expected, given " << inputs.size();
  // Recording, or training in an executor (which runs backward without recording): keep
  // what backward reads (hidden outputs of the node).
  const bool save = has_backward_ && (Imperative::Get()->is_recording() ||
                                      Imperative::Get()->is_training());
  std::vector<NDArray> entries(idx_->num_node_entries());
  for (size_t i = 0; i < inputs.size(); ++i) entries[input_entries_[i]] = inputs[i];
  Run(0, num_forward_nodes_, &entries, save ? &unused_train_ : &unused_infer_,
      save ? keep_train_ : keep_infer_, (save ? blocked_train_ : blocked_infer_).get());
  outputs->clear();
  for (uint32_t e : output_entries_) outputs->push_back(entries[e]);
  for (uint32_t e : saved_entries_) outputs->push_back(save ? entries[e] : NDArray());
}

std::shared_ptr<const std::vector<std::vector<bool>>> CachedOp::UnusedInBackward(
    const std::vector<bool>& unused_grads) const {
  std::lock_guard<std::mutex> lock(plan_mu_);
  if (plan_ && plan_key_ == unused_grads) return plan_;
  const nnvm::IndexedGraph& idx = *idx_;
  std::vector<bool> needed(idx.num_node_entries(), false);
  for (size_t i = 0; i < grad_entries_.size(); ++i) {
    if (!unused_grads[i]) needed[grad_entries_[i]] = true;
  }
  auto unused = std::make_shared<std::vector<std::vector<bool>>>(unused_train_);
  for (uint32_t nid = static_cast<uint32_t>(idx.num_nodes()); nid-- > num_forward_nodes_;) {
    const nnvm::Node& n = *idx[nid].source;
    if (n.is_variable()) continue;
    bool any = false;
    for (uint32_t i = 0; i < n.num_outputs(); ++i) {
      const bool read = needed[idx.entry_id(nid, i)];
      (*unused)[nid][i] = !read;
      any = any || read;
    }
    if (!any) continue;
    for (const auto& in : idx[nid].inputs) needed[idx.entry_id(in)] = true;
  }
  plan_key_ = unused_grads;
  plan_ = unused;
  return plan_;
}

void CachedOp::Backward(const std::vector<NDArray>& inputs, const std::vector<bool>* unused_grads,
                        std::vector<NDArray>* outputs) const {
  std::vector<NDArray> taken(inputs);
  Backward(&taken, unused_grads, outputs);
}

void CachedOp::Backward(std::vector<NDArray>* taken, const std::vector<bool>* unused_grads,
                        std::vector<NDArray>* outputs) const {
  CHECK(has_backward_) << "CachedOp: the graph cannot be differentiated: " << no_backward_reason_;
  std::vector<NDArray>& inputs = *taken;
  const size_t n_out = output_entries_.size(), n_in = input_entries_.size();
  CHECK_EQ(inputs.size(), n_out + n_in + saved_entries_.size())
      << "_backward_CachedOp: wrong number of inputs";
  for (size_t i = 0; i < saved_entries_.size(); ++i) {
    CHECK(!inputs[n_out + n_in + i].is_none())
        << "CachedOp: backward needs the forward values, which were not kept (the forward ran "
        << "without autograd recording)";
  }
  std::vector<NDArray> entries(idx_->num_node_entries());
  auto take = [&inputs](size_t i) {
    NDArray a = inputs[i];
    inputs[i] = NDArray();
    return a;
  };
  for (size_t i = 0; i < n_out; ++i) {
    NDArray g = take(i);
    if (head_grad_entries_[i] != kNoEntry) entries[head_grad_entries_[i]] = g;
  }
  for (size_t i = 0; i < n_in; ++i) entries[input_entries_[i]] = take(n_out + i);
  for (size_t i = 0; i < saved_entries_.size(); ++i) {
    entries[saved_entries_[i]] = take(n_out + n_in + i);
  }
  // The caller's arrays for the gradients (see FNDArrayFunction), where a node can write them.
  if (outputs->size() == grad_entries_.size()) {
    for (size_t i = 0; i < grad_entries_.size(); ++i) {
      if (grad_direct_[i] && !(*outputs)[i].is_none()) entries[grad_entries_[i]] = (*outputs)[i];
    }
  }
  // Gradients nobody reads (inputs such as data that need none): neither they nor what only
  // they need are computed.
  std::shared_ptr<const std::vector<std::vector<bool>>> plan;
  if (unused_grads != nullptr && unused_grads->size() == grad_entries_.size() &&
      std::any_of(unused_grads->begin(), unused_grads->end(), [](bool u) { return u; })) {
    plan = UnusedInBackward(*unused_grads);
  }
  Run(num_forward_nodes_, static_cast<uint32_t>(idx_->num_nodes()), &entries,
      plan ? plan.get() : &unused_train_, keep_backward_, blocked_train_.get());
  outputs->clear();
  for (uint32_t e : grad_entries_) outputs->push_back(entries[e]);
}

template <typename T>
bool CachedOp::InferAttr(std::vector<T>* in, std::vector<T>* out,
                         size_t (*pass)(const nnvm::IndexedGraph&, std::vector<T>*)) const {
  const nnvm::IndexedGraph& idx = *idx_;
  std::vector<T> attrs(idx.num_node_entries(), T());
  if constexpr (std::is_same<T, int>::value) attrs.assign(attrs.size(), -1);
  for (size_t i = 0; i < input_entries_.size(); ++i) attrs[input_entries_[i]] = (*in)[i];
  for (size_t i = 0; i < output_entries_.size() && i < out->size(); ++i) {
    attrs[output_entries_[i]] = (*out)[i];
  }
  pass(idx, &attrs);
  for (size_t i = 0; i < head_grad_entries_.size(); ++i) {
    if (head_grad_entries_[i] != kNoEntry) attrs[head_grad_entries_[i]] = attrs[output_entries_[i]];
  }
  pass(idx, &attrs);
  bool known = true;
  auto set = [&](T* slot, const T& v) {
    *slot = v;
    if constexpr (std::is_same<T, int>::value) known = known && v >= 0;
    else known = known && v.IsKnown();
  };
  for (size_t i = 0; i < input_entries_.size(); ++i) set(&(*in)[i], attrs[input_entries_[i]]);
  out->resize(output_entries_.size() + saved_entries_.size());
  for (size_t i = 0; i < output_entries_.size(); ++i) set(&(*out)[i], attrs[output_entries_[i]]);
  for (size_t i = 0; i < saved_entries_.size(); ++i) {
    set(&(*out)[output_entries_.size() + i], attrs[saved_entries_[i]]);
  }
  return known;
}

bool CachedOp::InferShape(std::vector<TShape>* in, std::vector<TShape>* out) const {
  return InferAttr<TShape>(in, out, &nnvm::InferShape);
}

bool CachedOp::InferType(std::vector<int>* in, std::vector<int>* out) const {
  return InferAttr<int>(in, out, &nnvm::InferType);
}

std::vector<NDArray> CachedOp::InvokeInlined(const std::vector<NDArray*>& inputs) const {
  std::vector<NDArray> entries(idx_->num_node_entries());
  for (size_t i = 0; i < inputs.size(); ++i) entries[input_entries_[i]] = *inputs[i];
  Run(0, num_forward_nodes_, &entries, nullptr, keep_infer_);
  std::vector<NDArray> result;
  for (uint32_t e : output_entries_) result.push_back(entries[e]);
  return result;
}

std::vector<NDArray> CachedOp::Invoke(const Context& default_ctx,
                                      const std::vector<NDArray*>& inputs,
                                      const std::vector<NDArray*>& out) {
  static const nnvm::Op* op = nnvm::Op::GetOrThrow("_CachedOp");
  CHECK_EQ(inputs.size(), num_inputs())
      << "CachedOp: " << num_inputs() << " inputs expected (the symbol's list_inputs), given "
      << inputs.size();
  if (inlining_ && out.empty() && Imperative::Get()->is_recording()) {
    return InvokeInlined(inputs);
  }
  auto attrs = std::make_shared<nnvm::NodeAttrs>();
  attrs->op = op;
  attrs->name = "_cachedop";
  attrs->parsed = shared_from_this();
  return Imperative::Get()->InvokeOp(default_ctx, attrs, inputs, out);
}

NNVM_REGISTER_OP(_CachedOp)
    .describe("A symbol's graph run as one operator (mx.nd.CachedOp, hybridized blocks).")
    .set_attr_parser(op::ParseCachedOpSubgraph)
    .add_argument("data", "NDArray-or-Symbol[]", "the inputs, in the subgraph's list_inputs order")
    .add_argument("subgraph", "string", "the graph to run, as symbol JSON")
    .set_num_inputs([](const nnvm::NodeAttrs& a) { return HasState(a) ? State(a).num_inputs() : 0u; })
    .set_num_outputs([](const nnvm::NodeAttrs& a) {
      return HasState(a) ? State(a).num_outputs() + State(a).num_saved() : 0u;
    })
    .set_attr<FNumVisibleOutputs>("FNumVisibleOutputs",
                                  [](const nnvm::NodeAttrs& a) {
                                    return HasState(a) ? State(a).num_outputs() : 0u;
                                  })
    .set_attr<FMutateInputs>("FMutateInputs",
                             [](const nnvm::NodeAttrs& a) {
                               return HasState(a) ? State(a).mutable_inputs()
                                                  : std::vector<uint32_t>();
                             })
    .set_attr<FInferShape>("FInferShape",
                           [](const nnvm::NodeAttrs& a, std::vector<TShape>* in,
                              std::vector<TShape>* out) { return State(a).InferShape(in, out); })
    .set_attr<FInferType>("FInferType",
                          [](const nnvm::NodeAttrs& a, std::vector<int>* in,
                             std::vector<int>* out) { return State(a).InferType(in, out); })
    .set_attr<FInferStorageType>("FInferStorageType",
                                 [](const nnvm::NodeAttrs& a, int dev_mask, DispatchMode* mode,
                                    std::vector<int>* in, std::vector<int>* out) {
                                   return State(a).InferStorageType(dev_mask, mode, in, out);
                                 })
    .set_attr<FNDArrayFunction>("FNDArrayFunction",
                                [](const nnvm::NodeAttrs& a, const std::vector<NDArray>& in,
                                   std::vector<NDArray>* out) { State(a).Forward(in, out); })
    .set_attr<FGradient>(
        "FGradient",
        [](const nnvm::ObjectPtr& n, const std::vector<nnvm::NodeEntry>& ograds) {
          static const nnvm::Op* bwd_op = nnvm::Op::GetOrThrow("_backward_CachedOp");
          const CachedOp& s = State(n->attrs);
          nnvm::ObjectPtr bwd = nnvm::Node::Create();
          bwd->attrs.op = bwd_op;
          bwd->attrs.name = n->attrs.name + "_backward";
          bwd->attrs.parsed = n->attrs.parsed;
          for (uint32_t i = 0; i < s.num_outputs(); ++i) bwd->inputs.push_back(ograds[i]);
          for (const nnvm::NodeEntry& e : n->inputs) bwd->inputs.push_back(e);
          for (uint32_t i = 0; i < s.num_saved(); ++i) {
            bwd->inputs.emplace_back(n, s.num_outputs() + i, 0);
          }
          std::vector<nnvm::NodeEntry> grads;
          for (uint32_t i = 0; i < s.num_inputs(); ++i) grads.emplace_back(bwd, i, 0);
          return grads;
        });

// _backward_CachedOp in an executor's graph: each input's gradient has that input's shape
// and dtype (its inputs are the head gradients, then the forward inputs, then saved values).
template <typename T>
bool InferLikeForwardInputs(const nnvm::NodeAttrs& a, std::vector<T>* in, std::vector<T>* out) {
  const CachedOp& s = State(a);
  bool known = true;
  for (uint32_t i = 0; i < s.num_inputs(); ++i) {
    (*out)[i] = (*in)[s.num_outputs() + i];
    if constexpr (std::is_same<T, int>::value) known = known && (*out)[i] >= 0;
    else known = known && (*out)[i].IsKnown();
  }
  return known;
}

NNVM_REGISTER_OP(_backward_CachedOp)
    .describe("Backward of _CachedOp: runs the gradient graph of its symbol.")
    .set_num_inputs([](const nnvm::NodeAttrs& a) {
      return HasState(a) ? State(a).num_outputs() + State(a).num_inputs() + State(a).num_saved()
                         : 0u;
    })
    .set_num_outputs([](const nnvm::NodeAttrs& a) { return HasState(a) ? State(a).num_inputs() : 0u; })
    .set_attr<FInferShape>("FInferShape", InferLikeForwardInputs<TShape>)
    .set_attr<FInferType>("FInferType", InferLikeForwardInputs<int>)
    .set_attr<FInferStorageType>("FInferStorageType",
                                 [](const nnvm::NodeAttrs& a, int dev_mask, DispatchMode* mode,
                                    std::vector<int>* in, std::vector<int>* out) {
                                   return State(a).InferBackwardStorageType(dev_mask, mode, *in,
                                                                            out);
                                 })
    .set_attr<FNDArrayFunctionTake>(
        "FNDArrayFunctionTake",
        [](const nnvm::NodeAttrs& a, std::vector<NDArray>* in, const std::vector<bool>* unused,
           std::vector<NDArray>* out) { State(a).Backward(in, unused, out); });

}  // namespace mxnet
