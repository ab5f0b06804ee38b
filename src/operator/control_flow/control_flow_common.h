// What the control-flow operators (_foreach, _while_loop, _cond) share: their subgraphs run as
// CachedOps, the parsed attrs that keep those, the gradient node and the loop's array helpers.
//
// The ops run in the calling thread (FNDArrayFunctionSkip), like _CachedOp, so they sit above
// Imperative: each step of a loop is one CachedOp::Forward of the body. What backward needs
// travels as hidden outputs of the forward node (the body's saved values and inputs of every
// step, stacked on a new axis 0), so the gradient node is an ordinary stateless node that the
// executor, CachedOp and autograd all schedule the same way.
#ifndef MXNET_OPERATOR_CONTROL_FLOW_CONTROL_FLOW_COMMON_H_
#define MXNET_OPERATOR_CONTROL_FLOW_CONTROL_FLOW_COMMON_H_

#include <any>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "imperative/cached_op.h"
#include "imperative/ndarray_function.h"
#include "mxnet/ndarray.h"
#include "mxnet/op_attr_types.h"
#include "operator/operator_common.h"
#include "operator/tuple_args.h"

namespace mxnet {
namespace op {
namespace control_flow {

using tuple_args::IntTuple;
using SubgraphOps = std::vector<std::shared_ptr<CachedOp>>;

/*! \brief The CachedOps of a node's subgraphs, built on first use (composing attaches the
 *  graphs after the kwargs are parsed) and shared by the copies of the node's attrs. */
class SubgraphCache {
 public:
  /*! \brief One CachedOp per subgraph of attrs; n: how many graphs the op takes. */
  SubgraphOps Get(const nnvm::NodeAttrs& attrs, size_t n);

 private:
  std::mutex mu_;
  std::vector<const nnvm::Symbol*> built_for_;
  SubgraphOps ops_;
};

/*! \brief attrs.parsed of a control-flow op: its parameters and its subgraphs' CachedOps. */
template <typename P>
struct FlowAttrs {
  P param;
  std::shared_ptr<SubgraphCache> cache;
};

template <typename P>
void FlowParser(nnvm::NodeAttrs* attrs) {
  ParamParser<P>(attrs);
  FlowAttrs<P> parsed{std::any_cast<P>(attrs->parsed), std::make_shared<SubgraphCache>()};
  attrs->parsed = std::move(parsed);
}

template <typename P>
const P& FlowParam(const nnvm::NodeAttrs& attrs) {
  return std::any_cast<const FlowAttrs<P>&>(attrs.parsed).param;
}

template <typename P>
SubgraphOps Subgraphs(const nnvm::NodeAttrs& attrs, size_t n) {
  return std::any_cast<const FlowAttrs<P>&>(attrs.parsed).cache->Get(attrs, n);
}

/*! \brief The subgraphs are attached (the node was composed or loaded with them). */
inline bool HasSubgraphs(const nnvm::NodeAttrs& attrs) { return !attrs.subgraphs.empty(); }

/*! \brief Checks locs: each in [0, size), naming the op and the argument. */
void CheckLocs(const nnvm::NodeAttrs& attrs, const char* arg, const IntTuple& locs, size_t size);

/*! \brief Row i of a loop's data input: data[i]; a 1-d array gives shape (1,), as in MXNet. */
NDArray DataRow(const NDArray& data, dim_t i);
/*! \brief The shape of DataRow of an array of shape s (unknown when s's ndim is). */
TShape DataRowShape(const TShape& s);
/*! \brief (n, s...): n rows of shape s (n < 0: axis 0 unknown); unknown when s's ndim is. */
TShape Stacked(dim_t n, const TShape& s);
/*! \brief s without its axis 0 (unknown when s is). */
TShape DropFirst(const TShape& s);

/*! \brief Fill the unknown dims (or dtype) of a slot from v; a known value that disagrees
 *  raises naming op and what. */
void Assign(const nnvm::NodeAttrs& attrs, const std::string& what, TShape* slot, const TShape& v);
void Assign(const nnvm::NodeAttrs& attrs, const std::string& what, int* slot, int v);
inline bool Known(const TShape& s) { return s.IsKnown(); }
/*! \brief The unknown shape / dtype. */
template <typename T>
T Unknown() {
  if constexpr (std::is_same<T, int>::value) return -1;
  else return T();
}
inline bool Known(int t) { return t >= 0; }

/*! \brief The single element of a (scalar) array, as a double, after waiting for it. */
double ScalarValue(const nnvm::NodeAttrs& attrs, const std::string& what, const NDArray& a);
/*! \brief a + b as a new array. */
NDArray Add(const NDArray& a, const NDArray& b);
/*! \brief zeros shaped like a. */
NDArray ZerosLike(const NDArray& a);

/*! \brief Runs a subgraph forward; save: keep what its backward reads (returned after the
 *  visible outputs, op->num_saved() of them). */
std::vector<NDArray> RunForward(const CachedOp& op, const std::vector<NDArray>& inputs, bool save);
/*! \brief Runs a subgraph backward: (head grads, inputs, saved) -> one gradient per input. */
std::vector<NDArray> RunBackward(const CachedOp& op, const std::vector<NDArray>& inputs);

/*! \brief Whether the forward must produce the hidden outputs [n_visible, n): some reader
 *  wants them (unused flags), else autograd records or an executor trains. */
bool WantHidden(const std::vector<bool>* unused, size_t n_visible, size_t n);

/*! \brief Arrays for every output: the caller's where given, else new ones of the inferred
 *  shapes and dtypes; the hidden outputs [n_visible, n) only when want_hidden. */
void PrepareOutputs(const nnvm::NodeAttrs& attrs, const std::vector<NDArray>& inputs,
                    size_t n_visible, bool want_hidden, std::vector<NDArray>* outputs);

/*! \brief FListOutputNames: the visible outputs named as MXNet 1.9.1 names them ("output"
 *  alone, else "output<i>"), the hidden ones "hidden<i>", so hidden outputs change no name. */
std::vector<std::string> FlowOutputNames(uint32_t n_visible, uint32_t n_outputs);

/*! \brief FGradient of a control-flow op: one node of bwd_op reading the visible outputs'
 *  gradients, the forward inputs and the hidden outputs; its outputs are the inputs' grads. */
std::vector<nnvm::NodeEntry> FlowGradient(const char* bwd_op, uint32_t n_visible,
                                          const nnvm::ObjectPtr& n,
                                          const std::vector<nnvm::NodeEntry>& ograds);

/*! \brief FInferShape / FInferType of a backward op: each gradient like its forward input
 *  (inputs: n_visible head gradients, then the forward inputs). */
template <typename T>
bool InferLikeForwardInputs(uint32_t n_visible, std::vector<T>* in, std::vector<T>* out) {
  bool known = true;
  for (size_t i = 0; i < out->size(); ++i) {
    if (!Known((*out)[i])) (*out)[i] = (*in)[n_visible + i];
    known = known && Known((*out)[i]);
  }
  return known;
}

}  // namespace control_flow
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_CONTROL_FLOW_CONTROL_FLOW_COMMON_H_
