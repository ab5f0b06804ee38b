// Shared pieces of the optimizer update operators: the arithmetic their kernels compute in, a
// float-tuple argument, inference rules and the declaration of an update op (its inputs, the
// states it updates in place, its kernel).
//
// An update op returns the new weight (callers pass out=weight) and writes its optimizer
// states (mom, mean, var, ...) in place: those inputs are listed in FMutateInputs, so the
// engine orders later readers after the write.
#ifndef MXNET_OPERATOR_OPTIMIZER_UPDATE_COMMON_H_
#define MXNET_OPERATOR_OPTIMIZER_UPDATE_COMMON_H_

#include <algorithm>
#include <cmath>
#include <functional>
#include <istream>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "operator/flush_denormals.h"
#include "operator/operator_common.h"

namespace mxnet {
namespace op {
namespace update {

// ---------------------------------------------------------------- float16 arithmetic
/*!
 * \brief A float16 value whose every operation rounds back to float16. MXNet 1.9.1's update
 *  kernels compute float16 weights with mshadow's half_t, whose operators (also half_t with a
 *  float, double or int operand) round each result to float16; doing the same here makes
 *  float16 updates agree with MXNet bit for bit rather than only approximately.
 */
struct Half16 {
  float v = 0.f;  // always a value float16 can hold
  Half16() = default;
  Half16(half_t h) : v(static_cast<float>(h)) {}  // NOLINT(runtime/explicit)
  explicit Half16(float f) : v(static_cast<float>(half_t(f))) {}
  explicit Half16(double d) : Half16(static_cast<float>(d)) {}
  explicit Half16(int i) : Half16(static_cast<float>(i)) {}
  explicit operator float() const { return v; }
  explicit operator double() const { return v; }
  operator half_t() const { return half_t(v); }  // NOLINT(runtime/explicit)
  Half16 operator-() const { return Half16(-v); }
};

template <typename T>
using IfScalar = std::enable_if_t<std::is_arithmetic<T>::value, int>;

#define MXNET_HALF16_OP_(op)                                                             \
  inline Half16 operator op(Half16 a, Half16 b) { return Half16(a.v op b.v); }           \
  template <typename T, IfScalar<T> = 0>                                                 \
  inline Half16 operator op(Half16 a, T b) { return Half16(a.v op static_cast<float>(b)); } \
  template <typename T, IfScalar<T> = 0>                                                 \
  inline Half16 operator op(T a, Half16 b) { return Half16(static_cast<float>(a) op b.v); }
MXNET_HALF16_OP_(+)
MXNET_HALF16_OP_(-)
MXNET_HALF16_OP_(*)
MXNET_HALF16_OP_(/)
#undef MXNET_HALF16_OP_

#define MXNET_HALF16_CMP_(op)                                                           \
  inline bool operator op(Half16 a, Half16 b) { return a.v op b.v; }                    \
  template <typename T, IfScalar<T> = 0>                                                \
  inline bool operator op(Half16 a, T b) { return a.v op static_cast<float>(b); }       \
  template <typename T, IfScalar<T> = 0>                                                \
  inline bool operator op(T a, Half16 b) { return static_cast<float>(a) op b.v; }
MXNET_HALF16_CMP_(>)
MXNET_HALF16_CMP_(<)
MXNET_HALF16_CMP_(>=)
MXNET_HALF16_CMP_(<=)
MXNET_HALF16_CMP_(==)
#undef MXNET_HALF16_CMP_

inline Half16& operator+=(Half16& a, Half16 b) { return a = a + b; }

/*! \brief The type a kernel over DType computes in: DType itself, Half16 for float16. */
template <typename DType> struct RealOf { using type = DType; };
template <> struct RealOf<half_t> { using type = Half16; };
template <typename DType> using Real = typename RealOf<DType>::type;

inline float Sqrt(float x) { return std::sqrt(x); }
inline double Sqrt(double x) { return std::sqrt(x); }
inline Half16 Sqrt(Half16 x) { return Half16(std::sqrt(x.v)); }
inline float Pow(float a, float b) { return std::pow(a, b); }
inline double Pow(double a, double b) { return std::pow(a, b); }
inline Half16 Pow(Half16 a, Half16 b) { return Half16(std::pow(a.v, b.v)); }

/*! \brief x limited to [-bound, bound]; NaN passes through. */
template <typename R>
inline R Clip(R x, R bound) {
  if (x > bound) return bound;
  if (x < -bound) return -bound;
  return x;
}

/*! \brief -1, 0 or 1 as an int, as MXNet's (x > 0) - (x < 0). */
template <typename R>
inline int SignOf(R x) {
  return static_cast<int>(x > 0) - static_cast<int>(x < 0);
}

/*! \brief fn(begin, end) over blocks covering [0, n), split across the OpenMP threads as
 *  ParallelFor splits elements, each block run with denormal results flushed to zero
 *  (FlushDenormals says why). */
template <typename Fn>
inline void UpdateRanges(index_t n, Fn fn) {
  constexpr index_t kBlock = 4096;
  const index_t blocks = (n + kBlock - 1) / kBlock;
  LoopMaybeParallel(n >= ParallelGrain(), blocks, [&](index_t b) {
    FlushDenormals ftz;
    fn(b * kBlock, std::min(n, (b + 1) * kBlock));
  });
}

/*! \brief fn(i) for i in [0, n), split across the OpenMP threads as ParallelFor splits it,
 *  in blocks run with denormal results flushed to zero (FlushDenormals says why). */
template <typename Fn>
inline void UpdateFor(index_t n, Fn fn) {
  UpdateRanges(n, [&](index_t begin, index_t end) {
    for (index_t i = begin; i < end; ++i) fn(i);
  });
}

/*! \brief Write v (any compute type) to *out under req. */
template <typename DType, typename V>
inline void Store(DType* out, OpReqType req, V v) {
  if (req == kAddTo) {
    *out = static_cast<DType>(static_cast<double>(*out) + static_cast<double>(v));
  } else if (req != kNullOp) {
    *out = static_cast<DType>(v);
  }
}

/*! \brief Sum of squares of b, as MXNet's multi_sum_sq: a float accumulator, each square
 *  computed in the array's dtype (a float16 square rounds to float16), elements in order. */
template <typename DType>
float SumOfSquares(const TBlob& b) {
  using Wide = std::conditional_t<std::is_same<DType, double>::value, double, float>;
  const DType* x = b.dptr<DType>();
  float sum = 0.f;
  for (size_t j = 0, n = b.Size(); j < n; ++j) {
    const Real<DType> sq = Real<DType>(x[j]) * Real<DType>(x[j]);
    sum = static_cast<float>(static_cast<Wide>(sum) + static_cast<Wide>(sq));
  }
  return sum;
}

/*! \brief Number of elements of input 0, as a loop bound. */
inline index_t NumElements(const std::vector<TBlob>& in) {
  return static_cast<index_t>(in[0].Size());
}

/*!
 * \brief FCompute running Kernel::Run<DType>(param, inputs, req, output) for the dtype of
 *  input 0 (the weight). Kernels read every input of element i before they write element i
 *  of a state or the output, except where MXNet reads after (nag_mom_update), so out=weight
 *  gives MXNet's results.
 */
template <typename PType, typename Kernel>
void UpdateCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const PType& p = Param<PType>(attrs);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType,
                         { Kernel::template Run<DType>(p, in, req[0], out[0]); });
}

// ---------------------------------------------------------------- arguments
// Declarations of the arguments most update ops share (same names, defaults and docs).
#define MXNET_UPDATE_FIELD_LR DMLC_DECLARE_FIELD(lr).describe("Learning rate")
#define MXNET_UPDATE_FIELD_WD                                                              \
  DMLC_DECLARE_FIELD(wd).set_default(0.0f).describe(                                        \
      "Weight decay: adds a penalty on large weights (proportional to the square of each "  \
      "weight) to the objective function.")
#define MXNET_UPDATE_FIELD_MOMENTUM                                       \
  DMLC_DECLARE_FIELD(momentum).set_default(0.0f).describe(                \
      "The decay rate of momentum estimates at each epoch.")
#define MXNET_UPDATE_FIELD_RESCALE_GRAD                                   \
  DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0f).describe(            \
      "Rescale gradient to grad = rescale_grad*grad.")
#define MXNET_UPDATE_FIELD_CLIP(field)                                                        \
  DMLC_DECLARE_FIELD(field).set_default(-1.0f).describe(                                      \
      "Clip gradient to the range of [-clip_gradient, clip_gradient]. If clip_gradient <= 0, " \
      "gradient clipping is turned off: grad = max(min(grad, clip_gradient), -clip_gradient).")
#define MXNET_UPDATE_FIELD_LAZY                                                              \
  DMLC_DECLARE_FIELD(lazy_update).set_default(true).describe(                                \
      "If true, a row_sparse gradient updates only the rows it holds (weight and states); "  \
      "false updates every row as for a dense gradient.")

/*! \brief A tuple of floats argument (lrs, wds): "(0.1, 0.2)", "[0.1]", "0.1". */
struct FloatTuple {
  std::vector<float> v;
  int ndim() const { return static_cast<int>(v.size()); }
  float operator[](size_t i) const { return v[i]; }
};
std::istream& operator>>(std::istream& is, FloatTuple& t);
std::ostream& operator<<(std::ostream& os, const FloatTuple& t);

// ---------------------------------------------------------------- inference rules
/*! \brief Inputs [0, n) and the output share one shape; the other inputs are free. */
FInferShape SharedShapeOfFirst(size_t n);
/*!
 * \brief Inputs [0, n) and the outputs share one dtype, which must be float32, float64 or
 *  float16; the other inputs (float32 master weights and states) must be float32.
 */
FInferType SharedTypeOfFirst(size_t n);
/*! \brief Inputs in groups of `stride` per output (weight_k, grad_k, ... then output k): each
 *  group shares its output's shape; inputs after the groups are left as they are. */
bool GroupShapes(const NodeAttrs& attrs, size_t stride, std::vector<TShape>* in,
                 std::vector<TShape>* out);
/*! \brief Input i must have dtype want (or be unknown, then it gets want). */
void RequireInputType(const NodeAttrs& attrs, size_t i, int want, std::vector<int>* in);
/*! \brief The same for the output. */
void RequireOutputType(const NodeAttrs& attrs, int want, std::vector<int>* out);
/*! \brief Throw unless t is float32, float64 or float16 (input i of attrs.op). */
void CheckRealType(const NodeAttrs& attrs, size_t i, int t);

// ---------------------------------------------------------------- declaration
/*! \brief What an update op declares beside its argument struct. */
struct UpdateOpSpec {
  const char* name;
  const char* doc;
  std::vector<std::string> inputs;   // input names, in order
  std::vector<uint32_t> mutated;     // inputs the op writes in place
  FInferShape shape;                 // default: every input and the output share a shape
  FInferType type;                   // default: every input and the output share a real dtype
  FCompute compute;
  uint32_t num_outputs = 1;
};

/*! \brief Declare an update op with a fixed list of inputs (non-differentiable). */
nnvm::Op& RegisterUpdateOp(const UpdateOpSpec& spec,
                           std::function<void(NodeAttrs*)> parser,
                           const std::vector<dmlc::ParamFieldInfo>& fields);

template <typename PType>
nnvm::Op& RegisterUpdate(UpdateOpSpec spec) {
  return RegisterUpdateOp(spec, ParamParser<PType>, PType::__FIELDS__());
}

/*!
 * \brief Inputs of an op over a list of arrays: each of its `count` entries brings `group`
 *  inputs named group[j] + index ("weight_0", "grad_0", ...), followed by `tail` inputs
 *  ("lrs", "wds"); `mutated` lists positions within a group the op writes in place.
 */
struct MultiOpSpec {
  const char* name;
  const char* doc;
  const char* data_doc;
  std::vector<std::string> group;
  std::vector<uint32_t> mutated;
  std::vector<std::string> tail;
  std::function<uint32_t(const NodeAttrs&)> count;
  FInferShape shape;
  FInferType type;
  FCompute compute;
  int num_outputs = -1;  // -1: one per entry
};

nnvm::Op& RegisterMultiOp(const MultiOpSpec& spec, std::function<void(NodeAttrs*)> parser,
                          const std::vector<dmlc::ParamFieldInfo>& fields);

/*!
 * \brief A multi-weight Adam-style op (AdamW, LAMB): groups weight_, grad_, mean_, var_ (and
 *  weight32_ when mp), with mean, var (and weight32) updated in place, and its dtype rule:
 *  weights, gradients and outputs share one real dtype, mean and var share it too or, when mp,
 *  are float32 with weight32; a trailing input (tail, rescale_grad) may be any real dtype.
 */
MultiOpSpec MomentGroupsSpec(const char* name, const char* doc, bool mp, bool tail);

template <typename PType>
nnvm::Op& RegisterMulti(MultiOpSpec spec) {
  return RegisterMultiOp(spec, ParamParser<PType>, PType::__FIELDS__());
}

}  // namespace update
}  // namespace op
}  // namespace mxnet

namespace dmlc {
DMLC_DECLARE_TYPE_NAME(mxnet::op::update::FloatTuple, "tuple of <float>");
}  // namespace dmlc

#endif  // MXNET_OPERATOR_OPTIMIZER_UPDATE_COMMON_H_
