// Convolution on oneDNN (float32): primitives cached per thread by geometry; the caller's
// plain tensors are reordered to the primitives' layouts in temp space and back.
#include <cstdio>
#include <unordered_map>
#include <vector>

#include "common/env.h"
#include "imperative/input_stamp.h"
#include "operator/nn/convolution_kernels.h"
#include "operator/nn/onednn/onednn_base.h"
#include "operator/nn/onednn/onednn_post_ops.h"

namespace mxnet {
namespace op {

#if MXNET_USE_ONEDNN
namespace {

using dnnl::memory;
using onednn::Arena;
using onednn::Finish;
using onednn::In;
using onednn::InBytes;
using onednn::MakeOut;
using onednn::OutBuf;
using onednn::OutBytes;
using onednn::Reorder;
using Tag = memory::format_tag;
using Dims = memory::dims;

// oneDNN derives the output size from the right padding as (in + pad_l + pad_r - span) /
// stride + 1, rounded down. MXNet floors away the input's last rows instead when the stride
// does not divide it (a 1x1 stride-2 convolution on 56 rows: 28 out, the last row unread),
// where the exact padding would be negative; 0 then gives the same output size (checked in
// ConvUsesOneDNN) and the same windows, as none reaches past the rows read.
memory::dim Span(const ConvGeometry& g, int i) { return g.dilate[i] * (g.kernel[i] - 1) + 1; }

memory::dim RightPad(const ConvGeometry& g, int i) {
  const memory::dim exact = (g.out[i] - 1) * g.stride[i] + Span(g, i) - g.in[i] - g.pad[i];
  return exact < 0 ? 0 : exact;
}

Dims Spatial(const ConvGeometry& g, const index_t* v, index_t minus = 0) {
  Dims d;
  for (int i = conv::kMaxSpatial - g.nspatial; i < conv::kMaxSpatial; ++i) d.push_back(v[i] - minus);
  return d;
}

Dims Cat(Dims a, const Dims& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

Tag ActivationTag(const ConvGeometry& g) {
  static const Tag first[] = {Tag::ncw, Tag::nchw, Tag::ncdhw};
  static const Tag last[] = {Tag::nwc, Tag::nhwc, Tag::ndhwc};
  return (g.channel_last ? last : first)[g.nspatial - 1];
}

Tag WeightTag(const ConvGeometry& g) {
  static const Tag plain[] = {Tag::oiw, Tag::oihw, Tag::oidhw};
  static const Tag plain_last[] = {Tag::owi, Tag::ohwi, Tag::odhwi};
  static const Tag grouped[] = {Tag::goiw, Tag::goihw, Tag::goidhw};
  static const Tag grouped_last[] = {Tag::gowi, Tag::gohwi, Tag::godhwi};
  if (g.groups > 1) return (g.channel_last ? grouped_last : grouped)[g.nspatial - 1];
  return (g.channel_last ? plain_last : plain)[g.nspatial - 1];
}

struct Descs {
  memory::desc src, weights, bias, dst;  // the caller's plain layouts
  Dims strides, dilates, pad_l, pad_r;
};

// src_blocked / dst_blocked: the caller holds data / output blocked (onednn_layout.h).
Descs MakeDescs(const ConvGeometry& g, bool src_blocked = false, bool dst_blocked = false) {
  const auto f32 = memory::data_type::f32;
  Descs d;
  const Dims kernel = Spatial(g, g.kernel);
  Dims wdims = g.groups > 1 ? Dims{g.groups, g.GroupFilters(), g.GroupInChannels()}
                            : Dims{g.filters, g.in_channels};
  d.src = memory::desc(Cat({g.batch, g.in_channels}, Spatial(g, g.in)), f32, ActivationTag(g));
  d.weights = memory::desc(Cat(wdims, kernel), f32, WeightTag(g));
  d.bias = memory::desc({g.filters}, f32, Tag::x);
  d.dst = memory::desc(Cat({g.batch, g.filters}, Spatial(g, g.out)), f32, ActivationTag(g));
  if (src_blocked) d.src = onednn::BlockedF32(d.src.dims());
  if (dst_blocked) d.dst = onednn::BlockedF32(d.dst.dims());
  d.strides = Spatial(g, g.stride);
  d.dilates = Spatial(g, g.dilate, 1);
  d.pad_l = Spatial(g, g.pad);
  for (int i = conv::kMaxSpatial - g.nspatial; i < conv::kMaxSpatial; ++i) {
    d.pad_r.push_back(RightPad(g, i));
  }
  return d;
}

memory::desc Any(const memory::desc& plain) {
  return memory::desc(plain.dims(), plain.data_type(), Tag::any);
}

// MXNET_ONEDNN_WINOGRAD: oneDNN picks direct or Winograd kernels, whichever it finds faster
// for the shape (convolution_auto), or direct ones only, as MXNet 1.9.1 (read when a
// primitive is looked up, and part of its key).
dnnl::algorithm ConvAlgorithm() {
  return env::GetBool("MXNET_ONEDNN_WINOGRAD") ? dnnl::algorithm::convolution_auto
                                               : dnnl::algorithm::convolution_direct;
}

std::string Key(const ConvGeometry& g, const char* kind, dnnl::algorithm alg) {
  char buf[320];
  std::snprintf(buf, sizeof(buf),
                "%s n%lld c%lld k%lld g%lld b%d cl%d in%lld,%lld,%lld ks%lld,%lld,%lld "
                "s%lld,%lld,%lld d%lld,%lld,%lld p%lld,%lld,%lld sp%d",
                kind, (long long)g.batch, (long long)g.in_channels, (long long)g.filters,
                (long long)g.groups, g.bias, g.channel_last, (long long)g.in[0],
                (long long)g.in[1], (long long)g.in[2], (long long)g.kernel[0],
                (long long)g.kernel[1], (long long)g.kernel[2], (long long)g.stride[0],
                (long long)g.stride[1], (long long)g.stride[2], (long long)g.dilate[0],
                (long long)g.dilate[1], (long long)g.dilate[2], (long long)g.pad[0],
                (long long)g.pad[1], (long long)g.pad[2], g.nspatial);
  return std::string(buf) + (alg == dnnl::algorithm::convolution_auto ? " auto" : " direct");
}

// post (may be null): fused post-ops (a sum adds what the destination holds).
dnnl::convolution_forward::primitive_desc ForwardPd(const ConvGeometry& g, const Descs& d,
                                                     dnnl::prop_kind prop, dnnl::algorithm alg,
                                                     const onednn::PostOps* post = nullptr) {
  const memory::desc bias = g.bias ? d.bias : memory::desc();
  const dnnl::primitive_attr attr = post != nullptr ? post->Attr() : dnnl::primitive_attr();
#if DNNL_VERSION_MAJOR >= 3
  return dnnl::convolution_forward::primitive_desc(onednn::CpuEngine(), prop, alg, Any(d.src),
                                                   Any(d.weights), bias, Any(d.dst), d.strides,
                                                   d.dilates, d.pad_l, d.pad_r, attr);
#else
  return dnnl::convolution_forward::primitive_desc(
      dnnl::convolution_forward::desc(prop, alg, Any(d.src), Any(d.weights), bias, Any(d.dst),
                                      d.strides, d.dilates, d.pad_l, d.pad_r),
      attr, onednn::CpuEngine());
#endif
}

// The weights reordered into a primitive's layout, and the content stamp they were made from.
struct BlockedWeights {
  uint64_t stamp{0};
  std::vector<float> data;
};

struct ForwardEntry {
  Descs d;
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward prim;
  Reorder src, weights, dst;  // in, in, out
  Reorder sum_operand;        // with a sum post-op: the caller's plain out into dst's layout
  // Per weight array (by address; networks repeat a geometry with different weights): its
  // blocked copy, redone only when the array's content stamp changed, so an inference loop
  // reorders each weight once. An array of unknown stamp is reordered on every call.
  std::unordered_map<const void*, BlockedWeights> blocked;
};

// Distinct weight arrays kept per geometry; past it the copies start over (arrays freed
// long ago would otherwise pin their copies).
constexpr size_t kMaxBlockedWeights = 32;

/*! \brief The weights in the primitive's layout, reordered only when they changed. */
memory CachedWeights(ForwardEntry& e, const TBlob& weight, uint64_t stamp) {
  if (!e.weights.needed) return memory(e.weights.from, onednn::CpuEngine(), weight.dptr_);
  if (stamp == 0) stamp = imperative::InputContentStamp(weight.dptr_);
  if (e.blocked.size() >= kMaxBlockedWeights && e.blocked.count(weight.dptr_) == 0) {
    e.blocked.clear();
  }
  BlockedWeights& b = e.blocked[weight.dptr_];
  if (stamp == 0 || b.stamp != stamp || b.data.empty()) {
    b.stamp = stamp;
    b.data.resize(e.weights.to.get_size() / sizeof(float));
    memory plain(e.weights.from, onednn::CpuEngine(), weight.dptr_);
    memory blocked(e.weights.to, onednn::CpuEngine(), b.data.data());
    e.weights.prim.execute(onednn::ThreadStream(), plain, blocked);
  }
  return memory(e.weights.to, onednn::CpuEngine(), b.data.data());
}

struct BackwardEntry {
  Descs d;
  dnnl::convolution_backward_data::primitive_desc data_pd;
  dnnl::convolution_backward_data data_prim;
  dnnl::convolution_backward_weights::primitive_desc weights_pd;
  dnnl::convolution_backward_weights weights_prim;
  Reorder ddst_data, weights_data, dsrc;         // backward data: in, in, out
  Reorder src_weights, ddst_weights, dweights;  // backward weights: in, in, out
};

onednn::PrimitiveCache<ForwardEntry>& ForwardCache() {
  thread_local onednn::PrimitiveCache<ForwardEntry> cache;
  return cache;
}

onednn::PrimitiveCache<BackwardEntry>& BackwardCache() {
  thread_local onednn::PrimitiveCache<BackwardEntry> cache;
  return cache;
}

}  // namespace

bool ConvUsesOneDNN(const ConvGeometry& g, int dtype) {
  if (dtype != kFloat32 || !onednn::Enabled()) return false;
  for (int i = conv::kMaxSpatial - g.nspatial; i < conv::kMaxSpatial; ++i) {
    const memory::dim padded = g.in[i] + g.pad[i] + RightPad(g, i) - Span(g, i);
    if (padded < 0 || padded / g.stride[i] + 1 != g.out[i]) return false;
  }
  return true;
}

void ConvForwardOneDNN(const ConvGeometry& g, const OpContext& ctx, const TBlob& data,
                       const TBlob& weight, const TBlob* bias, const TBlob& out, OpReqType req,
                       const onednn::PostOps* post, uint64_t weight_stamp,
                       onednn::BlockedActs acts) {
  if (req == kNullOp) return;
  const dnnl::algorithm alg = ConvAlgorithm();
  const std::string key = Key(g, "fwd", alg) + (post != nullptr ? post->Key() : std::string()) +
                          onednn::ActsKey(acts);
  ForwardEntry& e = ForwardCache().Get(key, [&] {
    ForwardEntry f;
    f.d = MakeDescs(g, acts.src, acts.dst);
    f.pd = ForwardPd(g, f.d, dnnl::prop_kind::forward_training, alg, post);
    f.prim = dnnl::convolution_forward(f.pd);
    f.src = Reorder(f.d.src, f.pd.src_desc());
    f.weights = Reorder(f.d.weights, f.pd.weights_desc());
    f.dst = Reorder(f.pd.dst_desc(), f.d.dst);
    if (post != nullptr && post->has_sum()) f.sum_operand = Reorder(f.d.dst, f.pd.dst_desc());
    return f;
  });
  // Training changes the weights at every step, so a kept blocked copy would be redone at
  // every call anyway: then they go through temp space, and no copy of them is kept.
  const bool keep_weights = !ctx.is_train;
  Arena arena(ctx, InBytes(e.src) + OutBytes(e.dst, req) + (keep_weights ? 0 : InBytes(e.weights)));
  std::unordered_map<int, memory> args;
  args[DNNL_ARG_SRC] = In(e.src, data.dptr_, &arena);
  args[DNNL_ARG_WEIGHTS] =
      keep_weights ? CachedWeights(e, weight, weight_stamp) : In(e.weights, weight.dptr_, &arena);
  if (bias != nullptr) args[DNNL_ARG_BIAS] = memory(e.d.bias, onednn::CpuEngine(), bias->dptr_);
  OutBuf dst = MakeOut(e.dst, out.dptr<float>(), req, out.Size(), &arena);
  args[DNNL_ARG_DST] = dst.inner;
  if (e.sum_operand.needed) e.sum_operand.prim.execute(onednn::ThreadStream(), dst.plain, dst.inner);
  e.prim.execute(onednn::ThreadStream(), args);
  Finish(dst);
}

void ConvBackwardOneDNN(const ConvGeometry& g, const OpContext& ctx, const TBlob& ograd,
                        const TBlob& data, const TBlob& weight, const ConvGrads& grads,
                        onednn::BlockedActs acts) {
  const dnnl::algorithm alg = ConvAlgorithm();
  BackwardEntry& e = BackwardCache().Get(Key(g, "bwd", alg) + onednn::ActsKey(acts), [&] {
    BackwardEntry b;
    b.d = MakeDescs(g, acts.src, acts.diff_dst);
    const auto hint = ForwardPd(g, b.d, dnnl::prop_kind::forward_training, alg);
    const Descs& d = b.d;
    const memory::desc bias = g.bias ? d.bias : memory::desc();
    using BwdData = dnnl::convolution_backward_data;
    using BwdWeights = dnnl::convolution_backward_weights;
#if DNNL_VERSION_MAJOR >= 3
    b.data_pd = BwdData::primitive_desc(onednn::CpuEngine(), alg, Any(d.src), Any(d.weights),
                                        Any(d.dst), d.strides, d.dilates, d.pad_l, d.pad_r,
                                        hint);
    b.weights_pd = BwdWeights::primitive_desc(onednn::CpuEngine(), alg, Any(d.src),
                                              Any(d.weights), bias, Any(d.dst), d.strides,
                                              d.dilates, d.pad_l, d.pad_r, hint);
#else
    b.data_pd = BwdData::primitive_desc(
        BwdData::desc(alg, Any(d.src), Any(d.weights), Any(d.dst), d.strides, d.dilates,
                      d.pad_l, d.pad_r),
        onednn::CpuEngine(), hint);
    b.weights_pd = BwdWeights::primitive_desc(
        BwdWeights::desc(alg, Any(d.src), Any(d.weights), bias, Any(d.dst), d.strides,
                         d.dilates, d.pad_l, d.pad_r),
        onednn::CpuEngine(), hint);
#endif
    b.data_prim = dnnl::convolution_backward_data(b.data_pd);
    b.weights_prim = dnnl::convolution_backward_weights(b.weights_pd);
    b.ddst_data = Reorder(d.dst, b.data_pd.diff_dst_desc());
    b.weights_data = Reorder(d.weights, b.data_pd.weights_desc());
    b.dsrc = Reorder(b.data_pd.diff_src_desc(),
                     acts.diff_src ? onednn::BlockedF32(d.src.dims()) : MakeDescs(g).src);
    b.src_weights = Reorder(d.src, b.weights_pd.src_desc());
    b.ddst_weights = Reorder(d.dst, b.weights_pd.diff_dst_desc());
    b.dweights = Reorder(b.weights_pd.diff_weights_desc(), d.weights);
    return b;
  });
  const bool want_data = grads.data != nullptr && grads.data_req != kNullOp;
  onednn::WeightGrads wg;
  if (grads.weight != nullptr) {
    wg.weight = grads.weight->dptr<float>();
    wg.weight_req = grads.weight_req;
    wg.weight_size = grads.weight->Size();
  }
  if (g.bias) {
    wg.bias_md = &e.d.bias;
    wg.bias = grads.bias != nullptr ? grads.bias->dptr<float>() : nullptr;
    wg.bias_req = grads.bias_req;
  }
  const bool run_weights = wg.weight_req != kNullOp || (wg.bias && wg.bias_req != kNullOp);
  size_t bytes = 0;
  if (want_data) bytes += onednn::BackwardDataBytes(e.ddst_data, e.weights_data, e.dsrc,
                                                     grads.data_req);
  if (run_weights) {
    bytes += onednn::BackwardWeightsBytes(e.src_weights, e.ddst_weights, e.dweights, wg);
  }
  Arena arena(ctx, bytes);
  if (want_data) {
    onednn::RunBackwardData(e.data_prim, e.ddst_data, ograd.dptr_, e.weights_data, weight.dptr_,
                            e.dsrc, grads.data->dptr<float>(), grads.data_req,
                            grads.data->Size(), &arena);
  }
  if (run_weights) {
    onednn::RunBackwardWeights(e.weights_prim, e.src_weights, data.dptr_, e.ddst_weights,
                               ograd.dptr_, e.dweights, wg, &arena);
  }
}

#else  // oneDNN not built in: the dispatcher never picks these.

bool ConvUsesOneDNN(const ConvGeometry&, int) { return false; }

void ConvForwardOneDNN(const ConvGeometry&, const OpContext&, const TBlob&, const TBlob&,
                       const TBlob*, const TBlob&, OpReqType, const onednn::PostOps*, uint64_t,
                       onednn::BlockedActs) {
  LOG(FATAL) << "Convolution: this build has no oneDNN";
}

void ConvBackwardOneDNN(const ConvGeometry&, const OpContext&, const TBlob&, const TBlob&,
                        const TBlob&, const ConvGrads&, onednn::BlockedActs) {
  LOG(FATAL) << "Convolution: this build has no oneDNN";
}

#endif

}  // namespace op
}  // namespace mxnet
