// Plain convolution: im2col + GEMM per sample and group, in float or double. float16 and the
// channel-last layouts run through channel-first copies in float (one temp-space request).
#include <algorithm>
#include <cstring>

#include "operator/nn/convolution_kernels.h"
#include "operator/tensor/linalg.h"

namespace mxnet {
namespace op {

using linalg::Mat;

namespace {

/*! \brief Pieces carved from one temp-space block (64-byte aligned each). */
class Scratch {
 public:
  explicit Scratch(char* base) : next_(base) {}
  template <typename T>
  T* Take(size_t n) {
    T* p = reinterpret_cast<T*>(next_);
    next_ += Bytes<T>(n);
    return p;
  }
  template <typename T>
  static size_t Bytes(size_t n) {
    return (n * sizeof(T) + 63) / 64 * 64;
  }

 private:
  char* next_;
};

}  // namespace

// Rows of col are (channel, kernel offset) pairs, columns the output positions:
// col[((c * kd + a) * kh + b) * kw + e][(z * oh + y) * ow + x] = data[c][z*sd - pd + a*dd][...].
template <typename DType>
void Im2Col(const ConvGeometry& g, const DType* data, DType* col) {
  const index_t channels = g.GroupInChannels(), ks = g.KernelSize(), n_out = g.OutSize();
  LoopMaybeParallel(channels * ks * n_out >= ParallelGrain(), channels * ks, [&](index_t row) {
    const index_t c = row / ks;
    index_t k = row % ks;
    const index_t e = k % g.kernel[2];
    k /= g.kernel[2];
    const index_t b = k % g.kernel[1];
    const index_t a = k / g.kernel[1];
    const DType* src = data + c * g.InSize();
    DType* dst = col + row * n_out;
    for (index_t z = 0; z < g.out[0]; ++z) {
      const index_t iz = z * g.stride[0] - g.pad[0] + a * g.dilate[0];
      for (index_t y = 0; y < g.out[1]; ++y) {
        const index_t iy = y * g.stride[1] - g.pad[1] + b * g.dilate[1];
        DType* d = dst + (z * g.out[1] + y) * g.out[2];
        if (iz < 0 || iz >= g.in[0] || iy < 0 || iy >= g.in[1]) {
          std::fill(d, d + g.out[2], DType(0));
          continue;
        }
        const DType* s = src + (iz * g.in[1] + iy) * g.in[2];
        for (index_t x = 0; x < g.out[2]; ++x) {
          const index_t ix = x * g.stride[2] - g.pad[2] + e * g.dilate[2];
          d[x] = (ix >= 0 && ix < g.in[2]) ? s[ix] : DType(0);
        }
      }
    }
  });
}

// The adjoint of Im2Col: data[c][...] += every col entry that was read from it.
template <typename DType>
void Col2ImAdd(const ConvGeometry& g, const DType* col, DType* data) {
  const index_t channels = g.GroupInChannels(), ks = g.KernelSize(), n_out = g.OutSize();
  LoopMaybeParallel(channels * ks * n_out >= ParallelGrain(), channels, [&](index_t c) {
    DType* dst = data + c * g.InSize();
    for (index_t k0 = 0; k0 < ks; ++k0) {
      index_t k = k0;
      const index_t e = k % g.kernel[2];
      k /= g.kernel[2];
      const index_t b = k % g.kernel[1];
      const index_t a = k / g.kernel[1];
      const DType* src = col + (c * ks + k0) * n_out;
      for (index_t z = 0; z < g.out[0]; ++z) {
        const index_t iz = z * g.stride[0] - g.pad[0] + a * g.dilate[0];
        if (iz < 0 || iz >= g.in[0]) continue;
        for (index_t y = 0; y < g.out[1]; ++y) {
          const index_t iy = y * g.stride[1] - g.pad[1] + b * g.dilate[1];
          if (iy < 0 || iy >= g.in[1]) continue;
          const DType* s = src + (z * g.out[1] + y) * g.out[2];
          DType* d = dst + (iz * g.in[1] + iy) * g.in[2];
          for (index_t x = 0; x < g.out[2]; ++x) {
            const index_t ix = x * g.stride[2] - g.pad[2] + e * g.dilate[2];
            if (ix >= 0 && ix < g.in[2]) d[ix] += s[x];
          }
        }
      }
    }
  });
}

template void Im2Col<float>(const ConvGeometry&, const float*, float*);
template void Im2Col<double>(const ConvGeometry&, const double*, double*);
template void Im2Col<half_t>(const ConvGeometry&, const half_t*, half_t*);
template void Col2ImAdd<float>(const ConvGeometry&, const float*, float*);
template void Col2ImAdd<double>(const ConvGeometry&, const double*, double*);
template void Col2ImAdd<half_t>(const ConvGeometry&, const half_t*, half_t*);

namespace {

// ---- the channel-first core in float or double ----

template <typename DType>
struct Tensors {  // channel-first: data (N, C, in), weight (K, C/G, kernel), out (N, K, out)
  DType* data;
  DType* weight;
  DType* bias;  // null without bias
  DType* out;
};

template <typename DType>
Mat<const DType> WeightOfGroup(const ConvGeometry& g, const DType* w, index_t grp) {
  const index_t cols = g.GroupInChannels() * g.KernelSize();
  return {w + grp * g.GroupFilters() * cols, g.GroupFilters(), cols, cols};
}

template <typename DType>
void ForwardCore(const ConvGeometry& g, const Tensors<DType>& t, bool add, DType* col) {
  const index_t cols = g.GroupInChannels() * g.KernelSize(), n_out = g.OutSize();
  for (index_t n = 0; n < g.batch; ++n) {
    for (index_t grp = 0; grp < g.groups; ++grp) {
      Im2Col(g, t.data + (n * g.in_channels + grp * g.GroupInChannels()) * g.InSize(), col);
      DType* y = t.out + (n * g.filters + grp * g.GroupFilters()) * n_out;
      linalg::Gemm<DType>(false, false, DType(1), WeightOfGroup(g, t.weight, grp),
                          {col, cols, n_out, n_out}, add ? DType(1) : DType(0),
                          {y, g.GroupFilters(), n_out, n_out});
    }
    if (t.bias != nullptr) {
      for (index_t k = 0; k < g.filters; ++k) {
        DType* y = t.out + (n * g.filters + k) * n_out;
        const DType b = t.bias[k];
        for (index_t i = 0; i < n_out; ++i) y[i] += b;
      }
    }
  }
}

template <typename DType>
struct GradTensors {  // channel-first; null where not wanted
  DType* data;
  DType* weight;
  DType* bias;
  bool data_add, weight_add, bias_add;
};

template <typename DType>
void BackwardCore(const ConvGeometry& g, const DType* ograd, const DType* data,
                  const DType* weight, const GradTensors<DType>& d, DType* col) {
  const index_t cols = g.GroupInChannels() * g.KernelSize(), n_out = g.OutSize();
  if (d.data != nullptr && !d.data_add) {
    std::fill(d.data, d.data + g.batch * g.in_channels * g.InSize(), DType(0));
  }
  for (index_t n = 0; n < g.batch; ++n) {
    for (index_t grp = 0; grp < g.groups; ++grp) {
      const DType* dy = ograd + (n * g.filters + grp * g.GroupFilters()) * n_out;
      const Mat<const DType> dy_mat{dy, g.GroupFilters(), n_out, n_out};
      const index_t x_off = (n * g.in_channels + grp * g.GroupInChannels()) * g.InSize();
      if (d.weight != nullptr) {
        Im2Col(g, data + x_off, col);
        const bool first = n == 0 && !d.weight_add;
        linalg::Gemm<DType>(false, true, DType(1), dy_mat, {col, cols, n_out, n_out},
                            first ? DType(0) : DType(1),
                            {d.weight + grp * g.GroupFilters() * cols, g.GroupFilters(), cols,
                             cols});
      }
      if (d.data != nullptr) {
        linalg::Gemm<DType>(true, false, DType(1), WeightOfGroup(g, weight, grp), dy_mat,
                            DType(0), {col, cols, n_out, n_out});
        Col2ImAdd(g, col, d.data + x_off);
      }
    }
  }
  if (d.bias != nullptr) {
    for (index_t k = 0; k < g.filters; ++k) {
      double sum = 0;
      for (index_t n = 0; n < g.batch; ++n) {
        const DType* dy = ograd + (n * g.filters + k) * n_out;
        for (index_t i = 0; i < n_out; ++i) sum += dy[i];
      }
      d.bias[k] = static_cast<DType>(d.bias_add ? d.bias[k] + sum : sum);
    }
  }
}

// ---- copies between the caller's blobs and channel-first compute buffers ----

// Elements (outer, spatial, channels) <-> (outer, channels, spatial); a plain copy when the
// blob is channel-first already. Converts between the blob's dtype and CT.
template <typename CT, typename ST>
void CopyIn(const ST* src, CT* dst, index_t outer, index_t spatial, index_t channels,
            bool channel_last) {
  const index_t per = spatial * channels;
  LoopMaybeParallel(outer * per >= ParallelGrain(), outer, [&](index_t o) {
    const ST* s = src + o * per;
    CT* d = dst + o * per;
    if (!channel_last) {
      for (index_t i = 0; i < per; ++i) d[i] = static_cast<CT>(s[i]);
      return;
    }
    for (index_t p = 0; p < spatial; ++p) {
      for (index_t c = 0; c < channels; ++c) d[c * spatial + p] = static_cast<CT>(s[p * channels + c]);
    }
  });
}

template <typename CT, typename ST>
void CopyOut(const CT* src, ST* dst, index_t outer, index_t spatial, index_t channels,
             bool channel_last) {
  const index_t per = spatial * channels;
  LoopMaybeParallel(outer * per >= ParallelGrain(), outer, [&](index_t o) {
    const CT* s = src + o * per;
    ST* d = dst + o * per;
    if (!channel_last) {
      for (index_t i = 0; i < per; ++i) d[i] = static_cast<ST>(s[i]);
      return;
    }
    for (index_t c = 0; c < channels; ++c) {
      for (index_t p = 0; p < spatial; ++p) d[p * channels + c] = static_cast<ST>(s[c * spatial + p]);
    }
  });
}

// How a blob of the call is laid out: outer blocks of (spatial, channels) or (channels,
// spatial). Bias is one block of channels with no spatial extent.
struct BlobLayout {
  index_t outer, spatial, channels;
};
BlobLayout DataLayout(const ConvGeometry& g) { return {g.batch, g.InSize(), g.in_channels}; }
BlobLayout OutLayout(const ConvGeometry& g) { return {g.batch, g.OutSize(), g.filters}; }
BlobLayout WeightLayout(const ConvGeometry& g) {
  return {g.filters, g.KernelSize(), g.GroupInChannels()};
}

template <typename CT>
void ToCompute(const TBlob& b, CT* dst, const BlobLayout& l, bool channel_last) {
  switch (b.type_flag_) {
    case kFloat32: CopyIn(b.dptr<float>(), dst, l.outer, l.spatial, l.channels, channel_last); break;
    case kFloat64: CopyIn(b.dptr<double>(), dst, l.outer, l.spatial, l.channels, channel_last); break;
    case kFloat16: CopyIn(b.dptr<half_t>(), dst, l.outer, l.spatial, l.channels, channel_last); break;
    default: LOG(FATAL) << "Convolution: unsupported dtype " << DTypeName(b.type_flag_);
  }
}

template <typename CT>
void FromCompute(const CT* src, const TBlob& b, const BlobLayout& l, bool channel_last) {
  switch (b.type_flag_) {
    case kFloat32: CopyOut(src, b.dptr<float>(), l.outer, l.spatial, l.channels, channel_last); break;
    case kFloat64: CopyOut(src, b.dptr<double>(), l.outer, l.spatial, l.channels, channel_last); break;
    case kFloat16: CopyOut(src, b.dptr<half_t>(), l.outer, l.spatial, l.channels, channel_last); break;
    default: LOG(FATAL) << "Convolution: unsupported dtype " << DTypeName(b.type_flag_);
  }
}

size_t ColElements(const ConvGeometry& g) {
  return static_cast<size_t>(g.GroupInChannels() * g.KernelSize() * g.OutSize());
}

// The blobs themselves when they can serve as channel-first CT buffers, else copies.
template <typename CT>
bool Direct(const ConvGeometry& g, int dtype) {
  return !g.channel_last && dtype == (std::is_same<CT, double>::value ? kFloat64 : kFloat32);
}

template <typename CT>
void ForwardTyped(const ConvGeometry& g, const OpContext& ctx, const TBlob& data,
                  const TBlob& weight, const TBlob* bias, const TBlob& out, OpReqType req) {
  const bool direct = Direct<CT>(g, data.type_flag_);
  const bool cl = g.channel_last;
  size_t bytes = Scratch::Bytes<CT>(ColElements(g));
  if (!direct) {
    bytes += Scratch::Bytes<CT>(data.Size()) + Scratch::Bytes<CT>(weight.Size()) +
             Scratch::Bytes<CT>(out.Size()) + Scratch::Bytes<CT>(bias ? bias->Size() : 0);
  }
  Scratch s(static_cast<char*>(ctx.RequestTempSpace(bytes)));
  CT* col = s.Take<CT>(ColElements(g));
  Tensors<CT> t;
  if (direct) {
    t = {data.dptr<CT>(), weight.dptr<CT>(), bias ? bias->dptr<CT>() : nullptr, out.dptr<CT>()};
  } else {
    t.data = s.Take<CT>(data.Size());
    t.weight = s.Take<CT>(weight.Size());
    t.out = s.Take<CT>(out.Size());
    t.bias = bias ? s.Take<CT>(bias->Size()) : nullptr;
    ToCompute(data, t.data, DataLayout(g), cl);
    ToCompute(weight, t.weight, WeightLayout(g), cl);
    if (bias) ToCompute(*bias, t.bias, {1, 1, g.filters}, false);
    if (req == kAddTo) ToCompute(out, t.out, OutLayout(g), cl);
  }
  ForwardCore(g, t, req == kAddTo, col);
  if (!direct) FromCompute(t.out, out, OutLayout(g), cl);
}

template <typename CT>
void BackwardTyped(const ConvGeometry& g, const OpContext& ctx, const TBlob& ograd,
                   const TBlob& data, const TBlob& weight, const ConvGrads& grads) {
  const bool direct = Direct<CT>(g, data.type_flag_);
  const bool cl = g.channel_last;
  const TBlob* dx = grads.data_req != kNullOp ? grads.data : nullptr;
  const TBlob* dw = grads.weight_req != kNullOp ? grads.weight : nullptr;
  const TBlob* db = grads.bias_req != kNullOp ? grads.bias : nullptr;
  size_t bytes = Scratch::Bytes<CT>(ColElements(g));
  if (!direct) {
    bytes += Scratch::Bytes<CT>(ograd.Size()) + Scratch::Bytes<CT>(data.Size()) +
             Scratch::Bytes<CT>(weight.Size());
    for (const TBlob* b : {dx, dw, db}) bytes += Scratch::Bytes<CT>(b ? b->Size() : 0);
  }
  Scratch s(static_cast<char*>(ctx.RequestTempSpace(bytes)));
  CT* col = s.Take<CT>(ColElements(g));
  const CT *gy, *x, *w;
  GradTensors<CT> d{nullptr, nullptr, nullptr, grads.data_req == kAddTo,
                    grads.weight_req == kAddTo, grads.bias_req == kAddTo};
  if (direct) {
    gy = ograd.dptr<CT>();
    x = data.dptr<CT>();
    w = weight.dptr<CT>();
    d.data = dx ? dx->dptr<CT>() : nullptr;
    d.weight = dw ? dw->dptr<CT>() : nullptr;
    d.bias = db ? db->dptr<CT>() : nullptr;
  } else {
    CT* gy_c = s.Take<CT>(ograd.Size());
    CT* x_c = s.Take<CT>(data.Size());
    CT* w_c = s.Take<CT>(weight.Size());
    ToCompute(ograd, gy_c, OutLayout(g), cl);
    ToCompute(data, x_c, DataLayout(g), cl);
    ToCompute(weight, w_c, WeightLayout(g), cl);
    gy = gy_c;
    x = x_c;
    w = w_c;
    if (dx) {
      d.data = s.Take<CT>(dx->Size());
      if (d.data_add) ToCompute(*dx, d.data, DataLayout(g), cl);
    }
    if (dw) {
      d.weight = s.Take<CT>(dw->Size());
      if (d.weight_add) ToCompute(*dw, d.weight, WeightLayout(g), cl);
    }
    if (db) {
      d.bias = s.Take<CT>(db->Size());
      if (d.bias_add) ToCompute(*db, d.bias, {1, 1, g.filters}, false);
    }
  }
  BackwardCore(g, gy, x, w, d, col);
  if (!direct) {
    if (dx) FromCompute(d.data, *dx, DataLayout(g), cl);
    if (dw) FromCompute(d.weight, *dw, WeightLayout(g), cl);
    if (db) FromCompute(d.bias, *db, {1, 1, g.filters}, false);
  }
}

}  // namespace

void ConvForwardPlain(const ConvGeometry& g, const OpContext& ctx, const TBlob& data,
                      const TBlob& weight, const TBlob* bias, const TBlob& out, OpReqType req) {
  if (req == kNullOp) return;
  if (data.type_flag_ == kFloat64) {
    ForwardTyped<double>(g, ctx, data, weight, bias, out, req);
  } else {
    ForwardTyped<float>(g, ctx, data, weight, bias, out, req);
  }
}

void ConvBackwardPlain(const ConvGeometry& g, const OpContext& ctx, const TBlob& ograd,
                       const TBlob& data, const TBlob& weight, const ConvGrads& grads) {
  if (data.type_flag_ == kFloat64) {
    BackwardTyped<double>(g, ctx, ograd, data, weight, grads);
  } else {
    BackwardTyped<float>(g, ctx, ograd, data, weight, grads);
  }
}

}  // namespace op
}  // namespace mxnet
