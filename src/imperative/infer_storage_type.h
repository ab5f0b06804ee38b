// Storage-type inference over a graph (MXNet's InferStorageType pass): the storage type of
// every entry (default, row_sparse, csr) and the dispatch mode of every operator node.
#ifndef MXNET_IMPERATIVE_INFER_STORAGE_TYPE_H_
#define MXNET_IMPERATIVE_INFER_STORAGE_TYPE_H_

#include <vector>

#include "mxnet/op_attr_types.h"
#include "nnvm/graph.h"

namespace mxnet {
namespace imperative {

/*! \brief The storage type a variable asks for with its "__storage_type__" attribute
 *  (Variable(stype=...)), or kUndefinedStorage without one. */
int VariableStorageType(const nnvm::Node& var);

/*!
 * \brief Fill stypes (one per entry of idx) and return each node's dispatch mode
 * (kVariable for variables). Entries set on entry are kept: for a variable, its bound
 * array's storage type; for an operator output, a storage type the node must write (a bound
 * gradient array). A variable left undefined takes its "__storage_type__" attribute, else
 * default. Nodes are visited in topological order, so each node's inputs are known there and
 * one visit decides it, by the rule imperative calls use (ChooseDispatchMode: the op's
 * FInferStorageType; an op without one is dense; no kernel for the storage types: the dense
 * kernel on densified inputs, kFComputeFallback). An error of an operator's inference is
 * raised as dmlc::Error naming the node. MXNET_INFER_STORAGE_TYPE_VERBOSE_LOGGING=1 logs
 * every node's storage types and dispatch mode.
 */
std::vector<DispatchMode> InferStorageTypes(const nnvm::IndexedGraph& idx, int dev_mask,
                                            std::vector<int>* stypes);

}  // namespace imperative
}  // namespace mxnet

#endif  // MXNET_IMPERATIVE_INFER_STORAGE_TYPE_H_
