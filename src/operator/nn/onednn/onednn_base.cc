// oneDNN's switch, cache bound, engine and per-thread streams.
#include "operator/nn/onednn/onednn_base.h"

#include <unordered_map>

#if MXNET_USE_OPENMP
#include <omp.h>
#endif

#include "common/env.h"

namespace mxnet {
namespace op {
namespace onednn {

bool Enabled() {
#if MXNET_USE_ONEDNN
  if (env::IsSet("MXNET_ONEDNN_ENABLED")) return env::GetBool("MXNET_ONEDNN_ENABLED");
  return env::GetBool("MXNET_MKLDNN_ENABLED");
#else
  return false;
#endif
}

int64_t CacheCapacity() {
  if (env::IsSet("MXNET_ONEDNN_CACHE_NUM")) return env::GetInt("MXNET_ONEDNN_CACHE_NUM");
  return env::GetInt("MXNET_MKLDNN_CACHE_NUM");
}

#if MXNET_USE_ONEDNN
int OpenMPThreads() {
#if MXNET_USE_OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

const dnnl::engine& CpuEngine() {
  static const dnnl::engine* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

dnnl::stream& ThreadStream() {
  thread_local dnnl::stream stream(CpuEngine());
  return stream;
}

dnnl::memory::desc PlainF32(const dnnl::memory::dims& dims) {
  dnnl::memory::dims strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dims[i + 1];
  }
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

dnnl::memory Wrap(const dnnl::memory::desc& md, const void* data) {
  return dnnl::memory(md, CpuEngine(), const_cast<void*>(data));
}

void RunNow(const dnnl::primitive& prim, const std::unordered_map<int, dnnl::memory>& args) {
  prim.execute(ThreadStream(), args);
  ThreadStream().wait();
}

Reorder::Reorder(const dnnl::memory::desc& f, const dnnl::memory::desc& t)
    : from(f), to(t), needed(f != t) {
  if (needed) prim = dnnl::reorder(dnnl::memory(f, CpuEngine()), dnnl::memory(t, CpuEngine()));
}

size_t InBytes(const Reorder& r) { return r.needed ? Arena::Bytes(r.to) : 0; }

size_t OutBytes(const Reorder& r, OpReqType req) {
  return (r.needed ? Arena::Bytes(r.from) : 0) + (req == kAddTo ? Arena::Bytes(r.to) : 0);
}

dnnl::memory In(const Reorder& r, void* user, Arena* arena) {
  dnnl::memory plain(r.from, CpuEngine(), user);
  if (!r.needed) return plain;
  dnnl::memory inner(r.to, CpuEngine(), arena->Take(r.to));
  r.prim.execute(ThreadStream(), plain, inner);
  return inner;
}

OutBuf MakeOut(const Reorder& r, float* user, OpReqType req, size_t n, Arena* arena) {
  OutBuf o;
  o.r = &r;
  o.user = user;
  o.req = req;
  o.n = n;
  void* plain_ptr = req == kAddTo ? arena->Take(r.to) : static_cast<void*>(user);
  o.plain = dnnl::memory(r.to, CpuEngine(), plain_ptr);
  o.inner = r.needed ? dnnl::memory(r.from, CpuEngine(), arena->Take(r.from)) : o.plain;
  return o;
}

void Finish(const OutBuf& o) {
  dnnl::memory inner = o.inner, plain = o.plain;  // execute takes non-const handles
  if (o.r->needed) o.r->prim.execute(ThreadStream(), inner, plain);
  ThreadStream().wait();
  if (o.req != kAddTo) return;
  const float* src = static_cast<const float*>(o.plain.get_data_handle());
  for (size_t i = 0; i < o.n; ++i) o.user[i] += src[i];
}

size_t BackwardDataBytes(const Reorder& ddst, const Reorder& weights, const Reorder& dsrc,
                         OpReqType req) {
  return InBytes(ddst) + InBytes(weights) + OutBytes(dsrc, req);
}

void RunBackwardData(const dnnl::primitive& prim, const Reorder& ddst, void* ddst_data,
                     const Reorder& weights, void* weights_data, const Reorder& dsrc,
                     float* out, OpReqType req, size_t out_size, Arena* arena) {
  OutBuf d = MakeOut(dsrc, out, req, out_size, arena);
  prim.execute(ThreadStream(), {{DNNL_ARG_DIFF_DST, In(ddst, ddst_data, arena)},
                                {DNNL_ARG_WEIGHTS, In(weights, weights_data, arena)},
                                {DNNL_ARG_DIFF_SRC, d.inner}});
  Finish(d);
}

namespace {
bool WantWeight(const WeightGrads& g) { return g.weight != nullptr && g.weight_req != kNullOp; }
}  // namespace

size_t BackwardWeightsBytes(const Reorder& src, const Reorder& ddst, const Reorder& dweights,
                            const WeightGrads& g) {
  const bool want = WantWeight(g);
  return InBytes(src) + InBytes(ddst) + OutBytes(dweights, want ? g.weight_req : kWriteTo) +
         (want ? 0 : Arena::Bytes(dweights.to)) + (g.bias_md ? Arena::Bytes(*g.bias_md) : 0);
}

void RunBackwardWeights(const dnnl::primitive& prim, const Reorder& src, void* src_data,
                        const Reorder& ddst, void* ddst_data, const Reorder& dweights,
                        const WeightGrads& g, Arena* arena) {
  const bool want = WantWeight(g);
  // A gradient nobody asked for still needs somewhere to go: the arena.
  float* dw_user = want ? g.weight : static_cast<float*>(arena->Take(dweights.to));
  OutBuf dw = MakeOut(dweights, dw_user, want ? g.weight_req : kWriteTo,
                      want ? g.weight_size : 0, arena);
  std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, In(src, src_data, arena)},
                                             {DNNL_ARG_DIFF_DST, In(ddst, ddst_data, arena)},
                                             {DNNL_ARG_DIFF_WEIGHTS, dw.inner}};
  float* db_out = nullptr;
  const bool want_bias = g.bias_md != nullptr && g.bias != nullptr && g.bias_req != kNullOp;
  if (g.bias_md != nullptr) {
    const bool direct = want_bias && g.bias_req == kWriteTo;
    db_out = direct ? g.bias : static_cast<float*>(arena->Take(*g.bias_md));
    args[DNNL_ARG_DIFF_BIAS] = dnnl::memory(*g.bias_md, CpuEngine(), db_out);
  }
  prim.execute(ThreadStream(), args);
  Finish(dw);
  if (want_bias && g.bias_req == kAddTo) {
    const size_t n = g.bias_md->get_size() / sizeof(float);
    for (size_t k = 0; k < n; ++k) g.bias[k] += db_out[k];
  }
}
#endif

}  // namespace onednn
}  // namespace op
}  // namespace mxnet
