// StridedCopy: the one data-movement loop behind reshape, transpose, slice, concat, tile, repeat,
// reverse, depth_to_space and friends; each op only describes its index map as strides.
#ifndef MXNET_OPERATOR_TENSOR_STRIDED_COPY_H_
#define MXNET_OPERATOR_TENSOR_STRIDED_COPY_H_

#include <type_traits>
#include <vector>

#include "operator/operator_common.h"

namespace mxnet {
namespace op {

/*!
 * \brief An iteration space and where each point lives in src and dst (in elements):
 *  for every index (i_0, ..., i_{n-1}) below shape,
 *  dst[dst_offset + sum i_k dst_stride_k] = (or +=) src[src_offset + sum i_k src_stride_k].
 *  Strides may be 0 (broadcast/fill) or negative (reverse).
 */
struct StridedPlan {
  static constexpr int kMaxDims = 2 * TShape::kMaxNDim;
  int ndim{0};
  dim_t shape[kMaxDims];
  index_t src_stride[kMaxDims];
  index_t dst_stride[kMaxDims];
  index_t src_offset{0};
  index_t dst_offset{0};

  /*! \brief Append an iteration dimension (outermost first). */
  void Push(dim_t extent, index_t sstride, index_t dstride) {
    CHECK_LT(ndim, kMaxDims) << "too many dimensions in a strided copy";
    shape[ndim] = extent;
    src_stride[ndim] = sstride;
    dst_stride[ndim] = dstride;
    ++ndim;
  }
  size_t Size() const {
    size_t n = 1;
    for (int i = 0; i < ndim; ++i) n *= static_cast<size_t>(shape[i]);
    return n;
  }
};

/*! \brief Row-major element strides of a shape. */
std::vector<index_t> ContiguousStrides(const TShape& s);

/*! \brief Run a plan on buffers of dtype; req kNullOp does nothing, kAddTo accumulates. */
void StridedCopy(const StridedPlan& plan, int dtype, const void* src, void* dst, OpReqType req);

/*! \brief Write value (converted to dtype) at every dst point of the plan (src is ignored). */
void StridedFill(const StridedPlan& plan, int dtype, double value, void* dst, OpReqType req);

/*! \brief Plain copy of n elements (memmove when writing; handles src == dst). */
void CopyElements(int dtype, const void* src, void* dst, size_t n, OpReqType req);

/*! \brief Fill n contiguous elements with value (respecting req). */
void FillElements(int dtype, double value, void* dst, size_t n, OpReqType req);


/*! \brief An index element (any dtype) as an integer; fractions truncate toward zero. */
template <typename IType>
inline int64_t IndexAs(IType v) {
  if constexpr (std::is_same<IType, half_t>::value) {
    return static_cast<int64_t>(static_cast<float>(v));
  } else {
    return static_cast<int64_t>(v);
  }
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_STRIDED_COPY_H_
