// BatchNorm's variants over its plain kernels: BatchNorm_v1 and _contrib_SyncBatchNorm (one
// process: plain batch norm; their third output is the variance, not the inverse std) and
// _contrib_BatchNormWithReLU (batch norm then ReLU). Shape and type rules are BatchNorm's.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "operator/nn/batch_norm_op.h"
#include "operator/nn/onednn/onednn_layout.h"
#include "operator/nn/op_variant.h"

namespace mxnet {
namespace op {

namespace {

// The arguments BatchNorm_v1 and SyncBatchNorm share (float eps, no axis).
#define MXNET_BN_V1_FIELDS                                                                   \
  DMLC_DECLARE_FIELD(eps).set_default(1e-3f).describe("Epsilon to prevent div 0");           \
  DMLC_DECLARE_FIELD(momentum).set_default(0.9f).describe("Momentum for moving average");    \
  DMLC_DECLARE_FIELD(fix_gamma).set_default(true).describe("Fix gamma while training");      \
  DMLC_DECLARE_FIELD(use_global_stats).set_default(false).describe(                          \
      "Whether use global moving statistics instead of local batch-norm. This will force "   \
      "change batch-norm into a scale shift operator.");                                     \
  DMLC_DECLARE_FIELD(output_mean_var).set_default(false).describe(                           \
      "Output All,normal mean and var")

struct BatchNormV1Param : public dmlc::Parameter<BatchNormV1Param> {
  float eps;
  float momentum;
  bool fix_gamma;
  bool use_global_stats;
  bool output_mean_var;
  DMLC_DECLARE_PARAMETER(BatchNormV1Param) { MXNET_BN_V1_FIELDS; }
};

struct SyncBatchNormParam : public dmlc::Parameter<SyncBatchNormParam> {
  float eps;
  float momentum;
  bool fix_gamma;
  bool use_global_stats;
  bool output_mean_var;
  int ndev;
  std::string key;
  DMLC_DECLARE_PARAMETER(SyncBatchNormParam) {
    MXNET_BN_V1_FIELDS;
    DMLC_DECLARE_FIELD(ndev).set_default(1).describe("The count of GPU devices");
    DMLC_DECLARE_FIELD(key).describe(
        "Hash key for synchronization, please set the same hash key for same layer, "
        "Block.prefix is typically used as in :class:`gluon.nn.contrib.SyncBatchNorm`.");
  }
};

DMLC_REGISTER_PARAMETER(BatchNormV1Param);
DMLC_REGISTER_PARAMETER(SyncBatchNormParam);

/*! \brief attr_parser of a variant: checks the variant's own arguments, then keeps the
 *  BatchNormParam they amount to (channel axis 1) for the shared kernels. */
template <typename VParam>
void VariantParser(NodeAttrs* attrs) {
  ParamParser<VParam>(attrs);
  const VParam v = Param<VParam>(*attrs);
  BatchNormParam p;
  p.Init(std::map<std::string, std::string>{});
  p.eps = v.eps;
  p.momentum = v.momentum;
  p.fix_gamma = v.fix_gamma;
  p.use_global_stats = v.use_global_stats;
  p.output_mean_var = v.output_mean_var;
  attrs->parsed = p;
}

/*! \brief How a variant differs from BatchNorm. */
struct VariantKind {
  bool var_output;  // the third output is the variance (BatchNorm's is the inverse std)
  bool relu;        // ReLU after the normalization
};

/*! \brief Turns the statistic blob s between inverse std and variance, into dst (may be s). */
void InvStdToVar(const TBlob& s, const TBlob& dst, double eps) {
  MXNET_REAL_TYPE_SWITCH(s.type_flag_, PType, {
    const PType* a = s.dptr<PType>();
    PType* b = dst.dptr<PType>();
    for (size_t c = 0; c < s.Size(); ++c) {
      const double v = static_cast<double>(a[c]);
      b[c] = static_cast<PType>(1.0 / (v * v) - eps);
    }
  });
}
void VarToInvStd(const TBlob& s, const TBlob& dst, double eps) {
  MXNET_REAL_TYPE_SWITCH(s.type_flag_, PType, {
    const PType* a = s.dptr<PType>();
    PType* b = dst.dptr<PType>();
    for (size_t c = 0; c < s.Size(); ++c) {
      b[c] = static_cast<PType>(1.0 / std::sqrt(static_cast<double>(a[c]) + eps));
    }
  });
}

void VariantForward(const VariantKind& kind, const NodeAttrs& attrs, const OpContext& ctx,
                    const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                    const std::vector<TBlob>& out) {
  const BatchNormParam& p = Param<BatchNormParam>(attrs);
  BatchNormFixGamma(p, in[batchnorm::kGamma]);
  const int step = onednn::BlockedIn(attrs, in, batchnorm::kData) ? onednn::BlockSize() : 1;
  BatchNormForwardPlain(p, ctx.is_train, in, req, out, step, kind.relu);
  if (kind.var_output && req[batchnorm::kInvStd] == kWriteTo) {
    InvStdToVar(out[batchnorm::kInvStd], out[batchnorm::kInvStd], p.eps);
  }
}

/*! \brief Backward inputs: BatchNorm's (batchnorm::BackwardInput), then the workspace for the
 *  ReLU variant, whose kernel recomputes the forward's output from it to mask the head
 *  gradient. The variance of the others is turned into the inverse std BatchNorm's backward
 *  expects. */
void VariantBackward(const VariantKind& kind, const NodeAttrs& attrs, const OpContext& ctx,
                     const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                     const std::vector<TBlob>& out) {
  const BatchNormParam& p = Param<BatchNormParam>(attrs);
  // MXNet 1.9.1's legacy BatchNorm_v1 and SyncBatchNorm set gamma to 1 in backward as well.
  if (kind.var_output) BatchNormFixGamma(p, in[batchnorm::kBwGamma]);
  std::vector<TBlob> bn_in(in);
  std::vector<uint8_t> invstd_buf;
  if (kind.var_output) {
    const TBlob& var = in[batchnorm::kBwInvStd];
    invstd_buf.resize(var.Size() * DTypeSize(var.type_flag_));
    TBlob invstd(invstd_buf.data(), var.shape_, var.type_flag_, var.ctx);
    VarToInvStd(var, invstd, p.eps);
    bn_in[batchnorm::kBwInvStd] = invstd;
  }
  const int step = onednn::BlockedIn(attrs, in, batchnorm::kBwData) ? onednn::BlockSize() : 1;
  BatchNormBackwardPlain(p, ctx.is_train, bn_in, req, out, step, kind.relu);
}

/*! \brief Shapes of the ReLU variant: BatchNorm's, and the workspace (2 * channels). */
bool WorkspaceShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  static const auto bn = Delegate<FInferShape>("BatchNorm", "FInferShape");
  std::vector<TShape> bn_out(out->begin(), out->begin() + batchnorm::kWorkspace);
  if (!bn(attrs, in, &bn_out)) return false;
  std::copy(bn_out.begin(), bn_out.end(), out->begin());
  const TShape& channels = bn_out[batchnorm::kMean];
  AssignShape(attrs, "workspace", &(*out)[batchnorm::kWorkspace], TShape{2 * channels[0]});
  return true;
}

/*! \brief dtypes of the ReLU variant: BatchNorm's; the workspace the parameters'. */
bool WorkspaceType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  static const auto bn = Delegate<FInferType>("BatchNorm", "FInferType");
  std::vector<int> bn_out(out->begin(), out->begin() + batchnorm::kWorkspace);
  if (!bn(attrs, in, &bn_out)) return false;
  std::copy(bn_out.begin(), bn_out.end(), out->begin());
  AssignType(attrs, "workspace", &(*out)[batchnorm::kWorkspace], bn_out[batchnorm::kMean]);
  return true;
}

/*! \brief One variant: its names, documentation and how it differs. */
struct VariantDecl {
  const char* name;
  const char* backward;
  std::string doc;
  VariantKind kind;
  std::function<void(NodeAttrs*)> parser;
  std::vector<dmlc::ParamFieldInfo> fields;
};

void RegisterVariant(const VariantDecl& d) {
  const VariantKind kind = d.kind;
  const std::string bwd_name = d.backward;
  auto fgrad = [kind, bwd_name](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
    using namespace batchnorm;
    const auto& in = n->inputs;
    std::vector<NodeEntry> bw_in{og[kOut],        in[kData],    in[kGamma],
                                 in[kMovingMean], in[kMovingVar], Out(n, kMean),
                                 Out(n, kInvStd)};
    if (kind.relu) bw_in.push_back(Out(n, kWorkspace));
    NodeEntry bw = MakeNode(bwd_name.c_str(), GradName(n), bw_in, n->attrs.dict, &n);
    const std::string zero = n->attrs.name + "_zero_grad";
    return std::vector<NodeEntry>{Out(bw.node, 0), Out(bw.node, 1), Out(bw.node, 2),
                                  MakeNode("zeros_like", zero, {in[kMovingMean]}),
                                  MakeNode("zeros_like", zero, {in[kMovingVar]})};
  };
  ::nnvm::Op::Register(d.name)
      .describe(d.doc)
      .set_num_inputs(5)
      .set_num_outputs(kind.relu ? 4 : 3)
      .set_attr_parser(d.parser)
      .add_argument("data", "NDArray-or-Symbol", "Input data to batch normalization")
      .add_argument("gamma", "NDArray-or-Symbol", "gamma array")
      .add_argument("beta", "NDArray-or-Symbol", "beta array")
      .add_argument("moving_mean", "NDArray-or-Symbol", "running mean of input")
      .add_argument("moving_var", "NDArray-or-Symbol", "running variance of input")
      .add_arguments(d.fields)
      .set_attr<FListInputNames>("FListInputNames", InputNames({"data", "gamma", "beta",
                                                                "moving_mean", "moving_var"}))
      .set_attr<FListOutputNames>("FListOutputNames",
                                  InputNames(kind.relu ? std::vector<std::string>{"output", "mean",
                                                                                  "var", "workspace"}
                                                       : std::vector<std::string>{"output", "mean",
                                                                                  "var"}))
      .set_attr<FNumVisibleOutputs>("FNumVisibleOutputs",
                                    [](const NodeAttrs& attrs) -> uint32_t {
                                      return Param<BatchNormParam>(attrs).output_mean_var ? 3
                                                                                          : 1;
                                    })
      .set_attr<FMutateInputs>("FMutateInputs", [](const NodeAttrs&) {
        return std::vector<uint32_t>{batchnorm::kMovingMean, batchnorm::kMovingVar};
      })
      .set_attr<FWriteArguments>("FWriteArguments", BatchNormWrittenArguments)
      .set_attr<FSetInputVarAttrOnCompose>("FSetInputVarAttrOnCompose",
                                           MovingStatsInitOnCompose)
      .set_attr<FInferShape>("FInferShape", kind.relu ? FInferShape(WorkspaceShape)
                                                      : Delegate<FInferShape>("BatchNorm",
                                                                              "FInferShape"))
      .set_attr<FInferType>("FInferType", kind.relu ? FInferType(WorkspaceType)
                                                    : Delegate<FInferType>("BatchNorm",
                                                                           "FInferType"))
      .set_attr<FCompute>("FCompute<cpu>",
                          [kind](const NodeAttrs& attrs, const OpContext& ctx,
                                 const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                                 const std::vector<TBlob>& out) {
                            VariantForward(kind, attrs, ctx, in, req, out);
                          })
      .set_attr<onednn::FBlockedLayout>("FBlockedLayout", BatchNormLayoutGroups)
      .set_attr<FGradient>("FGradient", fgrad);

  std::vector<std::string> bw_inputs{"ograd", "data", "gamma", "moving_mean", "moving_var",
                                     "mean", "var"};
  if (kind.relu) bw_inputs.push_back("workspace");
  ::nnvm::Op::Register(d.backward)
      .describe(std::string("Gradients of ") + d.name + " for data, gamma and beta; in "
                "training mode it also updates moving_mean and moving_var.")
      .set_num_inputs(static_cast<uint32_t>(bw_inputs.size()))
      .set_num_outputs(3)
      .set_attr_parser(d.parser)
      .add_arguments(d.fields)
      .set_attr<FListInputNames>("FListInputNames", InputNames(bw_inputs))
      .set_attr<FMutateInputs>("FMutateInputs", [](const NodeAttrs&) {
        return std::vector<uint32_t>{batchnorm::kBwMovingMean, batchnorm::kBwMovingVar};
      })
      .set_attr<FWriteArguments>("FWriteArguments",
                                 [kind](const NodeAttrs& attrs) -> std::vector<uint32_t> {
                                   if (!kind.var_output) return {};
                                   return BatchNormWrittenArguments(attrs);  // kBwGamma == kGamma
                                 })
      .set_attr<FInferShape>("FInferShape",
                             Delegate<FInferShape>("_backward_BatchNorm", "FInferShape"))
      .set_attr<FInferType>("FInferType",
                            Delegate<FInferType>("_backward_BatchNorm", "FInferType"))
      .set_attr<FCompute>("FCompute<cpu>",
                          [kind](const NodeAttrs& attrs, const OpContext& ctx,
                                 const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                                 const std::vector<TBlob>& out) {
                            VariantBackward(kind, attrs, ctx, in, req, out);
                          })
      .set_attr<onednn::FBlockedLayout>("FBlockedLayout", BatchNormBackwardLayoutGroups);
}

const char* const kStatsDoc = R"doc(
The moving statistics ``moving_mean`` and ``moving_var`` are auxiliary states, updated with
``momentum`` in the backward pass of a training-mode forward (as BatchNorm's); outside training,
or with ``use_global_stats``, they normalize instead of the batch statistics. With
``fix_gamma`` the scale is 1 and its gradient 0.
)doc";

const bool kRegistered [[maybe_unused]] = [] {
  RegisterVariant({"BatchNorm_v1", "_backward_BatchNorm_v1",
                   (std::string("Batch normalization.\n\nThis operator is DEPRECATED. Perform "
                                "BatchNorm on the input.\n\nNormalizes the channel axis 1 of "
                                "the data by the batch mean and variance, then scales by "
                                "``gamma`` and shifts by ``beta``. With ``output_mean_var`` it "
                                "also outputs the mean and the variance used.\n") +
                    kStatsDoc),
                   {true, false}, VariantParser<BatchNormV1Param>,
                   BatchNormV1Param::__FIELDS__()});
  RegisterVariant({"_contrib_SyncBatchNorm", "_backward__contrib_SyncBatchNorm",
                   (std::string("Batch normalization, with the statistics synchronized across "
                                "devices.\n\nIn one process on one device (the only case here) "
                                "this is BatchNorm over channel axis 1; ``ndev`` and ``key`` are "
                                "accepted. With ``output_mean_var`` it also outputs the mean and "
                                "the variance used.\n") +
                    kStatsDoc),
                   {true, false}, VariantParser<SyncBatchNormParam>,
                   SyncBatchNormParam::__FIELDS__()});
  RegisterVariant({"_contrib_BatchNormWithReLU", "_backward_contrib_BatchNormWithReLU",
                   (std::string("Batch normalization with ReLU fusion.\n\nBatchNorm (same "
                                "arguments, any channel ``axis``) followed by ReLU: "
                                "``out = max(BatchNorm(data), 0)``; the gradient flows where "
                                "the output is positive. With ``output_mean_var`` it also "
                                "outputs the mean and the inverse std used.\n") +
                    kStatsDoc),
                   {false, true}, ParamParser<BatchNormParam>, BatchNormParam::__FIELDS__()});
  return true;
}();

}  // namespace

}  // namespace op
}  // namespace mxnet
