// Dense linear-algebra kernels: OpenBLAS and its bundled LAPACK when MXNET_USE_BLAS_OPEN,
// plain loops otherwise. Row-major matrices are handed to column-major LAPACK as their
// transposes, which is why Cholesky asks LAPACK for the upper factor.
#include "operator/tensor/linalg.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <vector>

#if MXNET_USE_BLAS_OPEN
#include <cblas.h>
extern "C" {
// LAPACK from OpenBLAS (Fortran calling convention, 32-bit integers).
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info);
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void sgetri_(const int* n, float* a, const int* lda, const int* ipiv, float* work,
             const int* lwork, int* info);
void dgetri_(const int* n, double* a, const int* lda, const int* ipiv, double* work,
             const int* lwork, int* info);
}
#endif

namespace mxnet {
namespace op {
namespace linalg {
namespace {

template <typename DType>
inline DType At(const Mat<const DType>& m, bool trans, index_t i, index_t j) {
  return trans ? m.data[j * m.ld + i] : m.data[i * m.ld + j];
}

/*! \brief Zero the strictly upper triangle of a square matrix. */
template <typename DType>
void ZeroUpper(const Mat<DType>& A) {
  for (index_t i = 0; i < A.rows; ++i)
    for (index_t j = i + 1; j < A.cols; ++j) A.data[i * A.ld + j] = DType(0);
}

#if MXNET_USE_BLAS_OPEN
inline int BlasInt(index_t v, const char* what) {
  CHECK_LE(v, static_cast<index_t>(INT_MAX))
      << "linear algebra: " << what << " " << v << " exceeds the 32-bit BLAS interface";
  return static_cast<int>(v);
}
inline CBLAS_TRANSPOSE Trans(bool t) { return t ? CblasTrans : CblasNoTrans; }

inline void BlasGemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, float alpha,
                     const float* a, int lda, const float* b, int ldb, float beta, float* c,
                     int ldc) {
  cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline void BlasGemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, double alpha,
                     const double* a, int lda, const double* b, int ldb, double beta, double* c,
                     int ldc) {
  cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline void BlasTrsm(CBLAS_SIDE s, CBLAS_UPLO u, CBLAS_TRANSPOSE t, int m, int n, float alpha,
                     const float* a, int lda, float* b, int ldb) {
  cblas_strsm(CblasRowMajor, s, u, t, CblasNonUnit, m, n, alpha, a, lda, b, ldb);
}
inline void BlasTrsm(CBLAS_SIDE s, CBLAS_UPLO u, CBLAS_TRANSPOSE t, int m, int n, double alpha,
                     const double* a, int lda, double* b, int ldb) {
  cblas_dtrsm(CblasRowMajor, s, u, t, CblasNonUnit, m, n, alpha, a, lda, b, ldb);
}
inline void BlasTrmm(CBLAS_SIDE s, CBLAS_UPLO u, CBLAS_TRANSPOSE t, int m, int n, float alpha,
                     const float* a, int lda, float* b, int ldb) {
  cblas_strmm(CblasRowMajor, s, u, t, CblasNonUnit, m, n, alpha, a, lda, b, ldb);
}
inline void BlasTrmm(CBLAS_SIDE s, CBLAS_UPLO u, CBLAS_TRANSPOSE t, int m, int n, double alpha,
                     const double* a, int lda, double* b, int ldb) {
  cblas_dtrmm(CblasRowMajor, s, u, t, CblasNonUnit, m, n, alpha, a, lda, b, ldb);
}
inline void BlasSyrk(CBLAS_TRANSPOSE t, int n, int k, float alpha, const float* a, int lda,
                     float* c, int ldc) {
  cblas_ssyrk(CblasRowMajor, CblasLower, t, n, k, alpha, a, lda, 0.f, c, ldc);
}
inline void BlasSyrk(CBLAS_TRANSPOSE t, int n, int k, double alpha, const double* a, int lda,
                     double* c, int ldc) {
  cblas_dsyrk(CblasRowMajor, CblasLower, t, n, k, alpha, a, lda, 0.0, c, ldc);
}
inline float BlasDot(int n, const float* x, const float* y) { return cblas_sdot(n, x, 1, y, 1); }
inline double BlasDot(int n, const double* x, const double* y) {
  return cblas_ddot(n, x, 1, y, 1);
}
inline void Potrf(int n, float* a, int lda, int* info) { spotrf_("U", &n, a, &lda, info); }
inline void Potrf(int n, double* a, int lda, int* info) { dpotrf_("U", &n, a, &lda, info); }
inline void Getrf(int n, float* a, int lda, int* ipiv, int* info) {
  sgetrf_(&n, &n, a, &lda, ipiv, info);
}
inline void Getrf(int n, double* a, int lda, int* ipiv, int* info) {
  dgetrf_(&n, &n, a, &lda, ipiv, info);
}
inline void Getri(int n, float* a, int lda, const int* ipiv, float* w, int lw, int* info) {
  sgetri_(&n, a, &lda, ipiv, w, &lw, info);
}
inline void Getri(int n, double* a, int lda, const int* ipiv, double* w, int lw, int* info) {
  dgetri_(&n, a, &lda, ipiv, w, &lw, info);
}
#else
/*! \brief Row-major LU with partial pivoting (ipiv 1-based, as LAPACK); returns LAPACK's info. */
template <typename DType>
int LoopGetrf(const Mat<DType>& A, int* ipiv) {
  const index_t n = A.rows;
  int info = 0;
  for (index_t k = 0; k < n; ++k) {
    index_t p = k;
    for (index_t i = k + 1; i < n; ++i)
      if (std::abs(A.data[i * A.ld + k]) > std::abs(A.data[p * A.ld + k])) p = i;
    ipiv[k] = static_cast<int>(p + 1);
    if (A.data[p * A.ld + k] == DType(0)) {
      if (info == 0) info = static_cast<int>(k + 1);
      continue;
    }
    if (p != k)
      for (index_t j = 0; j < n; ++j) std::swap(A.data[k * A.ld + j], A.data[p * A.ld + j]);
    const DType pivot = A.data[k * A.ld + k];
    for (index_t i = k + 1; i < n; ++i) {
      DType& l = A.data[i * A.ld + k];
      l /= pivot;
      for (index_t j = k + 1; j < n; ++j) A.data[i * A.ld + j] -= l * A.data[k * A.ld + j];
    }
  }
  return info;
}
#endif

}  // namespace

index_t InverseWorkSize(index_t n) { return std::max<index_t>(1, n * std::max<index_t>(n, 64)); }

template <typename DType>
void Gemm(bool ta, bool tb, DType alpha, const Mat<const DType>& A, const Mat<const DType>& B,
          DType beta, const Mat<DType>& C) {
  const index_t m = C.rows, n = C.cols, k = ta ? A.rows : A.cols;
  if (m == 0 || n == 0) return;
  if (k == 0 || alpha == DType(0)) {
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < n; ++j) {
        DType& c = C.data[i * C.ld + j];
        c = beta == DType(0) ? DType(0) : beta * c;
      }
    return;
  }
#if MXNET_USE_BLAS_OPEN
  BlasGemm(Trans(ta), Trans(tb), BlasInt(m, "rows"), BlasInt(n, "columns"), BlasInt(k, "size"),
           alpha, A.data, BlasInt(A.ld, "leading dimension"), B.data,
           BlasInt(B.ld, "leading dimension"), beta, C.data, BlasInt(C.ld, "leading dimension"));
#else
  ParallelFor(m, [&](index_t i) {
    std::vector<DType> acc(n, DType(0));
    for (index_t p = 0; p < k; ++p) {
      const DType a = At(A, ta, i, p);
      if (a == DType(0)) continue;
      for (index_t j = 0; j < n; ++j) acc[j] += a * At(B, tb, p, j);
    }
    for (index_t j = 0; j < n; ++j) {
      DType& c = C.data[i * C.ld + j];
      c = alpha * acc[j] + (beta == DType(0) ? DType(0) : beta * c);
    }
  });
#endif
}

template <typename DType>
void Trsm(bool right, bool lower, bool trans, DType alpha, const Mat<const DType>& A,
          const Mat<DType>& B) {
  const index_t m = B.rows, n = B.cols;
  if (m == 0 || n == 0) return;
#if MXNET_USE_BLAS_OPEN
  BlasTrsm(right ? CblasRight : CblasLeft, lower ? CblasLower : CblasUpper, Trans(trans),
           BlasInt(m, "rows"), BlasInt(n, "columns"), alpha, A.data,
           BlasInt(A.ld, "leading dimension"), B.data, BlasInt(B.ld, "leading dimension"));
#else
  // M = op(A) is lower triangular when lower != trans.
  const bool m_lower = lower != trans;
  auto M = [&](index_t i, index_t j) { return At(A, trans, i, j); };
  auto X = [&](index_t i, index_t j) -> DType& { return B.data[i * B.ld + j]; };
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) X(i, j) *= alpha;
  if (!right) {  // M X = B, column by column of rows
    const index_t sz = m;
    for (index_t s = 0; s < sz; ++s) {
      const index_t i = m_lower ? s : sz - 1 - s;
      for (index_t j = 0; j < n; ++j) {
        DType v = X(i, j);
        if (m_lower) {
          for (index_t p = 0; p < i; ++p) v -= M(i, p) * X(p, j);
        } else {
          for (index_t p = i + 1; p < sz; ++p) v -= M(i, p) * X(p, j);
        }
        X(i, j) = v / M(i, i);
      }
    }
  } else {  // X M = B
    const index_t sz = n;
    for (index_t s = 0; s < sz; ++s) {
      const index_t j = m_lower ? sz - 1 - s : s;
      for (index_t i = 0; i < m; ++i) {
        DType v = X(i, j);
        if (m_lower) {
          for (index_t p = j + 1; p < sz; ++p) v -= X(i, p) * M(p, j);
        } else {
          for (index_t p = 0; p < j; ++p) v -= X(i, p) * M(p, j);
        }
        X(i, j) = v / M(j, j);
      }
    }
  }
#endif
}

template <typename DType>
void Trmm(bool right, bool lower, bool trans, DType alpha, const Mat<const DType>& A,
          const Mat<DType>& B) {
  const index_t m = B.rows, n = B.cols;
  if (m == 0 || n == 0) return;
#if MXNET_USE_BLAS_OPEN
  BlasTrmm(right ? CblasRight : CblasLeft, lower ? CblasLower : CblasUpper, Trans(trans),
           BlasInt(m, "rows"), BlasInt(n, "columns"), alpha, A.data,
           BlasInt(A.ld, "leading dimension"), B.data, BlasInt(B.ld, "leading dimension"));
#else
  // Dense product with the triangle of A only, through a copy of B.
  const index_t k = right ? n : m;
  std::vector<DType> tri(k * k, DType(0));
  for (index_t i = 0; i < k; ++i)
    for (index_t j = 0; j < k; ++j)
      if (lower ? j <= i : j >= i) tri[i * k + j] = A.data[i * A.ld + j];
  std::vector<DType> copy(m * n);
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) copy[i * n + j] = B.data[i * B.ld + j];
  Mat<const DType> T{tri.data(), k, k, k}, Bc{copy.data(), m, n, n};
  if (right) Gemm(false, trans, alpha, Bc, T, DType(0), B);
  else Gemm(trans, false, alpha, T, Bc, DType(0), B);
#endif
}

template <typename DType>
void Syrk(bool trans, DType alpha, const Mat<const DType>& A, const Mat<DType>& C) {
  const index_t n = C.rows;
  if (n == 0) return;
#if MXNET_USE_BLAS_OPEN
  const index_t k = trans ? A.rows : A.cols;
  if (k == 0) {
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < n; ++j) C.data[i * C.ld + j] = DType(0);
    return;
  }
  BlasSyrk(Trans(trans), BlasInt(n, "rows"), BlasInt(k, "size"), alpha, A.data,
           BlasInt(A.ld, "leading dimension"), C.data, BlasInt(C.ld, "leading dimension"));
  for (index_t i = 0; i < n; ++i)
    for (index_t j = i + 1; j < n; ++j) C.data[i * C.ld + j] = C.data[j * C.ld + i];
#else
  Gemm(trans, !trans, alpha, A, A, DType(0), C);
#endif
}

template <typename DType>
int Cholesky(const Mat<DType>& A) {
  const index_t n = A.rows;
  if (n == 0) return 0;
#if MXNET_USE_BLAS_OPEN
  int info = 0;
  Potrf(BlasInt(n, "rows"), A.data, BlasInt(A.ld, "leading dimension"), &info);
  if (info != 0) return info;
#else
  for (index_t j = 0; j < n; ++j) {
    DType s = A.data[j * A.ld + j];
    for (index_t p = 0; p < j; ++p) s -= A.data[j * A.ld + p] * A.data[j * A.ld + p];
    if (!(s > DType(0))) return static_cast<int>(j + 1);
    const DType d = std::sqrt(s);
    A.data[j * A.ld + j] = d;
    for (index_t i = j + 1; i < n; ++i) {
      DType v = A.data[i * A.ld + j];
      for (index_t p = 0; p < j; ++p) v -= A.data[i * A.ld + p] * A.data[j * A.ld + p];
      A.data[i * A.ld + j] = v / d;
    }
  }
#endif
  ZeroUpper(A);
  return 0;
}

template <typename DType>
int Inverse(const Mat<DType>& A, int* ipiv, DType* work) {
  const index_t n = A.rows;
  if (n == 0) return 0;
#if MXNET_USE_BLAS_OPEN
  int info = 0;
  const int ni = BlasInt(n, "rows"), lda = BlasInt(A.ld, "leading dimension");
  Getrf(ni, A.data, lda, ipiv, &info);
  if (info != 0) return info;
  Getri(ni, A.data, lda, ipiv, work, BlasInt(InverseWorkSize(n), "workspace"), &info);
  return info;
#else
  const int info = LoopGetrf(A, ipiv);
  if (info != 0) return info;
  // Column j of the inverse solves L U x = P e_j.
  for (index_t j = 0; j < n; ++j) {
    DType* x = work + j * n;
    for (index_t i = 0; i < n; ++i) x[i] = DType(i == j ? 1 : 0);
    for (index_t i = 0; i < n; ++i) std::swap(x[i], x[ipiv[i] - 1]);
    for (index_t i = 0; i < n; ++i)
      for (index_t p = 0; p < i; ++p) x[i] -= A.data[i * A.ld + p] * x[p];
    for (index_t i = n - 1; i >= 0; --i) {
      for (index_t p = i + 1; p < n; ++p) x[i] -= A.data[i * A.ld + p] * x[p];
      x[i] /= A.data[i * A.ld + i];
    }
  }
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) A.data[i * A.ld + j] = work[j * n + i];
  return 0;
#endif
}

template <typename DType>
int LU(const Mat<DType>& A, int* ipiv) {
  const index_t n = A.rows;
  if (n == 0) return 0;
#if MXNET_USE_BLAS_OPEN
  int info = 0;
  Getrf(BlasInt(n, "rows"), A.data, BlasInt(A.ld, "leading dimension"), ipiv, &info);
  return info;
#else
  return LoopGetrf(A, ipiv);
#endif
}

template <typename DType>
DType Dot(index_t n, const DType* x, const DType* y) {
#if MXNET_USE_BLAS_OPEN
  if (n > 0 && n <= INT_MAX) return BlasDot(static_cast<int>(n), x, y);
#endif
  DType s = 0;
  for (index_t i = 0; i < n; ++i) s += x[i] * y[i];
  return s;
}

#define MXNET_LINALG_INSTANTIATE_(DType)                                                    \
  template void Gemm<DType>(bool, bool, DType, const Mat<const DType>&,                     \
                            const Mat<const DType>&, DType, const Mat<DType>&);             \
  template void Trsm<DType>(bool, bool, bool, DType, const Mat<const DType>&,               \
                            const Mat<DType>&);                                             \
  template void Trmm<DType>(bool, bool, bool, DType, const Mat<const DType>&,               \
                            const Mat<DType>&);                                             \
  template void Syrk<DType>(bool, DType, const Mat<const DType>&, const Mat<DType>&);        \
  template int Cholesky<DType>(const Mat<DType>&);                                          \
  template int Inverse<DType>(const Mat<DType>&, int*, DType*);                             \
  template int LU<DType>(const Mat<DType>&, int*);                                          \
  template DType Dot<DType>(index_t, const DType*, const DType*);

MXNET_LINALG_INSTANTIATE_(float)
MXNET_LINALG_INSTANTIATE_(double)

}  // namespace linalg
}  // namespace op
}  // namespace mxnet
