// Executor: a Symbol bound to arrays (Symbol.bind / simple_bind), run forward and backward.
#ifndef MXNET_EXECUTOR_H_
#define MXNET_EXECUTOR_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mxnet/imperative.h"
#include "mxnet/ndarray.h"
#include "nnvm/symbol.h"

namespace nnvm {
class IndexedGraph;
}

namespace mxnet {

/*!
 * \brief A symbol bound to its argument, gradient and auxiliary arrays on one context.
 * Binding builds the forward graph plus, when some argument wants a gradient, its gradient
 * graph (the Gradient pass, as autograd uses), infers every shape and dtype once and gives
 * each entry an array. Forward and Backward push the nodes' kernels to the engine through
 * Imperative::Invoke, the path every imperative op takes.
 */
class Executor {
 public:
  /*! \brief Called with "<node>_<output name>" (or "<node>_<input name>" for inputs with
   *  monitor_all) and the array, as each node is pushed. */
  using MonitorCallback = std::function<void(const std::string& name, const NDArray& array)>;

  /*!
   * \brief Symbol.bind. in_args and arg_grads follow list_arguments, aux_states
   * list_auxiliary_states; grad_reqs holds a GradReq per argument (an argument with
   * kGradNull or a none gradient array gets no gradient). Shapes and dtypes come from the
   * arrays; a mismatch raises dmlc::Error naming the node and the shapes.
   * share_outputs_with: outputs are views of that executor's outputs where they fit (reshape).
   * group2ctx (MXNet 1.9.1's): each node runs on the context of its ctx_group (backward nodes
   * on their forward node's, other nodes on their inputs'), with _CrossDeviceCopy nodes where
   * an edge crosses contexts; empty: every node on ctx, arrays elsewhere refused.
   */
  static std::unique_ptr<Executor> Bind(const nnvm::Symbol& sym, const Context& ctx,
                                        const std::vector<NDArray>& in_args,
                                        const std::vector<NDArray>& arg_grads,
                                        const std::vector<uint32_t>& grad_reqs,
                                        const std::vector<NDArray>& aux_states,
                                        const Executor* share_outputs_with = nullptr,
                                        const std::map<std::string, Context>& group2ctx = {});

  /*!
   * \brief Symbol.simple_bind: shapes and dtypes of some inputs by name (the rest inferred;
   * float32 where nothing decides), arrays allocated and zeroed. With shared, the arguments
   * named in shared_arg_names and every auxiliary state reuse shared's arrays (same shape
   * and dtype needed), as Module's buckets share parameters. shared_buffer (may be null):
   * other arguments reuse an array of that name at least as large, and new ones are added.
   * stypes: storage types of some arguments by name (the rest: their Variable(stype=...),
   * else default); gradients and auxiliary states get the storage types the graph
   * storage-type pass infers (a row_sparse weight gradient of dot(csr, w), say).
   * group2ctx: arguments, gradients and auxiliary states of a variable with a mapped
   * ctx_group live on that context, the rest on ctx; the nodes run as Bind places them.
   */
  static std::unique_ptr<Executor> SimpleBind(
      const nnvm::Symbol& sym, const Context& ctx, const std::map<std::string, TShape>& shapes,
      const std::map<std::string, int>& dtypes, const std::vector<uint32_t>& grad_reqs,
      const Executor* shared, const std::vector<std::string>& shared_arg_names,
      std::map<std::string, NDArray>* shared_buffer,
      const std::map<std::string, int>& stypes = {},
      const std::map<std::string, Context>& group2ctx = {});

  /*!
   * \brief Executor.reshape: a new executor for new input shapes, sharing this one's
   * arrays where the shapes stay; an argument whose shape changes without being named needs
   * partial_shaping, one that grows needs allow_up_sizing (then it gets new memory).
   */
  std::unique_ptr<Executor> Reshape(const std::map<std::string, TShape>& shapes,
                                    bool partial_shaping, bool allow_up_sizing) const;

  /*! \brief Run the forward nodes (is_train: training-mode kernels, e.g. dropout). */
  void Forward(bool is_train);
  /*! \brief Run forward node `step` only (a variable: nothing) and set *step_left to the
   *  number of forward nodes after it (0 once step reaches the end). */
  void PartialForward(bool is_train, int step, int* step_left);
  /*! \brief Run the gradient nodes; head_grads one per output (none: not given). Only
   *  outputs whose gradient the graph reads need one (loss ops read none). */
  void Backward(const std::vector<NDArray>& head_grads, bool is_train = true);
  void SetMonitorCallback(MonitorCallback callback, bool monitor_all);

  const nnvm::Symbol& symbol() const { return symbol_; }
  const Context& context() const { return ctx_; }
  const std::vector<NDArray>& outputs() const { return outputs_; }
  const std::vector<NDArray>& in_args() const { return in_args_; }
  const std::vector<NDArray>& arg_grads() const { return arg_grads_; }
  const std::vector<uint32_t>& grad_reqs() const { return grad_reqs_; }
  const std::vector<NDArray>& aux_states() const { return aux_states_; }
  const std::vector<std::string>& arg_names() const { return arg_names_; }
  const std::vector<std::string>& aux_names() const { return aux_names_; }
  const std::vector<std::string>& output_names() const { return output_names_; }
  /*! \brief Text listing each node with its inputs and output shapes (MXExecutorPrint). */
  std::string DebugString() const;

  ~Executor();

 private:
  struct Plan;
  Executor() = default;
  void RunNodes(uint32_t begin, uint32_t end, bool is_train);
  static void PlanMemory(const nnvm::IndexedGraph& idx, const std::vector<bool>& is_output,
                         Plan* plan);

  nnvm::Symbol symbol_;
  Context ctx_;
  std::vector<NDArray> in_args_, arg_grads_, aux_states_, outputs_;
  std::vector<uint32_t> grad_reqs_;
  std::vector<std::string> arg_names_, aux_names_, output_names_;
  std::map<std::string, Context> group2ctx_;
  std::unique_ptr<Plan> plan_;
  MonitorCallback monitor_;
  bool monitor_all_{false};
};

}  // namespace mxnet

#endif  // MXNET_EXECUTOR_H_
