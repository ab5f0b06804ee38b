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
  // numpy-shape semantics (NumpyShape in base.h), thread-local or global, as in MXNet.
  /*! \brief kNumpyShapeGlobalOn when set for every thread, else this thread's state. */
  int is_np_shape() const;
  /*! \brief Set a NumpyShape value: GlobalOn turns it on for all threads, ThreadLocalOn for this
   *  thread, Off turns off both (this thread's and the global flag). Returns whether it was on
   *  (0 or 1, as MXNet returns it). */
  int set_is_np_shape(int flag);

  /*!
   * \brief Run attrs.op on inputs. outputs: empty to allocate new arrays, or exactly the op's
   * number of outputs for out= (their shape and dtype must match what the op infers).
   * Infers shape and dtype synchronously (errors raise here), pushes the kernel to the engine,
   * and records the call when autograd is recording. ctx is used when the op has no inputs.
   * unused (optional, one flag per output): outputs nobody will read; the kernel gets
   * kNullOp for them and may skip their work (backward's gradients of inputs that need none).
   */
  void Invoke(const Context& default_ctx, const std::shared_ptr<const nnvm::NodeAttrs>& attrs,
              const std::vector<NDArray*>& inputs, std::vector<NDArray>* outputs,
              const std::vector<bool>* unused = nullptr);
  /*! \brief Build parsed attrs for op from text kwargs; throws dmlc::Error naming the op.
   *  num_inputs >= 0: a variadic op's count argument (num_args) defaults to it, as in MXNet. */
  static std::shared_ptr<const nnvm::NodeAttrs> ParseAttrs(
      const nnvm::Op* op, std::unordered_map<std::string, std::string> kwargs,
      int num_inputs = -1);
  /*!
   * \brief The invoke both fronts share (MXImperativeInvoke and Python's mx.nd functions).
   * out empty: returns the op's visible outputs (FNumVisibleOutputs). Otherwise out holds all
   * the outputs or only the visible ones: with all of them, none empty, the op writes into them;
   * else an empty (none) array takes its result itself and another receives a copy. Either way
   * out's arrays carry the autograd record and are returned.
   */
  std::vector<NDArray> InvokeOp(const Context& default_ctx,
                                const std::shared_ptr<const nnvm::NodeAttrs>& attrs,
                                const std::vector<NDArray*>& inputs,
                                const std::vector<NDArray*>& out);
  /*! \brief How many outputs of attrs.op users see (the rest are internal). */
  static uint32_t NumVisibleOutputs(const nnvm::NodeAttrs& attrs);

  /*! \brief Record outputs already computed from inputs as one node of attrs.op (when
   *  recording and some input is tracked); used for autograd.Function. */
  void RecordExisting(const nnvm::NodeAttrs& attrs, const std::vector<NDArray*>& inputs,
                      const std::vector<NDArray*>& outputs);

  /*!
   * \brief NDArray.reshape for both fronts: a view of src (no copy) in the shape MXNet's reshape
   * rule gives spec (special values 0, -1, -2, -3, -4; reverse), recorded as a Reshape node
   * when autograd records and src is tracked, so gradients flow. A malformed spec throws
   * dmlc::Error, so does a target larger than src; a smaller one throws std::invalid_argument,
   * which Python raises as ValueError (both as MXNet 1.9.1).
   */
  NDArray ReshapeWithRecord(const NDArray& src, const std::vector<int64_t>& spec, bool reverse);

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
