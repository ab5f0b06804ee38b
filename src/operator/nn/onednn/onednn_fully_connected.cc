// FullyConnected on oneDNN: inner-product primitives cached per thread by shape; the caller's
// row-major matrices are reordered to the primitives' layouts in temp space and back.
#include "operator/nn/onednn/onednn_fully_connected.h"

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

struct Plain {
  memory::desc src, weights, bias, dst;
  explicit Plain(const FCMatrixShape& s) {
    const auto f32 = memory::data_type::f32;
    src = memory::desc({s.rows, s.cols}, f32, Tag::nc);
    weights = memory::desc({s.hidden, s.cols}, f32, Tag::oi);
    bias = memory::desc({s.hidden}, f32, Tag::x);
    dst = memory::desc({s.rows, s.hidden}, f32, Tag::nc);
  }
};

memory::desc Any(const memory::desc& plain) {
  return memory::desc(plain.dims(), plain.data_type(), Tag::any);
}

using IpFwd = dnnl::inner_product_forward;
using IpBwdData = dnnl::inner_product_backward_data;
using IpBwdWeights = dnnl::inner_product_backward_weights;

IpFwd::primitive_desc ForwardPd(const Plain& p, bool bias) {
  const memory::desc b = bias ? p.bias : memory::desc();
#if DNNL_VERSION_MAJOR >= 3
  return IpFwd::primitive_desc(onednn::CpuEngine(), dnnl::prop_kind::forward_training,
                               Any(p.src), Any(p.weights), b, Any(p.dst));
#else
  return IpFwd::primitive_desc(IpFwd::desc(dnnl::prop_kind::forward_training, Any(p.src),
                                           Any(p.weights), b, Any(p.dst)),
                               onednn::CpuEngine());
#endif
}

struct ForwardEntry {
  Plain p;
  IpFwd::primitive_desc pd;
  IpFwd prim;
  Reorder src, weights, dst;
};

struct BackwardEntry {
  Plain p;
  IpBwdData::primitive_desc data_pd;
  IpBwdData data_prim;
  IpBwdWeights::primitive_desc weights_pd;
  IpBwdWeights weights_prim;
  Reorder ddst_data, weights_data, dsrc;
  Reorder src_weights, ddst_weights, dweights;
};

std::string Key(const FCMatrixShape& s, bool bias, const char* kind) {
  return std::string(kind) + " " + std::to_string(s.rows) + "x" + std::to_string(s.cols) +
         "x" + std::to_string(s.hidden) + (bias ? " b" : "");
}

}  // namespace

bool FCUsesOneDNN(const FCMatrixShape& s, int dtype) {
  return dtype == kFloat32 && s.rows > 0 && s.cols > 0 && s.hidden > 0 && onednn::Enabled();
}

void FCForwardOneDNN(const FCMatrixShape& s, const OpContext& ctx, const TBlob& data,
                     const TBlob& weight, const TBlob* bias, const TBlob& out, OpReqType req) {
  if (req == kNullOp) return;
  thread_local onednn::PrimitiveCache<ForwardEntry> cache;
  ForwardEntry& e = cache.Get(Key(s, bias != nullptr, "fwd"), [&] {
    Plain p(s);
    auto pd = ForwardPd(p, bias != nullptr);
    return ForwardEntry{p, pd, IpFwd(pd), Reorder(p.src, pd.src_desc()),
                        Reorder(p.weights, pd.weights_desc()), Reorder(pd.dst_desc(), p.dst)};
  });
  Arena arena(ctx, onednn::InBytes(e.src) + onednn::InBytes(e.weights) +
                       onednn::OutBytes(e.dst, req));
  std::unordered_map<int, memory> args;
  args[DNNL_ARG_SRC] = onednn::In(e.src, data.dptr_, &arena);
  args[DNNL_ARG_WEIGHTS] = onednn::In(e.weights, weight.dptr_, &arena);
  if (bias != nullptr) args[DNNL_ARG_BIAS] = memory(e.p.bias, onednn::CpuEngine(), bias->dptr_);
  OutBuf dst = onednn::MakeOut(e.dst, out.dptr<float>(), req, out.Size(), &arena);
  args[DNNL_ARG_DST] = dst.inner;
  e.prim.execute(onednn::ThreadStream(), args);
  onednn::Finish(dst);
}

void FCBackwardOneDNN(const FCMatrixShape& s, const OpContext& ctx, const TBlob& ograd,
                      const TBlob& data, const TBlob& weight, const TBlob* data_grad,
                      OpReqType data_req, const TBlob* weight_grad, OpReqType weight_req,
                      const TBlob* bias_grad, OpReqType bias_req) {
  const bool bias = bias_grad != nullptr;
  thread_local onednn::PrimitiveCache<BackwardEntry> cache;
  BackwardEntry& e = cache.Get(Key(s, bias, "bwd"), [&] {
    Plain p(s);
    const auto hint = ForwardPd(p, bias);
    const memory::desc b = bias ? p.bias : memory::desc();
#if DNNL_VERSION_MAJOR >= 3
    IpBwdData::primitive_desc dpd(onednn::CpuEngine(), Any(p.src), Any(p.weights), Any(p.dst),
                                  hint);
    IpBwdWeights::primitive_desc wpd(onednn::CpuEngine(), Any(p.src), Any(p.weights), b,
                                     Any(p.dst), hint);
#else
    IpBwdData::primitive_desc dpd(IpBwdData::desc(Any(p.src), Any(p.weights), Any(p.dst)),
                                  onednn::CpuEngine(), hint);
    IpBwdWeights::primitive_desc wpd(
        IpBwdWeights::desc(Any(p.src), Any(p.weights), b, Any(p.dst)), onednn::CpuEngine(),
        hint);
#endif
    return BackwardEntry{p,
                         dpd,
                         IpBwdData(dpd),
                         wpd,
                         IpBwdWeights(wpd),
                         Reorder(p.dst, dpd.diff_dst_desc()),
                         Reorder(p.weights, dpd.weights_desc()),
                         Reorder(dpd.diff_src_desc(), p.src),
                         Reorder(p.src, wpd.src_desc()),
                         Reorder(p.dst, wpd.diff_dst_desc()),
                         Reorder(wpd.diff_weights_desc(), p.weights)};
  });
  const bool want_data = data_grad != nullptr && data_req != kNullOp;
  onednn::WeightGrads wg;
  if (weight_grad != nullptr) {
    wg.weight = weight_grad->dptr<float>();
    wg.weight_req = weight_req;
    wg.weight_size = weight_grad->Size();
  }
  if (bias) {
    wg.bias_md = &e.p.bias;
    wg.bias = bias_grad->dptr<float>();
    wg.bias_req = bias_req;
  }
  const bool run_weights = wg.weight_req != kNullOp || (bias && bias_req != kNullOp);
  size_t bytes = 0;
  if (want_data) bytes += onednn::BackwardDataBytes(e.ddst_data, e.weights_data, e.dsrc, data_req);
  if (run_weights) {
    bytes += onednn::BackwardWeightsBytes(e.src_weights, e.ddst_weights, e.dweights, wg);
  }
  Arena arena(ctx, bytes);
  if (want_data) {
    onednn::RunBackwardData(e.data_prim, e.ddst_data, ograd.dptr_, e.weights_data, weight.dptr_,
                            e.dsrc, data_grad->dptr<float>(), data_req, data_grad->Size(), &arena);
  }
  if (run_weights) {
    onednn::RunBackwardWeights(e.weights_prim, e.src_weights, data.dptr_, e.ddst_weights,
                               ograd.dptr_, e.dweights, wg, &arena);
  }
}

#else  // oneDNN not built in: the op never picks these.

bool FCUsesOneDNN(const FCMatrixShape&, int) { return false; }

void FCForwardOneDNN(const FCMatrixShape&, const OpContext&, const TBlob&, const TBlob&,
                     const TBlob*, const TBlob&, OpReqType) {
  LOG(FATAL) << "FullyConnected: this build has no oneDNN";
}

void FCBackwardOneDNN(const FCMatrixShape&, const OpContext&, const TBlob&, const TBlob&,
                      const TBlob&, const TBlob*, OpReqType, const TBlob*, OpReqType,
                      const TBlob*, OpReqType) {
  LOG(FATAL) << "FullyConnected: this build has no oneDNN";
}

#endif

}  // namespace op
}  // namespace mxnet
