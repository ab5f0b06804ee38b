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

/*!
 * \brief As FNDArrayFunctionSkip, taking its inputs: the function may reset an input to none
 * once it has read it for the last time, so that its memory can go back to the pool before
 * the function returns (_backward_CachedOp: the forward values a large graph kept for
 * backward). An op registers it in place of FNDArrayFunctionSkip.
 */
using FNDArrayFunctionTake = std::function<void(
    const nnvm::NodeAttrs& attrs, std::vector<NDArray>* inputs,
    const std::vector<bool>* unused, std::vector<NDArray>* outputs)>;

namespace imperative {
/*!
 * \brief While alive, this thread's Invoke calls of FNDArrayFunctionTake ops take the caller's
 * input arrays (resetting them to none) unless autograd records the call: autograd's backward
 * hands over values it does not read again. Calls made from inside such a function do not
 * donate.
 */
class DonateInputsScope {
 public:
  explicit DonateInputsScope(bool donate);
  ~DonateInputsScope();
  DonateInputsScope(const DonateInputsScope&) = delete;
  DonateInputsScope& operator=(const DonateInputsScope&) = delete;
  static bool active();

 private:
  bool prev_;
};
}  // namespace imperative

}  // namespace mxnet

#endif  // MXNET_IMPERATIVE_NDARRAY_FUNCTION_H_
