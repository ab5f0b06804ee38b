// Convolution on oneDNN (float32): primitives cached per thread by geometry; the caller's
// plain tensors are reordered to the primitives' layouts in temp space and back.
#include <cstdio>
#include <cstring>

#include "operator/nn/convolution_kernels.h"
#include "operator/nn/onednn/onednn_base.h"

namespace mxnet {
namespace op {

#if MXNET_USE_ONEDNN
namespace {

using dnnl::memory;
using Tag = memory::format_tag;
using Dims = memory::dims;

// oneDNN derives the output size from the right padding; MXNet floors it away, which can make
// that padding negative (stride > 1 and no pad). Those calls take the plain kernel.
memory::dim RightPad(const ConvGeometry& g, int i) {
  const index_t span = g.dilate[i] * (g.kernel[i] - 1) + 1;
  return (g.out[i] - 1) * g.stride[i] + span - g.in[i] - g.pad[i];
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

Descs MakeDescs(const ConvGeometry& g) {
  const auto f32 = memory::data_type::f32;
  Descs d;
  const Dims kernel = Spatial(g, g.kernel);
  Dims wdims = g.groups > 1 ? Dims{g.groups, g.GroupFilters(), g.GroupInChannels()}
                            : Dims{g.filters, g.in_channels};
  d.src = memory::desc(Cat({g.batch, g.in_channels}, Spatial(g, g.in)), f32, ActivationTag(g));
  d.weights = memory::desc(Cat(wdims, kernel), f32, WeightTag(g));
  d.bias = memory::desc({g.filters}, f32, Tag::x);
  d.dst = memory::desc(Cat({g.batch, g.filters}, Spatial(g, g.out)), f32, ActivationTag(g));
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

std::string Key(const ConvGeometry& g, const char* kind) {
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
  return buf;
}

dnnl::convolution_forward::primitive_desc ForwardPd(const ConvGeometry& g, const Descs& d,
                                                     dnnl::prop_kind prop) {
  const auto alg = dnnl::algorithm::convolution_direct;
  const memory::desc bias = g.bias ? d.bias : memory::desc();
#if DNNL_VERSION_MAJOR >= 3
  return dnnl::convolution_forward::primitive_desc(onednn::CpuEngine(), prop, alg, Any(d.src),
                                                   Any(d.weights), bias, Any(d.dst), d.strides,
                                                   d.dilates, d.pad_l, d.pad_r);
#else
  return dnnl::convolution_forward::primitive_desc(
      dnnl::convolution_forward::desc(prop, alg, Any(d.src), Any(d.weights), bias, Any(d.dst),
                                      d.strides, d.dilates, d.pad_l, d.pad_r),
      onednn::CpuEngine());
#endif
}

// A reorder between a plain layout and a primitive's, made once per entry.
struct Reorder {
  memory::desc from, to;
  dnnl::reorder prim;
  bool needed{false};
  Reorder() = default;
  Reorder(const memory::desc& f, const memory::desc& t) : from(f), to(t), needed(f != t) {
    if (needed) prim = dnnl::reorder(memory(f, onednn::CpuEngine()), memory(t, onednn::CpuEngine()));
  }
};

struct ForwardEntry {
  Descs d;
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward prim;
  Reorder src, weights, dst;  // in, in, out
};

struct BackwardEntry {
  Descs d;
  dnnl::convolution_backward_data::primitive_desc data_pd;
  dnnl::convolution_backward_data data_prim;
  dnnl::convolution_backward_weights::primitive_desc weights_pd;
  dnnl::convolution_backward_weights weights_prim;
  Reorder ddst_data, weights_data, dsrc;         // backward data: in, in, out
  Reorder src_weights, ddst_weights, dweights;  // backward weights: in, in, out
};

/*! \brief Temp space carved into the buffers one call needs (64-byte aligned). */
class Arena {
 public:
  explicit Arena(const OpContext& ctx, size_t bytes)
      : next_(static_cast<char*>(ctx.RequestTempSpace(bytes))) {}
  static size_t Bytes(const memory::desc& md) { return (md.get_size() + 63) / 64 * 64; }
  void* Take(const memory::desc& md) {
    void* p = next_;
    next_ += Bytes(md);
    return p;
  }

 private:
  char* next_;
};

// Space for reordering into r.to (when needed) and, for kAddTo outputs, a plain result.
size_t InBytes(const Reorder& r) { return r.needed ? Arena::Bytes(r.to) : 0; }
size_t OutBytes(const Reorder& r, OpReqType req) {
  return (r.needed ? Arena::Bytes(r.from) : 0) + (req == kAddTo ? Arena::Bytes(r.to) : 0);
}

// The caller's plain data as the primitive's memory (reordered into the arena when needed).
memory In(const Reorder& r, void* user, Arena* arena) {
  memory plain(r.from, onednn::CpuEngine(), user);
  if (!r.needed) return plain;
  memory inner(r.to, onednn::CpuEngine(), arena->Take(r.to));
  r.prim.execute(onednn::ThreadStream(), plain, inner);
  return inner;
}

// Where the primitive writes an output; Finish moves it to the caller's blob honouring req.
// Here r.from is the primitive's layout and r.to the caller's plain one.
struct OutBuf {
  memory inner;
  memory plain;
  const Reorder* r;
  float* user;
  OpReqType req;
  size_t n;
};

OutBuf MakeOut(const Reorder& r, float* user, OpReqType req, size_t n, Arena* arena) {
  OutBuf o;
  o.r = &r;
  o.user = user;
  o.req = req;
  o.n = n;
  void* plain_ptr = req == kAddTo ? arena->Take(r.to) : static_cast<void*>(user);
  o.plain = memory(r.to, onednn::CpuEngine(), plain_ptr);
  o.inner = r.needed ? memory(r.from, onednn::CpuEngine(), arena->Take(r.from)) : o.plain;
  return o;
}

void Finish(const OutBuf& o) {
  memory inner = o.inner, plain = o.plain;  // execute takes non-const handles
  if (o.r->needed) o.r->prim.execute(onednn::ThreadStream(), inner, plain);
  onednn::ThreadStream().wait();
  if (o.req != kAddTo) return;
  const float* src = static_cast<const float*>(o.plain.get_data_handle());
  for (size_t i = 0; i < o.n; ++i) o.user[i] += src[i];
}

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
    if (RightPad(g, i) < 0) return false;
  }
  return true;
}

void ConvForwardOneDNN(const ConvGeometry& g, const OpContext& ctx, const TBlob& data,
                       const TBlob& weight, const TBlob* bias, const TBlob& out, OpReqType req) {
  if (req == kNullOp) return;
  ForwardEntry& e = ForwardCache().Get(Key(g, "fwd"), [&] {
    ForwardEntry f;
    f.d = MakeDescs(g);
    f.pd = ForwardPd(g, f.d, dnnl::prop_kind::forward_training);
    f.prim = dnnl::convolution_forward(f.pd);
    f.src = Reorder(f.d.src, f.pd.src_desc());
    f.weights = Reorder(f.d.weights, f.pd.weights_desc());
    f.dst = Reorder(f.pd.dst_desc(), f.d.dst);
    return f;
  });
  Arena arena(ctx, InBytes(e.src) + InBytes(e.weights) + OutBytes(e.dst, req));
  std::unordered_map<int, memory> args;
  args[DNNL_ARG_SRC] = In(e.src, data.dptr_, &arena);
  args[DNNL_ARG_WEIGHTS] = In(e.weights, weight.dptr_, &arena);
  if (bias != nullptr) args[DNNL_ARG_BIAS] = memory(e.d.bias, onednn::CpuEngine(), bias->dptr_);
  OutBuf dst = MakeOut(e.dst, out.dptr<float>(), req, out.Size(), &arena);
  args[DNNL_ARG_DST] = dst.inner;
  e.prim.execute(onednn::ThreadStream(), args);
  Finish(dst);
}

void ConvBackwardOneDNN(const ConvGeometry& g, const OpContext& ctx, const TBlob& ograd,
                        const TBlob& data, const TBlob& weight, const ConvGrads& grads) {
  BackwardEntry& e = BackwardCache().Get(Key(g, "bwd"), [&] {
    BackwardEntry b;
    b.d = MakeDescs(g);
    const auto hint = ForwardPd(g, b.d, dnnl::prop_kind::forward_training);
    const auto alg = dnnl::algorithm::convolution_direct;
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
    b.dsrc = Reorder(b.data_pd.diff_src_desc(), d.src);
    b.src_weights = Reorder(d.src, b.weights_pd.src_desc());
    b.ddst_weights = Reorder(d.dst, b.weights_pd.diff_dst_desc());
    b.dweights = Reorder(b.weights_pd.diff_weights_desc(), d.weights);
    return b;
  });
  const bool want_data = grads.data != nullptr && grads.data_req != kNullOp;
  const bool want_weight = grads.weight != nullptr && grads.weight_req != kNullOp;
  const bool want_bias = grads.bias != nullptr && grads.bias_req != kNullOp;
  const bool run_weights = want_weight || want_bias;
  size_t bytes = 0;
  if (want_data) {
    bytes += InBytes(e.ddst_data) + InBytes(e.weights_data) + OutBytes(e.dsrc, grads.data_req);
  }
  if (run_weights) {
    bytes += InBytes(e.src_weights) + InBytes(e.ddst_weights) +
             OutBytes(e.dweights, want_weight ? grads.weight_req : kWriteTo) +
             (want_weight ? 0 : Arena::Bytes(e.dweights.to)) +
             (g.bias ? Arena::Bytes(e.d.bias) : 0);
  }
  Arena arena(ctx, bytes);
  if (want_data) {
    OutBuf dsrc = MakeOut(e.dsrc, grads.data->dptr<float>(), grads.data_req, grads.data->Size(),
                          &arena);
    e.data_prim.execute(onednn::ThreadStream(),
                        {{DNNL_ARG_DIFF_DST, In(e.ddst_data, ograd.dptr_, &arena)},
                         {DNNL_ARG_WEIGHTS, In(e.weights_data, weight.dptr_, &arena)},
                         {DNNL_ARG_DIFF_SRC, dsrc.inner}});
    Finish(dsrc);
  }
  if (!run_weights) return;
  // A gradient nobody asked for still needs somewhere to go: the arena.
  float* dw_user = want_weight ? grads.weight->dptr<float>()
                               : static_cast<float*>(arena.Take(e.dweights.to));
  OutBuf dw = MakeOut(e.dweights, dw_user, want_weight ? grads.weight_req : kWriteTo,
                   want_weight ? grads.weight->Size() : 0, &arena);
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, In(e.src_weights, data.dptr_, &arena)},
      {DNNL_ARG_DIFF_DST, In(e.ddst_weights, ograd.dptr_, &arena)},
      {DNNL_ARG_DIFF_WEIGHTS, dw.inner}};
  float* db_out = nullptr;
  if (g.bias) {
    const bool direct = want_bias && grads.bias_req == kWriteTo;
    db_out = direct ? grads.bias->dptr<float>() : static_cast<float*>(arena.Take(e.d.bias));
    args[DNNL_ARG_DIFF_BIAS] = memory(e.d.bias, onednn::CpuEngine(), db_out);
  }
  e.weights_prim.execute(onednn::ThreadStream(), args);
  Finish(dw);
  if (want_bias && grads.bias_req == kAddTo) {
    float* dst = grads.bias->dptr<float>();
    for (index_t k = 0; k < g.filters; ++k) dst[k] += db_out[k];
  }
}

#else  // oneDNN not built in: the dispatcher never picks these.

bool ConvUsesOneDNN(const ConvGeometry&, int) { return false; }

void ConvForwardOneDNN(const ConvGeometry&, const OpContext&, const TBlob&, const TBlob&,
                       const TBlob*, const TBlob&, OpReqType) {
  LOG(FATAL) << "Convolution: this build has no oneDNN";
}

void ConvBackwardOneDNN(const ConvGeometry&, const OpContext&, const TBlob&, const TBlob&,
                        const TBlob&, const ConvGrads&) {
  LOG(FATAL) << "Convolution: this build has no oneDNN";
}

#endif

}  // namespace op
}  // namespace mxnet
