// The custom-operator worker threads (MXNet's CustomOperator threads): where the front-end
// callbacks of custom operators run, so the engine's workers never wait for the front.
#ifndef MXNET_OPERATOR_CUSTOM_CUSTOM_OP_WORKER_H_
#define MXNET_OPERATOR_CUSTOM_CUSTOM_OP_WORKER_H_

#include <functional>

namespace mxnet {
namespace custom {

/*!
 * \brief Run task on a custom-op worker thread. Tasks start in push order; a thread is added
 *  when every existing one is busy, up to MXNET_CUSTOM_OP_NUM_THREADS, so a custom operator
 *  that waits for another one (nested custom operators) does not stall the queue below that
 *  depth. The threads live until the process exits. task must not throw.
 */
void PushToCustomOpWorker(std::function<void()> task);

}  // namespace custom
}  // namespace mxnet

#endif  // MXNET_OPERATOR_CUSTOM_CUSTOM_OP_WORKER_H_
