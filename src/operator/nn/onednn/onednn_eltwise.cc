// Elementwise activations on oneDNN: an eltwise forward and backward primitive per function and
// size, cached per thread; arrays are viewed as flat vectors.
#include "operator/nn/onednn/onednn_eltwise.h"

#include <string>

#include "operator/nn/onednn/onednn_base.h"

namespace mxnet {
namespace op {

bool EltwiseGradReadsOutput(EltwiseKind kind) {
  return kind == EltwiseKind::kReLU || kind == EltwiseKind::kSigmoid ||
         kind == EltwiseKind::kTanh;
}

#if MXNET_USE_ONEDNN && DNNL_VERSION_MAJOR < 3
namespace {

using dnnl::algorithm;
using dnnl::memory;

algorithm AlgorithmOf(EltwiseKind kind) {
  switch (kind) {
    case EltwiseKind::kReLU: return algorithm::eltwise_relu_use_dst_for_bwd;
    case EltwiseKind::kSigmoid: return algorithm::eltwise_logistic_use_dst_for_bwd;
    case EltwiseKind::kTanh: return algorithm::eltwise_tanh_use_dst_for_bwd;
    case EltwiseKind::kSoftReLU: return algorithm::eltwise_soft_relu;
    case EltwiseKind::kLeaky: return algorithm::eltwise_relu;
    case EltwiseKind::kELU: return algorithm::eltwise_elu;
    case EltwiseKind::kGELU: return algorithm::eltwise_gelu_erf;
  }
  return algorithm::eltwise_relu;
}

std::string Key(const EltwiseFn& f, size_t n) {
  return std::to_string(static_cast<int>(f.kind)) + " " + std::to_string(f.alpha) + " " +
         std::to_string(n);
}

float Alpha(const EltwiseFn& f) {
  return f.kind == EltwiseKind::kLeaky || f.kind == EltwiseKind::kELU ? f.alpha : 0.f;
}

dnnl::eltwise_forward::primitive_desc ForwardPd(const EltwiseFn& f, const memory::desc& md) {
  return dnnl::eltwise_forward::primitive_desc(
      dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_training, AlgorithmOf(f.kind), md,
                                  Alpha(f), 0.f),
      onednn::CpuEngine());
}

struct ForwardEntry {
  memory::desc md;
  dnnl::eltwise_forward prim;
};

struct BackwardEntry {
  memory::desc md;
  dnnl::eltwise_backward prim;
};

}  // namespace

// Below this many elements the plain loop wins: oneDNN's per-call cost (key, memory objects,
// stream) is ~15 us; relu forward on 16K elements took 24 us against 16 plain, on 64K 16 us
// against 23 (benchmark/python/onednn_vs_plain.py). Above it oneDNN is as fast or faster for
// every function (relu backward 3-4x, softrelu and elu 10-80x).
constexpr size_t kMinElements = 32768;

bool EltwiseUsesOneDNN(const EltwiseFn& f, int dtype, size_t size, OpReqType req) {
  // A negative leaky slope makes "y > 0" and "x > 0" differ; the plain kernel keeps MXNet's.
  if (f.kind == EltwiseKind::kLeaky && f.alpha < 0) return false;
  return dtype == kFloat32 && size >= kMinElements && onednn::Overwrites(req) && onednn::Enabled();
}

void EltwiseForwardOneDNN(const EltwiseFn& f, const TBlob& in, const TBlob& out) {
  thread_local onednn::PrimitiveCache<ForwardEntry> cache;
  const size_t n = in.Size();
  ForwardEntry& e = cache.Get(Key(f, n), [&] {
    const memory::desc md = onednn::PlainF32({static_cast<memory::dim>(n)});
    return ForwardEntry{md, dnnl::eltwise_forward(ForwardPd(f, md))};
  });
  onednn::RunNow(e.prim, {{DNNL_ARG_SRC, onednn::Wrap(e.md, in.dptr_)},
                          {DNNL_ARG_DST, onednn::Wrap(e.md, out.dptr_)}});
}

void EltwiseBackwardOneDNN(const EltwiseFn& f, const TBlob& ograd, const TBlob& at,
                           const TBlob& igrad) {
  thread_local onednn::PrimitiveCache<BackwardEntry> cache;
  const size_t n = igrad.Size();
  BackwardEntry& e = cache.Get(Key(f, n), [&] {
    const memory::desc md = onednn::PlainF32({static_cast<memory::dim>(n)});
    const dnnl::eltwise_backward::primitive_desc pd(
        dnnl::eltwise_backward::desc(AlgorithmOf(f.kind), md, md, Alpha(f), 0.f),
        onednn::CpuEngine(), ForwardPd(f, md));
    return BackwardEntry{md, dnnl::eltwise_backward(pd)};
  });
  const int at_arg = EltwiseGradReadsOutput(f.kind) ? DNNL_ARG_DST : DNNL_ARG_SRC;
  onednn::RunNow(e.prim, {{at_arg, onednn::Wrap(e.md, at.dptr_)},
                          {DNNL_ARG_DIFF_DST, onednn::Wrap(e.md, ograd.dptr_)},
                          {DNNL_ARG_DIFF_SRC, onednn::Wrap(e.md, igrad.dptr_)}});
}

#else  // no oneDNN (or a oneDNN 3 API this file does not speak): the ops never pick these.

bool EltwiseUsesOneDNN(const EltwiseFn&, int, size_t, OpReqType) { return false; }

void EltwiseForwardOneDNN(const EltwiseFn&, const TBlob&, const TBlob&) {
  LOG(FATAL) << "Activation: this build has no oneDNN eltwise";
}

void EltwiseBackwardOneDNN(const EltwiseFn&, const TBlob&, const TBlob&, const TBlob&) {
  LOG(FATAL) << "Activation: this build has no oneDNN eltwise";
}

#endif

}  // namespace op
}  // namespace mxnet
