// FInplaceIdentity: which in-place pairs of an op (FInplaceOption) give an output equal to
// its input, so a memory plan may share the input's storage even while others still read it.
#ifndef MXNET_OPERATOR_INPLACE_IDENTITY_H_
#define MXNET_OPERATOR_INPLACE_IDENTITY_H_

#include <functional>
#include <vector>

#include "nnvm/node.h"

namespace mxnet {

/*! \brief One flag per FInplaceOption pair (same order): true when the output equals the
 *  input element for element (same size and dtype), as MXNet 1.9.1's nnvm::FInplaceIdentity. */
using FInplaceIdentity = std::function<std::vector<bool>(const nnvm::NodeAttrs& attrs)>;

/*! \brief FInplaceIdentity of an op whose single pair (0, 0) is an identity. */
inline std::vector<bool> InplaceIdentityFirst(const nnvm::NodeAttrs&) { return {true}; }

}  // namespace mxnet

#endif  // MXNET_OPERATOR_INPLACE_IDENTITY_H_
