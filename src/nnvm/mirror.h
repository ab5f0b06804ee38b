// Backward mirroring: forward values cheap to recompute are recomputed in backward, not kept.
#ifndef MXNET_NNVM_MIRROR_H_
#define MXNET_NNVM_MIRROR_H_

#include <cstddef>
#include <vector>

#include "nnvm/node.h"
#include "nnvm/op.h"

namespace nnvm {

/*!
 * \brief Whether a node of op with attrs computes a result that depends only on its inputs
 * and attributes, so that two such nodes may be merged (common-expression elimination) or one
 * recomputed (mirroring): not when the op uses random numbers, writes an input, runs in the
 * calling thread, or holds graphs (control flow).
 */
bool IsDeterministicOp(const Op* op, const NodeAttrs& attrs);

/*!
 * \brief Whether node's outputs may be recomputed in backward instead of kept from forward
 * (MXNet 1.9.1's rule, made safe): never a variable, a node without inputs, Dropout, or an
 * op whose result is not a function of its inputs and attributes (random numbers,
 * calling-thread kernels, control flow, ops writing inputs), batch normalization excepted (its copy writes its moving
 * statistics to scratch copies, so they are updated once). Otherwise yes when the node's
 * `__force_mirroring__` attribute is true, or when do_mirror is set and the op is not one of
 * the costly ones that are always kept (Convolution, FullyConnected, Concat, SoftmaxOutput).
 * A malformed `__force_mirroring__` raises an error naming the node.
 */
bool NeedMirror(const Node& node, bool do_mirror);

/*!
 * \brief Rewrites the gradient graph grads of fwd_outputs so that each backward node reads the
 * outputs of mirror copies ("<name>_mirror") of the forward nodes NeedMirror accepts instead of
 * the forward nodes themselves. A copy reads the copies of its mirrored inputs, so a chain of
 * such nodes is recomputed from the nearest kept values (variables, nodes that are not
 * mirrored, graph outputs: those are kept anyway). The forward graph is left alone; nodes that
 * read only their input's shape (zeros_like, ones_like) keep the forward value. Returns how
 * many copies backward now uses.
 */
size_t MirrorBackward(const std::vector<NodeEntry>& fwd_outputs,
                      std::vector<NodeEntry>* grads, bool do_mirror);

/*!
 * \brief MirrorBackward as the executor and CachedOp apply it after the Gradient pass:
 * do_mirror from MXNET_BACKWARD_DO_MIRROR (any value but 0). With the variable unset and no
 * node forced, grads is left as it is.
 */
size_t MirrorBackward(const std::vector<NodeEntry>& fwd_outputs,
                      std::vector<NodeEntry>* grads);

}  // namespace nnvm

#endif  // MXNET_NNVM_MIRROR_H_
