// Pooling (max, avg, sum, Lp over 1-D, 2-D and 3-D windows) and _backward_Pooling: argument
// resolution, shape and type rules, the plain CPU kernels and the registration.
#include "operator/nn/pooling_op.h"

#include "operator/nn/onednn/onednn_pooling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(PoolingParam);

namespace {

const char* LayoutName(int layout) {
  switch (layout) {
    case kNCW: return "NCW";
    case kNCHW: return "NCHW";
    case kNCDHW: return "NCDHW";
    case kNWC: return "NWC";
    case kNHWC: return "NHWC";
    default: return "NDHWC";
  }
}

int LayoutSpatialDims(int layout) {
  switch (layout) {
    case kNCW: case kNWC: return 1;
    case kNCHW: case kNHWC: return 2;
    default: return 3;
  }
}

/*! \brief A per-dimension argument (stride, pad) as given, or fill when it was left empty.
 *  As MXNet 1.9.1, entries past the kernel's dimensions are accepted and ignored. */
index_t TupleOr(const char* op, const char* arg, const TShape& t, int nsp, int i, index_t fill) {
  if (t.ndim() <= 0) return fill;
  CHECK_GE(t.ndim(), nsp) << "Operator " << op << ": argument " << arg << " must have " << nsp
                          << " entries like kernel, given " << t;
  return t[i];
}

}  // namespace

PoolGeometry::PoolGeometry(const char* op, const PoolingParam& p, const TShape& data) {
  CHECK(data.ndim() >= 3 && data.ndim() <= 5)
      << "Operator " << op << ": argument data must be 3-D (batch, channel, x), 4-D (batch, "
      << "channel, y, x) or 5-D (batch, channel, d, y, x), given shape " << data;
  nspatial = data.ndim() - 2;
  if (p.layout.has_value()) {
    CHECK_EQ(LayoutSpatialDims(p.layout.value()), nspatial)
        << "Operator " << op << ": argument layout " << LayoutName(p.layout.value())
        << " does not fit data of shape " << data;
    channel_last = p.layout.value() == kNWC || p.layout.value() == kNHWC ||
                   p.layout.value() == kNDHWC;
  }
  batch = data[0];
  channels = channel_last ? data[data.ndim() - 1] : data[1];
  const int first_sp = channel_last ? 1 : 2;
  for (int i = 0; i < nspatial; ++i) in[i] = data[first_sp + i];
  if (!p.global_pool) {
    CHECK_EQ(p.kernel.ndim(), nspatial)
        << "Operator " << op << ": argument kernel must have " << nspatial << " entries for "
        << data.ndim() << "-D data of shape " << data << ", given kernel=" << p.kernel;
  }
  for (int i = 0; i < nspatial; ++i) {
    if (p.global_pool) {
      kernel[i] = in[i];
      continue;
    }
    kernel[i] = p.kernel[i];
    stride[i] = TupleOr(op, "stride", p.stride, nspatial, i, 1);
    pad[i] = TupleOr(op, "pad", p.pad, nspatial, i, 0);
    CHECK_GT(kernel[i], 0) << "Operator " << op << ": argument kernel must be positive, given "
                           << p.kernel;
    CHECK_GT(stride[i], 0) << "Operator " << op << ": argument stride must be positive, given "
                           << p.stride;
    CHECK_GE(pad[i], 0) << "Operator " << op << ": argument pad must be non-negative, given "
                        << p.pad;
  }
  const auto conv = static_cast<PoolConvention>(p.pooling_convention);
  if (conv == PoolConvention::kSame && !p.global_pool) {
    for (dim_t v : p.pad) {
      CHECK_EQ(v, 0) << "Operator " << op << ": pooling_convention='same' disables argument pad, "
                     << "given pad=" << p.pad;
    }
  }
  for (int i = 0; i < nspatial; ++i) {
    if (p.global_pool) {
      out[i] = 1;
    } else if (conv == PoolConvention::kSame) {
      // As MXNet 1.9.1: ceil(x / stride) windows from the first element on, the last ones
      // running past the end; what lies past it counts for nothing, avg's divisor included.
      out[i] = (in[i] + stride[i] - 1) / stride[i];
    } else {
      const index_t padded = in[i] + 2 * pad[i];
      CHECK_LE(kernel[i], padded)
          << "Operator " << op << ": argument kernel " << p.kernel << " exceeds the padded input "
          << "in spatial dim " << i << " (" << in[i] << " padded by " << pad[i] << " on each "
          << "side to " << padded << "); data shape " << data;
      const index_t span = padded - kernel[i];
      out[i] = 1 + (conv == PoolConvention::kFull ? (span + stride[i] - 1) / stride[i]
                                                  : span / stride[i]);
    }
  }
  // Element strides: spatial dims are row-major among themselves in both layouts.
  index_t plane_in = 1, plane_out = 1;
  for (int i = nspatial - 1; i >= 0; --i) {
    in_s[i] = plane_in * (channel_last ? channels : 1);
    out_s[i] = plane_out * (channel_last ? channels : 1);
    plane_in *= in[i];
    plane_out *= out[i];
  }
  in_c = channel_last ? 1 : plane_in;
  out_c = channel_last ? 1 : plane_out;
  in_n = channels * plane_in;
  out_n = channels * plane_out;
}

TShape PoolGeometry::OutputShape() const {
  TShape s(nspatial + 2, 0);
  s[0] = batch;
  const int first_sp = channel_last ? 1 : 2;
  s[channel_last ? nspatial + 1 : 1] = channels;
  for (int i = 0; i < nspatial; ++i) s[first_sp + i] = out[i];
  return s;
}

namespace {

/*! \brief Each dim's window ranges, per output index along that dim (computed once per call;
 *  windows are separable). */
struct WindowTable {
  std::vector<index_t> lo[3], hi[3], with_pad[3];
  explicit WindowTable(const PoolGeometry& g) {
    for (int d = 0; d < 3; ++d) {
      for (index_t o = 0; o < g.out[d]; ++o) {
        const index_t start = o * g.stride[d] - g.pad[d];
        // The window may run past the padding under pooling_convention='full'; MXNet counts
        // only the part inside the padded input towards the avg divisor.
        const index_t end = std::min(start + g.kernel[d], g.in[d] + g.pad[d]);
        with_pad[d].push_back(end - start);
        lo[d].push_back(std::max<index_t>(start, 0));
        hi[d].push_back(std::min(end, g.in[d]));
      }
    }
  }
};

/*! \brief One output's window: its clipped range per dim and MXNet's divisor for avg. */
struct Window {
  index_t lo[3], hi[3];
  index_t size_with_pad = 1, size_inside = 1;
  Window(const WindowTable& t, const index_t o[3]) {
    for (int d = 0; d < 3; ++d) {
      lo[d] = t.lo[d][o[d]];
      hi[d] = t.hi[d][o[d]];
      size_with_pad *= t.with_pad[d][o[d]];
      size_inside *= std::max<index_t>(hi[d] - lo[d], 0);
    }
  }
  bool Empty() const { return size_inside == 0; }
  template <typename Fn>
  void ForEach(const PoolGeometry& g, Fn fn) const {
    for (index_t a = lo[0]; a < hi[0]; ++a)
      for (index_t b = lo[1]; b < hi[1]; ++b)
        for (index_t c = lo[2]; c < hi[2]; ++c) fn(a * g.in_s[0] + b * g.in_s[1] + c * g.in_s[2]);
  }
};

/*! \brief Spatial index of the k-th output of a plane. */
void OutputCoords(const PoolGeometry& g, index_t k, index_t o[3]) {
  o[2] = k % g.out[2];
  o[1] = (k / g.out[2]) % g.out[1];
  o[0] = k / (g.out[2] * g.out[1]);
}

index_t OutputOffset(const PoolGeometry& g, const index_t o[3]) {
  return o[0] * g.out_s[0] + o[1] * g.out_s[1] + o[2] * g.out_s[2];
}

/*! \brief The reduction a window computes, with the optional arguments' defaults applied. */
struct PoolMode {
  PoolType type;
  bool include_pad;
  int p;
  explicit PoolMode(const PoolingParam& param)
      : type(static_cast<PoolType>(param.pool_type)),
        include_pad(param.count_include_pad.has_value() ? param.count_include_pad.value() : true),
        p(param.p_value.has_value() ? param.p_value.value() : 1) {}
  /*! \brief What avg pooling divides a window's sum by. */
  index_t AvgDivisor(const Window& w) const {
    return include_pad ? w.size_with_pad : w.size_inside;
  }
};

/*! \brief The most negative finite DType (padding and empty windows of max pooling). */
template <typename DType>
typename AccType<DType>::type LowestValue() {
  if constexpr (std::is_same<DType, half_t>::value) return -65504.0f;
  else return std::numeric_limits<DType>::lowest();
}

template <typename A>
A PowP(A v, int p) {
  return p == 1 ? v : p == 2 ? v * v : v * v * v;
}
template <typename A>
A RootP(A v, int p) {
  return p == 1 ? v : p == 2 ? std::sqrt(v) : std::cbrt(v);
}

template <typename DType>
void ForwardImpl(const PoolMode& m, const PoolGeometry& g, const DType* x, DType* y,
                 OpReqType req) {
  using Acc = typename AccType<DType>::type;
  const index_t per_plane = g.OutputsPerPlane();
  const index_t total = g.batch * g.channels * per_plane;
  const WindowTable table(g);
  ParallelFor(total, [&](index_t i) {
    const index_t plane = i / per_plane, n = plane / g.channels, c = plane % g.channels;
    index_t o[3];
    OutputCoords(g, i % per_plane, o);
    const Window w(table, o);
    const DType* base = x + n * g.in_n + c * g.in_c;
    Acc r;
    if (m.type == PoolType::kMax) {
      r = LowestValue<DType>();
      w.ForEach(g, [&](index_t k) { r = std::max(r, static_cast<Acc>(base[k])); });
    } else {
      r = Acc(0);
      if (m.type == PoolType::kLp) {
        w.ForEach(g, [&](index_t k) { r += PowP(static_cast<Acc>(base[k]), m.p); });
        r = RootP(r, m.p);
      } else {
        w.ForEach(g, [&](index_t k) { r += static_cast<Acc>(base[k]); });
      }
      if (m.type == PoolType::kAvg) {
        const index_t div = m.AvgDivisor(w);
        r = div > 0 ? r / static_cast<Acc>(div) : Acc(0);
      }
    }
    Assign(y + n * g.out_n + c * g.out_c + OutputOffset(g, o), req, static_cast<DType>(r));
  });
}

// Windows overlap, so one thread owns each (batch, channel) plane of data_grad.
template <typename DType>
void BackwardImpl(const PoolMode& m, const PoolGeometry& g, const DType* og, const DType* x,
                  const DType* y, DType* dx, OpReqType req) {
  using Acc = typename AccType<DType>::type;
  const index_t per_plane = g.OutputsPerPlane();
  const index_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const WindowTable table(g);
  // By planes, but parallel by the work in them (a few planes can hold many outputs).
  LoopMaybeParallel(g.batch * g.channels * (per_plane + in_plane) >= ParallelGrain(),
                    g.batch * g.channels, [&](index_t plane) {
    const index_t n = plane / g.channels, c = plane % g.channels;
    const DType* xb = x + n * g.in_n + c * g.in_c;
    DType* db = dx + n * g.in_n + c * g.in_c;
    if (req != kAddTo && !g.channel_last) {
      std::fill(db, db + in_plane, DType(0));  // a channel-first plane is contiguous
    } else if (req != kAddTo) {
      for (index_t k = 0; k < in_plane; ++k) {
        index_t rest = k;
        const index_t i2 = rest % g.in[2];
        rest /= g.in[2];
        const index_t i1 = rest % g.in[1], i0 = rest / g.in[1];
        db[i0 * g.in_s[0] + i1 * g.in_s[1] + i2 * g.in_s[2]] = DType(0);
      }
    }
    for (index_t k = 0; k < per_plane; ++k) {
      index_t o[3];
      OutputCoords(g, k, o);
      const Window w(table, o);
      if (w.Empty()) continue;
      const index_t oo = n * g.out_n + c * g.out_c + OutputOffset(g, o);
      const Acc grad = static_cast<Acc>(og[oo]);
      if (m.type == PoolType::kMax) {
        // The gradient goes to the first maximum in the window's raster order, as MXNet.
        index_t arg = -1;
        Acc best = Acc(0);
        w.ForEach(g, [&](index_t q) {
          const Acc v = static_cast<Acc>(xb[q]);
          if (arg < 0 || v > best) {
            best = v;
            arg = q;
          }
        });
        db[arg] = static_cast<DType>(static_cast<Acc>(db[arg]) + grad);
      } else if (m.type == PoolType::kLp) {
        const Acc out = static_cast<Acc>(y[oo]);
        w.ForEach(g, [&](index_t q) {
          const Acc ratio = static_cast<Acc>(xb[q]) / out;
          const Acc d = m.p == 1 ? grad : m.p == 2 ? grad * ratio : grad * ratio * ratio;
          db[q] = static_cast<DType>(static_cast<Acc>(db[q]) + d);
        });
      } else {
        Acc d = grad;
        if (m.type == PoolType::kAvg) {
          d /= static_cast<Acc>(m.AvgDivisor(w));
        }
        w.ForEach(g, [&](index_t q) { db[q] = static_cast<DType>(static_cast<Acc>(db[q]) + d); });
      }
    }
  });
}

}  // namespace

void PoolingForwardPlain(const PoolingParam& p, const PoolGeometry& g, const TBlob& data,
                         const TBlob& out, OpReqType req) {
  if (req == kNullOp) return;
  MXNET_REAL_TYPE_SWITCH(data.type_flag_, DType, {
    ForwardImpl<DType>(PoolMode(p), g, data.dptr<DType>(), out.dptr<DType>(), req);
  });
}

void PoolingBackwardPlain(const PoolingParam& p, const PoolGeometry& g, const TBlob& out_grad,
                          const TBlob& data, const TBlob& out, const TBlob& data_grad,
                          OpReqType req) {
  if (req == kNullOp) return;
  MXNET_REAL_TYPE_SWITCH(data.type_flag_, DType, {
    BackwardImpl<DType>(PoolMode(p), g, out_grad.dptr<DType>(), data.dptr<DType>(),
                        out.dptr<DType>(), data_grad.dptr<DType>(), req);
  });
}

namespace {

void CheckPoolType(const NodeAttrs& attrs, const PoolingParam& p) {
  if (static_cast<PoolType>(p.pool_type) != PoolType::kLp) return;
  CHECK(p.p_value.has_value()) << "Operator " << attrs.op->name << ": argument p_value is "
                               << "required for pool_type='lp'";
  const int pv = p.p_value.value();
  CHECK(pv >= 1 && pv <= 3) << "Operator " << attrs.op->name << ": argument p_value must be 1, "
                            << "2 or 3 for pool_type='lp', given " << pv;
}

bool PoolingShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!data.IsKnown()) return false;
  const PoolingParam& p = Param<PoolingParam>(attrs);
  CheckPoolType(attrs, p);
  const PoolGeometry g(attrs.op->name.c_str(), p, data);
  AssignShape(attrs, "output", &(*out)[0], g.OutputShape());
  return true;
}

bool PoolingType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  if (!ElemwiseType(attrs, in, out)) return false;
  const int t = (*out)[0];
  CHECK(t == kFloat32 || t == kFloat64 || t == kFloat16)
      << "Operator " << attrs.op->name << ": argument data must be float32, float64 or float16, "
      << "given " << DTypeName(t);
  return true;
}

void PoolingCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const PoolingParam& p = Param<PoolingParam>(attrs);
  const PoolGeometry g(attrs.op->name.c_str(), p, in[0].shape_);
  auto plain = [&](const std::vector<TBlob>& pin, const std::vector<OpReqType>& preq,
                   const std::vector<TBlob>& pout) {
    if (PoolTiledMaxApplies(p, g, pin[0].type_flag_)) {
      PoolTiledMaxForward(g, pin[0], pout[0], preq[0]);
    } else {
      PoolingForwardPlain(p, g, pin[0], pout[0], preq[0]);
    }
  };
  const bool blocked = onednn::AnyBlocked(attrs, in, out);
  if ((blocked || !PoolTiledMaxApplies(p, g, in[0].type_flag_)) &&
      PoolUsesOneDNN(p, g, in[0].type_flag_)) {
    PoolForwardOneDNN(p, g, ctx, in[0], out[0], req[0],
                      {onednn::BlockedIn(attrs, in, 0), onednn::BlockedOut(attrs, out, 0)});
  } else if (blocked) {
    onednn::OnPlainCopies(attrs, in, req, out, plain);
  } else {
    plain(in, req, out);
  }
}

// Channel-first max and avg pooling read their data and write their output held blocked.
std::vector<onednn::LayoutGroup> PoolingLayoutGroups(const NodeAttrs& attrs) {
  const PoolingParam& p = Param<PoolingParam>(attrs);
  const auto type = static_cast<PoolType>(p.pool_type);
  if (type != PoolType::kMax && type != PoolType::kAvg) return {};
  if (p.layout.has_value() && p.layout.value() != kNCHW) return {};
  return {{{0}, {}}, {{}, {0}}};
}

// Inputs (out_grad, data, out); output data_grad.
bool PoolingBackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                          std::vector<TShape>* out) {
  AssignShape(attrs, "data_grad", &(*out)[0], (*in)[1]);
  return (*out)[0].IsKnown();
}

void PoolingBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx,
                            const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                            const std::vector<TBlob>& out) {
  const PoolingParam& p = Param<PoolingParam>(attrs);
  const PoolGeometry g(attrs.op->name.c_str(), p, in[1].shape_);
  auto plain = [&](const std::vector<TBlob>& pin, const std::vector<OpReqType>& preq,
                   const std::vector<TBlob>& pout) {
    if (PoolTiledMaxApplies(p, g, pin[1].type_flag_)) {
      PoolTiledMaxBackward(g, pin[0], pin[1], pout[0], preq[0]);
    } else {
      PoolingBackwardPlain(p, g, pin[0], pin[1], pin[2], pout[0], preq[0]);
    }
  };
  const bool blocked = onednn::AnyBlocked(attrs, in, out);
  if ((blocked || !PoolTiledMaxApplies(p, g, in[1].type_flag_)) &&
      PoolUsesOneDNN(p, g, in[1].type_flag_)) {
    onednn::BlockedActs acts;
    acts.diff_dst = onednn::BlockedIn(attrs, in, 0);
    acts.src = onednn::BlockedIn(attrs, in, 1);
    acts.diff_src = onednn::BlockedOut(attrs, out, 0);
    PoolBackwardOneDNN(p, g, ctx, in[0], in[1], out[0], req[0], acts);
  } else if (blocked) {
    onednn::OnPlainCopies(attrs, in, req, out, plain);
  } else {
    plain(in, req, out);
  }
}

// ograd, data, the output (read by the plain kernels only) and the data gradient, each held
// blocked or not, as the forward's.
std::vector<onednn::LayoutGroup> PoolingBackwardLayoutGroups(const NodeAttrs& attrs) {
  if (PoolingLayoutGroups(attrs).empty()) return {};
  return {{{0}, {}}, {{1}, {}}, {{2}, {}}, {{}, {0}}};
}

std::vector<NodeEntry> PoolingGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {MakeNode("_backward_Pooling", GradName(n), {og[0], n->inputs[0], Out(n)},
                   n->attrs.dict, &n)};
}

}  // namespace

NNVM_REGISTER_OP(Pooling)
    .describe(R"doc(Performs pooling on the input.

The shapes for 1-D pooling are

- **data** and **out**: *(batch_size, channel, width)* (NCW layout) or
  *(batch_size, width, channel)* (NWC layout),

The shapes for 2-D pooling are

- **data** and **out**: *(batch_size, channel, height, width)* (NCHW layout) or
  *(batch_size, height, width, channel)* (NHWC layout),

    out_height = f(height, kernel[0], pad[0], stride[0])
    out_width = f(width, kernel[1], pad[1], stride[1])

The definition of *f* depends on ``pooling_convention``:

- **valid** (default): f(x, k, p, s) = floor((x+2*p-k)/s)+1
- **full**, compatible with Caffe: f(x, k, p, s) = ceil((x+2*p-k)/s)+1
- **same**: f(x, k, p, s) = ceil(x/s), windows from the first element on, the last ones
  running past the end (pad must be 0)

With ``global_pool`` the kernel covers the whole spatial input, padding is 0 and every
spatial output dimension is 1.

``pool_type`` is one of **avg**, **max**, **sum** and **lp** (Lp pooling,
f(X) = (sum_x x^p)^(1/p) over each window X, with p = ``p_value`` in {1, 2, 3}).

For 3-D pooling an additional *depth* dimension comes before *height*: *(batch_size,
channel, depth, height, width)* (NCDHW layout) or *(batch_size, depth, height, width,
channel)* (NDHWC layout).
)doc")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<PoolingParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data to the pooling operator.")
    .add_arguments(PoolingParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data"}))
    .set_attr<FListOutputNames>("FListOutputNames", InputNames({"output"}))
    .set_attr<FInferShape>("FInferShape", PoolingShape)
    .set_attr<FInferType>("FInferType", PoolingType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", PoolingCompute)
    .set_attr<onednn::FBlockedLayout>("FBlockedLayout", PoolingLayoutGroups)
    .set_attr<FGradient>("FGradient", PoolingGrad);

NNVM_REGISTER_OP(_backward_Pooling)
    .describe("Gradient of Pooling with respect to its data, given the output gradient.")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<PoolingParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output of Pooling")
    .add_argument("data", "NDArray-or-Symbol", "The input of Pooling")
    .add_argument("output", "NDArray-or-Symbol", "The output of Pooling")
    .add_arguments(PoolingParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"ograd", "data", "output"}))
    .set_attr<FInferShape>("FInferShape", PoolingBackwardShape)
    .set_attr<FInferType>("FInferType", PoolingType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", PoolingBackwardCompute)
    .set_attr<onednn::FBlockedLayout>("FBlockedLayout", PoolingBackwardLayoutGroups);

}  // namespace op
}  // namespace mxnet
