// FNDArrayFunctionSkip: an FNDArrayFunction told which outputs nobody reads.
#ifndef MXNET_IMPERATIVE_NDARRAY_FUNCTION_H_
#define MXNET_IMPERATIVE_NDARRAY_FUNCTION_H_

#include <functional>
#include <vector>

#include "mxnet/ndarray.h"
#include "nnvm/node.h"

namespace mxnet {

/*!
 * \brief As FNDArrayFunction, with unused (null, or one flag per output): the outputs nobody
 * will read, whose work the function may skip (it still returns an array for each). An op
 * registers it in place of FNDArrayFunction (_backward_CachedOp: the gradient of an input
 * that needs none is not computed).
 */
using FNDArrayFunctionSkip = std::function<void(
    const nnvm::NodeAttrs& attrs, const std::vector<NDArray>& inputs,
    const std::vector<bool>* unused, std::vector<NDArray>* outputs)>;

}  // namespace mxnet

#endif  // MXNET_IMPERATIVE_NDARRAY_FUNCTION_H_
