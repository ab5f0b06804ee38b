// Autograd: marking variables and Backward (Gradient pass, then imperative execution of it).
#include <dmlc/logging.h>

#include <unordered_map>
#include <unordered_set>

#include "imperative/autograd_info.h"
#include "imperative/bulk_exec.h"
#include "imperative/ndarray_function.h"
#include "mxnet/imperative.h"
#include "nnvm/gradient.h"

namespace mxnet {
namespace {

constexpr const char* kNotRecorded =
    "Cannot differentiate node because it is not in a computational graph. You need to set "
    "is_recording to true or use autograd.record() to save computational graphs for backward. "
    "If you want to differentiate the same graph twice, you need to pass retain_graph=True to "
    "backward.";

std::shared_ptr<const nnvm::NodeAttrs> Attrs(const nnvm::NodeAttrs& a) {
  return std::make_shared<const nnvm::NodeAttrs>(a);
}

NDArray InvokeOne(const char* op_name, std::vector<NDArray*> inputs,
                  std::unordered_map<std::string, std::string> kwargs = {}) {
  auto attrs = Imperative::ParseAttrs(nnvm::Op::GetOrThrow(op_name), std::move(kwargs));
  std::vector<NDArray> out;
  Imperative::Get()->Invoke(inputs[0]->ctx(), attrs, inputs, &out);
  return out[0];
}

// Output arrays for the nodes computing a variable's gradient with grad_req 'write': the
// gradient buffer itself, when that output is the gradient alone (read by no other node, the
// gradient of one variable only), so the node writes it in place of a copy.
// reads_left: per entry, the reads by gradient nodes plus one per result.
std::unordered_map<const nnvm::Node*, std::vector<NDArray>> GradBufferTargets(
    const std::vector<nnvm::NodeEntry>& grad_entries, const std::vector<AGInfo*>& x_infos,
    std::unordered_map<const nnvm::Node*, std::vector<uint32_t>>& reads_left) {
  std::unordered_map<const nnvm::Node*, std::vector<NDArray>> targets;
  std::unordered_map<const nnvm::Node*, std::vector<uint32_t>> uses;
  for (const nnvm::NodeEntry& e : grad_entries) {
    std::vector<uint32_t>& u = uses[e.node.get()];
    if (u.size() <= e.index) u.resize(e.index + 1, 0);
    ++u[e.index];
  }
  for (size_t i = 0; i < x_infos.size(); ++i) {
    const nnvm::NodeEntry& e = grad_entries[i];
    const NDArray& value = x_infos[i]->outputs[0];
    const NDArray& buf = x_infos[i]->out_grads[0];
    if (x_infos[i]->grad_req[0] != kGradWrite || e.node->is_variable() ||
        AGInfo::Get(e.node) != nullptr || reads_left[e.node.get()][e.index] != 1 ||
        uses[e.node.get()][e.index] != 1 || buf.shape() != value.shape() ||
        buf.dtype() != value.dtype() || buf.ctx() != value.ctx()) {
      continue;
    }
    std::vector<NDArray>& t = targets[e.node.get()];
    t.resize(e.node->num_outputs());
    t[e.index] = buf.Detach();
  }
  return targets;
}

}  // namespace

void Imperative::MarkVariables(const std::vector<NDArray*>& variables,
                               const std::vector<uint32_t>& grad_reqs,
                               const std::vector<NDArray*>& gradients) {
  CHECK_EQ(variables.size(), grad_reqs.size())
      << "mark_variables: variables and grad_reqs must have the same length";
  CHECK_EQ(variables.size(), gradients.size())
      << "mark_variables: variables and gradients must have the same length";
  for (size_t i = 0; i < variables.size(); ++i) {
    uint32_t req = grad_reqs[i];
    CHECK(req == kGradNull || req == kGradWrite || req == kGradAdd)
        << "mark_variables: grad_req expected 'null', 'write' or 'add', given " << req;
    nnvm::ObjectPtr var = nnvm::CreateVariableNode("var" + std::to_string(i));
    AGInfo& info = AGInfo::Create(var);
    info.ctx = variables[i]->ctx();
    info.outputs.push_back(variables[i]->Detach());
    info.out_grads.push_back(gradients[i]->Detach());
    info.grad_req.push_back(req);
    variables[i]->set_entry(nnvm::NodeEntry(var, 0, 0));
  }
}

NDArray Imperative::GetGrad(const NDArray& var) const {
  const AGInfo* info = AGInfo::Get(var.entry().node);
  if (info == nullptr || !var.entry().node->is_variable() || info->out_grads.empty()) return NDArray();
  return info->out_grads[0];
}

uint32_t Imperative::GetGradReq(const NDArray& var) const {
  const AGInfo* info = AGInfo::Get(var.entry().node);
  if (info == nullptr || info->grad_req.empty()) return kGradNull;
  return info->grad_req[0];
}

bool Imperative::GetFreshGrad(const NDArray& var) const {
  const AGInfo* info = AGInfo::Get(var.entry().node);
  return info != nullptr && var.entry().node->is_variable() && info->fresh_grad;
}

void Imperative::SetFreshGrad(const NDArray& var, bool fresh) const {
  AGInfo* info = AGInfo::Get(var.entry().node);
  CHECK(info != nullptr && var.entry().node->is_variable() && !info->out_grads.empty())
      << "_fresh_grad: NDArray has not been marked as a variable and does not have gradient "
      << "state; call attach_grad() or mark_variables first";
  info->fresh_grad = fresh;
}

std::vector<NDArray> Imperative::Backward(const std::vector<NDArray*>& outputs,
                                          const std::vector<NDArray*>& ograds,
                                          const std::vector<NDArray*>& variables, bool is_train,
                                          bool retain_graph, bool create_graph) {
  CHECK(!outputs.empty()) << "backward: no output arrays given";
  CHECK(ograds.empty() || ograds.size() == outputs.size())
      << "backward: " << outputs.size() << " outputs but " << ograds.size() << " head gradients";
  std::vector<nnvm::NodeEntry> heads;
  for (NDArray* o : outputs) {
    CHECK(o->entry().node != nullptr) << kNotRecorded;
    heads.push_back(o->entry());
  }
  std::vector<nnvm::ObjectPtr> order = nnvm::TopoSort(heads);
  for (const nnvm::ObjectPtr& n : order) {
    const AGInfo* info = AGInfo::Get(n);
    CHECK(info == nullptr || !info->freed) << kNotRecorded;
  }

  // The variables to differentiate: given ones, or every marked variable in the graph.
  std::vector<nnvm::NodeEntry> xs;
  std::vector<AGInfo*> x_infos;
  if (!variables.empty()) {
    for (NDArray* v : variables) {
      CHECK(v->entry().node != nullptr)
          << "grad: a variable is not part of the graph; call attach_grad() or mark_variables "
          << "on it before recording";
      xs.push_back(v->entry());
    }
    // As MXNet's Gradient pass: a variable the heads do not depend on at all is an error
    // (one that is reachable but gets no gradient flow receives zeros).
    std::unordered_set<const nnvm::Node*> reachable;
    for (const nnvm::ObjectPtr& n : order) reachable.insert(n.get());
    for (size_t i = 0; i < xs.size(); ++i) {
      CHECK(reachable.count(xs[i].node.get()))
          << "Cannot differentiate with respect to the " << i + 1 << "-th variable because it "
          << "is unreachable from the outputs.";
    }
  } else {
    for (const nnvm::ObjectPtr& n : order) {
      AGInfo* info = AGInfo::Get(n);
      if (n->is_variable() && info && !info->out_grads.empty() && info->grad_req[0] != kGradNull) {
        xs.emplace_back(n, 0, 0);
        x_infos.push_back(info);
      }
    }
    if (xs.empty()) {
      LOG(FATAL) << "backward: none of the arrays in the graph require a gradient; call "
                 << "attach_grad() on the inputs before autograd.record()";
    }
  }

  // Head gradients become variable nodes holding their values.
  std::vector<nnvm::NodeEntry> head_grads;
  for (size_t i = 0; i < outputs.size(); ++i) {
    NDArray g;
    if (!ograds.empty() && ograds[i] != nullptr && !ograds[i]->is_none()) {
      g = *ograds[i];
      CHECK_EQ(g.shape(), outputs[i]->shape())
          << "backward: head gradient " << i << " has shape " << g.shape() << ", output has "
          << outputs[i]->shape();
    } else {
      NDArray out = outputs[i]->Detach();
      g = InvokeOne("ones_like", {&out});
    }
    nnvm::ObjectPtr var = nnvm::CreateVariableNode("head_grad" + std::to_string(i));
    AGInfo& info = AGInfo::Create(var);
    info.ctx = g.ctx();
    info.outputs.push_back(g.Detach());
    head_grads.emplace_back(var, 0, 0);
  }

  std::vector<nnvm::NodeEntry> grad_entries = nnvm::Gradient(heads, xs, head_grads);

  // Execute the gradient graph: recorded nodes already hold their values.
  bool prev_recording = set_is_recording(create_graph);
  bool prev_training = set_is_training(is_train);
  std::vector<NDArray> results;
  try {
    imperative::BulkScope bulk(imperative::BulkSizeTrainBackward());  // as MXNet 1.9.1
    std::unordered_map<const nnvm::Node*, std::vector<NDArray>> values;
    const std::vector<nnvm::ObjectPtr> grad_order = nnvm::TopoSort(grad_entries);
    // Reads of each entry by later nodes: a value is dropped after its last reader, so the
    // pool can hand its memory to the nodes after it.
    std::unordered_map<const nnvm::Node*, std::vector<uint32_t>> reads_left;
    auto count = [&reads_left](const nnvm::NodeEntry& e, uint32_t n) {
      std::vector<uint32_t>& r = reads_left[e.node.get()];
      if (r.size() <= e.index) r.resize(e.index + 1, 0);
      r[e.index] += n;
    };
    for (const nnvm::ObjectPtr& n : grad_order) for (const nnvm::NodeEntry& e : n->inputs) count(e, 1);
    for (const nnvm::NodeEntry& e : grad_entries) count(e, 1);  // results are never dropped
    std::unordered_map<const nnvm::Node*, std::vector<NDArray>> targets;
    if (variables.empty() && !create_graph) targets = GradBufferTargets(grad_entries, x_infos, reads_left);
    std::vector<bool> unused;
    // Without retain_graph the recorded graph is released anyway: its values move here, so
    // that each can go back to the pool after its last reader (an op taking its inputs,
    // _backward_CachedOp, even drops them while it runs).
    const bool release = !retain_graph && !create_graph;
    imperative::DonateInputsScope donate(release);
    for (const nnvm::ObjectPtr& n : grad_order) {
      if (AGInfo* info = AGInfo::Get(n)) {
        std::vector<NDArray> vals;
        if (release && !n->is_variable()) {
          vals = std::move(info->outputs);
          info->outputs.clear();
          info->freed = true;
        } else {
          vals = info->outputs;
        }
        if (create_graph) {
          for (uint32_t i = 0; i < vals.size(); ++i) vals[i].set_entry(nnvm::NodeEntry(n, i, 0));
        }
        values.emplace(n.get(), std::move(vals));
        continue;
      }
      std::vector<NDArray> in_vals;
      in_vals.reserve(n->inputs.size());
      for (const nnvm::NodeEntry& e : n->inputs) {
        NDArray& v = values.at(e.node.get()).at(e.index);
        in_vals.push_back(v);
        // The last reader: the value lives on in in_vals only.
        if (release && reads_left[e.node.get()][e.index] == 1) v = NDArray();
      }
      std::vector<NDArray*> in_ptrs;
      for (NDArray& v : in_vals) in_ptrs.push_back(&v);
      std::vector<NDArray> outs;
      auto t = targets.find(n.get());
      if (t != targets.end()) outs = std::move(t->second);
      // Outputs no later node and no result reads (e.g. the gradient of an input that needs
      // none) run with kNullOp, so kernels can skip that work. Their readers have not run
      // yet, so the counts are whole here.
      const std::vector<uint32_t>& r = reads_left[n.get()];
      unused.assign(n->num_outputs(), false);
      for (size_t i = 0; i < unused.size(); ++i) unused[i] = i >= r.size() || r[i] == 0;
      Invoke(in_vals.empty() ? Context() : in_vals[0].ctx(), Attrs(n->attrs), in_ptrs, &outs,
             create_graph ? nullptr : &unused);
      values.emplace(n.get(), std::move(outs));
      in_vals.clear();
      for (const nnvm::NodeEntry& e : n->inputs) {
        if (--reads_left[e.node.get()][e.index] == 0) values[e.node.get()][e.index] = NDArray();
      }
    }
    for (const nnvm::NodeEntry& e : grad_entries) results.push_back(values.at(e.node.get()).at(e.index));
  } catch (...) {
    set_is_recording(prev_recording);
    set_is_training(prev_training);
    throw;
  }
  set_is_recording(prev_recording);
  set_is_training(prev_training);

  if (!retain_graph) {
    for (const nnvm::ObjectPtr& n : order) {
      AGInfo* info = AGInfo::Get(n);
      if (info && !n->is_variable()) {
        info->outputs.clear();
        info->freed = true;
      }
    }
  }

  if (!variables.empty()) {
    if (!create_graph) for (NDArray& r : results) r = r.Detach();
    return results;
  }
  for (size_t i = 0; i < xs.size(); ++i) {
    AGInfo* info = x_infos[i];
    NDArray& buf = info->out_grads[0];
    NDArray& g = results[i];
    if (info->grad_req[0] == kGradAdd) {
      NDArray b = buf.Detach();
      NDArray gv = g.Detach();
      std::vector<NDArray> out{b};
      Invoke(b.ctx(), ParseAttrs(nnvm::Op::GetOrThrow("elemwise_add"), {}),
             std::vector<NDArray*>{&b, &gv}, &out);
    } else if (g.var() != buf.var()) {
      CopyFromTo(g, buf);
    }
    buf.set_entry(create_graph ? g.entry() : nnvm::NodeEntry());
    info->fresh_grad = true;
  }
  return {};
}

}  // namespace mxnet
