// Storage types of the arrays simple_bind allocates: the graph storage-type pass
// (imperative/infer_storage_type.h) over a symbol's forward + gradient graph.
#ifndef MXNET_EXECUTOR_BIND_STORAGE_TYPES_H_
#define MXNET_EXECUTOR_BIND_STORAGE_TYPES_H_

#include <map>
#include <string>
#include <vector>

#include "nnvm/symbol.h"

namespace mxnet {
namespace exec {

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

#endif  // MXNET_EXECUTOR_BIND_STORAGE_TYPES_H_
