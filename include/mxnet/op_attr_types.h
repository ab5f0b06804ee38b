// The typed attributes an operator declares (kernels, inference rules, gradient, resources).
#ifndef MXNET_OP_ATTR_TYPES_H_
#define MXNET_OP_ATTR_TYPES_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "mxnet/base.h"
#include "mxnet/tensor_blob.h"
#include "nnvm/node.h"
#include "nnvm/op.h"

namespace mxnet {

class NDArray;
namespace engine {
struct Var;
}  // namespace engine
namespace resource {
class TempSpace;
}  // namespace resource

/*! \brief Extra resources an operator asks for. */
struct ResourceRequest {
  enum Type { kRandom = 0, kTempSpace = 1, kParallelRandom = 2 };
  Type type;
  ResourceRequest(Type t) : type(t) {}  // NOLINT(runtime/explicit)
};

/*! \brief A resource handed to one operator call by the resource manager
 *  (src/imperative/op_resource.h), as the op's FResourceRequest asked. */
struct Resource {
  ResourceRequest req;
  /*! \brief Engine variable the call writes, so the users of one temp-space copy run one at a
   *  time; null for random streams, which need no serializing. */
  engine::Var* var{nullptr};
  /*! \brief The temp-space copy (kTempSpace only). */
  resource::TempSpace* space{nullptr};
};

/*! \brief What a kernel gets besides its inputs and outputs. */
struct OpContext {
  bool need_grad{false};
  bool is_train{false};
  RunContext run_ctx;
  /*! \brief Counter-based random stream of this operator call: a kernel draws element i from
   *  Philox(key = random_seed, counter = (random_stream, i)), so results do not depend on
   *  how the work is split between threads. */
  uint64_t random_seed{0};
  uint64_t random_stream{0};
  /*! \brief Name of the operator, for errors raised by the kernel. */
  const char* op_name{""};
  /*! \brief The resources the op declared in FResourceRequest, in declaration order. */
  std::vector<Resource> requested;
  /*! \brief Scratch memory of at least bytes (kStorageAlign-aligned), valid until the kernel
   *  returns, from the op's declared kTempSpace resource (Storage memory, so the memory
   *  profiler and the storage counters see it). An op that did not declare kTempSpace gets
   *  dmlc::Error naming it: undeclared use is impossible. */
  void* RequestTempSpace(size_t bytes) const;
};

using FCompute = std::function<void(const nnvm::NodeAttrs& attrs, const OpContext& ctx,
                                    const std::vector<TBlob>& inputs,
                                    const std::vector<OpReqType>& req,
                                    const std::vector<TBlob>& outputs)>;
/*! \brief Fill unknown input/output shapes from known ones; false when not yet decidable.
 *  Throws dmlc::Error (op, argument, expected, given) on inconsistent shapes. */
using FInferShape = std::function<bool(const nnvm::NodeAttrs& attrs, std::vector<TShape>* in,
                                       std::vector<TShape>* out)>;
/*! \brief As FInferShape for dtypes; -1 means unknown. */
using FInferType = std::function<bool(const nnvm::NodeAttrs& attrs, std::vector<int>* in,
                                      std::vector<int>* out)>;
/*! \brief Gradient of the node's inputs, built from other registered ops. ograds has one
 *  entry per output; returns one entry per input. */
using FGradient = std::function<std::vector<nnvm::NodeEntry>(
    const nnvm::ObjectPtr& node, const std::vector<nnvm::NodeEntry>& ograds)>;
/*! \brief Pairs (input index, output index) that may share memory. */
using FInplaceOption = std::function<std::vector<std::pair<int, int>>(const nnvm::NodeAttrs&)>;
using FResourceRequest = std::function<std::vector<ResourceRequest>(const nnvm::NodeAttrs&)>;
using FListInputNames = std::function<std::vector<std::string>(const nnvm::NodeAttrs&)>;
using FListOutputNames = std::function<std::vector<std::string>(const nnvm::NodeAttrs&)>;
/*! \brief Indices of inputs the op also writes (optimizer updates, aux states). */
using FMutateInputs = std::function<std::vector<uint32_t>(const nnvm::NodeAttrs&)>;
/*! \brief Indices of inputs the op overwrites although they stay ordinary arguments (unlike
 *  FMutateInputs, they are not auxiliary states): BatchNorm with fix_gamma=True writes 1 into
 *  gamma, as MXNet 1.9.1 does. Whoever schedules the op must list these inputs' variables
 *  among its engine writes, so the write is ordered after earlier readers and before later
 *  ones: Imperative::Invoke does, and a graph executor must do the same (and must not share
 *  such an input's memory with another node's output). list_arguments and
 *  list_auxiliary_states ignore this attribute. */
using FWriteArguments = std::function<std::vector<uint32_t>(const nnvm::NodeAttrs&)>;
/*! \brief Called when a symbol is composed (and for old JSON files) on each input that is a
 *  variable, with its input index: sets default attrs such as BatchNorm's moving-mean init. */
using FSetInputVarAttrOnCompose =
    std::function<void(const nnvm::NodeAttrs& attrs, nnvm::ObjectPtr var, int index)>;
/*! \brief Number of outputs visible to the user (the rest are internal). */
using FNumVisibleOutputs = std::function<uint32_t(const nnvm::NodeAttrs&)>;
/*! \brief An operator computed on NDArrays in the calling thread instead of a kernel pushed to
 *  the engine (e.g. a Python autograd.Function's backward); it may invoke other operators. */
using FNDArrayFunction = std::function<void(const nnvm::NodeAttrs& attrs,
                                            const std::vector<NDArray>& inputs,
                                            std::vector<NDArray>* outputs)>;
/*! \brief Indices of the op's positional arguments that are graphs (a Symbol kept in
 *  NodeAttrs::subgraphs, not an input): _foreach {0}, _while_loop {0, 1}, _cond {0, 1, 2}. */
using FInputGraph = std::function<std::vector<uint32_t>(const nnvm::NodeAttrs&)>;
/*! \brief How an operator call runs, given its inputs' and outputs' storage types. */
enum class DispatchMode {
  kUndefined = -1,
  kFCompute,          // dense kernel (FCompute) on TBlobs
  kFComputeEx,        // storage-aware kernel (FComputeEx) on NDArrays
  kFComputeFallback,  // sparse inputs densified, the dense kernel, outputs cast back
  kVariable,
};
/*! \brief Fill unknown output (and input) storage types and pick the dispatch mode; false
 *  when not decidable. Operators without it run dense kernels, densifying sparse inputs. */
using FInferStorageType = std::function<bool(const nnvm::NodeAttrs& attrs, int dev_mask,
                                             DispatchMode* dispatch_mode,
                                             std::vector<int>* in_stypes,
                                             std::vector<int>* out_stypes)>;
/*! \brief A storage-aware kernel: reads sparse inputs and writes outputs of the storage types
 *  FInferStorageType chose (calling CheckAndAlloc on sparse outputs). Registered as
 *  "FComputeEx<cpu>". */
using FComputeEx = std::function<void(const nnvm::NodeAttrs& attrs, const OpContext& ctx,
                                      const std::vector<NDArray>& inputs,
                                      const std::vector<OpReqType>& req,
                                      const std::vector<NDArray>& outputs)>;
/*! \brief True for ops whose outputs are not differentiable (comparison, argmax, ...). */
using TIsNonDifferentiable = bool;

}  // namespace mxnet

#endif  // MXNET_OP_ATTR_TYPES_H_
