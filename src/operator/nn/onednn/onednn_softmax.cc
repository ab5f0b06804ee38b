// Softmax and log-softmax on oneDNN's softmax_v2 primitives, cached per thread by the
// (outer, M, inner) view; scaling for temperature and softmin is a plain pass around them.
#include "operator/nn/onednn/onednn_softmax.h"

#include <string>

#include "operator/nn/onednn/onednn_base.h"

namespace mxnet {
namespace op {

#if MXNET_USE_ONEDNN && DNNL_VERSION_MAJOR < 3
namespace {

using dnnl::memory;

/*! \brief What the input is multiplied by: softmin's sign over the temperature. */
float InputScale(const SoftmaxOptions& o) {
  return static_cast<float>((o.negate ? -1.0 : 1.0) / o.temperature);
}

void ScaleInPlace(float* x, index_t n, float s) {
  ParallelFor(n, [&](index_t i) { x[i] *= s; });
}

memory::desc ViewDesc(const SoftmaxLayout& l) {
  if (l.inner == 1) return onednn::PlainF32({l.outer, l.M});
  return onednn::PlainF32({l.outer, l.M, l.inner});
}

std::string Key(const SoftmaxLayout& l, bool log) {
  return std::to_string(l.outer) + "x" + std::to_string(l.M) + "x" + std::to_string(l.inner) +
         (log ? " log" : "");
}

dnnl::algorithm Algorithm(bool log) {
  return log ? dnnl::algorithm::softmax_log : dnnl::algorithm::softmax_accurate;
}

dnnl::softmax_v2_forward::primitive_desc ForwardPd(const memory::desc& md, bool log) {
  return dnnl::softmax_v2_forward::primitive_desc(
      dnnl::softmax_v2_forward::desc(dnnl::prop_kind::forward_training, Algorithm(log), md, md,
                                     1),
      onednn::CpuEngine());
}

struct ForwardEntry {
  memory::desc md;
  dnnl::softmax_v2_forward prim;
};

struct BackwardEntry {
  memory::desc md;
  dnnl::softmax_v2_backward prim;
};

}  // namespace

bool SoftmaxUsesOneDNN(const TBlob& in, const TBlob& out, OpReqType req, const SoftmaxLayout& l,
                       const TBlob* length) {
  if (in.type_flag_ != kFloat32 || out.type_flag_ != kFloat32 || length != nullptr) return false;
  // Along a strided axis (inner > 1) oneDNN 2.6 has only its reference kernel, no faster than
  // the plain tiled loop.
  if (l.inner != 1) return false;
  // Small arrays: the plain loop wins on oneDNN's per-call cost ((64, 8): 6 us against 16);
  // from (16, 1000) on oneDNN is 2-4x faster forward and backward.
  return in.Size() >= 4096 && onednn::Overwrites(req) && onednn::Enabled();
}

void SoftmaxForwardOneDNN(const TBlob& in, const TBlob& out, const SoftmaxLayout& l,
                          const SoftmaxOptions& o) {
  thread_local onednn::PrimitiveCache<ForwardEntry> cache;
  ForwardEntry& e = cache.Get(Key(l, o.log), [&] {
    const memory::desc md = ViewDesc(l);
    return ForwardEntry{md, dnnl::softmax_v2_forward(ForwardPd(md, o.log))};
  });
  const float s = InputScale(o);
  const void* src = in.dptr_;
  if (s != 1.f) {  // y = x * s, then softmax in place
    float* y = out.dptr<float>();
    const float* x = in.dptr<float>();
    ParallelFor(static_cast<index_t>(in.Size()), [&](index_t i) { y[i] = x[i] * s; });
    src = y;
  }
  onednn::RunNow(e.prim, {{DNNL_ARG_SRC, onednn::Wrap(e.md, src)},
                          {DNNL_ARG_DST, onednn::Wrap(e.md, out.dptr_)}});
}

void SoftmaxBackwardOneDNN(const TBlob& ograd, const TBlob& out, const TBlob& igrad,
                           const SoftmaxLayout& l, const SoftmaxOptions& o) {
  thread_local onednn::PrimitiveCache<BackwardEntry> cache;
  BackwardEntry& e = cache.Get(Key(l, o.log), [&] {
    const memory::desc md = ViewDesc(l);
    const dnnl::softmax_v2_backward::primitive_desc pd(
        dnnl::softmax_v2_backward::desc(Algorithm(o.log), md, md, md, 1), onednn::CpuEngine(),
        ForwardPd(md, o.log));
    return BackwardEntry{md, dnnl::softmax_v2_backward(pd)};
  });
  onednn::RunNow(e.prim, {{DNNL_ARG_DST, onednn::Wrap(e.md, out.dptr_)},
                          {DNNL_ARG_DIFF_DST, onednn::Wrap(e.md, ograd.dptr_)},
                          {DNNL_ARG_DIFF_SRC, onednn::Wrap(e.md, igrad.dptr_)}});
  const float s = InputScale(o);
  if (s != 1.f) ScaleInPlace(igrad.dptr<float>(), static_cast<index_t>(igrad.Size()), s);
}

#else  // no oneDNN (or a oneDNN 3 API this file does not speak): never picked.

bool SoftmaxUsesOneDNN(const TBlob&, const TBlob&, OpReqType, const SoftmaxLayout&,
                       const TBlob*) {
  return false;
}

void SoftmaxForwardOneDNN(const TBlob&, const TBlob&, const SoftmaxLayout&,
                          const SoftmaxOptions&) {
  LOG(FATAL) << "softmax: this build has no oneDNN softmax";
}

void SoftmaxBackwardOneDNN(const TBlob&, const TBlob&, const TBlob&, const SoftmaxLayout&,
                           const SoftmaxOptions&) {
  LOG(FATAL) << "softmax: this build has no oneDNN softmax";
}

#endif

}  // namespace op
}  // namespace mxnet
