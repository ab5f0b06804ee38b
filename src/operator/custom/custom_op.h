// Custom operators written in a front-end language: the interface a front implements
// (CustomOpProp, CustomOperator) and the registry of op_type -> prop creator behind "Custom".
#ifndef MXNET_OPERATOR_CUSTOM_CUSTOM_OP_H_
#define MXNET_OPERATOR_CUSTOM_CUSTOM_OP_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mxnet/ndarray.h"

namespace mxnet {
namespace custom {

/*!
 * \brief One instance of a custom operator (MXNet's CustomOp), created per call by its prop.
 *  Forward and Backward run on a custom-op worker thread (see custom_op_worker.h); the arrays
 *  they get view the engine's buffers through their own engine variables, so the operations
 *  they push run on the engine like any other. They report failure by throwing dmlc::Error.
 */
class CustomOperator {
 public:
  virtual ~CustomOperator() = default;
  virtual void Forward(bool is_train, const std::vector<OpReqType>& req,
                       const std::vector<NDArray>& in_data, const std::vector<NDArray>& out_data,
                       const std::vector<NDArray>& aux) = 0;
  /*! \brief Arrays the prop did not declare as backward dependencies are none arrays. */
  virtual void Backward(const std::vector<OpReqType>& req, const std::vector<NDArray>& out_grad,
                        const std::vector<NDArray>& in_data, const std::vector<NDArray>& out_data,
                        const std::vector<NDArray>& in_grad, const std::vector<NDArray>& aux) = 0;
};

/*!
 * \brief What a custom operator declares (MXNet's CustomOpProp): names, inference rules,
 *  backward dependencies and the factory of its instances. Called in the invoking thread.
 *  Methods throw dmlc::Error on failure.
 */
class CustomOpProp {
 public:
  virtual ~CustomOpProp() = default;
  virtual std::vector<std::string> ListArguments() = 0;
  virtual std::vector<std::string> ListOutputs() = 0;
  virtual std::vector<std::string> ListAuxiliaryStates() = 0;
  /*! \brief shapes: arguments, outputs, auxiliary states in that order; arguments are given,
   *  the rest are filled in. Returns false when the shapes cannot be decided yet. */
  virtual bool InferShape(std::vector<TShape>* shapes) = 0;
  /*! \brief As InferShape for dtype flags (-1: unknown). */
  virtual bool InferType(std::vector<int>* types) = 0;
  /*! \brief Ids (from the three lists) of the arrays the backward needs; MXNet numbers
   *  out_grad 0..n_out-1, in_data n_out..n_out+n_args-1, out_data after them. */
  /*! \brief Storage types (infer_storage_type): stypes holds the arguments' (given), then
   *  the outputs' and auxiliary states' (filled in). The default: all dense when every
   *  argument is dense; false (no rule) otherwise. */
  virtual bool InferStorageType(std::vector<int>* stypes) {
    for (int s : *stypes) {
      if (s != kDefaultStorage && s != kUndefinedStorage) return false;
    }
    for (int& s : *stypes) s = kDefaultStorage;
    return true;
  }
  /*! \brief infer_storage_type_backward: stypes holds out_grad, in_data, out_data, in_grad,
   *  aux (kUndefinedStorage where unknown); all are filled in. Default as InferStorageType. */
  virtual bool InferBackwardStorageType(std::vector<int>* stypes) {
    return CustomOpProp::InferStorageType(stypes);
  }
  virtual std::vector<int> DeclareBackwardDependency(const std::vector<int>& out_grad,
                                                     const std::vector<int>& in_data,
                                                     const std::vector<int>& out_data) = 0;
  virtual std::shared_ptr<CustomOperator> CreateOperator(const Context& ctx,
                                                         const std::vector<TShape>& in_shapes,
                                                         const std::vector<int>& in_types) = 0;
};

/*! \brief Builds the prop of op_type from the call's other kwargs (as strings). */
using PropCreator = std::function<std::shared_ptr<CustomOpProp>(
    const std::string& op_type, const std::vector<std::pair<std::string, std::string>>& kwargs)>;

/*! \brief Register (or replace) the creator of op_type, as MXCustomOpRegister does. */
void RegisterCustomOp(const std::string& op_type, PropCreator creator);

/*!
 * \brief Block until every custom-operator call pushed so far has finished (or been dropped
 *  by the engine because an input failed). A front calls it, without holding its own lock
 *  (the GIL), before the process forks: the engine finishes its work before a fork, and
 *  that work may need the front. Returns at once when called from inside a callback.
 */
void WaitForCustomOps();

/*!
 * \brief Called on the thread that runs a custom operator's Forward/Backward, right before
 *  (begin) and after (end) the call, with "op_type" or "_backward_op_type"; the profiler uses
 *  it. Null (the default) turns it off.
 */
using CustomCallHook = void (*)(const std::string& name, bool begin);
void SetCustomCallHook(CustomCallHook hook);

}  // namespace custom
}  // namespace mxnet

#endif  // MXNET_OPERATOR_CUSTOM_CUSTOM_OP_H_
