// _sg_onednn_conv and _sg_onednn_fully_connected (old names _sg_mkldnn_*): a convolution or
// fully connected layer with a folded BatchNorm, activations and a residual sum run as one
// oneDNN primitive with post-ops; the plain kernels and the same steps in C++ otherwise.
#include "operator/subgraph/onednn/onednn_fused_ops.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "imperative/input_stamp.h"
#include "nnvm/graph.h"
#include "nnvm/symbol.h"
#include "operator/nn/convolution_kernels.h"
#include "operator/nn/nn_common.h"
#include "operator/nn/onednn/onednn_fully_connected.h"
#include "operator/nn/onednn/onednn_post_ops.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(OneDNNFusionParam);

bool OneDNNFusableActivation(const std::string& act_type) {
  return act_type == "relu" || act_type == "sigmoid" || act_type == "tanh" ||
         act_type == "softrelu";
}

namespace {

/*! \brief A fused node's parsed arguments: its base op's node and the fusion. */
struct Folded;

struct FusedState {
  NodeAttrs base;
  // The last folded weights, the content stamps of the weight and bias they came from and
  // the BatchNorm values (gamma, beta, mean, var).
  mutable std::mutex folded_mu;
  mutable std::vector<uint64_t> folded_from;
  mutable std::vector<float> folded_bn;
  mutable std::shared_ptr<const Folded> folded;
  OneDNNFusionParam fuse;
  uint32_t num_base_inputs{0};
  // Inputs: [sum when sum_first], the base op's, [gamma, beta, mean, var], [sum otherwise].
  uint32_t base_input(uint32_t i) const { return (fuse.with_sum && fuse.sum_first ? 1 : 0) + i; }
  uint32_t bn_input() const { return base_input(num_base_inputs); }
  uint32_t sum_input() const {
    return fuse.with_sum && fuse.sum_first ? 0 : bn_input() + (fuse.with_bn ? 4 : 0);
  }
  uint32_t num_inputs() const {
    return bn_input() + (fuse.with_bn ? 4 : 0) + (fuse.with_sum && !fuse.sum_first ? 1 : 0);
  }
};

const FusedState& State(const NodeAttrs& attrs) {
  return *std::any_cast<const std::shared_ptr<FusedState>&>(attrs.parsed);
}

// MXNet 1.9's form of a fused node: its fusion flags (FullyConnected's with_eltwise) and the
// fused graph as "subgraph" (from the JSON's "subgraphs"). Rewrites it into the flat kwargs:
// the base op's taken from its node, the BatchNorm's eps and fix_gamma, the activations.
void FlattenLegacySubgraph(NodeAttrs* attrs, const char* base_op) {
  auto it = attrs->dict.find("subgraph");
  if (it == attrs->dict.end()) return;
  auto& dict = attrs->dict;
  const nnvm::Symbol sub = nnvm::LoadJSON(it->second);
  dict.erase(it);
  auto eltwise = dict.find("with_eltwise");
  if (eltwise != dict.end()) {
    dict["with_act"] = eltwise->second;
    dict.erase(eltwise);
  }
  nnvm::IndexedGraph idx(sub.outputs);
  bool after_sum = false;
  for (uint32_t i = 0; i < idx.num_nodes(); ++i) {
    const nnvm::Node& n = *idx.node_ptr(i);
    if (n.is_variable()) continue;
    const std::string& op = n.op()->name;
    auto kwarg = [&](const char* key, const char* fallback) {
      auto k = n.attrs.dict.find(key);
      return k == n.attrs.dict.end() ? std::string(fallback) : k->second;
    };
    if (op == base_op) {
      for (const auto& kv : n.attrs.dict) dict.emplace(kv);
    } else if (op == "BatchNorm") {
      dict.emplace("bn_eps", kwarg("eps", "0.001"));
      dict.emplace("bn_fix_gamma", kwarg("fix_gamma", "True"));
    } else if (op == "Activation") {
      dict.emplace(after_sum ? "postsum_act_type" : "act_type", kwarg("act_type", ""));
    } else if (op == "elemwise_add" || op == "_Plus" || op == "_plus" || op == "_add") {
      after_sum = true;
    } else {
      LOG(FATAL) << "Operator " << attrs->op->name << " (node " << attrs->name << "): its "
                 << "subgraph holds " << op << ", which this fusion does not take (expected "
                 << base_op << ", BatchNorm, Activation, elemwise_add)";
    }
  }
}

// kwargs: the fusion's own, the rest the base op's (parsed by the base op's parser).
template <const char* kBaseOp>
void ParseFused(NodeAttrs* attrs) {
  FlattenLegacySubgraph(attrs, kBaseOp);
  auto st = std::make_shared<FusedState>();
  std::map<std::string, std::string> fuse_kwargs;
  st->base.op = nnvm::Op::GetOrThrow(kBaseOp);
  st->base.name = attrs->name;
  for (const auto& field : OneDNNFusionParam::__FIELDS__()) {
    auto it = attrs->dict.find(field.name);
    if (it != attrs->dict.end()) fuse_kwargs.insert(*it);
  }
  for (const auto& kv : attrs->dict) {
    if (!fuse_kwargs.count(kv.first)) st->base.dict.insert(kv);
  }
  try {
    st->fuse.Init(fuse_kwargs);
  } catch (const dmlc::ParamError& e) {
    LOG(FATAL) << "Operator " << attrs->op->name << ": invalid argument: " << e.what();
  }
  for (const std::string* act : {&st->fuse.act_type, &st->fuse.postsum_act_type}) {
    CHECK(OneDNNFusableActivation(*act))
        << "Operator " << attrs->op->name << ": activation expected relu, sigmoid, tanh or "
        << "softrelu, given " << *act;
  }
  st->base.op->attr_parser(&st->base);
  st->num_base_inputs = st->base.op->get_num_inputs ? st->base.op->get_num_inputs(st->base)
                                                    : st->base.op->num_inputs;
  attrs->parsed = std::shared_ptr<FusedState>(st);
}

EltwiseKind KindOf(const std::string& act) {
  return act == "sigmoid" ? EltwiseKind::kSigmoid
         : act == "tanh"  ? EltwiseKind::kTanh
         : act == "softrelu" ? EltwiseKind::kSoftReLU
                          : EltwiseKind::kReLU;
}

onednn::PostOps PostOpsOf(const OneDNNFusionParam& f) {
  onednn::PostOps post;
  if (f.with_act) post.AddActivation(KindOf(f.act_type));
  if (f.with_sum) post.AddSum();
  if (f.with_postsum_act) post.AddActivation(KindOf(f.postsum_act_type));
  return post;
}

std::vector<std::string> FusedInputNames(const NodeAttrs& attrs) {
  const FusedState& st = State(attrs);
  std::vector<std::string> names = ListInputNames(st.base);
  if (st.fuse.with_sum && st.fuse.sum_first) names.insert(names.begin(), "sum");
  if (st.fuse.with_bn) {
    for (const char* n : {"gamma", "beta", "moving_mean", "moving_var"}) names.push_back(n);
  }
  if (st.fuse.with_sum && !st.fuse.sum_first) names.push_back("sum");
  return names;
}

std::vector<uint32_t> FusedMutateInputs(const NodeAttrs& attrs) {
  // The moving statistics stay auxiliary states of the graph, as under BatchNorm; the fused
  // (inference) kernel only reads them.
  const FusedState& st = State(attrs);
  if (!st.fuse.with_bn) return {};
  return {st.bn_input() + 2, st.bn_input() + 3};
}

// The base op's shape rule, then one value per output channel for the BatchNorm inputs and
// the output's shape for the sum input.
bool FusedShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const FusedState& st = State(attrs);
  static const auto& finfer = nnvm::Op::GetAttr<FInferShape>("FInferShape");
  std::vector<TShape> base_in(in->begin() + st.base_input(0), in->begin() + st.bn_input());
  const bool known = finfer[st.base.op](st.base, &base_in, out);
  std::copy(base_in.begin(), base_in.end(), in->begin() + st.base_input(0));
  if (!known) return false;
  const TShape& weight = (*in)[st.base_input(1)];
  if (st.fuse.with_bn) {
    for (uint32_t i = 0; i < 4; ++i) {
      AssignInputShape(attrs, st.bn_input() + i, &(*in)[st.bn_input() + i], TShape{weight[0]});
    }
  }
  if (st.fuse.with_sum) AssignInputShape(attrs, st.sum_input(), &(*in)[st.sum_input()], (*out)[0]);
  return true;
}

bool FusedType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  if (!FloatElemwiseType(attrs, in, out)) return false;
  CHECK_EQ((*out)[0], kFloat32) << "Operator " << attrs.op->name << ": dtype expected float32, "
                                << "given " << DTypeName((*out)[0]);
  return true;
}

/*! \brief Weight and bias with the BatchNorm folded in: per output channel o,
 *  s = gamma / sqrt(var + eps), w' = w s, b' = (b - mean) s + beta. */
struct Folded {
  std::vector<float> weight, bias;
  uint64_t stamp{0};  // names this content for the convolution's weight cache
  Folded(const FusedState& st, const std::vector<TBlob>& in, bool has_bias) {
    const TBlob& w = in[st.base_input(1)];
    const size_t filters = w.shape_[0], per = w.Size() / filters;
    const float* gamma = in[st.bn_input()].dptr<float>();
    const float* beta = in[st.bn_input() + 1].dptr<float>();
    const float* mean = in[st.bn_input() + 2].dptr<float>();
    const float* var = in[st.bn_input() + 3].dptr<float>();
    const float* wsrc = w.dptr<float>();
    weight.resize(w.Size());
    bias.resize(filters);
    for (size_t o = 0; o < filters; ++o) {
      const float s = (st.fuse.bn_fix_gamma ? 1.f : gamma[o]) / std::sqrt(var[o] + st.fuse.bn_eps);
      for (size_t k = 0; k < per; ++k) weight[o * per + k] = wsrc[o * per + k] * s;
      const float b = has_bias ? in[st.base_input(2)].dptr<float>()[o] : 0.f;
      bias[o] = (b - mean[o]) * s + beta[o];
    }
  }
};

// Stamps of folded weights: above every engine var version, so the two never meet.
std::atomic<uint64_t> g_next_folded_stamp{uint64_t{1} << 62};

/*! \brief The folded weights of this call's inputs: the last ones again when the weight and
 *  bias arrays were not written since (their content stamps) and the BatchNorm's four
 *  per-channel vectors hold the same values (compared: the node declares the moving
 *  statistics written, as BatchNorm does, so their stamps change on every call). An
 *  inference loop folds and reorders once. */
std::shared_ptr<const Folded> FoldedFor(const FusedState& st, const std::vector<TBlob>& in,
                                        bool has_bias) {
  std::vector<uint64_t> from{imperative::InputContentStamp(in[st.base_input(1)].dptr_)};
  if (has_bias) from.push_back(imperative::InputContentStamp(in[st.base_input(2)].dptr_));
  bool known = true;
  for (uint64_t v : from) known = known && v != 0;
  std::vector<float> bn;
  for (uint32_t i = 0; i < 4; ++i) {
    const TBlob& b = in[st.bn_input() + i];
    bn.insert(bn.end(), b.dptr<float>(), b.dptr<float>() + b.Size());
  }
  std::lock_guard<std::mutex> lock(st.folded_mu);
  if (known && st.folded && st.folded_from == from && st.folded_bn == bn) return st.folded;
  auto f = std::make_shared<Folded>(st, in, has_bias);
  if (!known) return f;  // stamp 0: reordered on every call
  f->stamp = g_next_folded_stamp.fetch_add(1, std::memory_order_relaxed);
  st.folded = f;
  st.folded_from = std::move(from);
  st.folded_bn = std::move(bn);
  return f;
}

// Runs base(weight, bias) with post-ops: the oneDNN primitive when use_onednn, else the
// plain kernel followed by the same steps. kernel(weight, bias, post) computes into out.
template <typename Kernel>
void RunFused(const NodeAttrs& attrs, const std::vector<TBlob>& in, OpReqType req,
              const TBlob& out, bool use_onednn, Kernel kernel) {
  if (req == kNullOp) return;
  CHECK(req == kWriteTo || req == kWriteInplace)
      << "Operator " << attrs.op->name << ": only writes its output (no kAddTo)";
  const FusedState& st = State(attrs);
  const onednn::PostOps post = PostOpsOf(st.fuse);
  const size_t n = out.Size();
  float* dst = out.dptr<float>();
  const float* sum = st.fuse.with_sum ? in[st.sum_input()].dptr<float>() : nullptr;
  if (use_onednn) {
    if (sum != nullptr && sum != dst) std::memcpy(dst, sum, n * sizeof(float));
    kernel(&post);
    return;
  }
  std::vector<float> operand(sum != nullptr ? sum : dst, sum != nullptr ? sum + n : dst);
  kernel(nullptr);
  post.RunPlain(dst, operand.data(), n);
}

// acts: whether the data and the output (with the sum operand) are held blocked.
void FusedConvCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out,
                      onednn::BlockedActs acts) {
  const FusedState& st = State(attrs);
  const TBlob& data = in[st.base_input(0)];
  ConvGeometry g = MakeConvGeometry(st.base, data.shape_);
  TBlob weight = in[st.base_input(1)], bias_blob;
  const TBlob* bias = g.bias ? &in[st.base_input(2)] : nullptr;
  std::shared_ptr<const Folded> folded;
  if (st.fuse.with_bn) {
    folded = FoldedFor(st, in, g.bias);
    weight = TBlob(const_cast<float*>(folded->weight.data()), weight.shape_, kFloat32, weight.ctx);
    bias_blob = TBlob(const_cast<float*>(folded->bias.data()), TShape{g.filters}, kFloat32,
                      weight.ctx);
    bias = &bias_blob;
    g.bias = true;
  }
  const bool onednn = ConvUsesOneDNN(g, kFloat32);
  RunFused(attrs, in, req[0], out[0], onednn, [&](const onednn::PostOps* post) {
    if (onednn) {
      ConvForwardOneDNN(g, ctx, data, weight, bias, out[0], kWriteTo, post,
                        folded ? folded->stamp : 0, acts);
    } else {
      ConvForwardPlain(g, ctx, data, weight, bias, out[0], kWriteTo);
    }
  });
}

void FusedConvForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const FusedState& st = State(attrs);
  const uint32_t data = st.base_input(0);
  if (onednn::AnyBlocked(attrs, in, out) &&
      !ConvUsesOneDNN(MakeConvGeometry(st.base, in[data].shape_), kFloat32)) {
    onednn::OnPlainCopies(attrs, in, req, out, [&](const auto& pin, const auto& preq,
                                                   const auto& pout) {
      FusedConvCompute(attrs, ctx, pin, preq, pout, {});
    });
    return;
  }
  FusedConvCompute(attrs, ctx, in, req, out,
                   {onednn::BlockedIn(attrs, in, data), onednn::BlockedOut(attrs, out, 0)});
}

// A 2-D convolution's data, and its output with the sum operand added into it.
std::vector<onednn::LayoutGroup> FusedConvLayoutGroups(const NodeAttrs& attrs) {
  const FusedState& st = State(attrs);
  if (Param<ConvolutionParam>(st.base).kernel.ndim() != 2) return {};
  onednn::LayoutGroup out{{}, {0}};
  if (st.fuse.with_sum) out.inputs.push_back(st.sum_input());
  return {{{st.base_input(0)}, {}}, out};
}

void FusedFCForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const FusedState& st = State(attrs);
  const TShape& w = in[1].shape_;
  const FCMatrixShape s{static_cast<index_t>(in[0].Size() / w[1]), w[1], w[0]};
  const bool has_bias = st.num_base_inputs == 3;
  const bool onednn = FCUsesOneDNN(s, kFloat32);
  RunFused(attrs, in, req[0], out[0], onednn, [&](const onednn::PostOps* post) {
    if (onednn) {
      FCForwardOneDNN(s, ctx, in[0], in[1], has_bias ? &in[2] : nullptr, out[0], kWriteTo, post);
    } else {
      static const auto& fcompute = nnvm::Op::GetAttr<FCompute>("FCompute<cpu>");
      std::vector<TBlob> base_in(in.begin(), in.begin() + st.num_base_inputs);
      fcompute[st.base.op](st.base, ctx, base_in, {kWriteTo}, out);
    }
  });
}

constexpr char kConvolution[] = "Convolution";
constexpr char kFullyConnected[] = "FullyConnected";

}  // namespace

NNVM_REGISTER_OP(_sg_onednn_conv)
    .add_alias("_sg_mkldnn_conv")
    .describe("Convolution [+ BatchNorm folded in] [+ activation] [+ sum] [+ activation] as one "
              "oneDNN primitive with post-ops (made by the ONEDNN subgraph backend; inference).")
    .set_num_inputs([](const NodeAttrs& a) { return State(a).num_inputs(); })
    .set_num_outputs(1)
    .set_attr_parser(ParseFused<kConvolution>)
    .add_argument("data", "NDArray-or-Symbol[]", "data, weight, [bias], [gamma, beta, "
                  "moving_mean, moving_var], [sum]")
    .add_arguments(OneDNNFusionParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", FusedInputNames)
    .set_attr<FMutateInputs>("FMutateInputs", FusedMutateInputs)
    .set_attr<FInferShape>("FInferShape", FusedShape)
    .set_attr<FInferType>("FInferType", FusedType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", FusedConvForward)
    .set_attr<onednn::FBlockedLayout>("FBlockedLayout", FusedConvLayoutGroups);

NNVM_REGISTER_OP(_sg_onednn_fully_connected)
    .add_alias("_sg_mkldnn_fully_connected")
    .describe("FullyConnected + activation as one oneDNN matmul with an eltwise post-op (made "
              "by the ONEDNN subgraph backend).")
    .set_num_inputs([](const NodeAttrs& a) { return State(a).num_inputs(); })
    .set_num_outputs(1)
    .set_attr_parser(ParseFused<kFullyConnected>)
    .add_argument("data", "NDArray-or-Symbol[]", "data, weight, [bias]")
    .add_arguments(OneDNNFusionParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", FusedInputNames)
    .set_attr<FInferShape>("FInferShape", FusedShape)
    .set_attr<FInferType>("FInferType", FusedType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", FusedFCForward);

}  // namespace op
}  // namespace mxnet
