// Lazy updates: an update op (sgd_update, adam_update, ...) given a row_sparse gradient with
// lazy_update=True updates only the rows the gradient holds (weight, states), as MXNet 1.9.1.
#ifndef MXNET_OPERATOR_OPTIMIZER_LAZY_UPDATE_H_
#define MXNET_OPERATOR_OPTIMIZER_LAZY_UPDATE_H_

#include "operator/operator_common.h"

namespace mxnet {
namespace op {
namespace update {

/*! \brief Storage inference of an update op whose input 1 is the gradient: a row_sparse
 *  gradient with dense weight and states (and lazy_update not false) runs the lazy kernel;
 *  other sparse inputs fall back to the dense kernel (standard update). */
bool LazyUpdateStorage(const NodeAttrs& attrs, int dev_mask, DispatchMode* mode,
                       std::vector<int>* in, std::vector<int>* out);
/*! \brief The op's own dense kernel (FCompute<cpu>) run on each gradient row and the same row
 *  of the weight, the states and the output. */
void LazyUpdateCompute(const NodeAttrs& attrs, const OpContext& ctx,
                       const std::vector<NDArray>& in, const std::vector<OpReqType>& req,
                       const std::vector<NDArray>& out);

/*! \brief Add both to an update op's declaration. */
inline nnvm::Op& WithLazyUpdate(nnvm::Op& op) {
  return op.set_attr<FInferStorageType>("FInferStorageType", LazyUpdateStorage)
      .set_attr<FComputeEx>("FComputeEx<cpu>", LazyUpdateCompute);
}

}  // namespace update
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_OPTIMIZER_LAZY_UPDATE_H_
