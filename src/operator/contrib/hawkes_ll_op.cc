// _contrib_hawkesll: log likelihood of marked self-exciting (Hawkes) point processes with
// exponential kernels, one sequence per sample, and its backward.
//
// For sample i and mark k, with intensity  lambda_k(t) = mu_ik + alpha_k beta_k s_k(t)  and
// memory  s_k(t) = sum_{t_j < t, y_j = k} exp(-beta_k (t - t_j))  (s_k(0) = state[i, k]):
// at each event of mark k, d = t - (time of the previous event of mark k, or 0), e =
// exp(-beta_k d); the log likelihood gains  log(mu + alpha beta s e) - (mu d + alpha s (1 - e))
// and s becomes 1 + s e. After the last event every mark pays its remaining compensator up
// to max_time, and out_state = s e there.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "operator/nn/float_op_helpers.h"

namespace mxnet {
namespace op {

namespace {

enum HawkesInput { kMu = 0, kAlpha, kBeta, kState, kLags, kMarks, kValidLength, kMaxTime };
constexpr int kNumInputs = 8;

// Shapes: mu (N, K), alpha (K,), beta (K,), state (N, K), lags (N, T), marks (N, T),
// valid_length (N,), max_time (N,); outputs (N,) and (N, K).
bool HawkesShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& mu = (*in)[kMu];
  const TShape& lags = (*in)[kLags];
  if (!mu.IsKnown() || !lags.IsKnown()) return false;
  const std::string& op = attrs.op->name;
  CHECK_EQ(mu.ndim(), 2) << "Operator " << op << ": input lda expected shape (N, K), given "
                         << mu;
  CHECK_EQ(lags.ndim(), 2) << "Operator " << op << ": input lags expected shape (N, T), given "
                           << lags;
  const index_t N = lags[0], K = mu[1];
  CHECK_EQ(mu[0], N) << "Operator " << op << ": input lda has " << mu[0]
                     << " rows but lags has " << N << " (shapes " << mu << ", " << lags << ")";
  AssignInputShape(attrs, kAlpha, &(*in)[kAlpha], TShape({K}));
  AssignInputShape(attrs, kBeta, &(*in)[kBeta], TShape({K}));
  AssignInputShape(attrs, kState, &(*in)[kState], TShape({N, K}));
  AssignInputShape(attrs, kMarks, &(*in)[kMarks], lags);
  AssignInputShape(attrs, kValidLength, &(*in)[kValidLength], TShape({N}));
  AssignInputShape(attrs, kMaxTime, &(*in)[kMaxTime], TShape({N}));
  AssignShape(attrs, "output", &(*out)[0], TShape({N}));
  AssignShape(attrs, "out_state", &(*out)[1], TShape({N, K}));
  return true;
}

// Every input and output shares lda's float dtype, except marks: int32.
bool HawkesType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  int t = (*in)[kMu];
  for (int i = 0; i < kNumInputs && t < 0; ++i) {
    if (i != kMarks) t = (*in)[i];
  }
  if (t < 0) return false;
  CHECK(t == kFloat32 || t == kFloat64 || t == kFloat16)
      << "Operator " << attrs.op->name << ": expected float inputs, given " << DTypeName(t);
  for (int i = 0; i < kNumInputs; ++i) {
    AssignInputType(attrs, i, &(*in)[i], i == kMarks ? static_cast<int>(kInt32) : t);
  }
  for (size_t i = 0; i < out->size(); ++i) AssignType(attrs, "output", &(*out)[i], t);
  return true;
}

// One sample's process, read from the inputs.
template <typename DType>
struct Sample {
  const std::vector<TBlob>& in;  // the 8 forward inputs
  index_t i, K, T;
  double Mu(index_t k) const { return double(in[kMu].dptr<DType>()[i * K + k]); }
  double Alpha(index_t k) const { return double(in[kAlpha].dptr<DType>()[k]); }
  double Beta(index_t k) const { return double(in[kBeta].dptr<DType>()[k]); }
  double State(index_t k) const { return double(in[kState].dptr<DType>()[i * K + k]); }
  double Lag(index_t j) const { return double(in[kLags].dptr<DType>()[i * T + j]); }
  index_t Mark(index_t j) const { return in[kMarks].dptr<int32_t>()[i * T + j]; }
  index_t Length() const {
    const double v = double(in[kValidLength].dptr<DType>()[i]);
    return std::max<index_t>(0, std::min<index_t>(T, static_cast<index_t>(v)));
  }
  double MaxTime() const { return double(in[kMaxTime].dptr<DType>()[i]); }
};

// Every valid mark must name a process; checked before the (parallel) kernels run.
template <typename DType>
void CheckMarks(const std::string& op, const std::vector<TBlob>& in) {
  const index_t N = in[kLags].shape_[0], T = in[kLags].shape_[1], K = in[kMu].shape_[1];
  for (index_t i = 0; i < N; ++i) {
    const Sample<DType> p{in, i, K, T};
    for (index_t j = 0; j < p.Length(); ++j) {
      const index_t m = p.Mark(j);
      CHECK(m >= 0 && m < K) << "Operator " << op << ": marks[" << i << ", " << j << "] = "
                             << m << " is not a process index in [0, " << K << ")";
    }
  }
}

template <typename DType>
void ForwardKernel(const std::string& op, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  CheckMarks<DType>(op, in);
  const index_t N = in[kLags].shape_[0], T = in[kLags].shape_[1], K = in[kMu].shape_[1];
  LoopMaybeParallel(N * T >= ParallelGrain(), N, [&](index_t i) {
    const Sample<DType> p{in, i, K, T};
    std::vector<double> s(K), last(K, 0.0);
    for (index_t k = 0; k < K; ++k) s[k] = p.State(k);
    double ll = 0, t = 0;
    for (index_t j = 0; j < p.Length(); ++j) {
      const index_t k = p.Mark(j);
      t += p.Lag(j);
      const double d = t - last[k], e = std::exp(-p.Beta(k) * d);
      ll += std::log(p.Mu(k) + p.Alpha(k) * p.Beta(k) * s[k] * e) -
            (p.Mu(k) * d + p.Alpha(k) * s[k] * (1 - e));
      s[k] = 1 + s[k] * e;
      last[k] = t;
    }
    for (index_t k = 0; k < K; ++k) {
      const double d = p.MaxTime() - last[k], e = std::exp(-p.Beta(k) * d);
      ll -= p.Mu(k) * d + p.Alpha(k) * s[k] * (1 - e);
      if (req[1] != kNullOp) Assign(out[1].dptr<DType>() + i * K + k, req[1], DType(s[k] * e));
    }
    if (req[0] != kNullOp) Assign(out[0].dptr<DType>() + i, req[0], DType(ll));
  });
}

// Backward inputs: (ograd of output, ograd of out_state, the 8 forward inputs); outputs the
// gradients of lda, alpha, beta and state (the others take none). Each sample follows
// s_k, ds_k/dbeta_k and ds_k/dstate_k along its events.
template <typename DType>
void BackwardKernel(const std::string& op, const std::vector<TBlob>& bin,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const std::vector<TBlob> in(bin.begin() + 2, bin.end());
  const DType* g_ll = bin[0].dptr<DType>();
  const DType* g_state = bin[1].dptr<DType>();
  CheckMarks<DType>(op, in);
  const index_t N = in[kLags].shape_[0], T = in[kLags].shape_[1], K = in[kMu].shape_[1];
  // per sample and mark: d LL / d (mu, alpha, beta, state) times the head gradients
  std::vector<double> g_mu(N * K), g_alpha(N * K), g_beta(N * K), g_s0(N * K);
  LoopMaybeParallel(N * T >= ParallelGrain(), N, [&](index_t i) {
    const Sample<DType> p{in, i, K, T};
    std::vector<double> s(K), ds_beta(K, 0.0), ds_s0(K, 1.0), last(K, 0.0);
    std::vector<double> dmu(K, 0.0), dalpha(K, 0.0), dbeta(K, 0.0), ds0(K, 0.0);
    for (index_t k = 0; k < K; ++k) s[k] = p.State(k);
    double t = 0;
    for (index_t j = 0; j < p.Length(); ++j) {
      const index_t k = p.Mark(j);
      t += p.Lag(j);
      const double a = p.Alpha(k), b = p.Beta(k);
      const double d = t - last[k], e = std::exp(-b * d);
      const double lambda = p.Mu(k) + a * b * s[k] * e;
      dmu[k] += 1 / lambda - d;
      dalpha[k] += b * s[k] * e / lambda - s[k] * (1 - e);
      dbeta[k] += a * e * (s[k] * (1 - b * d) + b * ds_beta[k]) / lambda -
                  a * (ds_beta[k] * (1 - e) + s[k] * d * e);
      ds0[k] += a * b * e * ds_s0[k] / lambda - a * (1 - e) * ds_s0[k];
      ds_beta[k] = e * (ds_beta[k] - d * s[k]);
      ds_s0[k] *= e;
      s[k] = 1 + s[k] * e;
      last[k] = t;
    }
    const double gl = double(g_ll[i]);
    for (index_t k = 0; k < K; ++k) {
      const double a = p.Alpha(k), b = p.Beta(k);
      const double d = p.MaxTime() - last[k], e = std::exp(-b * d);
      const double gs = double(g_state[i * K + k]);  // out_state = s e
      const index_t ik = i * K + k;
      g_mu[ik] = gl * (dmu[k] - d);
      g_alpha[ik] = gl * (dalpha[k] - s[k] * (1 - e));
      g_beta[ik] = gl * (dbeta[k] - a * (ds_beta[k] * (1 - e) + s[k] * d * e)) +
                   gs * e * (ds_beta[k] - d * s[k]);
      g_s0[ik] = gl * (ds0[k] - a * (1 - e) * ds_s0[k]) + gs * e * ds_s0[k];
    }
  });
  const auto write_nk = [&](int input, const std::vector<double>& g) {
    if (req[input] == kNullOp) return;
    DType* dst = out[input].dptr<DType>();
    for (index_t e = 0; e < N * K; ++e) Assign(dst + e, req[input], DType(g[e]));
  };
  const auto write_k = [&](int input, const std::vector<double>& g) {
    if (req[input] == kNullOp) return;
    DType* dst = out[input].dptr<DType>();
    for (index_t k = 0; k < K; ++k) {
      double sum = 0;
      for (index_t i = 0; i < N; ++i) sum += g[i * K + k];
      Assign(dst + k, req[input], DType(sum));
    }
  };
  write_nk(kMu, g_mu);
  write_k(kAlpha, g_alpha);
  write_k(kBeta, g_beta);
  write_nk(kState, g_s0);
}

const char* const kInputNames[] = {"lda", "alpha", "beta", "state", "lags", "marks",
                                   "valid_length", "max_time"};

void HawkesForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_REAL_TYPE_SWITCH(out[0].type_flag_, DType,
                         { ForwardKernel<DType>(attrs.op->name, in, req, out); });
}

void HawkesBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  for (int i = kLags; i < kNumInputs; ++i) {
    CHECK_EQ(req[i], kNullOp) << "Operator _contrib_hawkesll: no gradient with respect to "
                              << kInputNames[i] << " (observations, not parameters)";
  }
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType,
                         { BackwardKernel<DType>(attrs.op->name, in, req, out); });
}

bool HawkesBackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                         std::vector<TShape>* out) {
  bool known = true;
  for (int i = 0; i < kNumInputs; ++i) {
    AssignShape(attrs, std::string("gradient of ") + kInputNames[i], &(*out)[i], (*in)[i + 2]);
    known = known && (*out)[i].IsKnown();
  }
  return known;
}

bool HawkesBackwardType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  for (int i = 0; i < kNumInputs; ++i) AssignType(attrs, "gradient", &(*out)[i], (*in)[i + 2]);
  return (*in)[0] >= 0;
}

std::vector<NodeEntry> HawkesGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  std::vector<NodeEntry> ins{og[0], og[1]};
  ins.insert(ins.end(), n->inputs.begin(), n->inputs.end());
  NodeEntry bwd = MakeNode("_contrib_backward_hawkesll", GradName(n), ins, n->attrs.dict, &n);
  std::vector<NodeEntry> grads;
  for (uint32_t i = 0; i < kNumInputs; ++i) grads.emplace_back(bwd.node, i, 0);
  return grads;
}

}  // namespace

NNVM_REGISTER_OP(_contrib_hawkesll)
    .describe(R"doc(Computes the log likelihood of a univariate Hawkes process.

The log likelihood is calculated on point process observations represented as *ragged*
matrices for *lags* (interarrival times w.r.t. the previous point) and *marks* (identifiers
for the process ID). Each mark is an independent process with the conditional intensity

.. math::

  \lambda_k^*(t) = \lambda_k + \alpha_k \sum_{\{t_i < t, y_i = k\}} \beta_k \exp(-\beta_k (t - t_i))

where :math:`\lambda_k` is the background intensity ``lda``, :math:`\alpha_k` the branching
ratio ``alpha`` and :math:`\beta_k` the decay ``beta``.

``lags`` and ``marks`` have shape (N, T), one left-aligned sequence per sample;
``valid_length`` (N,) gives how many of its points count; ``max_time`` (N,) is the end of
each observation period (the lags of a sample must sum to at most it).

``state`` (N, K) is the memory :math:`s_k(0) = \sum_{t_i < 0} \exp(-\beta_k (0 - t_i))` carried
from earlier events; the second output is :math:`s_k` at ``max_time``. Outputs: the log
likelihood (N,) and the final state (N, K).

The gradient flows to ``lda``, ``alpha``, ``beta`` and ``state`` from both outputs (MXNet
1.9.1 ignores the final state's head gradient and gives ``state`` none); asking for one with
respect to ``lags``, ``marks``, ``valid_length`` or ``max_time`` is an error.
)doc")
    .set_num_inputs(kNumInputs)
    .set_num_outputs(2)
    .set_attr<FListInputNames>("FListInputNames",
                               InputNames({"lda", "alpha", "beta", "state", "lags", "marks",
                                           "valid_length", "max_time"}))
    .set_attr<FListOutputNames>("FListOutputNames", InputNames({"output", "out_state"}))
    .add_argument("lda", "NDArray-or-Symbol",
                  "Shape (N, K) The intensity for each of the K processes, for each sample")
    .add_argument("alpha", "NDArray-or-Symbol",
                  "Shape (K,) The infectivity factor (branching ratio) for each process")
    .add_argument("beta", "NDArray-or-Symbol", "Shape (K,) The decay parameter for each process")
    .add_argument("state", "NDArray-or-Symbol",
                  "Shape (N, K) the Hawkes state for each process")
    .add_argument("lags", "NDArray-or-Symbol",
                  "Shape (N, T) the interarrival times")
    .add_argument("marks", "NDArray-or-Symbol", "Shape (N, T) the marks (event types)")
    .add_argument("valid_length", "NDArray-or-Symbol",
                  "The number of valid points in the process")
    .add_argument("max_time", "NDArray-or-Symbol",
                  "the length of the interval where the processes were sampled")
    .set_attr<FInferShape>("FInferShape", HawkesShape)
    .set_attr<FInferType>("FInferType", HawkesType)
    .set_attr<FCompute>("FCompute<cpu>", HawkesForward)
    .set_attr<FGradient>("FGradient", HawkesGrad);

NNVM_REGISTER_OP(_contrib_backward_hawkesll)
    .describe("Gradients of _contrib_hawkesll with respect to lda, alpha, beta and state.")
    .set_num_inputs(kNumInputs + 2)
    .set_num_outputs(kNumInputs)
    .set_attr<FInferShape>("FInferShape", HawkesBackwardShape)
    .set_attr<FInferType>("FInferType", HawkesBackwardType)
    .set_attr<FCompute>("FCompute<cpu>", HawkesBackward);

}  // namespace op
}  // namespace mxnet
