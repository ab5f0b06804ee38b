// The reduction kernel shared by the reduce, norm and reduce-to-shape operators: the axis
// rules of MXNet's reductions and one generic, OpenMP-parallel (outer, reduce, inner) loop.
#ifndef MXNET_OPERATOR_TENSOR_REDUCE_KERNEL_H_
#define MXNET_OPERATOR_TENSOR_REDUCE_KERNEL_H_

#include <vector>

#include "operator/operator_common.h"
#include "operator/tuple_args.h"

namespace mxnet {
namespace op {

using tuple_args::IntTuple;

/*! \brief What a reduction computes. Accumulation: float16 in float, float32/float64 in
 *  double (max/min in their own type), integers and bool in int64, norms in double. */
enum class ReduceKind { kSum, kMean, kProd, kMax, kMin, kNanSum, kNanProd, kNorm1, kNorm2 };

/*! \brief Items below which a loop stays on one thread, given each item's work in elements. */
template <typename Fn>
inline void ParallelForWork(index_t n, index_t work_per_item, Fn fn) {
  LoopMaybeParallel(n > 1 && n * work_per_item >= ParallelGrain(), n, fn);
}

/*! \brief Flags of the reduced axes of shape under MXNet's rules: axis None or () reduces
 *  every axis; negative axes count from the end; exclude reduces the axes not listed.
 *  Throws (naming attrs.op and argument arg_name) on out-of-range or repeated axes. */
std::vector<bool> ReduceAxesMask(const NodeAttrs& attrs, const char* arg_name, const TShape& shape,
                                 const dmlc::optional<IntTuple>& axis, bool exclude);
/*! \brief Output shape of a reduction: reduced dims become 1 (keepdims) or disappear; a result
 *  with no dims is (1,), as in MXNet 1.x. */
TShape ReducedShape(const TShape& shape, const std::vector<bool>& mask, bool keepdims);
/*! \brief Number of elements folded into each output element. */
index_t ReducedCount(const TShape& shape, const std::vector<bool>& mask);

/*! \brief out = reduction of in over the flagged axes. out holds the kept dims in order (its
 *  own shape may add or drop size-1 dims) and may have another dtype than in (converted at
 *  the end). Honours req. Uses ctx temp space for reductions over separated axis groups. */
void ReduceAxesCompute(const OpContext& ctx, ReduceKind kind, const TBlob& in,
                       const std::vector<bool>& mask, OpReqType req, const TBlob& out);

/*! \brief Index of the first maximum (is_max) or minimum along the middle axis of in seen as
 *  (outer, n, inner), written in out's dtype; NaN counts as the extreme (as numpy). */
void ArgReduceCompute(bool is_max, const TBlob& in, index_t outer, index_t n, index_t inner,
                      OpReqType req, const TBlob& out);

/*! \brief out[i] = in[i] * scale converted to out's dtype (any pair of dtypes), honouring req. */
void CastScaleCompute(const TBlob& in, double scale, OpReqType req, const TBlob& out);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_REDUCE_KERNEL_H_
