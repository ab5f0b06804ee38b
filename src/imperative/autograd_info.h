// AGInfo: what autograd keeps on each recorded node (values for backward, gradient buffers).
#ifndef MXNET_IMPERATIVE_AUTOGRAD_INFO_H_
#define MXNET_IMPERATIVE_AUTOGRAD_INFO_H_

#include <any>
#include <vector>

#include "mxnet/imperative.h"

namespace mxnet {

struct AGInfo {
  Context ctx;
  /*! \brief Values of the node's outputs (for variables: the array itself). */
  std::vector<NDArray> outputs;
  /*! \brief Variables only: the gradient buffer and how to write it. */
  std::vector<NDArray> out_grads;
  std::vector<uint32_t> grad_req;
  /*! \brief Set when backward ran without retain_graph and released the saved values. */
  bool freed{false};
  /*! \brief Variables only: backward wrote out_grads since the flag was last cleared
   *  (NDArray._fresh_grad, which optimizers reset after consuming the gradient). */
  bool fresh_grad{false};

  /*! \brief Whether arr is part of a live recorded graph: a marked variable, or an op output
   *  whose node backward has not yet released. */
  static bool InGraph(const NDArray& arr) {
    const AGInfo* info = Get(arr.entry().node);
    return info != nullptr && !info->freed;
  }

  static AGInfo* Get(const nnvm::ObjectPtr& node) {
    return node ? std::any_cast<AGInfo>(&node->info) : nullptr;
  }
  static AGInfo& Create(const nnvm::ObjectPtr& node) {
    node->info = AGInfo();
    return *std::any_cast<AGInfo>(&node->info);
  }
};

}  // namespace mxnet

#endif  // MXNET_IMPERATIVE_AUTOGRAD_INFO_H_
