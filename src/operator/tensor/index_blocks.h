// Block movers shared by the indexing operators: read an index array as integers, gather
// blocks of elements at offsets, and scatter (add or set) blocks back.
#ifndef MXNET_OPERATOR_TENSOR_INDEX_BLOCKS_H_
#define MXNET_OPERATOR_TENSOR_INDEX_BLOCKS_H_

#include <cstdint>
#include <vector>

#include "operator/operator_common.h"

namespace mxnet {
namespace op {

/*! \brief Index array values as integers (fractions truncate toward zero). */
std::vector<int64_t> ReadIndices(const TBlob& idx);

/*! \brief out block i (K elements) = (or, with kAddTo, +=) the data block at offsets[i]. */
void GatherBlocks(int dtype, const void* data, const std::vector<int64_t>& offsets, index_t K,
                  void* out, OpReqType req);

/*! \brief The out block at offsets[i] += src block i (kSet: =). Offsets may repeat: sums
 *  accumulate and sets keep the last block, whatever the thread count. unique_offsets
 *  promises no repeats and lets blocks run in parallel. */
template <bool kSet>
void ScatterBlocks(int dtype, const void* src, const std::vector<int64_t>& offsets, index_t K,
                   void* out, bool unique_offsets);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_INDEX_BLOCKS_H_
