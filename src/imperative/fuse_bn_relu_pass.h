// The CachedOp graph pass fusing BatchNorm followed by ReLU into _contrib_BatchNormWithReLU,
// whose kernels apply the ReLU and its gradient without passes of their own.
#ifndef MXNET_IMPERATIVE_FUSE_BN_RELU_PASS_H_
#define MXNET_IMPERATIVE_FUSE_BN_RELU_PASS_H_

#include "nnvm/symbol.h"

namespace mxnet {
namespace imperative {

/*!
 * \brief sym with each BatchNorm whose output is read only by one ReLU (Activation with
 *  act_type relu, or relu) and is no output of sym replaced by one _contrib_BatchNormWithReLU
 *  node (BatchNorm's name, arguments and inputs) that the ReLU's readers read instead. A
 *  copy: sym's own nodes are left alone; sym itself when nothing is fused or
 *  MXNET_FUSE_BN_RELU is 0. The variables keep their order.
 */
nnvm::Symbol FuseBatchNormReLU(const nnvm::Symbol& sym);

}  // namespace imperative
}  // namespace mxnet

#endif  // MXNET_IMPERATIVE_FUSE_BN_RELU_PASS_H_
