// The helpers the control-flow operators share (see control_flow_common.h).
#include "operator/control_flow/control_flow_common.h"

#include <algorithm>
#include <mutex>
#include <string>
#include <unordered_map>

#include "common/type_switch.h"
#include "mxnet/imperative.h"
#include "nnvm/op.h"
#include "nnvm/symbol.h"

namespace mxnet {
namespace op {
namespace control_flow {
namespace {

// Autograd's recording flag for the subgraph's own CachedOp: on, the body keeps what its
// backward reads; its ops are never recorded one by one (CachedOp::Run turns recording off).
class RecordingScope {
 public:
  explicit RecordingScope(bool on) : prev_(Imperative::Get()->set_is_recording(on)) {}
  ~RecordingScope() { Imperative::Get()->set_is_recording(prev_); }

 private:
  bool prev_;
};

NDArray InvokeOne(const char* op_name, std::vector<NDArray> inputs) {
  static std::unordered_map<std::string, std::shared_ptr<const nnvm::NodeAttrs>> attrs_of;
  static std::mutex mu;
  std::shared_ptr<const nnvm::NodeAttrs> attrs;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto& slot = attrs_of[op_name];
    if (!slot) slot = Imperative::ParseAttrs(nnvm::Op::GetOrThrow(op_name), {});
    attrs = slot;
  }
  std::vector<NDArray*> ptrs;
  for (NDArray& a : inputs) ptrs.push_back(&a);
  std::vector<NDArray> out;
  RecordingScope no_record(false);
  Imperative::Get()->Invoke(inputs[0].ctx(), attrs, ptrs, &out);
  return out[0];
}

}  // namespace

SubgraphOps SubgraphCache::Get(const nnvm::NodeAttrs& attrs, size_t n) {
  CHECK_EQ(attrs.subgraphs.size(), n)
      << "Operator " << attrs.op->name << " (" << attrs.name << "): " << n
      << " subgraph(s) expected, given " << attrs.subgraphs.size()
      << " (build it with mx.sym.contrib, which passes the graphs)";
  std::lock_guard<std::mutex> lock(mu_);
  bool same = built_for_.size() == n;
  for (size_t i = 0; same && i < n; ++i) same = built_for_[i] == attrs.subgraphs[i].get();
  if (!same) {
    ops_.clear();
    built_for_.clear();
    for (const auto& g : attrs.subgraphs) {
      CHECK(g != nullptr && !g->outputs.empty())
          << "Operator " << attrs.op->name << " (" << attrs.name << "): a subgraph is empty";
      ops_.push_back(std::make_shared<CachedOp>(*g, std::vector<std::pair<std::string, std::string>>{
                                                        {"static_alloc", "1"}}));
      built_for_.push_back(g.get());
    }
  }
  return ops_;
}

void CheckLocs(const nnvm::NodeAttrs& attrs, const char* arg, const IntTuple& locs, size_t size) {
  for (int64_t loc : locs) {
    CHECK(loc >= 0 && static_cast<size_t>(loc) < size)
        << "Operator " << attrs.op->name << " (" << attrs.name << "): argument " << arg
        << " expected locations in [0, " << size << "), given " << locs;
  }
}

NDArray DataRow(const NDArray& data, dim_t i) {
  return data.shape().ndim() > 1 ? data.At(i) : data.Slice(i, i + 1);
}

TShape DataRowShape(const TShape& s) {
  if (s.ndim() < 1) return TShape();
  if (s.ndim() == 1) return TShape({1});
  return TShape(s.begin() + 1, s.end());
}

TShape Stacked(dim_t n, const TShape& s) {
  if (s.ndim() < 0) return TShape();
  TShape out(s.ndim() + 1, -1);
  out[0] = n < 0 ? -1 : n;
  for (int i = 0; i < s.ndim(); ++i) out[i + 1] = s[i];
  return out;
}

TShape DropFirst(const TShape& s) {
  if (s.ndim() < 1) return TShape();
  return TShape(s.begin() + 1, s.end());
}

void Assign(const nnvm::NodeAttrs& attrs, const std::string& what, TShape* slot, const TShape& v) {
  if (v.ndim() < 0) return;
  if (slot->ndim() < 0) {
    *slot = v;
    return;
  }
  bool same = slot->ndim() == v.ndim();
  for (int i = 0; same && i < v.ndim(); ++i) same = (*slot)[i] < 0 || v[i] < 0 || (*slot)[i] == v[i];
  CHECK(same) << "Operator " << attrs.op->name << " (" << attrs.name << "): " << what
              << " expected shape " << v << ", given " << *slot;
  for (int i = 0; i < v.ndim(); ++i) {
    if ((*slot)[i] < 0) (*slot)[i] = v[i];
  }
}

void Assign(const nnvm::NodeAttrs& attrs, const std::string& what, int* slot, int v) {
  if (v < 0) return;
  if (*slot < 0) {
    *slot = v;
    return;
  }
  CHECK_EQ(*slot, v) << "Operator " << attrs.op->name << " (" << attrs.name << "): " << what
                     << " expected dtype " << v << ", given " << *slot;
}

double ScalarValue(const nnvm::NodeAttrs& attrs, const std::string& what, const NDArray& a) {
  CHECK_EQ(a.shape().Size(), 1U) << "Operator " << attrs.op->name << " (" << attrs.name << "): "
                                 << what << " expected one element, given shape " << a.shape();
  double v = 0;
  MXNET_TYPE_SWITCH(a.dtype(), DType, {
    DType x;
    a.SyncCopyToCPU(&x, 1);  // waits for the array; reads it wherever it lives
    v = static_cast<double>(x);
  });
  return v;
}

NDArray Add(const NDArray& a, const NDArray& b) { return InvokeOne("elemwise_add", {a, b}); }

NDArray ZerosLike(const NDArray& a) { return InvokeOne("zeros_like", {a}); }

std::vector<NDArray> RunForward(const CachedOp& op, const std::vector<NDArray>& inputs, bool save) {
  RecordingScope recording(save);
  std::vector<NDArray> out;
  op.Forward(inputs, &out);
  return out;
}

std::vector<NDArray> RunBackward(const CachedOp& op, const std::vector<NDArray>& inputs) {
  RecordingScope no_record(false);
  std::vector<NDArray> out;
  op.Backward(inputs, nullptr, &out);
  return out;
}

bool WantHidden(const std::vector<bool>* unused, size_t n_visible, size_t n) {
  if (n == n_visible) return false;
  if (unused == nullptr || unused->size() != n) {
    return Imperative::Get()->is_recording() || Imperative::Get()->is_training();
  }
  return std::any_of(unused->begin() + n_visible, unused->end(), [](bool u) { return !u; });
}

void PrepareOutputs(const nnvm::NodeAttrs& attrs, const std::vector<NDArray>& inputs,
                    size_t n_visible, bool want_hidden, std::vector<NDArray>* outputs) {
  static const auto& fshape = nnvm::Op::GetAttr<FInferShape>("FInferShape");
  static const auto& ftype = nnvm::Op::GetAttr<FInferType>("FInferType");
  const size_t n = attrs.op->get_num_outputs(attrs);
  if (outputs->size() != n) outputs->assign(n, NDArray());
  std::vector<TShape> in_s, out_s(n);
  std::vector<int> in_t, out_t(n, -1);
  for (const NDArray& a : inputs) {
    in_s.push_back(a.shape());
    in_t.push_back(a.dtype());
  }
  for (size_t i = 0; i < n; ++i) {
    if ((*outputs)[i].is_none()) continue;
    out_s[i] = (*outputs)[i].shape();
    out_t[i] = (*outputs)[i].dtype();
  }
  fshape[attrs.op](attrs, &in_s, &out_s);
  ftype[attrs.op](attrs, &in_t, &out_t);
  const Context ctx = inputs.empty() ? Context::CPU() : inputs[0].ctx();
  for (size_t i = 0; i < (want_hidden ? n : n_visible); ++i) {
    if (!(*outputs)[i].is_none()) continue;
    CHECK(out_s[i].IsKnown() && out_t[i] >= 0)
        << "Operator " << attrs.op->name << " (" << attrs.name << "): cannot infer the shape of "
        << "output " << i << " from the inputs";
    (*outputs)[i] = NDArray(out_s[i], ctx, false, out_t[i]);
  }
}

std::vector<std::string> FlowOutputNames(uint32_t n_visible, uint32_t n_outputs) {
  std::vector<std::string> names;
  for (uint32_t i = 0; i < n_visible; ++i) {
    names.push_back(n_visible == 1 ? "output" : "output" + std::to_string(i));
  }
  for (uint32_t i = n_visible; i < n_outputs; ++i) {
    names.push_back("hidden" + std::to_string(i - n_visible));
  }
  return names;
}

std::vector<nnvm::NodeEntry> FlowGradient(const char* bwd_op, uint32_t n_visible,
                                          const nnvm::ObjectPtr& n,
                                          const std::vector<nnvm::NodeEntry>& ograds) {
  nnvm::ObjectPtr bwd = nnvm::Node::Create();
  bwd->attrs = n->attrs;
  bwd->attrs.op = nnvm::Op::GetOrThrow(bwd_op);
  bwd->attrs.name = n->attrs.name + "_backward";
  for (uint32_t i = 0; i < n_visible; ++i) bwd->inputs.push_back(ograds[i]);
  for (const nnvm::NodeEntry& e : n->inputs) bwd->inputs.push_back(e);
  for (uint32_t i = n_visible; i < n->num_outputs(); ++i) bwd->inputs.emplace_back(n, i, 0);
  std::vector<nnvm::NodeEntry> grads;
  for (uint32_t i = 0; i < n->inputs.size(); ++i) grads.emplace_back(bwd, i, 0);
  return grads;
}

}  // namespace control_flow
}  // namespace op
}  // namespace mxnet
