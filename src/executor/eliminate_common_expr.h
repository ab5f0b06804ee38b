// Common-subexpression elimination on a symbol's graph (MXNET_ELIMINATE_COMMON_EXPR).
#ifndef MXNET_EXECUTOR_ELIMINATE_COMMON_EXPR_H_
#define MXNET_EXECUTOR_ELIMINATE_COMMON_EXPR_H_

#include "nnvm/symbol.h"

namespace mxnet {

/*!
 * \brief A copy of sym's graph (sym itself is left alone) where nodes computing the same
 * thing are merged, repeated until nothing more merges: two op nodes are the same when they
 * read the same entries, have the same op and the same attribute strings, and the op is
 * deterministic (no random resource, no stateful or in-calling-thread kernel, no written
 * inputs). Variables are never merged. An output that ends up repeated gets a `_copy` node
 * ("<node>_<k>_copy"), so each output keeps its own array. Arguments and auxiliary states
 * keep their order.
 */
nnvm::Symbol EliminateCommonExpr(const nnvm::Symbol& sym);

}  // namespace mxnet

#endif  // MXNET_EXECUTOR_ELIMINATE_COMMON_EXPR_H_
