// Storage-type inference over a graph (MXNet's InferStorageType pass): the storage type of
// every entry (default, row_sparse, csr) and the dispatch mode of every operator node.
#ifndef MXNET_EXECUTOR_INFER_STORAGE_TYPE_H_
#define MXNET_EXECUTOR_INFER_STORAGE_TYPE_H_

#include <map>
#include <string>
#include <vector>

#include "mxnet/op_attr_types.h"
#include "nnvm/graph.h"
#include "nnvm/symbol.h"

namespace mxnet {
namespace exec {

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

/*! \brief Storage types simple_bind gives its arrays, one per argument / auxiliary state /
 *  argument (gradient; kUndefinedStorage where no gradient is wanted). */
struct BindStorageTypes {
  std::vector<int> args, aux, grads;
};
/*! \brief Infer them over sym's forward + gradient graph: an argument's storage type is
 *  given[name], else its "__storage_type__" attribute, else default; reqs: a GradReq per
 *  argument (kGradNull: no gradient). */
BindStorageTypes InferBindStorageTypes(const nnvm::Symbol& sym,
                                       const std::map<std::string, int>& given,
                                       const std::vector<uint32_t>& reqs, int dev_mask);

}  // namespace exec
}  // namespace mxnet

#endif  // MXNET_EXECUTOR_INFER_STORAGE_TYPE_H_
