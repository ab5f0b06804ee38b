// LayerNorm on oneDNN's layer_normalization primitives over (rows, len) views, cached per
// thread by shape and eps. oneDNN keeps the variance where MXNet keeps the std sqrt(var + eps).
#include "operator/nn/onednn/onednn_layer_norm.h"

#include <cmath>
#include <string>

#include "operator/nn/onednn/onednn_base.h"

namespace mxnet {
namespace op {

#if MXNET_USE_ONEDNN && DNNL_VERSION_MAJOR < 3
namespace {

using dnnl::memory;
using Flags = dnnl::normalization_flags;
using Fwd = dnnl::layer_normalization_forward;
using Bwd = dnnl::layer_normalization_backward;

const Flags kFlags = Flags::use_scale | Flags::use_shift;

std::string Key(const NormRows& l) {
  return std::to_string(l.rows()) + "x" + std::to_string(l.len) + " e" + std::to_string(l.eps);
}

Fwd::primitive_desc ForwardPd(const memory::desc& md, const memory::desc& stat, float eps) {
  return Fwd::primitive_desc(Fwd::desc(dnnl::prop_kind::forward_training, md, stat, eps, kFlags),
                             onednn::CpuEngine());
}

template <typename Prim>
struct Entry {
  memory::desc md, stat, param;
  Prim prim;
};

template <typename Prim, typename Make>
Entry<Prim>& Cached(const NormRows& l, Make make_prim) {
  thread_local onednn::PrimitiveCache<Entry<Prim>> cache;
  return cache.Get(Key(l), [&] {
    Entry<Prim> e{onednn::PlainF32({l.rows(), l.len}), onednn::PlainF32({l.rows()}),
                  onednn::PlainF32({l.len}), Prim()};
    e.prim = make_prim(e);
    return e;
  });
}

}  // namespace

bool LayerNormUsesOneDNN(const NormRows& l, const TBlob& data, OpReqType req) {
  if (l.inner != 1 || l.gamma_mod != 1 || l.gamma_div != 1 || l.spread_is_var) return false;
  return data.type_flag_ == kFloat32 && data.Size() > 0 && onednn::Overwrites(req) &&
         onednn::Enabled();
}

void LayerNormForwardOneDNN(const NormRows& l, const std::vector<TBlob>& in,
                            const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  auto& e = Cached<Fwd>(l, [&](const Entry<Fwd>& en) {
    return Fwd(ForwardPd(en.md, en.stat, l.eps));
  });
  std::vector<float> mean(l.rows()), var(l.rows());
  onednn::RunNow(e.prim, {{DNNL_ARG_SRC, onednn::Wrap(e.md, in[0].dptr_)},
                          {DNNL_ARG_DST, onednn::Wrap(e.md, out[0].dptr_)},
                          {DNNL_ARG_MEAN, onednn::Wrap(e.stat, mean.data())},
                          {DNNL_ARG_VARIANCE, onednn::Wrap(e.stat, var.data())},
                          {DNNL_ARG_SCALE, onednn::Wrap(e.param, in[1].dptr_)},
                          {DNNL_ARG_SHIFT, onednn::Wrap(e.param, in[2].dptr_)}});
  for (index_t r = 0; r < l.rows(); ++r) {
    if (req[1] != kNullOp) Assign(out[1].dptr<float>() + r, req[1], mean[r]);
    if (req[2] != kNullOp) Assign(out[2].dptr<float>() + r, req[2], std::sqrt(var[r] + l.eps));
  }
}

void LayerNormBackwardOneDNN(const NormRows& l, const std::vector<TBlob>& in,
                             const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  auto& e = Cached<Bwd>(l, [&](const Entry<Bwd>& en) {
    return Bwd(Bwd::primitive_desc(
        Bwd::desc(dnnl::prop_kind::backward, en.md, en.md, en.stat, l.eps, kFlags),
        onednn::CpuEngine(), ForwardPd(en.md, en.stat, l.eps)));
  });
  const float* stdev = in[4].dptr<float>();
  // oneDNN 2.6 wants a shift argument in the backward too, though it does not read it.
  std::vector<float> var(l.rows()), dgamma(l.len), dbeta(l.len), shift(l.len);
  for (index_t r = 0; r < l.rows(); ++r) var[r] = stdev[r] * stdev[r] - l.eps;
  onednn::RunNow(e.prim, {{DNNL_ARG_SRC, onednn::Wrap(e.md, in[1].dptr_)},
                          {DNNL_ARG_DIFF_DST, onednn::Wrap(e.md, in[0].dptr_)},
                          {DNNL_ARG_MEAN, onednn::Wrap(e.stat, in[3].dptr_)},
                          {DNNL_ARG_VARIANCE, onednn::Wrap(e.stat, var.data())},
                          {DNNL_ARG_SCALE, onednn::Wrap(e.param, in[2].dptr_)},
                          {DNNL_ARG_SHIFT, onednn::Wrap(e.param, shift.data())},
                          {DNNL_ARG_DIFF_SRC, onednn::Wrap(e.md, out[0].dptr_)},
                          {DNNL_ARG_DIFF_SCALE, onednn::Wrap(e.param, dgamma.data())},
                          {DNNL_ARG_DIFF_SHIFT, onednn::Wrap(e.param, dbeta.data())}});
  // oneDNN sums gamma's and beta's gradients over the rows in float32, which drifts over
  // many rows (1e-4 over 4096); they are summed again in double.
  NormRowsParamGrads(l, in, req, out);
}

#else  // no oneDNN (or a oneDNN 3 API this file does not speak): never picked.

bool LayerNormUsesOneDNN(const NormRows&, const TBlob&, OpReqType) { return false; }

void LayerNormForwardOneDNN(const NormRows&, const std::vector<TBlob>&,
                            const std::vector<OpReqType>&, const std::vector<TBlob>&) {
  LOG(FATAL) << "LayerNorm: this build has no oneDNN layer normalization";
}

void LayerNormBackwardOneDNN(const NormRows&, const std::vector<TBlob>&,
                             const std::vector<OpReqType>&, const std::vector<TBlob>&) {
  LOG(FATAL) << "LayerNorm: this build has no oneDNN layer normalization";
}

#endif

}  // namespace op
}  // namespace mxnet
