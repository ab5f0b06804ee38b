// _CrossDeviceCopy: the copy node a group2ctx executor puts on an edge between two contexts
// (MXNet 1.9.1's name). The executor runs it as CopyFromTo; its kernel copies host memory.
#include <vector>

#include "operator/operator_common.h"
#include "operator/tensor/strided_copy.h"

namespace mxnet {
namespace op {
namespace {

void CrossDeviceCopyCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                            const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  CopyElements(out[0].type_flag_, in[0].dptr_, out[0].dptr_, out[0].Size(), req[0]);
}

}  // namespace

NNVM_REGISTER_OP(_CrossDeviceCopy)
    .describe("Copies the input to the context of the node reading it (inserted by the "
              "executor between nodes of different ctx_group contexts).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The array to copy.")
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", CrossDeviceCopyCompute);

}  // namespace op
}  // namespace mxnet
