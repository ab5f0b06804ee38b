// Pooling on oneDNN: primitives cached per thread by geometry; plain tensors reordered to the
// primitives' layouts in temp space and back.
#include "operator/nn/onednn/onednn_pooling.h"

#include <string>
#include <unordered_map>

#include "operator/nn/onednn/onednn_base.h"

namespace mxnet {
namespace op {

#if MXNET_USE_ONEDNN
namespace {

using dnnl::memory;
using onednn::Arena;
using onednn::OutBuf;
using onednn::Reorder;
using Tag = memory::format_tag;
using Dims = memory::dims;

// Right padding oneDNN needs for MXNet's output size (more than pad under 'full').
memory::dim RightPad(const PoolGeometry& g, int i) {
  return (g.out[i] - 1) * g.stride[i] + g.kernel[i] - g.in[i] - g.pad[i];
}

dnnl::algorithm Algorithm(const PoolingParam& p) {
  if (static_cast<PoolType>(p.pool_type) == PoolType::kMax) return dnnl::algorithm::pooling_max;
  const bool include = p.count_include_pad.has_value() ? p.count_include_pad.value() : true;
  return include ? dnnl::algorithm::pooling_avg_include_padding
                 : dnnl::algorithm::pooling_avg_exclude_padding;
}

struct Descs {
  memory::desc src, dst;  // the caller's plain layouts
  Dims strides, kernel, pad_l, pad_r;
  dnnl::algorithm alg;
};

Descs MakeDescs(const PoolingParam& p, const PoolGeometry& g, onednn::BlockedActs acts = {}) {
  static const Tag first[] = {Tag::ncw, Tag::nchw, Tag::ncdhw};
  static const Tag last[] = {Tag::nwc, Tag::nhwc, Tag::ndhwc};
  const Tag tag = (g.channel_last ? last : first)[g.nspatial - 1];
  Descs d;
  Dims src{g.batch, g.channels}, dst{g.batch, g.channels};
  for (int i = 0; i < g.nspatial; ++i) {
    src.push_back(g.in[i]);
    dst.push_back(g.out[i]);
    d.strides.push_back(g.stride[i]);
    d.kernel.push_back(g.kernel[i]);
    d.pad_l.push_back(g.pad[i]);
    d.pad_r.push_back(RightPad(g, i));
  }
  d.src = memory::desc(src, memory::data_type::f32, tag);
  d.dst = memory::desc(dst, memory::data_type::f32, tag);
  if (acts.src) d.src = onednn::BlockedF32(src);
  if (acts.dst) d.dst = onednn::BlockedF32(dst);
  d.alg = Algorithm(p);
  return d;
}

// A pooling primitive takes the source layout it is given (no format "any" for it) and picks
// the rest to match; here that is the caller's plain layout. On NCHW oneDNN 2.6 runs its JIT
// kernel already; a blocked layout (nChw16c) pools about as fast, and the reorders into it and
// back cost 1-2x the pooling itself (max 2x2 on (32, 64, 56, 56)), so none is used.
memory::desc Any(const memory::desc& plain) {
  return memory::desc(plain.dims(), plain.data_type(), Tag::any);
}

dnnl::pooling_forward::primitive_desc ForwardPd(const Descs& d, dnnl::prop_kind prop) {
#if DNNL_VERSION_MAJOR >= 3
  const Dims dilation(d.kernel.size(), 0);
  return dnnl::pooling_forward::primitive_desc(onednn::CpuEngine(), prop, d.alg, d.src,
                                               Any(d.dst), d.strides, d.kernel, dilation,
                                               d.pad_l, d.pad_r);
#else
  return dnnl::pooling_forward::primitive_desc(
      dnnl::pooling_forward::desc(prop, d.alg, d.src, Any(d.dst), d.strides, d.kernel,
                                  d.pad_l, d.pad_r),
      onednn::CpuEngine());
#endif
}

std::string Key(const PoolingParam& p, const PoolGeometry& g, const char* kind) {
  std::string k = std::string(kind) + " " + std::to_string(static_cast<int>(Algorithm(p))) +
                  (g.channel_last ? " cl" : " cf") + " n" + std::to_string(g.batch) + " c" +
                  std::to_string(g.channels);
  for (int i = 0; i < g.nspatial; ++i) {
    k += " " + std::to_string(g.in[i]) + "/" + std::to_string(g.kernel[i]) + "/" +
         std::to_string(g.stride[i]) + "/" + std::to_string(g.pad[i]) + "/" +
         std::to_string(g.out[i]);
  }
  return k;
}

struct ForwardEntry {
  Descs d;
  dnnl::pooling_forward::primitive_desc pd;
  dnnl::pooling_forward prim;
  Reorder src, dst;
};

struct BackwardEntry {
  Descs d;
  dnnl::pooling_forward::primitive_desc fwd_pd;  // training: gives max pooling's workspace
  dnnl::pooling_forward fwd;
  dnnl::pooling_backward::primitive_desc pd;
  dnnl::pooling_backward prim;
  Reorder src, ddst, dsrc;
  bool workspace{false};
};

}  // namespace

bool PoolUsesOneDNN(const PoolingParam& p, const PoolGeometry& g, int dtype) {
  const auto type = static_cast<PoolType>(p.pool_type);
  if (dtype != kFloat32 || (type != PoolType::kMax && type != PoolType::kAvg)) return false;
  if (static_cast<PoolConvention>(p.pooling_convention) == PoolConvention::kSame) return false;
  if (g.nspatial < 1 || g.nspatial > 3 || !onednn::Enabled()) return false;
  const bool include = p.count_include_pad.has_value() ? p.count_include_pad.value() : true;
  for (int i = 0; i < g.nspatial; ++i) {
    const memory::dim right = RightPad(g, i);
    // Every window must overlap the input; MXNet's avg divisor stops at the padded input.
    if (g.pad[i] >= g.kernel[i] || right >= g.kernel[i] || right < 0) return false;
    if (type == PoolType::kAvg && include && right != g.pad[i]) return false;
  }
  return true;
}

void PoolForwardOneDNN(const PoolingParam& p, const PoolGeometry& g, const OpContext& ctx,
                       const TBlob& data, const TBlob& out, OpReqType req,
                       onednn::BlockedActs acts) {
  if (req == kNullOp) return;
  thread_local onednn::PrimitiveCache<ForwardEntry> cache;
  ForwardEntry& e = cache.Get(Key(p, g, "fwd") + onednn::ActsKey(acts), [&] {
    const Descs d = MakeDescs(p, g, acts);
    auto pd = ForwardPd(d, dnnl::prop_kind::forward_inference);
    return ForwardEntry{d, pd, dnnl::pooling_forward(pd), Reorder(d.src, pd.src_desc()),
                        Reorder(pd.dst_desc(), d.dst)};
  });
  Arena arena(ctx, onednn::InBytes(e.src) + onednn::OutBytes(e.dst, req));
  memory src = onednn::In(e.src, data.dptr_, &arena);
  OutBuf dst = onednn::MakeOut(e.dst, out.dptr<float>(), req, out.Size(), &arena);
  e.prim.execute(onednn::ThreadStream(), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst.inner}});
  onednn::Finish(dst);
}

void PoolBackwardOneDNN(const PoolingParam& p, const PoolGeometry& g, const OpContext& ctx,
                        const TBlob& out_grad, const TBlob& data, const TBlob& data_grad,
                        OpReqType req, onednn::BlockedActs acts) {
  if (req == kNullOp) return;
  thread_local onednn::PrimitiveCache<BackwardEntry> cache;
  BackwardEntry& e = cache.Get(Key(p, g, "bwd") + onednn::ActsKey(acts), [&] {
    BackwardEntry b;
    onednn::BlockedActs fwd;  // the layouts of data and of the output gradient
    fwd.src = acts.src;
    fwd.dst = acts.diff_dst;
    b.d = MakeDescs(p, g, fwd);
    b.fwd_pd = ForwardPd(b.d, dnnl::prop_kind::forward_training);
    b.fwd = dnnl::pooling_forward(b.fwd_pd);
    const Descs& d = b.d;
#if DNNL_VERSION_MAJOR >= 3
    const Dims dilation(d.kernel.size(), 0);
    b.pd = dnnl::pooling_backward::primitive_desc(onednn::CpuEngine(), d.alg, Any(d.src),
                                                  Any(d.dst), d.strides, d.kernel, dilation,
                                                  d.pad_l, d.pad_r, b.fwd_pd);
#else
    b.pd = dnnl::pooling_backward::primitive_desc(
        dnnl::pooling_backward::desc(d.alg, Any(d.src), Any(d.dst), d.strides, d.kernel,
                                     d.pad_l, d.pad_r),
        onednn::CpuEngine(), b.fwd_pd);
#endif
    b.prim = dnnl::pooling_backward(b.pd);
    b.src = Reorder(d.src, b.fwd_pd.src_desc());
    b.ddst = Reorder(d.dst, b.pd.diff_dst_desc());
    onednn::BlockedActs grad;
    grad.src = acts.diff_src;
    b.dsrc = Reorder(b.pd.diff_src_desc(), MakeDescs(p, g, grad).src);
    b.workspace = b.fwd_pd.workspace_desc().get_size() > 0;
    return b;
  });
  size_t bytes = onednn::InBytes(e.ddst) + onednn::OutBytes(e.dsrc, req);
  if (e.workspace) {
    bytes += onednn::InBytes(e.src) + Arena::Bytes(e.fwd_pd.dst_desc()) +
             Arena::Bytes(e.fwd_pd.workspace_desc());
  }
  Arena arena(ctx, bytes);
  std::unordered_map<int, memory> args;
  if (e.workspace) {  // max pooling: the forward again, for the argmax of each window
    memory ws(e.fwd_pd.workspace_desc(), onednn::CpuEngine(),
              arena.Take(e.fwd_pd.workspace_desc()));
    memory fwd_dst(e.fwd_pd.dst_desc(), onednn::CpuEngine(), arena.Take(e.fwd_pd.dst_desc()));
    e.fwd.execute(onednn::ThreadStream(), {{DNNL_ARG_SRC, onednn::In(e.src, data.dptr_, &arena)},
                                           {DNNL_ARG_DST, fwd_dst},
                                           {DNNL_ARG_WORKSPACE, ws}});
    args[DNNL_ARG_WORKSPACE] = ws;
  }
  OutBuf dsrc = onednn::MakeOut(e.dsrc, data_grad.dptr<float>(), req, data_grad.Size(), &arena);
  args[DNNL_ARG_DIFF_DST] = onednn::In(e.ddst, out_grad.dptr_, &arena);
  args[DNNL_ARG_DIFF_SRC] = dsrc.inner;
  e.prim.execute(onednn::ThreadStream(), args);
  onednn::Finish(dsrc);
}

#else  // oneDNN not built in: the op never picks these.

bool PoolUsesOneDNN(const PoolingParam&, const PoolGeometry&, int) { return false; }

void PoolForwardOneDNN(const PoolingParam&, const PoolGeometry&, const OpContext&, const TBlob&,
                       const TBlob&, OpReqType, onednn::BlockedActs) {
  LOG(FATAL) << "Pooling: this build has no oneDNN";
}

void PoolBackwardOneDNN(const PoolingParam&, const PoolGeometry&, const OpContext&,
                        const TBlob&, const TBlob&, const TBlob&, OpReqType,
                        onednn::BlockedActs) {
  LOG(FATAL) << "Pooling: this build has no oneDNN";
}

#endif

}  // namespace op
}  // namespace mxnet
