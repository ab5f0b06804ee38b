// _image_resize: resize (H, W, C) or (N, H, W, C) images to (width, height) or to a size with
// the short edge kept in ratio, with OpenCV's interpolation codes (resize_kernels.h); and
// _cvimresize, mx.image.imresize's op, the same on one (H, W, C) image given w and h.
#include <string>
#include <vector>

#include "operator/image/image_common.h"
#include "operator/image/resize_kernels.h"
#include "operator/tuple_args.h"

namespace mxnet {
namespace op {
namespace image {
namespace {

struct ResizeParam : public dmlc::Parameter<ResizeParam> {
  tuple_args::IntTuple size;
  bool keep_ratio;
  int interp;
  DMLC_DECLARE_PARAMETER(ResizeParam) {
    DMLC_DECLARE_FIELD(size)
        .set_default(tuple_args::IntTuple())
        .describe("Size of new image. Could be (width, height) or (size)");
    DMLC_DECLARE_FIELD(keep_ratio)
        .set_default(false)
        .describe("Whether to resize the short edge or both edges to `size`, if size is give "
                  "as an integer.");
    DMLC_DECLARE_FIELD(interp).set_default(1).describe(
        "Interpolation method for resizing, as OpenCV's codes: 0 INTER_NEAREST "
        "(nearest-neighbor), 1 INTER_LINEAR (bilinear, the default), 2 INTER_CUBIC (bicubic "
        "over a 4x4 neighborhood), 3 INTER_AREA (resampling by pixel area relation), "
        "4 INTER_LANCZOS4 (Lanczos over an 8x8 neighborhood).");
  }
};
DMLC_REGISTER_PARAMETER(ResizeParam);

struct ImresizeParam : public dmlc::Parameter<ImresizeParam> {
  int w, h, interp;
  DMLC_DECLARE_PARAMETER(ImresizeParam) {
    DMLC_DECLARE_FIELD(w).set_lower_bound(1).describe("Width of resized image.");
    DMLC_DECLARE_FIELD(h).set_lower_bound(1).describe("Height of resized image.");
    DMLC_DECLARE_FIELD(interp).set_default(1).describe(
        "Interpolation method (default=cv2.INTER_LINEAR).");
  }
};
DMLC_REGISTER_PARAMETER(ImresizeParam);

void CheckInterp(const NodeAttrs& attrs, int interp) {
  CHECK(interp >= kNearest && interp <= kLanczos4)
      << "Operator " << attrs.op->name << ": argument interp must be one of 0 (nearest), "
      << "1 (bilinear), 2 (bicubic), 3 (area) or 4 (Lanczos-4), given interp=" << interp;
}

/*! \brief (height, width) of the resized image. */
std::pair<int64_t, int64_t> OutputHW(const NodeAttrs& attrs, int64_t h, int64_t w) {
  const ResizeParam& p = Param<ResizeParam>(attrs);
  const char* op = attrs.op->name.c_str();
  CHECK(p.size.ndim() == 1 || p.size.ndim() == 2)
      << "Operator " << op << ": argument size must have 1 or 2 elements, (size) or (width, "
      << "height), given " << p.size;
  for (int64_t v : p.size) {
    CHECK_GT(v, 0) << "Operator " << op << ": argument size must be positive, given " << p.size;
  }
  if (p.size.ndim() == 2) return {p.size[1], p.size[0]};
  const int64_t s = p.size[0];
  if (!p.keep_ratio) return {s, s};
  // The short edge becomes s; the long edge keeps the ratio, rounded down.
  if (h > w) return {h * s / w, s};
  return {s, w * s / h};
}

bool ResizeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  CheckInterp(attrs, Param<ResizeParam>(attrs).interp);
  const TShape& s = (*in)[0];
  if (!s.IsKnown()) return false;
  const ImageSize sz = HWCSize(attrs, s);
  const auto hw = OutputHW(attrs, sz.height, sz.width);
  const TShape o = s.ndim() == 3 ? TShape({hw.first, hw.second, sz.channels})
                                 : TShape({sz.batch, hw.first, hw.second, sz.channels});
  AssignShape(attrs, "output", &(*out)[0], o);
  return true;
}

bool ResizeType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const int dtype = (*in)[0];
  CHECK(dtype < 0 || dtype == kUint8 || dtype == kFloat32 || dtype == kFloat64)
      << "Operator " << attrs.op->name << ": input dtype must be uint8, float32 or float64, "
      << "given " << DTypeName(dtype);
  return ElemwiseType(attrs, in, out);
}

/*! \brief Resize each image of in[0] to the size of out[0]'s images. */
template <typename PType>
void ResizeCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  CHECK_NE(req[0], kAddTo) << "Operator " << attrs.op->name << " does not support req=add";
  const PType& p = Param<PType>(attrs);
  const int dtype = in[0].type_flag_;
  const ImageSize si = HWCSize(attrs, in[0].shape_), so = HWCSize(attrs, out[0].shape_);
  const size_t elem = DTypeSize(dtype);
  const size_t in_step = si.height * si.width * si.channels * elem;
  const size_t out_step = so.height * so.width * so.channels * elem;
  for (index_t n = 0; n < si.batch; ++n) {
    ResizeImage(dtype, p.interp, static_cast<const char*>(in[0].dptr_) + n * in_step,
                static_cast<int>(si.height), static_cast<int>(si.width),
                static_cast<char*>(out[0].dptr_) + n * out_step, static_cast<int>(so.height),
                static_cast<int>(so.width), static_cast<int>(si.channels));
  }
}

bool ImresizeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const ImresizeParam& p = Param<ImresizeParam>(attrs);
  CheckInterp(attrs, p.interp);
  const TShape& s = (*in)[0];
  if (!s.IsKnown()) return false;
  CHECK_EQ(s.ndim(), 3) << "Operator " << attrs.op->name
                        << ": input image must have shape (height, width, channels), given " << s;
  AssignShape(attrs, "output", &(*out)[0], TShape({p.h, p.w, s[2]}));
  return true;
}

}  // namespace

NNVM_REGISTER_OP(_cvimresize)
    .describe("Resize image with OpenCV. \n")
    .set_attr_parser(ParamParser<ImresizeParam>)
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("src", "NDArray", "source image")
    .add_arguments(ImresizeParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", ImresizeShape)
    .set_attr<FInferType>("FInferType", ResizeType)
    .set_attr<FCompute>("FCompute<cpu>", ResizeCompute<ImresizeParam>);

NNVM_REGISTER_OP(_image_resize)
    .describe(R"doc(Resize an image NDArray of shape (H x W x C) or (N x H x W x C) to the
given size: size=(width, height), or size=s for an s x s image, or with keep_ratio=True the
short edge resized to s and the long edge in proportion. Values are those of OpenCV's resize
with the same interpolation code, for uint8, float32 and float64 images.
)doc")
    .set_attr_parser(ParamParser<ResizeParam>)
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .add_arguments(ResizeParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", ResizeShape)
    .set_attr<FInferType>("FInferType", ResizeType)
    .set_attr<FCompute>("FCompute<cpu>", ResizeCompute<ResizeParam>)
    .set_attr<FGradient>("FGradient", PassThroughGrad);

}  // namespace image
}  // namespace op
}  // namespace mxnet
