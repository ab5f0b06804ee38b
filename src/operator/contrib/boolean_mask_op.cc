// _contrib_boolean_mask: the slices of data along axis 0 where index is non-zero (MXNet
// 1.9.1). The output's shape depends on index's values, so the op runs in the calling thread
// (FNDArrayFunction) once index is ready; its gradient scatters the output gradient back.
#include <algorithm>
#include <vector>

#include "common/type_switch.h"
#include "mxnet/ndarray.h"
#include "operator/tensor/matrix_op_common.h"

namespace mxnet {
namespace op {

struct BooleanMaskParam : public dmlc::Parameter<BooleanMaskParam> {
  int axis;
  DMLC_DECLARE_PARAMETER(BooleanMaskParam) {
    DMLC_DECLARE_FIELD(axis).set_default(0).describe(
        "An integer that represents the axis in NDArray to mask from.");
  }
};
DMLC_REGISTER_PARAMETER(BooleanMaskParam);

namespace {

// The rows of data (along axis 0) index keeps, checking the arguments.
std::vector<index_t> KeptRows(const NodeAttrs& attrs, const NDArray& data, const NDArray& index) {
  CHECK_EQ(Param<BooleanMaskParam>(attrs).axis, 0)
      << "Operator " << attrs.op->name << ": argument axis expected 0 (the only axis MXNet "
      << "1.9.1 masks), given " << Param<BooleanMaskParam>(attrs).axis;
  CHECK_GE(data.shape().ndim(), 1) << "Operator " << attrs.op->name
                                   << ": argument data must have at least 1 dimension";
  CHECK(index.shape().ndim() == 1 && index.shape()[0] == data.shape()[0])
      << "Operator " << attrs.op->name << ": argument index expected shape ("
      << data.shape()[0] << ",), given " << index.shape();
  index.WaitToRead();
  std::vector<index_t> kept;
  const TBlob ib = index.data();
  MXNET_TYPE_SWITCH(ib.type_flag_, IType, {
    const IType* p = ib.dptr<IType>();
    for (index_t i = 0; i < static_cast<index_t>(ib.Size()); ++i) {
      if (static_cast<double>(p[i]) != 0) kept.push_back(i);
    }
  });
  return kept;
}

void BooleanMaskForward(const NodeAttrs& attrs, const std::vector<NDArray>& inputs,
                        std::vector<NDArray>* outputs) {
  const NDArray& data = inputs[0];
  const std::vector<index_t> kept = KeptRows(attrs, data, inputs[1]);
  TShape s = data.shape();
  const index_t row = static_cast<index_t>(s.Size()) / (s[0] > 0 ? s[0] : 1);
  s[0] = static_cast<dim_t>(kept.size());
  NDArray out(s, data.ctx(), false, data.dtype());
  data.WaitToRead();
  const TBlob db = data.data(), ob = out.data();
  MXNET_TYPE_SWITCH(db.type_flag_, DType, {
    const DType* src = db.dptr<DType>();
    DType* dst = ob.dptr<DType>();
    for (size_t k = 0; k < kept.size(); ++k) {
      std::copy(src + kept[k] * row, src + (kept[k] + 1) * row, dst + k * row);
    }
  });
  outputs->clear();
  outputs->push_back(out);
}

// (ograd, data, index) -> d data: ograd's rows back where index is non-zero, zeros elsewhere.
void BooleanMaskBackward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TBlob& og = in[0];
  const TShape& s = out[0].shape_;
  const index_t rows = s[0], row = rows > 0 ? static_cast<index_t>(s.Size()) / rows : 0;
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* g = og.dptr<DType>();
    DType* d = out[0].dptr<DType>();
    index_t k = 0;
    MXNET_TYPE_SWITCH(in[2].type_flag_, IType, {
      const IType* idx = in[2].dptr<IType>();
      for (index_t i = 0; i < rows; ++i) {
        const bool keep = static_cast<double>(idx[i]) != 0;
        for (index_t j = 0; j < row; ++j) {
          Assign(d + i * row + j, req[0], keep ? g[k * row + j] : DType(0));
        }
        if (keep) ++k;
      }
    });
  });
}

std::vector<NodeEntry> BooleanMaskGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {GradNode(n, "_backward_contrib_boolean_mask", {og[0], n->inputs[0], n->inputs[1]}),
          ZeroGradOf(n, 1)};
}

}  // namespace

NNVM_REGISTER_OP(_contrib_boolean_mask)
    .describe("Given an n-dimensional array data and a 1-dimensional array index, returns the "
              "slices of data along axis 0 where index is non-zero (numpy's data[index != 0]). "
              "The output's shape is known only when the op runs, so it works on NDArrays "
              "(imperatively), not in bound symbols.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<BooleanMaskParam>)
    .add_argument("data", "NDArray-or-Symbol", "Data")
    .add_argument("index", "NDArray-or-Symbol", "Mask")
    .add_arguments(BooleanMaskParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data", "index"}))
    .set_attr<FNDArrayFunction>("FNDArrayFunction", BooleanMaskForward)
    .set_attr<FGradient>("FGradient", BooleanMaskGrad);

NNVM_REGISTER_OP(_backward_contrib_boolean_mask)
    .describe("Gradient of _contrib_boolean_mask: (ograd, data, index) -> d data.")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<BooleanMaskParam>)
    .set_attr<FInferShape>("FInferShape", OutputLikeInputShape(1))
    .set_attr<FInferType>("FInferType", OutputLikeInputType(1))
    .set_attr<FCompute>("FCompute<cpu>", BooleanMaskBackward);

}  // namespace op
}  // namespace mxnet
