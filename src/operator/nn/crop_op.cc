// Crop (deprecated in MXNet for slice): crops the two spatial axes of NCHW data to h_w, or to
// the size of a second input, at offset or centred; the gradient pads back with zeros.
#include <string>

#include "common/type_switch.h"
#include "operator/nn/nn_common.h"
#include "operator/tuple_args.h"

namespace mxnet {
namespace op {

struct CropParam : public dmlc::Parameter<CropParam> {
  int num_args;
  ShapeArg offset;
  ShapeArg h_w;
  bool center_crop;
  DMLC_DECLARE_PARAMETER(CropParam) {
    DMLC_DECLARE_FIELD(num_args).set_range(1, 3).describe(
        "Number of inputs for crop: 1 for data only (size from h_w), 2 to crop data to the "
        "height and width of crop_like");
    DMLC_DECLARE_FIELD(offset).set_default(ShapeArg(TShape({0, 0}))).describe(
        "crop offset coordinate: (y, x)");
    DMLC_DECLARE_FIELD(h_w).set_default(ShapeArg(TShape({0, 0}))).describe(
        "crop height and width: (h, w)");
    DMLC_DECLARE_FIELD(center_crop).set_default(false).describe(
        "If set to true, then it will use be the center_crop, or it will crop using the shape "
        "of crop_like");
  }
};
DMLC_REGISTER_PARAMETER(CropParam);

namespace {

struct CropBox {
  index_t h, w, y, x;  // size and top-left corner
};

CropBox MakeBox(const NodeAttrs& attrs, const TShape& data, const TShape* like) {
  const CropParam& p = Param<CropParam>(attrs);
  const std::string& op = attrs.op->name;
  CHECK_EQ(data.ndim(), 4) << "Operator " << op << ": data expected 4 dims (NCHW), given "
                           << "shape " << data;
  CHECK_EQ(p.offset.ndim(), 2) << "Operator " << op << ": argument offset expected (y, x), "
                               << "given " << p.offset;
  CHECK_EQ(p.h_w.ndim(), 2) << "Operator " << op << ": argument h_w expected (h, w), given "
                            << p.h_w;
  CropBox b;
  if (like != nullptr) {
    CHECK_GE(like->ndim(), 4) << "Operator " << op << ": crop_like expected 4 dims, given "
                              << "shape " << *like;
    b.h = (*like)[2];
    b.w = (*like)[3];
  } else {
    b.h = p.h_w[0];
    b.w = p.h_w[1];
    CHECK(b.h > 0 && b.w > 0) << "Operator " << op << ": with one input, argument h_w must "
                              << "give the crop size, given " << p.h_w;
  }
  if (p.center_crop) {
    b.y = (data[2] - b.h) / 2;
    b.x = (data[3] - b.w) / 2;
  } else {
    b.y = p.offset[0];
    b.x = p.offset[1];
  }
  CHECK(b.y >= 0 && b.x >= 0 && b.y + b.h <= data[2] && b.x + b.w <= data[3])
      << "Operator " << op << ": the crop of size (" << b.h << ", " << b.w << ") at (" << b.y
      << ", " << b.x << ") does not fit in data of shape " << data;
  return b;
}

uint32_t NumInputs(const NodeAttrs& attrs) {
  return static_cast<uint32_t>(Param<CropParam>(attrs).num_args);
}

std::vector<std::string> InputNamesOf(const NodeAttrs& attrs) {
  if (Param<CropParam>(attrs).num_args == 1) return {"data"};
  return {"data", "crop_like"};
}

bool CropShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  CHECK_LE(in->size(), 2U) << "Operator " << attrs.op->name << ": takes 1 or 2 inputs";
  const TShape& d = (*in)[0];
  if (!d.IsKnown() || (in->size() == 2 && !(*in)[1].IsKnown())) return false;
  const CropBox b = MakeBox(attrs, d, in->size() == 2 ? &(*in)[1] : nullptr);
  AssignShape(attrs, "output", &(*out)[0], TShape({d[0], d[1], b.h, b.w}));
  return true;
}

bool CropType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  if ((*in)[0] < 0) return false;
  AssignType(attrs, "output", &(*out)[0], (*in)[0]);
  return true;
}

// Copies the box of the big (N, C, H, W) array to or from the small (N, C, h, w) one.
template <typename DType>
void CopyBox(const TShape& big, const CropBox& b, DType* big_data, DType* small,
             bool to_small, OpReqType req) {
  const index_t planes = big[0] * big[1], H = big[2], W = big[3];
  LoopMaybeParallel(planes * b.h * b.w >= ParallelGrain(), planes, [&](index_t plane) {
    for (index_t r = 0; r < b.h; ++r) {
      DType* brow = big_data + (plane * H + b.y + r) * W + b.x;
      DType* srow = small + (plane * b.h + r) * b.w;
      for (index_t c = 0; c < b.w; ++c) {
        DType* dst = to_small ? srow + c : brow + c;
        const DType v = to_small ? brow[c] : srow[c];
        *dst = req == kAddTo ? DType(*dst + v) : v;
      }
    }
  });
}

void CropForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const CropBox b = MakeBox(attrs, in[0].shape_, in.size() == 2 ? &in[1].shape_ : nullptr);
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    CopyBox<DType>(in[0].shape_, b, in[0].dptr<DType>(), out[0].dptr<DType>(), true, req[0]);
  });
}

// _backward_Crop: inputs (ograd, data[, crop_like]); outputs (data grad[, crop_like grad]).
void CropBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const CropBox b = MakeBox(attrs, in[1].shape_, in.size() == 3 ? &in[2].shape_ : nullptr);
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    for (size_t i = 0; i < out.size(); ++i) {
      if (req[i] == kWriteTo || req[i] == kWriteInplace) {
        std::fill(out[i].dptr<DType>(), out[i].dptr<DType>() + out[i].Size(), DType(0));
      }
    }
    if (req[0] != kNullOp) {
      CopyBox<DType>(in[1].shape_, b, out[0].dptr<DType>(), in[0].dptr<DType>(), false,
                     req[0] == kAddTo ? kAddTo : kWriteTo);
    }
  });
}



bool CropBackwardType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  for (size_t i = 0; i < out->size(); ++i) {
    if ((*in)[i + 1] < 0) return false;
    AssignType(attrs, "input gradient", &(*out)[i], (*in)[i + 1]);
  }
  return true;
}

}  // namespace

NNVM_REGISTER_OP(Crop)
    .describe(R"doc(.. note:: `Crop` is deprecated. Use `slice` instead.

Crop the 2nd and 3rd dim of input data, with the corresponding size of h_w or with width and
height of the second input symbol, i.e., with one input, we need h_w to specify the crop height
and width, otherwise the second input symbol's size will be used.
)doc")
    .set_num_inputs(NumInputs)
    .set_num_outputs(1)
    .set_key_var_num_args("num_args")
    .set_attr_parser(ParamParser<CropParam>)
    .add_argument("data", "NDArray-or-Symbol[]",
                  "Tensor or List of Tensors, the second input will be used as crop_like shape "
                  "reference")
    .add_arguments(CropParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNamesOf)
    .set_attr<FInferShape>("FInferShape", CropShape)
    .set_attr<FInferType>("FInferType", CropType)
    .set_attr<FCompute>("FCompute<cpu>", CropForward)
    .set_attr<FGradient>("FGradient",
                          [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
                            return GradOfEachInput("_backward_Crop", n, og);
                          });

NNVM_REGISTER_OP(_backward_Crop)
    .describe("Gradient of Crop: the output gradient placed back into zeros of data's shape; "
              "crop_like gets zeros.")
    .set_num_inputs([](const NodeAttrs& attrs) { return NumInputs(attrs) + 1; })
    .set_num_outputs(NumInputs)
    .set_attr_parser(ParamParser<CropParam>)
    .add_argument("args", "NDArray-or-Symbol[]", "ograd, then the inputs of Crop")
    .add_arguments(CropParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", ForwardInputShapes)
    .set_attr<FInferType>("FInferType", CropBackwardType)
    .set_attr<FCompute>("FCompute<cpu>", CropBackward);

}  // namespace op
}  // namespace mxnet
