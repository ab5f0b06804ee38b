// The ONEDNN subgraph backend (old name MKLDNN): chains Convolution -> [BatchNorm] ->
// [Activation] -> [elemwise add] -> [Activation] and FullyConnected -> Activation, each
// replaced by one fused node (_sg_onednn_conv, _sg_onednn_fully_connected).
#include <string>

#include "common/env.h"
#include "nnvm/op.h"
#include "operator/subgraph/onednn/onednn_fused_ops.h"
#include "operator/subgraph/subgraph_property.h"

namespace mxnet {
namespace op {
namespace {

bool IsOp(const nnvm::Node& n, const char* name) {
  return !n.is_variable() && n.op()->name == name;
}

bool IsSum(const nnvm::Node& n) {
  return !n.is_variable() &&
         (n.op()->name == "elemwise_add" || n.op()->name == "_Plus" || n.op()->name == "_plus" ||
          n.op()->name == "_add");
}

std::string Kwarg(const nnvm::Node& n, const char* key, const char* fallback) {
  auto it = n.attrs.dict.find(key);
  return it == n.attrs.dict.end() ? fallback : it->second;
}

bool IsFusableActivation(const nnvm::Node& n) {
  return IsOp(n, "Activation") && OneDNNFusableActivation(Kwarg(n, "act_type", ""));
}

/*!
 * \brief Grows a chain down from its seed, one stage at a time: each stage is taken at most
 * once and only in order, and only from the node taken last.
 */
class ChainSelector : public SubgraphSelector {
 public:
  enum Stage { kBase, kBatchNorm, kAct, kSum, kPostSumAct };
  /*! \brief What may follow the base op (conv: BatchNorm and sum too); nothing when the
   *  property is switched off. */
  struct Allowed {
    bool any, bn, act, sum;
  };
  ChainSelector(const char* base, bool conv, Allowed allowed)
      : base_(base), conv_(conv), allowed_(allowed) {}

  bool Select(const nnvm::Node& seed) override {
    if (!allowed_.any || !IsOp(seed, base_)) return false;
    last_ = &seed;
    stage_ = kBase;
    return true;
  }
  bool SelectInput(const nnvm::Node&, const nnvm::Node&) override { return false; }
  bool SelectOutput(const nnvm::Node& cur, const nnvm::Node& out) override {
    if (&cur != last_) return false;
    Stage next;
    if (conv_ && allowed_.bn && stage_ == kBase && IsOp(out, "BatchNorm")) {
      next = kBatchNorm;
    } else if (allowed_.act && stage_ < kAct && IsFusableActivation(out)) {
      next = kAct;
    } else if (conv_ && allowed_.sum && stage_ < kAct && IsSum(out)) {  // jit: no act before sum
      next = kSum;
    } else if (conv_ && stage_ == kSum && IsFusableActivation(out)) {
      next = kPostSumAct;
    } else {
      return false;
    }
    stage_ = next;
    last_ = &out;
    return true;
  }

 private:
  const char* base_;
  bool conv_;
  Allowed allowed_;
  const nnvm::Node* last_{nullptr};
  Stage stage_{kBase};
};

// The chain of a subgraph, read back from its single output; empty when it is not one the
// fused ops take (an intermediate value read outside, a layout or axis they do not handle).
struct Chain {
  nnvm::Node *base{nullptr}, *bn{nullptr}, *act{nullptr}, *sum{nullptr}, *post_act{nullptr};
  nnvm::NodeEntry sum_operand;
  bool sum_first{false};  // the operand is the add's first input
};

bool ReadChain(const nnvm::Symbol& sym, const char* base_op, Chain* c) {
  if (sym.outputs.size() != 1 || sym.outputs[0].index != 0) return false;
  nnvm::Node* n = sym.outputs[0].node.get();
  auto prev = [](nnvm::Node* x) -> nnvm::Node* {
    return x->inputs.empty() || x->inputs[0].index != 0 ? nullptr : x->inputs[0].node.get();
  };
  if (IsFusableActivation(*n)) {
    nnvm::Node* p = prev(n);
    if (p != nullptr && IsSum(*p)) {
      c->post_act = n;
    } else {
      c->act = n;
    }
    n = p;
  }
  if (n != nullptr && IsSum(*n)) {
    c->sum = n;
    // the chain is the operand that is an op node of the subgraph; the other is an input
    const bool left_var = n->inputs[0].node->is_variable();
    const bool right_var = n->inputs[1].node->is_variable();
    if (left_var == right_var) return false;
    nnvm::NodeEntry chain = left_var ? n->inputs[1] : n->inputs[0];
    c->sum_operand = left_var ? n->inputs[0] : n->inputs[1];
    c->sum_first = left_var;
    if (chain.index != 0) return false;
    n = chain.node.get();
    if (IsFusableActivation(*n)) {
      c->act = n;
      n = prev(n);
    }
  }
  if (n != nullptr && IsOp(*n, "BatchNorm")) {
    c->bn = n;
    if (Kwarg(*n, "axis", "1") != "1") return false;  // folded per channel-first filter
    n = prev(n);
  }
  if (n == nullptr || !IsOp(*n, base_op)) return false;
  for (const nnvm::NodeEntry& e : n->inputs) {
    if (!e.node->is_variable()) return false;
  }
  const std::string layout = Kwarg(*n, "layout", "None");
  if (layout != "None" && layout != "NCW" && layout != "NCHW" && layout != "NCDHW") return false;
  c->base = n;
  return true;
}

// The fused node of a chain: the base op's kwargs and inputs, and its activation; the caller
// adds the rest and parses.
nnvm::ObjectPtr FusedNode(const char* op, const Chain& c, int id) {
  nnvm::ObjectPtr n = nnvm::Node::Create();
  n->attrs.op = nnvm::Op::GetOrThrow(op);
  // named as the chain's last node, so the graph's output names stay
  const nnvm::Node* last = c.post_act ? c.post_act : c.act ? c.act : c.sum ? c.sum
                           : c.bn     ? c.bn
                                      : c.base;
  n->attrs.name = last->attrs.name;
  n->attrs.dict = c.base->attrs.dict;
  n->inputs = c.base->inputs;
  if (c.act != nullptr) {
    n->attrs.dict["with_act"] = "True";
    n->attrs.dict["act_type"] = Kwarg(*c.act, "act_type", "relu");
  }
  return n;
}

class ConvProperty : public SubgraphProperty {
 public:
  std::unique_ptr<SubgraphSelector> CreateSubgraphSelector(
      const std::unordered_set<std::string>&) const override {
    // MXNet 1.9.1's switches, read once
    static const ChainSelector::Allowed allowed{
        !env::GetBool("MXNET_DISABLE_MKLDNN_CONV_OPT"),
        !env::GetBool("MXNET_DISABLE_MKLDNN_FUSE_CONV_BN"),
        !env::GetBool("MXNET_DISABLE_MKLDNN_FUSE_CONV_RELU"),
        !env::GetBool("MXNET_DISABLE_MKLDNN_FUSE_CONV_SUM")};
    return std::make_unique<ChainSelector>("Convolution", true, allowed);
  }
  bool inference_only() const override { return true; }
  nnvm::ObjectPtr CreateSubgraphNode(const nnvm::Symbol& sym, int id) const override {
    Chain c;
    if (!ReadChain(sym, "Convolution", &c)) return nullptr;
    if (c.bn == nullptr && c.act == nullptr && c.sum == nullptr) return nullptr;
    nnvm::ObjectPtr n = FusedNode("_sg_onednn_conv", c, id);
    if (c.bn != nullptr) {
      n->attrs.dict["with_bn"] = "True";
      n->attrs.dict["bn_eps"] = Kwarg(*c.bn, "eps", "0.001");
      n->attrs.dict["bn_fix_gamma"] = Kwarg(*c.bn, "fix_gamma", "True");
      for (size_t i = 1; i < 5; ++i) n->inputs.push_back(c.bn->inputs[i]);
    }
    if (c.sum != nullptr) {
      // where the add had it, so the graph lists its inputs in the same order
      n->attrs.dict["with_sum"] = "True";
      n->attrs.dict["sum_first"] = c.sum_first ? "True" : "False";
      if (c.sum_first) {
        n->inputs.insert(n->inputs.begin(), c.sum_operand);
      } else {
        n->inputs.push_back(c.sum_operand);
      }
    }
    if (c.post_act != nullptr) {
      n->attrs.dict["with_postsum_act"] = "True";
      n->attrs.dict["postsum_act_type"] = Kwarg(*c.post_act, "act_type", "relu");
    }
    n->attrs.op->attr_parser(&n->attrs);
    return n;
  }
};

class FCProperty : public SubgraphProperty {
 public:
  std::unique_ptr<SubgraphSelector> CreateSubgraphSelector(
      const std::unordered_set<std::string>&) const override {
    static const ChainSelector::Allowed allowed{
        !env::GetBool("MXNET_DISABLE_MKLDNN_FC_OPT"), false,
        !env::GetBool("MXNET_DISABLE_MKLDNN_FUSE_FC_ELTWISE"), false};
    return std::make_unique<ChainSelector>("FullyConnected", false, allowed);
  }
  bool inference_only() const override { return true; }
  nnvm::ObjectPtr CreateSubgraphNode(const nnvm::Symbol& sym, int id) const override {
    Chain c;
    if (!ReadChain(sym, "FullyConnected", &c) || c.act == nullptr) return nullptr;
    nnvm::ObjectPtr n = FusedNode("_sg_onednn_fully_connected", c, id);
    n->attrs.op->attr_parser(&n->attrs);
    return n;
  }
};

struct RegisterOneDNNBackend {
  RegisterOneDNNBackend() {
    SubgraphBackend& b = SubgraphBackendRegistry::Get()->Register("ONEDNN", "MKLDNN");
    b.properties.push_back(std::make_shared<ConvProperty>());
    b.properties.push_back(std::make_shared<FCProperty>());
  }
};
const RegisterOneDNNBackend register_onednn_backend;

}  // namespace
}  // namespace op
}  // namespace mxnet
