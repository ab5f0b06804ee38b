// Forward and backward of one RNN layer-direction on the CPU: GEMMs on oneDNN's sgemm (float32)
// or linalg (OpenBLAS), gate math fused into one pass over each step's rows.
#include "operator/nn/rnn_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <utility>

#if MXNET_USE_OPENMP
#include <omp.h>
#endif

#include "operator/nn/onednn/onednn_rnn.h"
#include "operator/tensor/elemwise_unary_functors.h"
#include "operator/tensor/linalg.h"

namespace mxnet {
namespace op {
namespace rnn {

namespace {

using linalg::Mat;

template <typename DType>
Mat<const DType> In(const DType* p, index_t rows, index_t cols) {
  return {p, rows, cols, cols};
}
template <typename DType>
Mat<DType> Out(DType* p, index_t rows, index_t cols) {
  return {p, rows, cols, cols};
}

// The gate math runs in float32 through the vectorizable exp/tanh of the unary operators, and
// its step functions are compiled for AVX2 as well (picked at load time).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define MXNET_RNN_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define MXNET_RNN_CLONES
#endif
#define MXNET_RNN_INLINE inline __attribute__((always_inline))

MXNET_RNN_INLINE float Sigmoid(float x) { return 1.0f / (1.0f + unary_op::ExpF32(-x)); }
MXNET_RNN_INLINE double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
MXNET_RNN_INLINE float Tanh(float x) { return unary_op::TanhF32(x); }
MXNET_RNN_INLINE double Tanh(double x) { return std::tanh(x); }

/*! \brief C = alpha op(A) op(B) + beta C: oneDNN's sgemm for float32 when enabled, else linalg. */
template <typename DType>
void Gemm(const StepOptions& opt, bool ta, bool tb, DType alpha, const Mat<const DType>& A,
          const Mat<const DType>& B, DType beta, const Mat<DType>& C) {
  if constexpr (std::is_same<DType, float>::value) {
    if (opt.onednn_gemm) {
      RNNOneDNNSgemm(ta, tb, C.rows, C.cols, ta ? A.rows : A.cols, alpha, A.data, A.ld, B.data,
                     B.ld, beta, C.data, C.ld);
      return;
    }
  }
  linalg::Gemm<DType>(ta, tb, alpha, A, B, beta, C);
}

inline bool Active(const StepOptions& o, index_t n, index_t t) {
  return o.seq_len == nullptr || t < o.seq_len[n];
}

// The per-step row loops take a row range [n0, n1): RowSplit gives each OpenMP thread its
// own rows for all steps when the products run on oneDNN; otherwise one thread runs all rows
// and the GEMMs between the loops go parallel themselves.

/*! \brief Step s of a direction: the time it reads, the state slot it reads and the one it
 *  writes (see RNNReserveLayout). */
struct Step {
  index_t t, prev, next;
};
inline Step StepAt(const DirGeometry& g, index_t s) {
  if (!g.reverse) return {s, s, s + 1};
  const index_t t = g.dims->T - 1 - s;
  return {t, t + 1, t};
}

/*! \brief The LSTM cell clipped to [clip_min, clip_max]; NaN goes to clip_min with clip_nan
 *  (fmax/fmin semantics) and propagates otherwise. */
template <typename DType>
inline DType ClipCell(const StepOptions& o, DType c) {
  if (!o.clip) return c;
  if (std::isnan(c)) return o.clip_nan ? DType(o.clip_min) : c;
  return std::min(std::max(c, DType(o.clip_min)), DType(o.clip_max));
}
template <typename DType>
inline bool CellClipped(const StepOptions& o, DType c) {
  return o.clip && (c <= DType(o.clip_min) || c >= DType(o.clip_max));
}

template <typename DType>
void CopyRow(DType* dst, const DType* src, index_t n) {
  std::memcpy(dst, src, n * sizeof(DType));
}

/*! \brief sums[j] (+)= sum over rows of m[r, j]. */
template <typename DType>
void ColumnSums(const DType* m, index_t rows, index_t cols, DType* sums, bool add) {
  if (!add) std::fill(sums, sums + cols, DType(0));
  for (index_t r = 0; r < rows; ++r) {
    const DType* row = m + r * cols;
    for (index_t j = 0; j < cols; ++j) sums[j] += row[j];
  }
}

// ------------------------------------------------------------------------------ forward
// Row kernels: one sample's gate math over j in [0, H), branch-free so that it vectorizes.
template <typename DType, bool kClip>
MXNET_RNN_INLINE void LstmRow(index_t H, const StepOptions& opt, DType* gr, const DType* cp,
                              DType* cn, DType* h) {
#pragma omp simd
  for (index_t j = 0; j < H; ++j) {
    const DType i = Sigmoid(gr[j]), f = Sigmoid(gr[H + j]);
    const DType g = Tanh(gr[2 * H + j]), o = Sigmoid(gr[3 * H + j]);
    DType c = f * cp[j] + i * g;
    if constexpr (kClip) c = ClipCell(opt, c);
    gr[j] = i;
    gr[H + j] = f;
    gr[2 * H + j] = g;
    gr[3 * H + j] = o;
    cn[j] = c;
    h[j] = o * Tanh(c);
  }
}

template <typename DType>
MXNET_RNN_INLINE void LstmStepT(const RNNDims& d, const StepOptions& opt, index_t t, DType* gt,
                                const DType* cp, DType* cn, const DType* hp, DType* hout,
                                index_t n0, index_t n1) {
  const index_t H = d.H, GH = d.GH();
  for (index_t n = n0; n < n1; ++n) {
    if (!Active(opt, n, t)) {
      CopyRow(cn + n * H, cp + n * H, H);
      if (!d.proj) CopyRow(hout + n * H, hp + n * H, H);
    } else if (opt.clip) {
      LstmRow<DType, true>(H, opt, gt + n * GH, cp + n * H, cn + n * H, hout + n * H);
    } else {
      LstmRow<DType, false>(H, opt, gt + n * GH, cp + n * H, cn + n * H, hout + n * H);
    }
  }
}

// hh: the h2h product (N, 3H) without bias; gt holds the i2h product plus the r and z biases.
template <typename DType>
MXNET_RNN_INLINE void GruStepT(const RNNDims& d, const StepOptions& opt, index_t t, DType* gt,
                               const DType* hh, const DType* bh_n, DType* hn_out,
                               const DType* hp, DType* hout, index_t n0, index_t n1) {
  const index_t H = d.H, GH = d.GH();
  for (index_t n = n0; n < n1; ++n) {
    if (!Active(opt, n, t)) {
      CopyRow(hout + n * H, hp + n * H, H);
      continue;
    }
    DType* gr = gt + n * GH;
    const DType* hr = hh + n * GH;
    const DType* hpr = hp + n * H;
    DType* hnr = hn_out + n * H;
    DType* hor = hout + n * H;
#pragma omp simd
    for (index_t j = 0; j < H; ++j) {
      const DType r = Sigmoid(DType(gr[j] + hr[j]));
      const DType z = Sigmoid(DType(gr[H + j] + hr[H + j]));
      const DType hn = hr[2 * H + j] + bh_n[j];
      const DType c = Tanh(DType(gr[2 * H + j] + r * hn));
      gr[j] = r;
      gr[H + j] = z;
      gr[2 * H + j] = c;
      hnr[j] = hn;
      hor[j] = (DType(1) - z) * c + z * hpr[j];
    }
  }
}

template <typename DType>
MXNET_RNN_INLINE void VanillaStepT(const RNNDims& d, const StepOptions& opt, index_t t,
                                   DType* gt, const DType* hp, DType* hout, index_t n0,
                                   index_t n1) {
  const index_t H = d.H;
  const bool relu = d.mode == kRnnRelu;
  for (index_t n = n0; n < n1; ++n) {
    if (!Active(opt, n, t)) {
      CopyRow(hout + n * H, hp + n * H, H);
      continue;
    }
    DType* gr = gt + n * H;
    DType* hr = hout + n * H;
    for (index_t j = 0; j < H; ++j) {
      const DType h = relu ? std::max(gr[j], DType(0)) : Tanh(gr[j]);
      gr[j] = h;
      hr[j] = h;
    }
  }
}

// The step functions per dtype; the float ones also as AVX2 clones.
#define MXNET_RNN_STEP_FUNCTIONS(DType, ATTR)                                                 \
  ATTR void LstmStep(const RNNDims& d, const StepOptions& opt, index_t t, DType* gt,          \
                     const DType* cp, DType* cn, const DType* hp, DType* hout, index_t n0,    \
                     index_t n1) {                                                            \
    LstmStepT<DType>(d, opt, t, gt, cp, cn, hp, hout, n0, n1);                                \
  }                                                                                           \
  ATTR void GruStep(const RNNDims& d, const StepOptions& opt, index_t t, DType* gt,           \
                    const DType* hh, const DType* bh_n, DType* hn_out, const DType* hp,       \
                    DType* hout, index_t n0, index_t n1) {                                    \
    GruStepT<DType>(d, opt, t, gt, hh, bh_n, hn_out, hp, hout, n0, n1);                       \
  }                                                                                           \
  ATTR void VanillaStep(const RNNDims& d, const StepOptions& opt, index_t t, DType* gt,       \
                        const DType* hp, DType* hout, index_t n0, index_t n1) {               \
    VanillaStepT<DType>(d, opt, t, gt, hp, hout, n0, n1);                                     \
  }
MXNET_RNN_STEP_FUNCTIONS(float, MXNET_RNN_CLONES)
MXNET_RNN_STEP_FUNCTIONS(double, )

/*!
 * \brief fn(n0, n1) over batch rows [0, N): with float32 products on oneDNN and enough work
 *  (row_cost element operations per row and step), contiguous row blocks on the OpenMP threads,
 *  each running every step of its rows, its GEMMs single-threaded (oneDNN's sgemm does not
 *  fork inside a parallel region). One fork per layer and direction instead of a parallel GEMM
 *  (a fork and a join) per step, and the gate math runs on all threads. Otherwise fn(0, N) on
 *  this thread with parallel GEMMs. OpenBLAS (double, or oneDNN disabled) keeps the latter: its
 *  pthreads build would start its own threads inside each OpenMP thread.
 */
template <typename DType, typename Fn>
void RowSplit(const StepOptions& opt, index_t N, index_t row_cost, Fn fn) {
#if MXNET_USE_OPENMP
  const int threads = std::is_same<DType, float>::value && opt.onednn_gemm
                          ? static_cast<int>(std::min<index_t>(omp_get_max_threads(), N / 4))
                          : 1;
  if (threads > 1 && N * row_cost >= 65536) {
#pragma omp parallel num_threads(threads)
    {
      const index_t k = omp_get_thread_num(), nt = omp_get_num_threads();
      const index_t n0 = N * k / nt, n1 = N * (k + 1) / nt;
      if (n1 > n0) fn(n0, n1);
    }
    return;
  }
#endif
  fn(0, N);
}

}  // namespace

template <typename DType>
void DirForward(const DirGeometry& g, const Weights<const DType>& w, const StepOptions& opt,
                const DType* x, const DType* h0, const DType* c0, const DirBuffers<DType>& buf,
                DType* y, DType* hy, DType* cy, DType* scratch) {
  const RNNDims& d = *g.dims;
  const index_t T = d.T, N = d.N, H = d.H, P = d.P, GH = d.GH(), TN = T * N;
  const index_t in = g.in_size;
  const bool gru = d.mode == kGru, lstm = d.mode == kLstm;
  // The input projection of every step in one GEMM, plus the biases that add to it (GRU
  // keeps the candidate's h2h bias apart: it is scaled by the reset gate).
  Gemm<DType>(opt, false, true, DType(1), In(x, TN, in), In<DType>(w.wx, GH, in), DType(0),
                      Out(buf.gates, TN, GH));
  const index_t bh_cols = gru ? 2 * H : GH;
  for (index_t r = 0; r < TN; ++r) {
    DType* row = buf.gates + r * GH;
    for (index_t j = 0; j < GH; ++j) row[j] += w.bx[j];
    for (index_t j = 0; j < bh_cols; ++j) row[j] += w.bh[j];
  }
  DType* S = buf.states;
  DType* C = buf.cells;
  const index_t first = g.reverse ? T : 0, last = g.reverse ? 0 : T;
  CopyRow(S + first * N * P, h0, N * P);
  if (lstm) CopyRow(C + first * N * H, c0, N * H);
  // The recurrence touches only its own batch rows, so the rows are split between threads
  // once for all steps: no synchronisation per step (see RowSplit).
  RowSplit<DType>(opt, N, GH * P + GH * 8, [&](index_t n0, index_t n1) {
    const index_t rows = n1 - n0;
    for (index_t s = 0; s < T; ++s) {
      const Step st = StepAt(g, s);
      DType* gt = buf.gates + st.t * N * GH;
      const DType* hp = S + st.prev * N * P;
      DType* hn = S + st.next * N * P;
      DType* hout = d.proj ? buf.hraw + st.t * N * H : hn;
      Gemm<DType>(opt, false, true, DType(1), In(hp + n0 * P, rows, P), In<DType>(w.wh, GH, P),
                  DType(gru ? 0 : 1), Out((gru ? scratch : gt) + n0 * GH, rows, GH));
      if (lstm) {
        LstmStep(d, opt, st.t, gt, C + st.prev * N * H, C + st.next * N * H, hp, hout, n0, n1);
      } else if (gru) {
        GruStep(d, opt, st.t, gt, scratch, w.bh + 2 * H, buf.gru_hn + st.t * N * H, hp, hout,
                n0, n1);
      } else {
        VanillaStep(d, opt, st.t, gt, hp, hout, n0, n1);
      }
      if (d.proj) {
        Gemm<DType>(opt, false, true, DType(1), In<DType>(hout + n0 * H, rows, H),
                    In<DType>(w.wr, P, H), DType(0), Out(hn + n0 * P, rows, P));
        for (index_t n = n0; n < n1; ++n) {
          if (!Active(opt, n, st.t)) CopyRow(hn + n * P, hp + n * P, P);
        }
      }
      for (index_t n = n0; n < n1; ++n) {
        DType* yr = y + (st.t * N + n) * g.y_ld;
        if (Active(opt, n, st.t)) CopyRow(yr, hn + n * P, P);
        else std::fill(yr, yr + P, DType(0));
      }
    }
  });
  if (hy != nullptr) CopyRow(hy, S + last * N * P, N * P);
  if (lstm && cy != nullptr) CopyRow(cy, C + last * N * H, N * H);
}

// ----------------------------------------------------------------------------- backward
index_t DirBackwardScratchSize(const RNNDims& d) {
  const index_t TN = d.T * d.N;
  return TN * d.GH() * (d.mode == kGru ? 2 : 1) + (d.proj ? TN * d.P : 0) + 2 * d.N * d.P +
         2 * d.N * d.H;
}

namespace {

template <typename DType, bool kClip>
MXNET_RNN_INLINE void LstmRowBackward(index_t H, const StepOptions& opt, const DType* gr,
                                      const DType* c, const DType* cp, const DType* dhr,
                                      DType* dc, DType* dg) {
#pragma omp simd
  for (index_t j = 0; j < H; ++j) {
    const DType i = gr[j], f = gr[H + j], g = gr[2 * H + j], o = gr[3 * H + j];
    const DType tc = Tanh(c[j]);
    DType dcj = dc[j] + dhr[j] * o * (DType(1) - tc * tc);
    if constexpr (kClip) {
      if (CellClipped(opt, c[j])) dcj = DType(0);
    }
    dg[j] = dcj * g * i * (DType(1) - i);
    dg[H + j] = dcj * cp[j] * f * (DType(1) - f);
    dg[2 * H + j] = dcj * i * (DType(1) - g * g);
    dg[3 * H + j] = dhr[j] * tc * o * (DType(1) - o);
    dc[j] = dcj * f;
  }
}

/*! \brief Gate gradients of one step; dhr: gradient of the (unprojected) h, dh2: receives
 *  the part of the previous state's gradient that bypasses the h2h weights. */
template <typename DType>
MXNET_RNN_INLINE void StepBackwardT(const RNNDims& d, const StepOptions& opt, index_t t,
                                    index_t prev, index_t next, const DirBuffers<const DType>& buf,
                                    const DType* dh, const DType* dhr, DType* dc, DType* dgx,
                                    DType* dgh, DType* dh2, index_t n0, index_t n1) {
  const index_t N = d.N, H = d.H, P = d.P, GH = d.GH();
  const DType* gt = buf.gates + t * N * GH;
  const int mode = d.mode;
  for (index_t n = n0; n < n1; ++n) {
    DType* dgxr = dgx + n * GH;
    DType* dghr = dgh + n * GH;
    DType* dh2r = dh2 + n * P;
    if (!Active(opt, n, t)) {
      std::fill(dgxr, dgxr + GH, DType(0));
      if (dgh != dgx) std::fill(dghr, dghr + GH, DType(0));
      CopyRow(dh2r, dh + n * P, P);
      continue;
    }
    const DType* gr = gt + n * GH;
    const DType* dhrr = dhr + n * H;
    if (mode == kLstm) {
      const DType* c = buf.cells + (next * N + n) * H;
      const DType* cp = buf.cells + (prev * N + n) * H;
      if (opt.clip) LstmRowBackward<DType, true>(H, opt, gr, c, cp, dhrr, dc + n * H, dgxr);
      else LstmRowBackward<DType, false>(H, opt, gr, c, cp, dhrr, dc + n * H, dgxr);
      std::fill(dh2r, dh2r + P, DType(0));
    } else if (mode == kGru) {
      const DType* hn = buf.gru_hn + (t * N + n) * H;
      const DType* hp = buf.states + (prev * N + n) * P;
#pragma omp simd
      for (index_t j = 0; j < H; ++j) {
        const DType r = gr[j], z = gr[H + j], c = gr[2 * H + j];
        const DType dn = dhrr[j] * (DType(1) - z);
        const DType dz = dhrr[j] * (hp[j] - c);
        const DType dan = dn * (DType(1) - c * c);
        const DType dar = dan * hn[j] * r * (DType(1) - r);
        const DType daz = dz * z * (DType(1) - z);
        dgxr[j] = dar;
        dghr[j] = dar;
        dgxr[H + j] = daz;
        dghr[H + j] = daz;
        dgxr[2 * H + j] = dan;
        dghr[2 * H + j] = dan * r;
        dh2r[j] = dhrr[j] * z;
      }
    } else {
      const bool relu = mode == kRnnRelu;
      for (index_t j = 0; j < H; ++j) {
        const DType h = gr[j];
        dgxr[j] = dhrr[j] * (relu ? DType(h > DType(0) ? 1 : 0) : DType(1) - h * h);
      }
      std::fill(dh2r, dh2r + P, DType(0));
    }
  }
}

#define MXNET_RNN_BACKWARD_STEP(DType, ATTR)                                                  \
  ATTR void StepBackward(const RNNDims& d, const StepOptions& opt, index_t t, index_t prev,   \
                         index_t next, const DirBuffers<const DType>& buf, const DType* dh,   \
                         const DType* dhr, DType* dc, DType* dgx, DType* dgh, DType* dh2,    \
                         index_t n0, index_t n1) {                                            \
    StepBackwardT<DType>(d, opt, t, prev, next, buf, dh, dhr, dc, dgx, dgh, dh2, n0, n1);     \
  }
MXNET_RNN_BACKWARD_STEP(float, MXNET_RNN_CLONES)
MXNET_RNN_BACKWARD_STEP(double, )

}  // namespace

template <typename DType>
void DirBackward(const DirGeometry& g, const Weights<const DType>& w, const StepOptions& opt,
                 const DType* x, const DirBuffers<const DType>& buf, const DType* dy,
                 const DType* dhy, const DType* dcy, const Weights<DType>& gw, bool grad_add,
                 DType* dx, bool dx_add, DType* dh0, DType* dc0, DType* scratch) {
  const RNNDims& d = *g.dims;
  const index_t T = d.T, N = d.N, H = d.H, P = d.P, GH = d.GH(), TN = T * N;
  const index_t in = g.in_size;
  const bool gru = d.mode == kGru, lstm = d.mode == kLstm;
  DType* dgx = scratch;
  DType* dgh = gru ? dgx + TN * GH : dgx;
  DType* dr = dgx + TN * GH * (gru ? 2 : 1);
  DType* dh = dr + (d.proj ? TN * P : 0);
  DType* dh2 = dh + N * P;
  DType* dc = dh2 + N * P;
  DType* dhraw = dc + N * H;
  if (dhy != nullptr) CopyRow(dh, dhy, N * P);
  else std::fill(dh, dh + N * P, DType(0));
  if (lstm && dcy != nullptr) CopyRow(dc, dcy, N * H);
  else std::fill(dc, dc + N * H, DType(0));
  RowSplit<DType>(opt, N, GH * P + GH * 8, [&](index_t n0, index_t n1) {
    const index_t rows = n1 - n0;
    DType* dh_cur = dh;  // swapped with dh_next every step, in step on every thread
    DType* dh_next = dh2;
    for (index_t s = T - 1; s >= 0; --s) {
      const Step st = StepAt(g, s);
      if (dy != nullptr) {
        for (index_t n = n0; n < n1; ++n) {
          if (!Active(opt, n, st.t)) continue;
          const DType* dyr = dy + (st.t * N + n) * g.y_ld;
          DType* dhr = dh_cur + n * P;
          for (index_t k = 0; k < P; ++k) dhr[k] += dyr[k];
        }
      }
      const DType* dh_unprojected = dh_cur;
      if (d.proj) {
        DType* drt = dr + st.t * N * P;
        for (index_t n = n0; n < n1; ++n) {
          if (Active(opt, n, st.t)) CopyRow(drt + n * P, dh_cur + n * P, P);
          else std::fill(drt + n * P, drt + (n + 1) * P, DType(0));
        }
        Gemm<DType>(opt, false, false, DType(1), In<DType>(dh_cur + n0 * P, rows, P),
                    In<DType>(w.wr, P, H), DType(0), Out(dhraw + n0 * H, rows, H));
        dh_unprojected = dhraw;
      }
      DType* dgx_t = dgx + st.t * N * GH;
      DType* dgh_t = dgh + st.t * N * GH;
      StepBackward(d, opt, st.t, st.prev, st.next, buf, dh_cur, dh_unprojected, dc, dgx_t, dgh_t,
                   dh_next, n0, n1);
      Gemm<DType>(opt, false, false, DType(1), In<DType>(dgh_t + n0 * GH, rows, GH),
                  In<DType>(w.wh, GH, P), DType(1), Out(dh_next + n0 * P, rows, P));
      std::swap(dh_cur, dh_next);
    }
  });
  if (T % 2 == 1) std::swap(dh, dh2);  // where the last step left the state gradient
  CopyRow(dh0, dh, N * P);
  if (lstm) CopyRow(dc0, dc, N * H);
  // Weight gradients summed over all steps, one GEMM each.
  const DType beta = grad_add ? DType(1) : DType(0);
  const DType* hprev = buf.states + (g.reverse ? N * P : 0);
  Gemm<DType>(opt, true, false, DType(1), In<DType>(dgx, TN, GH), In(x, TN, in), beta,
                      Out(gw.wx, GH, in));
  Gemm<DType>(opt, true, false, DType(1), In<DType>(dgh, TN, GH), In(hprev, TN, P), beta,
                      Out(gw.wh, GH, P));
  if (d.proj) {
    Gemm<DType>(opt, true, false, DType(1), In<DType>(dr, TN, P),
                        In<DType>(buf.hraw, TN, H), beta, Out(gw.wr, P, H));
  }
  ColumnSums(dgx, TN, GH, gw.bx, grad_add);
  if (gru) {
    ColumnSums(dgh, TN, GH, gw.bh, grad_add);
  } else if (!grad_add) {
    // LSTM and vanilla RNN add both biases to the same pre-activations: equal gradients.
    CopyRow(gw.bh, static_cast<const DType*>(gw.bx), GH);
  } else {
    ColumnSums(dgh, TN, GH, gw.bh, true);
  }
  if (dx != nullptr) {
    Gemm<DType>(opt, false, false, DType(1), In<DType>(dgx, TN, GH), In<DType>(w.wx, GH, in),
                        DType(dx_add ? 1 : 0), Out(dx, TN, in));
  }
}

template void DirForward<float>(const DirGeometry&, const Weights<const float>&,
                                const StepOptions&, const float*, const float*, const float*,
                                const DirBuffers<float>&, float*, float*, float*, float*);
template void DirForward<double>(const DirGeometry&, const Weights<const double>&,
                                 const StepOptions&, const double*, const double*, const double*,
                                 const DirBuffers<double>&, double*, double*, double*, double*);
template void DirBackward<float>(const DirGeometry&, const Weights<const float>&,
                                 const StepOptions&, const float*,
                                 const DirBuffers<const float>&, const float*, const float*,
                                 const float*,
                                 const Weights<float>&, bool, float*, bool, float*, float*,
                                 float*);
template void DirBackward<double>(const DirGeometry&, const Weights<const double>&,
                                  const StepOptions&, const double*,
                                  const DirBuffers<const double>&, const double*,
                                  const double*, const double*,
                                  const Weights<double>&, bool, double*, bool, double*, double*,
                                  double*);

}  // namespace rnn
}  // namespace op
}  // namespace mxnet
