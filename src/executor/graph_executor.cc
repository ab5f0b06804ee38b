// Executor: binding a symbol's forward and gradient graph to arrays, and running it.
#include "mxnet/executor.h"

#include <dmlc/logging.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "common/env.h"
#include "executor/eliminate_common_expr.h"
#include "executor/gradient_graph.h"
#include "executor/place_device.h"
#include "executor/plan_memory.h"
#include "executor/temp_space.h"
#include "imperative/bulk_exec.h"
#include "imperative/infer_storage_type.h"
#include "imperative/op_resource.h"
#include "nnvm/graph.h"
#include "nnvm/graph_json.h"
#include "nnvm/op.h"
#include "nnvm/pass.h"
#include "operator/subgraph/subgraph_property.h"

namespace mxnet {
namespace {

constexpr uint32_t kNoEntry = UINT32_MAX;

// Recording off (the executor's nodes are not autograd's) and the training flag set, for
// the duration of a run.
class RunModeScope {
 public:
  explicit RunModeScope(bool is_train)
      : recording_(Imperative::Get()->set_is_recording(false)),
        training_(Imperative::Get()->set_is_training(is_train)) {}
  ~RunModeScope() {
    Imperative::Get()->set_is_recording(recording_);
    Imperative::Get()->set_is_training(training_);
  }

 private:
  bool recording_, training_;
};

std::string Names(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// As MXNet 1.9.1 names them: outputs as list_outputs does ("<node>_output"), inputs
// "<node>_<FListInputNames name>", else "<node>_input<i>".
std::vector<std::string> MonitorNames(const nnvm::Node& n, bool inputs) {
  static const auto& flist_in = nnvm::Op::GetAttr<FListInputNames>("FListInputNames");
  std::vector<std::string> names;
  if (!inputs) {
    for (uint32_t i = 0; i < n.num_outputs(); ++i) names.push_back(nnvm::OutputName(n, i));
    return names;
  }
  if (flist_in.contains(n.op())) names = flist_in[n.op()](n.attrs);
  for (size_t i = names.size(); i < n.inputs.size(); ++i) names.push_back("input" + std::to_string(i));
  names.resize(n.inputs.size());
  for (std::string& s : names) s = n.attrs.name + "_" + s;
  return names;
}

}  // namespace

struct Executor::Plan {
  std::vector<nnvm::NodeEntry> heads;  // forward outputs, then argument gradients
  std::unique_ptr<nnvm::IndexedGraph> idx;
  uint32_t num_forward_nodes{0};
  std::vector<TShape> shapes;
  std::vector<int> dtypes;
  std::vector<int> stypes;       // storage type of each entry (imperative::InferStorageTypes)
  std::vector<NDArray> entries;  // the array of each entry
  std::vector<Context> node_ctx; // per node: the context it runs on (group2ctx)
  std::vector<Resource> temp;    // per node: its temp space (space null: none asked)
  std::vector<std::shared_ptr<const nnvm::NodeAttrs>> attrs;  // per op node
  std::vector<std::vector<bool>> unused;                     // per node: outputs nobody reads
  std::vector<uint32_t> head_grad_entry;  // per output: its head-gradient entry, or kNoEntry
  struct GradOut {
    uint32_t entry;
    size_t arg;
    uint32_t req;
  };
  std::vector<GradOut> grad_outs;  // gradients handed to arg_grads after backward
  size_t total_bytes{0};           // memory the executor allocated itself
};

Executor::~Executor() = default;

// Entries left without an array get views of planned storage blocks (exec::PlanStorage).
// Blocks are arrays, so the engine orders the uses of one block like any other array.
void Executor::PlanMemory(const nnvm::IndexedGraph& idx, const std::vector<bool>& is_output,
                          Plan* plan) {
  const size_t n_entries = idx.num_node_entries();
  std::vector<bool> pinned = is_output, given(n_entries, false);
  for (const auto& h : idx.outputs()) pinned[idx.entry_id(h)] = true;
  // Forward values backward reads stay intact through backward, so that backward may run
  // again after one forward (grad_req add accumulating twice, say).
  for (uint32_t nid = plan->num_forward_nodes; nid < idx.num_nodes(); ++nid) {
    for (const auto& in : idx[nid].inputs) {
      if (in.node_id < plan->num_forward_nodes) pinned[idx.entry_id(in)] = true;
    }
  }
  std::vector<size_t> bytes(n_entries, 0);
  for (uint32_t e = 0; e < n_entries; ++e) {
    given[e] = !plan->entries[e].is_none();
    bytes[e] = plan->shapes[e].Size() * DTypeSize(plan->dtypes[e]);
  }
  // Devices: the distinct contexts the nodes run on.
  std::vector<Context> devices;
  std::vector<int> node_device(idx.num_nodes());
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    auto it = std::find(devices.begin(), devices.end(), plan->node_ctx[nid]);
    node_device[nid] = static_cast<int>(it - devices.begin());
    if (it == devices.end()) devices.push_back(plan->node_ctx[nid]);
  }
  const exec::StoragePlan sp = exec::PlanStorage(
      idx, bytes, given, pinned, exec::StoragePlanOptions::FromEnv(), plan->dtypes, node_device,
      is_output);
  std::vector<NDArray> blocks(sp.bytes.size());
  plan->total_bytes = 0;
  for (size_t b = 0; b < blocks.size(); ++b) {
    const size_t elems = (sp.bytes[b] + 3) / 4;
    blocks[b] = NDArray(TShape({static_cast<dim_t>(elems)}), devices[sp.device[b]], true, kFloat32);
    plan->total_bytes += elems * 4;
  }
  for (uint32_t e = 0; e < n_entries; ++e) {
    if (sp.block[e] >= 0) plan->entries[e] = blocks[sp.block[e]].AsArray(plan->shapes[e], plan->dtypes[e]);
  }
}

std::unique_ptr<Executor> Executor::Bind(const nnvm::Symbol& given, const Context& ctx,
                                         const std::vector<NDArray>& in_args,
                                         const std::vector<NDArray>& arg_grads,
                                         const std::vector<uint32_t>& grad_reqs,
                                         const std::vector<NDArray>& aux_states,
                                         const Executor* share_outputs_with,
                                         const std::map<std::string, Context>& group2ctx) {
  CHECK(!given.outputs.empty()) << "bind: the symbol has no outputs";
  bool need_grad = false;
  for (size_t i = 0; i < grad_reqs.size() && i < arg_grads.size(); ++i) {
    need_grad = need_grad || (grad_reqs[i] != kGradNull && !arg_grads[i].is_none());
  }
  // MXNET_SUBGRAPH_BACKEND
  const nnvm::Symbol partitioned = op::PartitionForEnvBackend(given, need_grad);
  std::unique_ptr<Executor> ex(new Executor());
  // The graph run (the optimized symbol); names are the partitioned symbol's.
  ex->symbol_ = env::GetBool("MXNET_ELIMINATE_COMMON_EXPR") ? EliminateCommonExpr(partitioned)
                                                              : partitioned;
  const nnvm::Symbol& sym = ex->symbol_;
  ex->ctx_ = ctx;
  ex->group2ctx_ = group2ctx;
  ex->arg_names_ = nnvm::ListVariableNames(partitioned.outputs, false);
  ex->aux_names_ = nnvm::ListVariableNames(partitioned.outputs, true);
  ex->output_names_ = nnvm::ListOutputNames(partitioned.outputs);
  const size_t n_args = ex->arg_names_.size(), n_aux = ex->aux_names_.size();
  CHECK_EQ(in_args.size(), n_args) << "bind: " << n_args << " argument arrays expected ("
                                   << Names(ex->arg_names_) << "), given " << in_args.size();
  CHECK_EQ(aux_states.size(), n_aux) << "bind: " << n_aux << " auxiliary states expected ("
                                     << Names(ex->aux_names_) << "), given "
                                     << aux_states.size();
  CHECK(arg_grads.empty() || arg_grads.size() == n_args)
      << "bind: " << n_args << " gradient arrays expected (" << Names(ex->arg_names_)
      << "), given " << arg_grads.size();
  CHECK(grad_reqs.empty() || grad_reqs.size() == n_args)
      << "bind: " << n_args << " grad_req values expected, given " << grad_reqs.size();
  ex->in_args_ = in_args;
  ex->aux_states_ = aux_states;
  ex->arg_grads_ = arg_grads.empty() ? std::vector<NDArray>(n_args) : arg_grads;
  ex->grad_reqs_ = grad_reqs.empty() ? std::vector<uint32_t>(n_args, kGradNull) : grad_reqs;
  for (size_t i = 0; i < n_args; ++i) {
    CHECK(!in_args[i].is_none()) << "bind: argument " << ex->arg_names_[i] << " has no array";
    uint32_t& req = ex->grad_reqs_[i];
    CHECK(req == kGradNull || req == kGradWrite || req == kGradAdd || req == 2)
        << "bind: grad_req of " << ex->arg_names_[i] << " expected null, write or add, given "
        << req;
    if (req == 2) req = kGradWrite;  // kWriteInplace: the same as write for an argument
    if (ex->arg_grads_[i].is_none()) req = kGradNull;
    if (req == kGradNull) continue;
    CHECK_EQ(ex->arg_grads_[i].shape(), in_args[i].shape())
        << "bind: gradient array of " << ex->arg_names_[i] << " has shape "
        << ex->arg_grads_[i].shape() << ", the argument " << in_args[i].shape();
  }
  for (size_t i = 0; i < n_aux; ++i) {
    CHECK(!aux_states[i].is_none()) << "bind: auxiliary state " << ex->aux_names_[i]
                                    << " has no array";
  }
  if (group2ctx.empty()) {  // as MXNet 1.9.1: one context for the whole graph
    for (size_t i = 0; i < n_args; ++i) {
      CHECK(in_args[i].ctx() == ctx)
          << "Input array is in " << in_args[i].ctx() << " while binding with ctx=" << ctx
          << ". All arguments must be in global context (" << ctx
          << ") unless group2ctx is specified for cross-device graph.";
      CHECK(ex->grad_reqs_[i] == kGradNull || ex->arg_grads_[i].ctx() == ctx)
          << "Gradient array is in " << ex->arg_grads_[i].ctx() << " while binding with ctx="
          << ctx << ". All gradients must be in global context (" << ctx
          << ") unless group2ctx is specified for cross-device graph.";
    }
  }

  // The graph: forward outputs, then the gradients of the arguments that want one.
  auto plan = std::make_unique<Plan>();
  nnvm::IndexedGraph fwd(sym.outputs);
  std::vector<bool> want_grad(n_args);
  for (size_t i = 0; i < n_args; ++i) want_grad[i] = ex->grad_reqs_[i] != kGradNull;
  exec::TrainingGraph tg = exec::BuildTrainingGraph(sym, fwd, want_grad);
  const std::vector<nnvm::NodeEntry>& head_grads = tg.head_grads;
  const std::vector<size_t>& x_args = tg.x_args;
  const size_t n_fwd_out = sym.outputs.size();
  exec::PlacedGraph placed;
  if (!group2ctx.empty()) {  // group2ctx: nodes on their groups' contexts, copies between
    std::unordered_map<const nnvm::Node*, Context> fixed;
    for (size_t i = 0; i < n_args; ++i) fixed[fwd[fwd.arg_nodes()[i]].source] = in_args[i].ctx();
    for (size_t i = 0; i < n_aux; ++i) {
      fixed[fwd[fwd.mutable_input_nodes()[i]].source] = aux_states[i].ctx();
    }
    placed = exec::PlaceDevices(tg.heads, group2ctx, ctx, fixed);
    plan->heads = std::move(placed.heads);
  } else {
    plan->heads = std::move(tg.heads);
  }
  plan->idx = std::make_unique<nnvm::IndexedGraph>(plan->heads);
  const nnvm::IndexedGraph& idx = *plan->idx;
  const size_t n_entries = idx.num_node_entries();
  // Forward nodes come first: those the forward outputs reach (a topological order).
  plan->num_forward_nodes = 0;
  for (size_t i = 0; i < n_fwd_out; ++i) {
    plan->num_forward_nodes =
        std::max(plan->num_forward_nodes, idx.node_id(plan->heads[i].node.get()) + 1);
  }
  plan->node_ctx.assign(idx.num_nodes(), ctx);
  if (!placed.node_ctx.empty()) {
    for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
      plan->node_ctx[nid] = placed.node_ctx.at(idx[nid].source);
    }
  }
  std::vector<uint32_t> entry_node(n_entries);  // the node writing each entry
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    const uint32_t n_e = idx[nid].source->is_variable() ? 1 : idx[nid].source->num_outputs();
    for (uint32_t i = 0; i < n_e; ++i) entry_node[idx.entry_id(nid, i)] = nid;
  }
  auto entry_ctx = [&](uint32_t e) -> const Context& { return plan->node_ctx[entry_node[e]]; };

  // Shapes and dtypes: from the bound arrays, then the head gradients like their outputs.
  auto entry_of = [&](uint32_t fwd_nid) { return idx.entry_id(idx.node_id(fwd[fwd_nid].source), 0); };
  std::vector<uint32_t> input_entries, aux_entries;
  for (uint32_t nid : fwd.arg_nodes()) input_entries.push_back(entry_of(nid));
  for (uint32_t nid : fwd.mutable_input_nodes()) aux_entries.push_back(entry_of(nid));
  plan->shapes.assign(n_entries, TShape());
  plan->dtypes.assign(n_entries, -1);
  for (size_t i = 0; i < n_args; ++i) {
    plan->shapes[input_entries[i]] = in_args[i].shape();
    plan->dtypes[input_entries[i]] = in_args[i].dtype();
  }
  for (size_t i = 0; i < n_aux; ++i) {
    plan->shapes[aux_entries[i]] = aux_states[i].shape();
    plan->dtypes[aux_entries[i]] = aux_states[i].dtype();
  }
  nnvm::InferShape(idx, &plan->shapes);
  nnvm::InferType(idx, &plan->dtypes);
  plan->head_grad_entry.assign(n_fwd_out, kNoEntry);
  for (size_t i = 0; i < head_grads.size(); ++i) {
    if (!idx.exist(head_grads[i].node.get())) continue;
    uint32_t e = idx.entry_id(head_grads[i]);
    uint32_t o = idx.entry_id(plan->heads[i]);
    plan->head_grad_entry[i] = e;
    plan->shapes[e] = plan->shapes[o];
    plan->dtypes[e] = plan->dtypes[o];
  }
  if (!head_grads.empty()) {
    nnvm::InferShape(idx, &plan->shapes);
    nnvm::InferType(idx, &plan->dtypes);
  }
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    const nnvm::Node& n = *idx[nid].source;
    uint32_t n_node_out = n.is_variable() ? 1 : n.num_outputs();
    for (uint32_t i = 0; i < n_node_out; ++i) {
      uint32_t e = idx.entry_id(nid, i);
      CHECK(plan->shapes[e].IsKnown())
          << "bind: cannot infer the shape of output " << i << " of node " << n.attrs.name
          << (n.is_variable() ? "" : " (operator " + n.op()->name + ")") << ": got "
          << plan->shapes[e];
      CHECK_GE(plan->dtypes[e], 0) << "bind: cannot infer the dtype of output " << i
                                   << " of node " << n.attrs.name;
    }
  }

  // Arrays: bound inputs, direct gradient targets, a new array for every other entry.
  plan->entries.assign(n_entries, NDArray());
  for (size_t i = 0; i < n_args; ++i) plan->entries[input_entries[i]] = in_args[i];
  for (size_t i = 0; i < n_aux; ++i) plan->entries[aux_entries[i]] = aux_states[i];
  std::vector<bool> is_output(n_entries, false);
  for (size_t i = 0; i < n_fwd_out; ++i) is_output[idx.entry_id(plan->heads[i])] = true;
  for (size_t k = 0; k < x_args.size(); ++k) {
    const nnvm::NodeEntry& g = plan->heads[n_fwd_out + k];
    size_t arg = x_args[k];
    uint32_t e = idx.entry_id(g);
    uint32_t nid = idx.node_id(g.node.get());
    bool direct = ex->grad_reqs_[arg] == kGradWrite && !g.node->is_variable() &&
                  nid >= plan->num_forward_nodes && !is_output[e] &&
                  plan->entries[e].is_none() &&
                  ex->arg_grads_[arg].ctx() == plan->node_ctx[nid] &&
                  ex->arg_grads_[arg].dtype() == plan->dtypes[e];
    if (direct) {
      plan->entries[e] = ex->arg_grads_[arg];
    } else {
      plan->grad_outs.push_back({e, arg, ex->grad_reqs_[arg]});
    }
  }
  // Storage types: the bound arrays' (a gradient node writes its array's type, as in MXNet);
  // the pass decides the rest. Sparse entries get arrays of their own, outside the memory
  // plan: their kernels size them on every run.
  plan->stypes.assign(n_entries, kUndefinedStorage);
  for (uint32_t e = 0; e < n_entries; ++e) {
    if (!plan->entries[e].is_none()) plan->stypes[e] = plan->entries[e].storage_type();
  }
  imperative::InferStorageTypes(idx, ctx.dev_mask(), &plan->stypes);
  for (uint32_t e = 0; e < n_entries; ++e) {
    if (!plan->entries[e].is_none() || plan->stypes[e] == kDefaultStorage) continue;
    plan->entries[e] = NDArray(static_cast<NDArrayStorageType>(plan->stypes[e]), plan->shapes[e],
                               entry_ctx(e), true, plan->dtypes[e]);
  }
  if (share_outputs_with != nullptr) {
    const std::vector<NDArray>& old = share_outputs_with->outputs_;
    for (size_t i = 0; i < n_fwd_out && i < old.size(); ++i) {
      uint32_t e = idx.entry_id(plan->heads[i]);
      if (!plan->entries[e].is_none() || old[i].dtype() != plan->dtypes[e] ||
          old[i].storage_type() != kDefaultStorage || !(old[i].ctx() == entry_ctx(e))) {
        continue;
      }
      if (old[i].shape().Size() < plan->shapes[e].Size()) continue;
      plan->entries[e] = old[i].AsArray(plan->shapes[e], plan->dtypes[e]);
    }
  }
  PlanMemory(idx, is_output, plan.get());
  for (uint32_t e = 0; e < n_entries; ++e) {  // head gradients: filled by Backward
    if (plan->entries[e].is_none()) {
      plan->entries[e] = NDArray(plan->shapes[e], entry_ctx(e), true, plan->dtypes[e]);
    }
  }
  plan->temp = exec::AssignTempSpaces(idx, plan->node_ctx,
                                      static_cast<int>(env::GetInt("MXNET_EXEC_NUM_TEMP")));
  if (env::GetBool("MXNET_ENABLE_CUDA_GRAPHS")) {
    static std::once_flag logged;
    std::call_once(logged, [] {
      LOG(INFO) << "MXNET_ENABLE_CUDA_GRAPHS is set, but CUDA graphs need the GPU backend, "
                << "which this build lacks: executors run their nodes as usual";
    });
  }

  // Per node: parsed attrs and the outputs nobody reads (the kernel may skip them).
  std::vector<bool> read(n_entries, false);
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    for (const auto& in : idx[nid].inputs) read[idx.entry_id(in)] = true;
  }
  for (const auto& h : idx.outputs()) read[idx.entry_id(h)] = true;
  plan->attrs.resize(idx.num_nodes());
  plan->unused.resize(idx.num_nodes());
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    const nnvm::Node& n = *idx[nid].source;
    if (n.is_variable()) continue;
    plan->attrs[nid] = std::make_shared<const nnvm::NodeAttrs>(n.attrs);
    uint32_t n_out = n.num_outputs();
    plan->unused[nid].assign(n_out, false);
    for (uint32_t i = 0; i < n_out; ++i) plan->unused[nid][i] = !read[idx.entry_id(nid, i)];
  }
  for (size_t i = 0; i < n_fwd_out; ++i) ex->outputs_.push_back(plan->entries[idx.entry_id(plan->heads[i])]);
  ex->plan_ = std::move(plan);
  return ex;
}

void Executor::RunNodes(uint32_t begin, uint32_t end, bool is_train) {
  RunModeScope mode(is_train);
  const nnvm::IndexedGraph& idx = *plan_->idx;
  std::vector<NDArray> ins, outs;
  std::vector<NDArray*> in_ptrs;
  for (uint32_t nid = begin; nid < end; ++nid) {
    const auto& inode = idx[nid];
    if (inode.source->is_variable()) continue;
    ins.clear();
    in_ptrs.clear();
    for (const auto& e : inode.inputs) ins.push_back(plan_->entries[idx.entry_id(e)]);
    for (NDArray& a : ins) in_ptrs.push_back(&a);
    if (monitor_ && monitor_all_) {
      std::vector<std::string> names = MonitorNames(*inode.source, true);
      for (size_t i = 0; i < ins.size(); ++i) {
        // a variable input is reported under its own name too, before the node's (1.9.1)
        const nnvm::Node& src = *inode.source->inputs[i].node;
        if (src.is_variable()) monitor_(src.attrs.name, ins[i]);
        monitor_(names[i], ins[i]);
      }
    }
    outs.clear();
    uint32_t n_out = inode.source->num_outputs();
    for (uint32_t i = 0; i < n_out; ++i) outs.push_back(plan_->entries[idx.entry_id(nid, i)]);
    static const nnvm::Op* cross_copy = nnvm::Op::GetOrThrow("_CrossDeviceCopy");
    if (inode.source->op() == cross_copy) {
      CopyFromTo(ins[0], outs[0]);
    } else {
      const Resource& temp = plan_->temp[nid];
      TempSpaceScope scope(temp.space != nullptr ? &temp : nullptr);
      Imperative::Get()->Invoke(plan_->node_ctx[nid], plan_->attrs[nid], in_ptrs, &outs,
                                &plan_->unused[nid]);
    }
    if (monitor_) {
      std::vector<std::string> names = MonitorNames(*inode.source, false);
      for (size_t i = 0; i < outs.size(); ++i) monitor_(names[i], outs[i]);
    }
  }
}

namespace {
// As MXNet 1.9.1: a graph without backward runs as one bulk, a training graph in bulks of
// MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN_FWD/_BWD ops; none while a monitor reads each output.
int RunBulkSize(size_t num_forward_nodes, size_t num_nodes, bool monitored, bool forward) {
  if (monitored) return 0;
  if (num_forward_nodes == num_nodes) return imperative::BulkSizeInference(num_nodes);
  return forward ? imperative::BulkSizeTrainForward() : imperative::BulkSizeTrainBackward();
}
}  // namespace

void Executor::Forward(bool is_train) {
  imperative::BulkScope bulk(RunBulkSize(plan_->num_forward_nodes, plan_->idx->num_nodes(),
                                         monitor_ != nullptr, true));
  RunNodes(0, plan_->num_forward_nodes, is_train);
}

void Executor::PartialForward(bool is_train, int step, int* step_left) {
  const uint32_t n = plan_->num_forward_nodes;
  if (step < 0 || static_cast<uint32_t>(step) >= n) {
    *step_left = 0;
    return;
  }
  RunNodes(step, step + 1, is_train);
  *step_left = static_cast<int>(n - step - 1);
}

void Executor::Backward(const std::vector<NDArray>& head_grads, bool is_train) {
  Plan& p = *plan_;
  imperative::BulkScope bulk(
      RunBulkSize(p.num_forward_nodes, p.idx->num_nodes(), monitor_ != nullptr, false));
  for (size_t i = 0; i < p.head_grad_entry.size(); ++i) {
    uint32_t e = p.head_grad_entry[i];
    if (e == kNoEntry) continue;
    CHECK(i < head_grads.size() && !head_grads[i].is_none())
        << "Because the last operator is not Loss function, head_gradient is required when "
        << "calling backward. If you are attempting to minimize the output as an objective, "
        << "please modify your network and pass it through the make_loss symbol.";
    CHECK_EQ(head_grads[i].shape(), p.shapes[e])
        << "backward: head gradient " << i << " (of " << output_names_[i] << ") has shape "
        << head_grads[i].shape() << ", the output has " << p.shapes[e];
    CopyFromTo(head_grads[i], p.entries[e]);
  }
  RunNodes(p.num_forward_nodes, static_cast<uint32_t>(p.idx->num_nodes()), is_train);
  static const nnvm::Op* add = nnvm::Op::GetOrThrow("elemwise_add");
  for (const Plan::GradOut& g : p.grad_outs) {
    NDArray& dst = arg_grads_[g.arg];
    if (g.req == kGradAdd) {
      RunModeScope mode(is_train);
      NDArray src = p.entries[g.entry];
      if (src.dtype() != dst.dtype() || !(src.ctx() == dst.ctx())) {  // cast or move first
        NDArray cast(src.shape(), dst.ctx(), true, dst.dtype());
        CopyFromTo(src, cast);
        src = cast;
      }
      NDArray acc = dst;
      std::vector<NDArray> out{dst};
      Imperative::Get()->Invoke(dst.ctx(), Imperative::ParseAttrs(add, {}), {&acc, &src}, &out);
    } else {
      CopyFromTo(p.entries[g.entry], dst);
    }
  }
}

void Executor::SetMonitorCallback(MonitorCallback callback, bool monitor_all) {
  monitor_ = std::move(callback);
  monitor_all_ = monitor_all;
}

// As MXNet 1.9.1's MXExecutorPrint: the bound graph (forward, copies and backward) as
// Symbol.debug_str prints it, the memory the plan allocated and the temp spaces its nodes use
// (1.9.1 always printed 11 there).
std::string Executor::DebugString() const {
  std::ostringstream os;
  nnvm::Symbol graph;
  graph.outputs = plan_->heads;
  graph.Print(os);
  os << "Total " << (plan_->total_bytes >> 20) << " MB allocated\n";
  std::vector<const void*> spaces;  // the temp spaces the nodes run with (1.9.1 printed 11)
  for (const Resource& r : plan_->temp) {
    if (r.space != nullptr && std::find(spaces.begin(), spaces.end(), r.space) == spaces.end()) {
      spaces.push_back(r.space);
    }
  }
  os << "Total " << spaces.size() << " TempSpace resource requested\n";
  return os.str();
}

}  // namespace mxnet
