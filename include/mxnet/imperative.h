// Imperative execution: run one operator on NDArrays through the engine, and autograd.
#ifndef MXNET_IMPERATIVE_H_
#define MXNET_IMPERATIVE_H_

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "mxnet/ndarray.h"
#include "mxnet/op_attr_types.h"

namespace mxnet {

/*! \brief Gradient request of a variable; values match MXNet's OpReqType names. */
enum GradReq : uint32_t { kGradNull = 0, kGradWrite = 1, kGradAdd = 3 };

class Imperative {
 public:
  static Imperative* Get();

  // Thread-local autograd state, as in MXNet.
  bool is_recording() const;
  bool set_is_recording(bool recording);  // returns the previous value
  bool is_training() const;
  bool set_is_training(bool training);

  /*!
   * \brief Run attrs.op on inputs. outputs: empty to allocate new arrays, or exactly the op's
   * number of outputs for out= (their shape and dtype must match what the op infers).
   * Infers shape and dtype synchronously (errors raise here), pushes the kernel to the engine,
   * and records the call when autograd is recording. ctx is used when the op has no inputs.
   */
  void Invoke(const Context& default_ctx, const std::shared_ptr<const nnvm::NodeAttrs>& attrs,
              const std::vector<NDArray*>& inputs, std::vector<NDArray>* outputs);
  /*! \brief Build parsed attrs for op from text kwargs; throws dmlc::Error naming the op. */
  static std::shared_ptr<const nnvm::NodeAttrs> ParseAttrs(
      const nnvm::Op* op, std::unordered_map<std::string, std::string> kwargs);

  /*! \brief Record outputs already computed from inputs as one node of attrs.op (when
   *  recording and some input is tracked); used for autograd.Function. */
  void RecordExisting(const nnvm::NodeAttrs& attrs, const std::vector<NDArray*>& inputs,
                      const std::vector<NDArray*>& outputs);

  /*! \brief Mark arrays as variables whose gradients land in gradients (grad_reqs per array). */
  void MarkVariables(const std::vector<NDArray*>& variables, const std::vector<uint32_t>& grad_reqs,
                     const std::vector<NDArray*>& gradients);
  /*! \brief The gradient buffer attached to a marked variable; none otherwise. */
  NDArray GetGrad(const NDArray& var) const;
  /*! \brief The grad_req of a marked variable (kGradNull when not marked). */
  uint32_t GetGradReq(const NDArray& var) const;
  /*! \brief Whether backward wrote var's gradient since the flag was last cleared (MXNet's
   *  fresh_out_grad, NDArray._fresh_grad); false for arrays that are not marked variables. */
  bool GetFreshGrad(const NDArray& var) const;
  /*! \brief Set or clear that flag; throws dmlc::Error unless var is a marked variable. */
  void SetFreshGrad(const NDArray& var, bool fresh) const;
  /*! \brief Drop the autograd record of arr (it becomes a constant). */
  void Detach(NDArray* arr) const { arr->set_entry(nnvm::NodeEntry()); }

  /*!
   * \brief Backpropagate from outputs (head gradients ograds; null entries mean ones).
   * With variables empty, gradients accumulate into the marked variables' buffers per grad_req
   * and an empty vector is returned; otherwise the gradients of variables are returned
   * (autograd.grad). create_graph records the backward computation for higher order.
   */
  std::vector<NDArray> Backward(const std::vector<NDArray*>& outputs,
                                const std::vector<NDArray*>& ograds,
                                const std::vector<NDArray*>& variables, bool is_train,
                                bool retain_graph, bool create_graph);

  /*! \brief Seed the random streams of one device, or of every device when ctx is null. */
  void SeedRandom(uint64_t seed, const Context* ctx);
};

}  // namespace mxnet

#endif  // MXNET_IMPERATIVE_H_
