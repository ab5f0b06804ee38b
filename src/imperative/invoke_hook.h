// An optional callback in Imperative::Invoke that annotates the op it pushes, for the profiler.
#ifndef MXNET_IMPERATIVE_INVOKE_HOOK_H_
#define MXNET_IMPERATIVE_INVOKE_HOOK_H_

#include <memory>
#include <vector>

#include "engine/opr_hooks.h"
#include "mxnet/imperative.h"

namespace mxnet {
namespace imperative {

/*!
 * \brief Runs in the invoking thread right before the op's kernel is pushed; what it returns
 *  is attached to that engine operation (engine::SetNextOprDetail). Null (the default) turns
 *  it off, and then Invoke pays one load and one branch.
 */
using InvokeHook = std::shared_ptr<const engine::OprDetail> (*)(
    const std::shared_ptr<const nnvm::NodeAttrs>& attrs, const std::vector<NDArray*>& inputs);
void SetInvokeHook(InvokeHook hook);

}  // namespace imperative
}  // namespace mxnet

#endif  // MXNET_IMPERATIVE_INVOKE_HOOK_H_
