// MXNet's reshape rule, the one the Reshape operator and NDArray.reshape (C API and Python)
// share: special values 0, -1, -2, -3, -4 and reverse.
#ifndef MXNET_OPERATOR_TENSOR_RESHAPE_RULE_H_
#define MXNET_OPERATOR_TENSOR_RESHAPE_RULE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "mxnet/base.h"

namespace mxnet {
namespace op {

/*!
 * \brief The shape spec gives src: 0 copies an input dim, -1 infers one dim, -2 copies the
 *  rest, -3 merges two input dims, -4 splits one into the two values that follow (one may be
 *  -1); reverse applies the spec from the right (spec and src reversed, as MXNet 1.9 does).
 *  A malformed spec throws dmlc::Error naming op_name and argument shape. The result may
 *  differ in size from src: callers decide what that means (the operator and the C API raise
 *  MXNetError, NDArray.reshape in Python ValueError, as MXNet 1.9.1).
 */
TShape InferReshapeShape(const std::vector<int64_t>& spec, const TShape& src, bool reverse,
                         const std::string& op_name = "Reshape");

/*! \brief The text of spec as the Reshape operator's shape argument ("(2,-1)", "(5,)"). */
std::string ReshapeSpecText(const std::vector<int64_t>& spec);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_RESHAPE_RULE_H_
