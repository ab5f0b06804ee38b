// Helpers shared by the linalg operators (la_op.cc, la_op_factor.cc): dtype rule and dispatch,
// scratch carving, output accumulation and the shape of per-matrix results.
#ifndef MXNET_OPERATOR_TENSOR_LA_OP_COMMON_H_
#define MXNET_OPERATOR_TENSOR_LA_OP_COMMON_H_

#include <string>
#include <unordered_map>
#include <vector>

#include "operator/tensor/linalg.h"

namespace mxnet {
namespace op {

/*! \brief Run the body with DType = float or double (the dtypes linalg operators support). */
#define MXNET_LA_TYPE_SWITCH(type, DType, ...) \
  if ((type) == ::mxnet::kFloat64) {           \
    using DType = double;                      \
    { __VA_ARGS__ }                            \
  } else {                                     \
    using DType = float;                       \
    { __VA_ARGS__ }                            \
  }

/*! \brief All inputs and outputs share one dtype, float32 or float64. */
inline bool LaType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  if (!ElemwiseType(attrs, in, out)) return false;
  const int t = (*out)[0];
  CHECK(t == kFloat32 || t == kFloat64)
      << "Operator " << attrs.op->name << ": supports float32 and float64 inputs, given "
      << DTypeName(t);
  return true;
}

/*! \brief Input i must be a tensor of matrices (ndim >= 2); square when asked. */
inline void CheckMatrices(const NodeAttrs& attrs, const TShape& s, size_t i, bool square) {
  CHECK_GE(s.ndim(), 2) << "Operator " << attrs.op->name << ": input " << InputName(attrs, i)
                        << " must have at least 2 dimensions, given shape " << s;
  if (square) {
    CHECK_EQ(s[s.ndim() - 2], s[s.ndim() - 1])
        << "Operator " << attrs.op->name << ": input " << InputName(attrs, i)
        << " must be a tensor of square matrices, given shape " << s;
  }
}

/*! \brief Shape of one value per matrix of s: its batch axes, or (1,) for a single matrix. */
inline TShape PerMatrixShape(const TShape& s) {
  if (s.ndim() <= 2) return TShape{1};
  return TShape(s.begin(), s.end() - 2);
}

/*! \brief Scratch memory of one kernel call, carved out of the worker's temp space. */
class Scratch {
 public:
  static size_t Bytes(size_t n, size_t elem) { return (n * elem + 63) / 64 * 64; }
  Scratch(const OpContext& ctx, size_t bytes)
      : p_(static_cast<char*>(ctx.RequestTempSpace(bytes > 0 ? bytes : 64))) {}
  template <typename T>
  T* Take(size_t n) {
    T* r = reinterpret_cast<T*>(p_);
    p_ += Bytes(n, sizeof(T));
    return r;
  }

 private:
  char* p_;
};

/*! \brief Runs fn(dst) with dst the output (write) or tmp (add, then summed into the output). */
template <typename DType, typename Fn>
void WriteOutput(const TBlob& out, OpReqType req, DType* tmp, Fn fn) {
  if (req == kNullOp) return;
  DType* o = out.dptr<DType>();
  if (req != kAddTo) {
    fn(o);
    return;
  }
  fn(tmp);
  for (size_t i = 0; i < out.Size(); ++i) o[i] += tmp[i];
}

/*! \brief Copy src to dst unless they are the same memory. */
template <typename DType>
void CopyIfNeeded(DType* dst, const DType* src, size_t n) {
  if (dst != src) std::copy(src, src + n, dst);
}

inline std::string BoolText(bool b) { return b ? "True" : "False"; }

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_LA_OP_COMMON_H_
