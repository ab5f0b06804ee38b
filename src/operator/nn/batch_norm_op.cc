// BatchNorm and _backward_BatchNorm: shape and type rules, the plain CPU kernels over any
// channel axis, the moving-statistics update and the registration.
#include "operator/nn/batch_norm_op.h"
#include "operator/isa_clones.h"
#include "operator/nn/onednn/onednn_batch_norm.h"
#include "operator/nn/onednn/onednn_layout.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(BatchNormParam);

int BatchNormAxis(const char* op, const BatchNormParam& p, const TShape& data) {
  const int nd = data.ndim();
  CHECK_GE(nd, 1) << "Operator " << op << ": argument data must have at least one dimension, "
                  << "given shape " << data;
  const int axis = p.axis < 0 ? p.axis + nd : p.axis;
  CHECK(axis >= 0 && axis < nd) << "Operator " << op << ": argument axis=" << p.axis
                                << " is out of range for data of shape " << data;
  return axis;
}

BatchNormDims::BatchNormDims(const TShape& data, int axis) {
  for (int i = 0; i < axis; ++i) outer *= data[i];
  channels = data[axis];
  for (int i = axis + 1; i < data.ndim(); ++i) inner *= data[i];
}

namespace {

/*! \brief Where a channel's elements lie: runs of inner elements, kStep apart (1: NCHW-like
 *  contiguous runs; B: oneDNN's blocked nChw{B}c, onednn_layout.h). */
template <int kStep>
struct ChannelRuns {
  const BatchNormDims& d;
  /*! \brief The first element of channel c in outer slice o. */
  index_t Row(index_t o, index_t c) const {
    if (kStep == 1) return (o * d.channels + c) * d.inner;
    return (o * d.channels + c - c % kStep) * d.inner + c % kStep;
  }
};

/*! \brief fn(c0) for each group of kStep channels whose runs share memory (one channel when
 *  kStep is 1), in parallel when the whole array is worth it. Within a group, per-channel
 *  work goes outer slice by outer slice, so the group's memory is read once per pass and each
 *  channel still sums its runs in order of o, as with kStep 1. */
template <int kStep, typename Fn>
void ForEachChannelGroup(const BatchNormDims& d, Fn fn) {
  LoopMaybeParallel(d.outer * d.channels * d.inner >= ParallelGrain(), d.channels / kStep,
                    [&](index_t g) { fn(g * kStep); });
}

// Run kernels, over the runs of kStep channels at once (element i of channel j of the run at
// i * kStep + j; kStep 1 is one channel's contiguous run). A reduction keeps kLanes
// independent double accumulators per channel: one running sum is one dependent add per
// element (its latency, not the data, sets the pace), while lanes pipeline and vectorize.
// Each channel's sums come out the same for any kStep. Built for AVX2 as well
// (MXNET_AVX2_CLONES).
constexpr int kLanes = 16;

/*! \brief Adds sum(x - shift) to sum[j] and sum((x - shift)^2) to sq[j], per channel j. */
template <int kStep, typename DType>
MXNET_AVX2_CLONES void RunMoments(const DType* x, index_t n, const double* shift, double* sum,
                                  double* sq) {
  double as[kStep][kLanes] = {}, aq[kStep][kLanes] = {};
  index_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      for (int j = 0; j < kStep; ++j) {
        const double v = static_cast<double>(x[(i + l) * kStep + j]) - shift[j];
        as[j][l] += v;
        aq[j][l] += v * v;
      }
    }
  }
  for (; i < n; ++i) {
    for (int j = 0; j < kStep; ++j) {
      const double v = static_cast<double>(x[i * kStep + j]) - shift[j];
      as[j][0] += v;
      aq[j][0] += v * v;
    }
  }
  for (int j = 0; j < kStep; ++j) {
    for (int l = 0; l < kLanes; ++l) {
      sum[j] += as[j][l];
      sq[j] += aq[j][l];
    }
  }
}

/*! \brief The ReLU variant's fused step: relu(y) (NaN gives 0). */
template <typename DType, typename Acc>
inline DType Relu(DType y) {
  return static_cast<Acc>(y) > Acc(0) ? y : DType(0);
}

/*! \brief The gradient reaching the normalization: og, or with kRelu og where the forward's
 *  output x * a + b (recomputed as the forward computed it) was positive, else 0. */
template <bool kRelu, typename DType, typename Acc>
inline DType MaskedGrad(DType og, DType x, Acc a, Acc b) {
  if (!kRelu) return og;
  const DType y = static_cast<DType>(static_cast<Acc>(x) * a + b);
  return static_cast<Acc>(y) > Acc(0) ? og : DType(0);
}

/*! \brief Adds sum(g) to sum_g[j] and sum(g * (x - mean)) to sum_gx[j], per channel j, where g
 *  is og masked by the forward's ReLU (kRelu: a, b are the forward's affine per channel). */
template <int kStep, bool kRelu, typename DType, typename Acc>
MXNET_AVX2_CLONES void RunGradSums(const DType* og, const DType* x, index_t n, const double* mean,
                                   const Acc* a, const Acc* b, double* sum_g, double* sum_gx) {
  double ag[kStep][kLanes] = {}, agx[kStep][kLanes] = {};
  DType masked[kRelu ? kLanes * kStep : 1];  // this block's og masked (a loop of its own
                                             // vectorizes, unlike the select inside the sums)
  index_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const DType* g = og + i * kStep;
    if (kRelu) {
      for (int l = 0; l < kLanes; ++l) {
        for (int j = 0; j < kStep; ++j) {
          const index_t k = (i + l) * kStep + j;
          masked[l * kStep + j] = MaskedGrad<kRelu>(og[k], x[k], a[j], b[j]);
        }
      }
      g = masked;
    }
    for (int l = 0; l < kLanes; ++l) {
      for (int j = 0; j < kStep; ++j) {
        const index_t k = (i + l) * kStep + j;
        const double gv = static_cast<double>(g[l * kStep + j]);
        ag[j][l] += gv;
        agx[j][l] += gv * (static_cast<double>(x[k]) - mean[j]);
      }
    }
  }
  for (; i < n; ++i) {
    for (int j = 0; j < kStep; ++j) {
      const index_t k = i * kStep + j;
      const double gv = static_cast<double>(MaskedGrad<kRelu>(og[k], x[k], a[j], b[j]));
      ag[j][0] += gv;
      agx[j][0] += gv * (static_cast<double>(x[k]) - mean[j]);
    }
  }
  for (int j = 0; j < kStep; ++j) {
    for (int l = 0; l < kLanes; ++l) {
      sum_g[j] += ag[j][l];
      sum_gx[j] += agx[j][l];
    }
  }
}

/*! \brief y = x * a[j] + b[j] (Acc arithmetic) per channel j, honouring req; with kRelu
 *  y = relu(that) (kWriteTo only). */
template <int kStep, bool kRelu, typename DType, typename Acc>
MXNET_AVX2_CLONES void RunAffine(const DType* x, DType* y, index_t n, const Acc* a, const Acc* b,
                                 OpReqType req) {
  if (kRelu) {
    for (index_t i = 0; i < n; ++i) {
      for (int j = 0; j < kStep; ++j) {
        const index_t k = i * kStep + j;
        y[k] = Relu<DType, Acc>(static_cast<DType>(static_cast<Acc>(x[k]) * a[j] + b[j]));
      }
    }
  } else if (req == kAddTo) {
    for (index_t i = 0; i < n; ++i) {
      for (int j = 0; j < kStep; ++j) {
        const index_t k = i * kStep + j;
        y[k] = static_cast<DType>(static_cast<Acc>(y[k]) + (static_cast<Acc>(x[k]) * a[j] + b[j]));
      }
    }
  } else {
    for (index_t i = 0; i < n; ++i) {
      for (int j = 0; j < kStep; ++j) {
        const index_t k = i * kStep + j;
        y[k] = static_cast<DType>(static_cast<Acc>(x[k]) * a[j] + b[j]);
      }
    }
  }
}

/*! \brief The data gradient of a batch-statistics BatchNorm over one run, per channel j:
 *  dx = a * (og - mean_og - (x - m) * s * mean_og_xhat), honouring req. */
template <int kStep, bool kRelu, typename DType, typename Acc>
MXNET_AVX2_CLONES void RunBatchGrad(const DType* og, const DType* x, DType* dx, index_t n,
                                    const Acc* a, const Acc* mean_og, const Acc* m,
                                    const Acc* s, const Acc* mean_og_xhat, const Acc* fa,
                                    const Acc* fb, OpReqType req) {
  for (index_t i = 0; i < n; ++i) {
    for (int j = 0; j < kStep; ++j) {
      const index_t k = i * kStep + j;
      const Acc xhat = (static_cast<Acc>(x[k]) - m[j]) * s[j];
      const Acc g = static_cast<Acc>(MaskedGrad<kRelu>(og[k], x[k], fa[j], fb[j]));
      const Acc v = a[j] * (g - mean_og[j] - xhat * mean_og_xhat[j]);
      if (req == kAddTo) dx[k] = static_cast<DType>(static_cast<Acc>(dx[k]) + v);
      else dx[k] = static_cast<DType>(v);
    }
  }
}

/*! \brief The per-channel affine of the forward, y = x * a + b. */
template <typename PType, typename Acc>
void ChannelAffine(const BatchNormParam& p, double mean, double invstd, PType gamma, PType beta,
                   Acc* a, Acc* b) {
  const double scale = p.fix_gamma ? 1.0 : static_cast<double>(gamma);
  *a = static_cast<Acc>(invstd * scale);
  *b = static_cast<Acc>(static_cast<double>(beta) - mean * invstd * scale);
}

template <int kStep, bool kRelu, typename DType, typename PType>
void ForwardImpl(const BatchNormParam& p, bool is_train, const BatchNormDims& d,
                 const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                 const std::vector<TBlob>& out) {
  using Acc = typename AccType<DType>::type;
  using namespace batchnorm;
  const DType* x = in[kData].dptr<DType>();
  const PType* gamma = in[kGamma].dptr<PType>();
  const PType* beta = in[kBeta].dptr<PType>();
  const PType* moving_mean = in[kMovingMean].dptr<PType>();
  const PType* moving_var = in[kMovingVar].dptr<PType>();
  DType* y = out[kOut].dptr<DType>();
  const bool batch_stats = is_train && !p.use_global_stats;
  const double count = static_cast<double>(d.outer * d.inner);
  const ChannelRuns<kStep> runs{d};
  ForEachChannelGroup<kStep>(d, [&](index_t c0) {
    double shift[kStep], sum[kStep] = {}, sq[kStep] = {};
    Acc a[kStep], b[kStep];
    if (batch_stats) {
      // One pass: moments about the channel's first element (any value near the data keeps
      // E[(x-s)^2] - E[x-s]^2 from cancelling; sums are double over float data).
      for (int j = 0; j < kStep; ++j) {
        shift[j] = count > 0 ? static_cast<double>(x[runs.Row(0, c0 + j)]) : 0.0;
      }
      for (index_t o = 0; o < d.outer; ++o) {
        RunMoments<kStep>(x + runs.Row(o, c0), d.inner, shift, sum, sq);
      }
    }
    for (int j = 0; j < kStep; ++j) {
      const index_t c = c0 + j;
      double mean, var;
      if (batch_stats) {
        const double m = count > 0 ? sum[j] / count : 0.0;
        mean = shift[j] + m;
        var = count > 0 ? std::max(sq[j] / count - m * m, 0.0) : 0.0;
      } else {
        mean = static_cast<double>(moving_mean[c]);
        var = static_cast<double>(moving_var[c]);
      }
      const double invstd = 1.0 / std::sqrt(var + p.eps);
      if (req[kMean] != kNullOp) Assign(out[kMean].dptr<PType>() + c, req[kMean], PType(mean));
      if (req[kInvStd] != kNullOp) {
        Assign(out[kInvStd].dptr<PType>() + c, req[kInvStd], PType(invstd));
      }
      ChannelAffine(p, mean, invstd, gamma[c], beta[c], &a[j], &b[j]);
      if (kRelu && req[kWorkspace] != kNullOp) {  // a, then b: its backward's mask
        static_assert(!kRelu || std::is_same<Acc, PType>::value, "workspace holds Acc values");
        PType* ws = out[kWorkspace].dptr<PType>();
        ws[c] = a[j];
        ws[d.channels + c] = b[j];
      }
    }
    if (req[kOut] == kNullOp) return;
    for (index_t o = 0; o < d.outer; ++o) {
      const index_t k = runs.Row(o, c0);
      RunAffine<kStep, kRelu>(x + k, y + k, d.inner, a, b, req[kOut]);
    }
  });
}

template <int kStep, bool kRelu, typename DType, typename PType>
void BackwardImpl(const BatchNormParam& p, bool is_train, const BatchNormDims& d,
                  const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                  const std::vector<TBlob>& out) {
  using Acc = typename AccType<DType>::type;
  using namespace batchnorm;
  const DType* og = in[kOutGrad].dptr<DType>();
  const DType* x = in[kBwData].dptr<DType>();
  const PType* gamma = in[kBwGamma].dptr<PType>();
  PType* moving_mean = in[kBwMovingMean].dptr<PType>();
  PType* moving_var = in[kBwMovingVar].dptr<PType>();
  const PType* saved_mean = in[kBwMean].dptr<PType>();
  const PType* saved_invstd = in[kBwInvStd].dptr<PType>();
  const PType* ws = kRelu ? in[kBwWorkspace].dptr<PType>() : nullptr;
  const bool batch_stats = is_train && !p.use_global_stats;
  const double count = static_cast<double>(d.outer * d.inner);
  const ChannelRuns<kStep> runs{d};
  ForEachChannelGroup<kStep>(d, [&](index_t c0) {
    double mean[kStep], invstd[kStep], sum_og[kStep] = {}, sum_og_xc[kStep] = {};
    for (int j = 0; j < kStep; ++j) {
      const index_t c = c0 + j;
      if (batch_stats) {
        mean[j] = static_cast<double>(saved_mean[c]);
        invstd[j] = static_cast<double>(saved_invstd[c]);
      } else {
        mean[j] = static_cast<double>(moving_mean[c]);
        invstd[j] = 1.0 / std::sqrt(static_cast<double>(moving_var[c]) + p.eps);
      }
    }
    Acc fa[kStep] = {}, fb[kStep] = {};  // the forward's affine, for the ReLU's mask
    for (int j = 0; kRelu && j < kStep; ++j) {
      fa[j] = ws[c0 + j];
      fb[j] = ws[d.channels + c0 + j];
    }
    for (index_t o = 0; o < d.outer; ++o) {
      const index_t k = runs.Row(o, c0);
      RunGradSums<kStep, kRelu>(og + k, x + k, d.inner, mean, fa, fb, sum_og, sum_og_xc);
    }
    Acc a[kStep], mean_og[kStep], mean_og_xhat[kStep], m[kStep], s[kStep], zero[kStep] = {};
    for (int j = 0; j < kStep; ++j) {
      const index_t c = c0 + j;
      const double sum_og_xhat = sum_og_xc[j] * invstd[j];
      const double scale = p.fix_gamma ? 1.0 : static_cast<double>(gamma[c]);
      if (req[1] != kNullOp) {
        Assign(out[1].dptr<PType>() + c, req[1], PType(p.fix_gamma ? 0.0 : sum_og_xhat));
      }
      if (req[2] != kNullOp) Assign(out[2].dptr<PType>() + c, req[2], PType(sum_og[j]));
      a[j] = static_cast<Acc>(scale * invstd[j]);
      mean_og[j] = static_cast<Acc>(count > 0 ? sum_og[j] / count : 0.0);
      mean_og_xhat[j] = static_cast<Acc>(count > 0 ? sum_og_xhat / count : 0.0);
      m[j] = static_cast<Acc>(mean[j]);
      s[j] = static_cast<Acc>(invstd[j]);
    }
    if (req[0] != kNullOp) {
      DType* dx = out[0].dptr<DType>();
      for (index_t o = 0; o < d.outer; ++o) {
        const index_t k = runs.Row(o, c0);
        if (batch_stats && count > 0) {
          // d/dx of gamma * (x - mean(x)) / sqrt(var(x) + eps) for the whole channel.
          RunBatchGrad<kStep, kRelu>(og + k, x + k, dx + k, d.inner, a, mean_og, m, s,
                                     mean_og_xhat, fa, fb, req[0]);
        } else if (kRelu) {  // fixed statistics: the scale of the masked gradient
          RunBatchGrad<kStep, kRelu>(og + k, x + k, dx + k, d.inner, a, zero, m, s, zero, fa, fb,
                                     req[0]);
        } else {  // fixed statistics: only the scale remains
          RunAffine<kStep, false>(og + k, dx + k, d.inner, a, zero, req[0]);
        }
      }
    }
    if (batch_stats) {
      for (int j = 0; j < kStep; ++j) {
        FoldBatchStats(p, mean[j], invstd[j], moving_mean + c0 + j, moving_var + c0 + j);
      }
    }
  });
}

/*! \brief fn.template operator()<DType, PType>() for the data dtype t; parameters and
 *  statistics are float32 for float16 data, else of the data's dtype. */
template <typename Fn>
void BatchNormTypeSwitch(int t, Fn fn) {
  MXNET_REAL_TYPE_SWITCH(t, DType, {
    using PType = typename std::conditional<std::is_same<DType, half_t>::value, float,
                                            DType>::type;
    fn(DType(), PType());
  });
}

}  // namespace

namespace {

/*! \brief fn(std::integral_constant<int, step>()) for a run step of 1, 8 or 16. */
template <typename Fn>
void StepSwitch(int step, Fn fn) {
  switch (step) {
    case 1: return fn(std::integral_constant<int, 1>());
    case 8: return fn(std::integral_constant<int, 8>());
    case 16: return fn(std::integral_constant<int, 16>());
    default: LOG(FATAL) << "BatchNorm: channel block " << step << " expected 1, 8 or 16";
  }
}

}  // namespace

void BatchNormForwardPlain(const BatchNormParam& p, bool is_train, const std::vector<TBlob>& in,
                           const std::vector<OpReqType>& req, const std::vector<TBlob>& out,
                           int step, bool relu) {
  const TBlob& data = in[batchnorm::kData];
  const BatchNormDims d(data.shape_, BatchNormAxis("BatchNorm", p, data.shape_));
  CHECK(!relu || req[batchnorm::kOut] != kAddTo)
      << "Operator _contrib_BatchNormWithReLU: adding to the output (req 'add') is not supported";
  BatchNormTypeSwitch(data.type_flag_, [&](auto dt, auto pt) {
    StepSwitch(step, [&](auto k) {
      using DType = decltype(dt);
      using PType = decltype(pt);
      if (relu) {
        ForwardImpl<decltype(k)::value, true, DType, PType>(p, is_train, d, in, req, out);
      } else {
        ForwardImpl<decltype(k)::value, false, DType, PType>(p, is_train, d, in, req, out);
      }
    });
  });
}

void BatchNormBackwardPlain(const BatchNormParam& p, bool is_train, const std::vector<TBlob>& in,
                            const std::vector<OpReqType>& req, const std::vector<TBlob>& out,
                            int step, bool relu) {
  const TBlob& data = in[batchnorm::kBwData];
  const BatchNormDims d(data.shape_, BatchNormAxis("BatchNorm", p, data.shape_));
  BatchNormTypeSwitch(data.type_flag_, [&](auto dt, auto pt) {
    StepSwitch(step, [&](auto k) {
      using DType = decltype(dt);
      using PType = decltype(pt);
      if (relu) {
        BackwardImpl<decltype(k)::value, true, DType, PType>(p, is_train, d, in, req, out);
      } else {
        BackwardImpl<decltype(k)::value, false, DType, PType>(p, is_train, d, in, req, out);
      }
    });
  });
}

void BatchNormFixGamma(const BatchNormParam& p, const TBlob& gamma) {
  if (!p.fix_gamma) return;
  MXNET_REAL_TYPE_SWITCH(gamma.type_flag_, PType, {
    PType* g = gamma.dptr<PType>();
    std::fill(g, g + gamma.Size(), PType(1));
  });
}

std::vector<onednn::LayoutGroup> BatchNormLayoutGroups(const NodeAttrs& attrs) {
  if (Param<BatchNormParam>(attrs).axis != 1) return {};
  return {{{batchnorm::kData}, {batchnorm::kOut}}};
}

std::vector<onednn::LayoutGroup> BatchNormBackwardLayoutGroups(const NodeAttrs& attrs) {
  if (Param<BatchNormParam>(attrs).axis != 1) return {};
  return {{{batchnorm::kOutGrad, batchnorm::kBwData}, {0}}};
}

std::vector<uint32_t> BatchNormWrittenArguments(const NodeAttrs& attrs) {
  if (!Param<BatchNormParam>(attrs).fix_gamma) return {};
  return {batchnorm::kGamma};
}

namespace {

bool BatchNormShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[batchnorm::kData];
  if (!data.IsKnown()) return false;
  const BatchNormParam& p = Param<BatchNormParam>(attrs);
  const TShape channel{data[BatchNormAxis(attrs.op->name.c_str(), p, data)]};
  for (size_t i = batchnorm::kGamma; i <= batchnorm::kMovingVar; ++i) {
    AssignInputShape(attrs, i, &(*in)[i], channel);
  }
  AssignShape(attrs, "output", &(*out)[batchnorm::kOut], data);
  AssignShape(attrs, "mean", &(*out)[batchnorm::kMean], channel);
  AssignShape(attrs, "var", &(*out)[batchnorm::kInvStd], channel);
  return true;
}

/*! \brief dtype of gamma, beta and the statistics for data of dtype t. */
int ParamDType(const NodeAttrs& attrs, int t) {
  CHECK(t == kFloat32 || t == kFloat64 || t == kFloat16)
      << "Operator " << attrs.op->name << ": argument data must be float32, float64 or float16, "
      << "given " << DTypeName(t);
  return t == kFloat16 ? kFloat32 : t;
}

bool BatchNormType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const int t = (*in)[batchnorm::kData];
  if (t < 0) return false;
  const int pt = ParamDType(attrs, t);
  for (size_t i = batchnorm::kGamma; i <= batchnorm::kMovingVar; ++i) {
    AssignInputType(attrs, i, &(*in)[i], pt);
  }
  AssignType(attrs, "output", &(*out)[batchnorm::kOut], t);
  AssignType(attrs, "mean", &(*out)[batchnorm::kMean], pt);
  AssignType(attrs, "var", &(*out)[batchnorm::kInvStd], pt);
  return true;
}

void BatchNormCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const BatchNormParam& p = Param<BatchNormParam>(attrs);
  BatchNormFixGamma(p, in[batchnorm::kGamma]);
  if (onednn::BlockedIn(attrs, in, batchnorm::kData)) {  // the output too: one layout group
    // The plain kernel walking the blocked layout: its double sums in the order it takes on
    // NCHW, so hybridized and imperative runs agree (oneDNN's float sums drift on channels
    // of few elements).
    return BatchNormForwardPlain(p, ctx.is_train, in, req, out, onednn::BlockSize());
  }
  if (BatchNormUsesOneDNN(p, in[batchnorm::kData], req[batchnorm::kOut])) {
    return BatchNormForwardOneDNN(p, ctx.is_train, in, req, out);
  }
  BatchNormForwardPlain(Param<BatchNormParam>(attrs), ctx.is_train, in, req, out);
}


bool BatchNormBackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                            std::vector<TShape>* out) {
  AssignShape(attrs, "data_grad", &(*out)[0], (*in)[batchnorm::kBwData]);
  AssignShape(attrs, "gamma_grad", &(*out)[1], (*in)[batchnorm::kBwGamma]);
  AssignShape(attrs, "beta_grad", &(*out)[2], (*in)[batchnorm::kBwGamma]);
  return (*out)[0].IsKnown() && (*out)[1].IsKnown();
}

bool BatchNormBackwardType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const int t = (*in)[batchnorm::kBwData];
  if (t < 0) return false;
  const int pt = ParamDType(attrs, t);
  AssignType(attrs, "data_grad", &(*out)[0], t);
  AssignType(attrs, "gamma_grad", &(*out)[1], pt);
  AssignType(attrs, "beta_grad", &(*out)[2], pt);
  return true;
}

void BatchNormBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  const BatchNormParam& p = Param<BatchNormParam>(attrs);
  if (onednn::BlockedIn(attrs, in, batchnorm::kBwData)) {  // output gradients too: one group
    return BatchNormBackwardPlain(p, ctx.is_train, in, req, out, onednn::BlockSize());
  }
  if (BatchNormUsesOneDNN(p, in[batchnorm::kBwData], req[0])) {
    return BatchNormBackwardOneDNN(p, ctx.is_train, in, req, out);
  }
  BatchNormBackwardPlain(Param<BatchNormParam>(attrs), ctx.is_train, in, req, out);
}


// The gradients of the mean and var outputs are blocked, as MXNet's; the moving statistics
// are auxiliary states and get none.
std::vector<NodeEntry> BatchNormGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  using namespace batchnorm;
  const auto& in = n->inputs;
  NodeEntry bw = MakeNode("_backward_BatchNorm", GradName(n),
                          {og[kOut], in[kData], in[kGamma], in[kMovingMean], in[kMovingVar],
                           Out(n, kMean), Out(n, kInvStd)},
                          n->attrs.dict, &n);
  const std::string zero = n->attrs.name + "_zero_grad";
  return {Out(bw.node, 0), Out(bw.node, 1), Out(bw.node, 2),
          MakeNode("zeros_like", zero, {in[kMovingMean]}),
          MakeNode("zeros_like", zero, {in[kMovingVar]})};
}

}  // namespace

NNVM_REGISTER_OP(BatchNorm)
    .describe(R"doc(Batch normalization.

Normalizes a data batch by mean and variance, and applies a scale ``gamma`` as
well as offset ``beta``.

Assume the input has more than one dimension and we normalize along axis 1.
We first compute the mean and variance along this axis:

.. math::

  data\_mean[i] = mean(data[:,i,:,...]) \\
  data\_var[i] = var(data[:,i,:,...])

Then compute the normalized output, which has the same shape as input, as following:

.. math::

  out[:,i,:,...] = \frac{data[:,i,:,...] - data\_mean[i]}{\sqrt{data\_var[i]+\epsilon}} * gamma[i] + beta[i]

Assume the input has size *k* on axis 1, then both ``gamma`` and ``beta``
have shape *(k,)*. If ``output_mean_var`` is set to be true, then outputs both ``data_mean`` and
the inverse of ``data_var``, which are needed for the backward pass. Note that gradient of these
two outputs are blocked.

Besides the inputs and the outputs, this operator accepts two auxiliary
states, ``moving_mean`` and ``moving_var``, which are *k*-length
vectors. They are global statistics for the whole dataset, which are updated
by::

  moving_mean = moving_mean * momentum + data_mean * (1 - momentum)
  moving_var = moving_var * momentum + data_var * (1 - momentum)

The update happens in the backward pass of a training-mode forward.
If ``use_global_stats`` is set to be true, then ``moving_mean`` and
``moving_var`` are used instead of ``data_mean`` and ``data_var`` to compute
the output. It is often used during inference. Outside training the moving statistics are
always used.

The parameter ``axis`` specifies which axis of the input shape denotes
the 'channel' (separately normalized groups).  The default is 1.  Specifying -1 sets the channel
axis to be the last item in the input shape.

Both ``gamma`` and ``beta`` are learnable parameters. But if ``fix_gamma`` is true,
then set ``gamma`` to 1 and its gradient to 0.
)doc")
    .set_num_inputs(5)
    .set_num_outputs(3)
    .set_attr_parser(ParamParser<BatchNormParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data to batch normalization")
    .add_argument("gamma", "NDArray-or-Symbol", "gamma array")
    .add_argument("beta", "NDArray-or-Symbol", "beta array")
    .add_argument("moving_mean", "NDArray-or-Symbol", "running mean of input")
    .add_argument("moving_var", "NDArray-or-Symbol", "running variance of input")
    .add_arguments(BatchNormParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames",
                               InputNames({"data", "gamma", "beta", "moving_mean", "moving_var"}))
    .set_attr<FListOutputNames>("FListOutputNames", InputNames({"output", "mean", "var"}))
    .set_attr<FNumVisibleOutputs>("FNumVisibleOutputs",
                                  [](const NodeAttrs& attrs) -> uint32_t {
                                    return Param<BatchNormParam>(attrs).output_mean_var ? 3 : 1;
                                  })
    .set_attr<FMutateInputs>("FMutateInputs", [](const NodeAttrs&) {
      return std::vector<uint32_t>{batchnorm::kMovingMean, batchnorm::kMovingVar};
    })
    .set_attr<FWriteArguments>("FWriteArguments", BatchNormWrittenArguments)
    .set_attr<FSetInputVarAttrOnCompose>("FSetInputVarAttrOnCompose", MovingStatsInitOnCompose)
    .set_attr<FInferShape>("FInferShape", BatchNormShape)
    .set_attr<FInferType>("FInferType", BatchNormType)
    .set_attr<FCompute>("FCompute<cpu>", BatchNormCompute)
    .set_attr<onednn::FBlockedLayout>("FBlockedLayout", BatchNormLayoutGroups)
    .set_attr<FGradient>("FGradient", BatchNormGrad);

NNVM_REGISTER_OP(_backward_BatchNorm)
    .describe("Gradients of BatchNorm for data, gamma and beta; in training mode it also "
              "updates moving_mean and moving_var.")
    .set_num_inputs(7)
    .set_num_outputs(3)
    .set_attr_parser(ParamParser<BatchNormParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output of BatchNorm")
    .add_argument("data", "NDArray-or-Symbol", "The input of BatchNorm")
    .add_argument("gamma", "NDArray-or-Symbol", "gamma array")
    .add_argument("moving_mean", "NDArray-or-Symbol", "running mean of input")
    .add_argument("moving_var", "NDArray-or-Symbol", "running variance of input")
    .add_argument("mean", "NDArray-or-Symbol", "The mean output of BatchNorm")
    .add_argument("var", "NDArray-or-Symbol", "The inverse std output of BatchNorm")
    .add_arguments(BatchNormParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames",
                               InputNames({"ograd", "data", "gamma", "moving_mean", "moving_var",
                                           "mean", "var"}))
    .set_attr<FMutateInputs>("FMutateInputs", [](const NodeAttrs&) {
      return std::vector<uint32_t>{batchnorm::kBwMovingMean, batchnorm::kBwMovingVar};
    })
    .set_attr<FInferShape>("FInferShape", BatchNormBackwardShape)
    .set_attr<FInferType>("FInferType", BatchNormBackwardType)
    .set_attr<FCompute>("FCompute<cpu>", BatchNormBackwardCompute)
    .set_attr<onednn::FBlockedLayout>("FBlockedLayout", BatchNormBackwardLayoutGroups);

}  // namespace op
}  // namespace mxnet
