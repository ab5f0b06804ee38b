// The arguments of dot and batch_dot (shared by the dense and the sparse kernels).
#ifndef MXNET_OPERATOR_TENSOR_DOT_PARAM_H_
#define MXNET_OPERATOR_TENSOR_DOT_PARAM_H_

#include <dmlc/parameter.h>

namespace mxnet {
namespace op {

struct DotParam : public dmlc::Parameter<DotParam> {
  bool transpose_a;
  bool transpose_b;
  int forward_stype;
  DMLC_DECLARE_PARAMETER(DotParam) {
    DMLC_DECLARE_FIELD(transpose_a).set_default(false)
        .describe("If true then transpose the first input before dot.");
    DMLC_DECLARE_FIELD(transpose_b).set_default(false)
        .describe("If true then transpose the second input before dot.");
    DMLC_DECLARE_FIELD(forward_stype)
        .add_enum("None", -1).add_enum("default", 0).add_enum("row_sparse", 1).add_enum("csr", 2)
        .set_default(-1)
        .describe("Storage type wanted for the output; when no sparse kernel produces it from "
                  "the inputs' storage types, the dense kernel runs and its result is "
                  "converted to it.");
  }
};

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_DOT_PARAM_H_
