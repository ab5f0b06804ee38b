// StridedCopy: merges contiguous dimensions, then copies rows in parallel (memmove when the
// innermost dimension is contiguous on both sides, square tiles for transpose-like plans).
#include "operator/tensor/strided_copy.h"

#include <cstring>

namespace mxnet {
namespace op {
namespace {

// Elements per parallel work unit along the innermost dimension.
constexpr dim_t kChunk = 8192;

// Drops extent-1 dims and merges dims that are contiguous with their inner neighbour on both
// sides. Returns false when the plan is empty (some extent is 0).
bool Normalize(const StridedPlan& in, StridedPlan* out) {
  out->ndim = 0;
  out->src_offset = in.src_offset;
  out->dst_offset = in.dst_offset;
  for (int i = 0; i < in.ndim; ++i) {
    if (in.shape[i] == 0) return false;
    if (in.shape[i] == 1) continue;
    if (out->ndim > 0) {
      int p = out->ndim - 1;
      // Outer dim p can absorb dim i when stepping p equals stepping i over its full extent.
      if (out->src_stride[p] == in.src_stride[i] * in.shape[i] &&
          out->dst_stride[p] == in.dst_stride[i] * in.shape[i]) {
        out->shape[p] *= in.shape[i];
        out->src_stride[p] = in.src_stride[i];
        out->dst_stride[p] = in.dst_stride[i];
        continue;
      }
    }
    out->Push(in.shape[i], in.src_stride[i], in.dst_stride[i]);
  }
  if (out->ndim == 0) out->Push(1, 1, 1);
  return true;
}

template <typename T, bool kAdd>
void CopyLoop(const StridedPlan& p, const T* src, T* dst) {
  const int nd = p.ndim;
  const dim_t inner = p.shape[nd - 1];
  const index_t ss = p.src_stride[nd - 1], ds = p.dst_stride[nd - 1];
  index_t rows = 1;
  for (int d = 0; d < nd - 1; ++d) rows *= p.shape[d];
  const index_t nchunk = (inner + kChunk - 1) / kChunk;
  const index_t units = rows * nchunk;
  const bool parallel = static_cast<index_t>(rows * inner) >= ParallelGrain() && units > 1;
  auto body = [&](index_t u) {
    index_t row = u / nchunk, chunk = u % nchunk;
    index_t soff = p.src_offset, doff = p.dst_offset, rem = row;
    for (int d = nd - 2; d >= 0; --d) {
      index_t c = rem % p.shape[d];
      rem /= p.shape[d];
      soff += c * p.src_stride[d];
      doff += c * p.dst_stride[d];
    }
    dim_t j0 = chunk * kChunk, j1 = std::min<dim_t>(inner, j0 + kChunk);
    const T* s = src + soff + j0 * ss;
    T* o = dst + doff + j0 * ds;
    dim_t n = j1 - j0;
    if constexpr (!kAdd) {
      if (ss == 1 && ds == 1) {
        if (s != o) std::memmove(o, s, n * sizeof(T));
        return;
      }
      for (dim_t j = 0; j < n; ++j) o[j * ds] = s[j * ss];
    } else {
      for (dim_t j = 0; j < n; ++j) o[j * ds] = T(o[j * ds] + s[j * ss]);
    }
  };
  if (parallel) {
#if MXNET_USE_OPENMP
#pragma omp parallel for schedule(static)
#endif
    for (index_t u = 0; u < units; ++u) body(u);
  } else {
    for (index_t u = 0; u < units; ++u) body(u);
  }
}

// Transpose-like plans (one side strided along the innermost dim, contiguous along dim k)
// run in square tiles of dims (k, innermost) so both sides stay in cache.
constexpr dim_t kTile = 16;

int TileDim(const StridedPlan& p) {
  const int l = p.ndim - 1;
  if (l < 1 || p.shape[l] < kTile / 4) return -1;
  const bool src_strided = p.src_stride[l] != 1, dst_strided = p.dst_stride[l] != 1;
  if (src_strided == dst_strided) return -1;
  for (int k = l - 1; k >= 0; --k) {
    if ((src_strided ? p.src_stride[k] : p.dst_stride[k]) == 1) {
      return p.shape[k] >= kTile / 4 ? k : -1;
    }
  }
  return -1;
}

template <typename T, bool kAdd>
void TiledLoop(const StridedPlan& p, int k, const T* src, T* dst) {
  const int l = p.ndim - 1;
  const dim_t nk = p.shape[k], nl = p.shape[l];
  const index_t sk = p.src_stride[k], dk = p.dst_stride[k];
  const index_t sl = p.src_stride[l], dl = p.dst_stride[l];
  index_t outer = 1;
  for (int d = 0; d < l; ++d) {
    if (d != k) outer *= p.shape[d];
  }
  const index_t tk = (nk + kTile - 1) / kTile, tl = (nl + kTile - 1) / kTile;
  const index_t units = outer * tk * tl;
  auto body = [&](index_t u) {
    index_t jb = u % tl, ib = (u / tl) % tk, rem = u / (tl * tk);
    index_t soff = p.src_offset, doff = p.dst_offset;
    for (int d = l - 1; d >= 0; --d) {
      if (d == k) continue;
      index_t c = rem % p.shape[d];
      rem /= p.shape[d];
      soff += c * p.src_stride[d];
      doff += c * p.dst_stride[d];
    }
    const dim_t i1 = std::min<dim_t>(nk, (ib + 1) * kTile), j1 = std::min<dim_t>(nl, (jb + 1) * kTile);
    for (dim_t i = ib * kTile; i < i1; ++i) {
      const T* s = src + soff + i * sk;
      T* o = dst + doff + i * dk;
      for (dim_t j = jb * kTile; j < j1; ++j) {
        if constexpr (kAdd) o[j * dl] = T(o[j * dl] + s[j * sl]); else o[j * dl] = s[j * sl];
      }
    }
  };
  if (static_cast<index_t>(p.Size()) >= ParallelGrain() && units > 1) {
#if MXNET_USE_OPENMP
#pragma omp parallel for schedule(static)
#endif
    for (index_t u = 0; u < units; ++u) body(u);
  } else {
    for (index_t u = 0; u < units; ++u) body(u);
  }
}

template <typename T, bool kAdd>
void CopyAny(const StridedPlan& p, const T* src, T* dst) {
  int k = TileDim(p);
  if (k >= 0) TiledLoop<T, kAdd>(p, k, src, dst); else CopyLoop<T, kAdd>(p, src, dst);
}

void RunNormalized(const StridedPlan& p, int dtype, const void* src, void* dst, OpReqType req) {
  if (req == kAddTo) {
    MXNET_TYPE_SWITCH(dtype, DType, {
      CopyAny<DType, true>(p, static_cast<const DType*>(src), static_cast<DType*>(dst));
    });
    return;
  }
  // Writing moves bytes only: dispatch on element size to keep instantiations few.
  switch (DTypeSize(dtype)) {
    case 1: CopyAny<uint8_t, false>(p, static_cast<const uint8_t*>(src), static_cast<uint8_t*>(dst)); break;
    case 2: CopyAny<uint16_t, false>(p, static_cast<const uint16_t*>(src), static_cast<uint16_t*>(dst)); break;
    case 4: CopyAny<uint32_t, false>(p, static_cast<const uint32_t*>(src), static_cast<uint32_t*>(dst)); break;
    case 8: CopyAny<uint64_t, false>(p, static_cast<const uint64_t*>(src), static_cast<uint64_t*>(dst)); break;
    default: LOG(FATAL) << "unsupported dtype " << DTypeName(dtype);
  }
}

}  // namespace

std::vector<index_t> ContiguousStrides(const TShape& s) {
  std::vector<index_t> st(s.ndim() > 0 ? s.ndim() : 0);
  index_t acc = 1;
  for (int i = s.ndim() - 1; i >= 0; --i) {
    st[i] = acc;
    acc *= s[i];
  }
  return st;
}

void StridedCopy(const StridedPlan& plan, int dtype, const void* src, void* dst, OpReqType req) {
  if (req == kNullOp) return;
  StridedPlan p;
  if (!Normalize(plan, &p)) return;
  RunNormalized(p, dtype, src, dst, req);
}

void StridedFill(const StridedPlan& plan, int dtype, double value, void* dst, OpReqType req) {
  if (req == kNullOp) return;
  StridedPlan q = plan;
  q.src_offset = 0;
  for (int i = 0; i < q.ndim; ++i) q.src_stride[i] = 0;
  StridedPlan p;
  if (!Normalize(q, &p)) return;
  MXNET_TYPE_SWITCH(dtype, DType, {
    DType v = ScalarAs<DType>(value);
    RunNormalized(p, dtype, &v, dst, req);
  });
}

void CopyElements(int dtype, const void* src, void* dst, size_t n, OpReqType req) {
  StridedPlan p;
  p.Push(static_cast<dim_t>(n), 1, 1);
  StridedCopy(p, dtype, src, dst, req);
}

void FillElements(int dtype, double value, void* dst, size_t n, OpReqType req) {
  StridedPlan p;
  p.Push(static_cast<dim_t>(n), 0, 1);
  StridedFill(p, dtype, value, dst, req);
}

}  // namespace op
}  // namespace mxnet
