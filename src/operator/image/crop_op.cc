// _image_crop: the (x, y, width, height) window of (H, W, C) or (N, H, W, C) images, and its
// backward, which scatters the head gradient into zeros of the input's shape.
#include <cstring>
#include <string>
#include <vector>

#include "operator/image/image_common.h"

namespace mxnet {
namespace op {
namespace image {
namespace {

struct CropParam : public dmlc::Parameter<CropParam> {
  int x, y, width, height;
  DMLC_DECLARE_PARAMETER(CropParam) {
    DMLC_DECLARE_FIELD(x).describe("Left boundary of the cropping area.");
    DMLC_DECLARE_FIELD(y).describe("Top boundary of the cropping area.");
    DMLC_DECLARE_FIELD(width).describe("Width of the cropping area.");
    DMLC_DECLARE_FIELD(height).describe("Height of the cropping area.");
  }
};
DMLC_REGISTER_PARAMETER(CropParam);

/*! \brief Check the window against the image; returns the image's sizes. */
ImageSize CheckedCropInput(const NodeAttrs& attrs, const TShape& s) {
  const ImageSize sz = HWCSize(attrs, s);
  CheckGrayOrRGB(attrs, s, sz.channels);
  const CropParam& p = Param<CropParam>(attrs);
  CHECK(p.width > 0 && p.height > 0)
      << "Operator " << attrs.op->name << ": width and height must be greater than 0, given "
      << "width=" << p.width << ", height=" << p.height;
  CHECK(p.x >= 0 && p.y >= 0) << "Operator " << attrs.op->name
                              << ": x and y must be non-negative, given x=" << p.x
                              << ", y=" << p.y;
  CHECK(p.x + p.width <= sz.width)
      << "Operator " << attrs.op->name << ": x + width must not exceed the input width "
      << sz.width << ", given x=" << p.x << ", width=" << p.width;
  CHECK(p.y + p.height <= sz.height)
      << "Operator " << attrs.op->name << ": y + height must not exceed the input height "
      << sz.height << ", given y=" << p.y << ", height=" << p.height;
  return sz;
}

bool CropShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& s = (*in)[0];
  if (!s.IsKnown()) return false;
  const ImageSize sz = CheckedCropInput(attrs, s);
  const CropParam& p = Param<CropParam>(attrs);
  const TShape o = s.ndim() == 3 ? TShape({p.height, p.width, sz.channels})
                                 : TShape({sz.batch, p.height, p.width, sz.channels});
  AssignShape(attrs, "output", &(*out)[0], o);
  return true;
}

/*! \brief Copy each window row between the full image and the cropped one; to_window picks
 *  the direction (forward reads the image, backward writes it). */
void CopyWindowRows(const NodeAttrs& attrs, const TBlob& image, const TBlob& window,
                    bool to_window, OpReqType req) {
  const ImageSize sz = HWCSize(attrs, image.shape_);
  const CropParam& p = Param<CropParam>(attrs);
  MXNET_TYPE_SWITCH(image.type_flag_, DType, {
    DType* img = image.dptr<DType>();
    DType* win = window.dptr<DType>();
    const index_t row = p.width * sz.channels;
    ParallelFor(sz.batch * p.height, [&](index_t nr) {
      const index_t n = nr / p.height, r = nr % p.height;
      DType* a = img + ((n * sz.height + p.y + r) * sz.width + p.x) * sz.channels;
      DType* b = win + nr * row;
      for (index_t i = 0; i < row; ++i) {
        if (to_window) Assign(b + i, req, a[i]);
        else Assign(a + i, req, b[i]);
      }
    });
  });
}

void CropCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] != kNullOp) CopyWindowRows(attrs, in[0], out[0], true, req[0]);
}

// inputs: head gradient, forward data (for its shape)
void CropBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  if (req[0] != kAddTo) std::memset(out[0].dptr_, 0, out[0].Size() * DTypeSize(out[0].type_flag_));
  CopyWindowRows(attrs, out[0], in[0], false, req[0] == kAddTo ? kAddTo : kWriteTo);
}

bool CropBackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  AssignShape(attrs, "output", &(*out)[0], (*in)[1]);
  AssignInputShape(attrs, 1, &(*in)[1], (*out)[0]);
  return (*out)[0].IsKnown();
}

}  // namespace

NNVM_REGISTER_OP(_image_crop)
    .describe(R"doc(Crop an image NDArray of shape (H x W x C) or (N x H x W x C) to the
window of the given width and height whose top-left corner is (x, y).
)doc")
    .set_attr_parser(ParamParser<CropParam>)
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .add_arguments(CropParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", CropShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", CropCompute)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{MakeNode("_backward_image_crop", GradName(n),
                                             {og[0], n->inputs[0]}, n->attrs.dict, &n)};
    });

NNVM_REGISTER_OP(_backward_image_crop)
    .set_attr_parser(ParamParser<CropParam>)
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr<FInferShape>("FInferShape", CropBackwardShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", CropBackward);

}  // namespace image
}  // namespace op
}  // namespace mxnet
