// Storage-type dispatch of an imperative operator call: which kernel runs for sparse
// (row_sparse/csr) inputs or outputs, and the fallback that densifies them for dense kernels.
#ifndef MXNET_IMPERATIVE_STORAGE_DISPATCH_H_
#define MXNET_IMPERATIVE_STORAGE_DISPATCH_H_

#include <memory>
#include <vector>

#include "mxnet/imperative.h"
#include "mxnet/op_attr_types.h"

namespace mxnet {
namespace imperative {

/*! \brief MXNet's name of a storage type code: "default", "row_sparse", "csr" or "undefined". */
const char* StorageTypeName(int stype);
/*! \brief True when storage types decide how this call runs: a sparse input or out= array,
 *  or an operator declaring FInferStorageType. Otherwise it is a plain dense call. */
bool NeedsStorageDispatch(const nnvm::Op* op, const std::vector<NDArray*>& inputs,
                          const std::vector<NDArray>& outputs);
/*! \brief The dispatch mode of an operator call from storage types alone (the rule
 *  InferDispatchMode and the graph storage-type pass share). in_stypes: known; out_stypes:
 *  one per output, kUndefinedStorage where free, else a storage type the call must write
 *  (an out= array, a bound gradient). Fills out_stypes; the op's FInferStorageType may also
 *  settle inputs. kFComputeFallback (logged once) when the op has no kernel for them. */
DispatchMode ChooseDispatchMode(const nnvm::NodeAttrs& attrs, int dev_mask,
                                std::vector<int>* in_stypes, std::vector<int>* out_stypes);
/*! \brief The dispatch mode and output storage types (filled into out_stypes, one per
 *  output) of a call; kFComputeFallback when the op has no kernel for these types. */
DispatchMode InferDispatchMode(const nnvm::NodeAttrs& attrs, const Context& ctx,
                               const std::vector<NDArray*>& inputs,
                               const std::vector<NDArray>& outputs, std::vector<int>* out_stypes);
/*! \brief Storage fallback: run the op's dense kernel on dense copies of the sparse inputs,
 *  write sparse out= arrays (and sparse inputs the op mutates) back by conversion, and
 *  record the call on the original arrays. Logs once per op and storage types unless
 *  MXNET_STORAGE_FALLBACK_LOG_VERBOSE is 0. */
void InvokeFallback(const Context& default_ctx,
                    const std::shared_ptr<const nnvm::NodeAttrs>& attrs,
                    const std::vector<NDArray*>& inputs, std::vector<NDArray>* outputs,
                    const std::vector<bool>* unused);

}  // namespace imperative
}  // namespace mxnet

#endif  // MXNET_IMPERATIVE_STORAGE_DISPATCH_H_
