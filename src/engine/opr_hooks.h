// Optional callbacks around every engine operation, for the profiler.
#ifndef MXNET_ENGINE_OPR_HOOKS_H_
#define MXNET_ENGINE_OPR_HOOKS_H_

#include <memory>

#include "mxnet/base.h"
#include "mxnet/engine.h"

namespace mxnet {
namespace engine {

/*!
 * \brief Something a layer above attaches to an operation when it pushes it (the profiler
 *  uses it for the op's arguments and input shapes). The engine only keeps and passes it on.
 */
struct OprDetail {
  virtual ~OprDetail() = default;
};

/*! \brief What a hook learns about one run of an operation. */
struct OprExecInfo {
  const char* name;                           // opr_name as pushed (not copied; may be null)
  Context ctx;                                // the exec context it was pushed with
  FnProperty prop;
  const void* id;                             // the same value at start and end of one run
  const std::shared_ptr<const OprDetail>* detail;  // what SetNextOprDetail attached, or null
};

/*!
 * \brief Attach detail to the next operation this thread pushes (PushAsync, PushSync or
 *  NewOperator); the hooks of its runs see it. Call it right before the push.
 */
void SetNextOprDetail(std::shared_ptr<const OprDetail> detail);

/*!
 * \brief on_start runs on the worker thread (so std::this_thread::get_id() names the worker)
 * right before the op's function; on_end runs where the op completes: the same worker for
 * synchronous functions, the thread that calls on_complete for asynchronous ones. Ops skipped
 * because an input holds an exception get neither. Null turns a hook off (the default).
 */
using OprHook = void (*)(const OprExecInfo& info);
void SetOprHooks(OprHook on_start, OprHook on_end);

}  // namespace engine
}  // namespace mxnet

#endif  // MXNET_ENGINE_OPR_HOOKS_H_
