// im2col and col2im: sliding blocks of (N, C, spatial...) data unfolded into columns
// (N, C * prod(kernel), blocks) and folded back (overlaps summed), through the convolution
// kernels' Im2Col / Col2ImAdd; each is the other's gradient.
#include <cstring>
#include <string>

#include "operator/nn/convolution_kernels.h"
#include "operator/nn/nn_common.h"

namespace mxnet {
namespace op {

struct Im2colParam : public dmlc::Parameter<Im2colParam> {
  ShapeArg kernel;
  ShapeArg stride;
  ShapeArg dilate;
  ShapeArg pad;
  DMLC_DECLARE_PARAMETER(Im2colParam) {
    DMLC_DECLARE_FIELD(kernel).describe("Sliding kernel size: (w,), (h, w) or (d, h, w).");
    DMLC_DECLARE_FIELD(stride).set_default(ShapeArg(TShape(0, 0))).describe(
        "The stride between adjacent sliding blocks in spatial dimension: (w,), (h, w) or "
        "(d, h, w). Defaults to 1 for each dimension.");
    DMLC_DECLARE_FIELD(dilate).set_default(ShapeArg(TShape(0, 0))).describe(
        "The spacing between adjacent kernel points: (w,), (h, w) or (d, h, w). Defaults to 1 "
        "for each dimension.");
    DMLC_DECLARE_FIELD(pad).set_default(ShapeArg(TShape(0, 0))).describe(
        "The zero-value padding size on both sides of spatial dimension: (w,), (h, w) or "
        "(d, h, w). Defaults to no padding.");
  }
};
DMLC_REGISTER_PARAMETER(Im2colParam);

struct Col2imParam : public dmlc::Parameter<Col2imParam> {
  ShapeArg output_size;
  ShapeArg kernel;
  ShapeArg stride;
  ShapeArg dilate;
  ShapeArg pad;
  DMLC_DECLARE_PARAMETER(Col2imParam) {
    DMLC_DECLARE_FIELD(output_size).describe(
        "The spatial dimension of image array: (w,), (h, w) or (d, h, w).");
    DMLC_DECLARE_FIELD(kernel).describe("Sliding kernel size: (w,), (h, w) or (d, h, w).");
    DMLC_DECLARE_FIELD(stride).set_default(ShapeArg(TShape(0, 0))).describe(
        "The stride between adjacent sliding blocks in spatial dimension: (w,), (h, w) or "
        "(d, h, w). Defaults to 1 for each dimension.");
    DMLC_DECLARE_FIELD(dilate).set_default(ShapeArg(TShape(0, 0))).describe(
        "The spacing between adjacent kernel points: (w,), (h, w) or (d, h, w). Defaults to 1 "
        "for each dimension.");
    DMLC_DECLARE_FIELD(pad).set_default(ShapeArg(TShape(0, 0))).describe(
        "The zero-value padding size on both sides of spatial dimension: (w,), (h, w) or "
        "(d, h, w). Defaults to no padding.");
  }
};
DMLC_REGISTER_PARAMETER(Col2imParam);

namespace {

bool IsCol2im(const NodeAttrs& attrs) {
  const std::string& name = attrs.op->name;
  return name == "col2im" || name == "_backward_col2im";
}

/*! \brief The image side's geometry: batch and channels, the spatial size of the image, and
 *  the block grid (checked: counts, kernel within the padded image). */
ConvGeometry BlockGeometry(const NodeAttrs& attrs, index_t batch, index_t channels,
                           const TShape& image_spatial) {
  const std::string& op = attrs.op->name;
  TShape kernel, stride, dilate, pad;
  if (IsCol2im(attrs)) {
    const Col2imParam& p = Param<Col2imParam>(attrs);
    kernel = p.kernel, stride = p.stride, dilate = p.dilate, pad = p.pad;
  } else {
    const Im2colParam& p = Param<Im2colParam>(attrs);
    kernel = p.kernel, stride = p.stride, dilate = p.dilate, pad = p.pad;
  }
  CHECK(kernel.ndim() >= 1 && kernel.ndim() <= conv::kMaxSpatial)
      << "Operator " << op << ": argument kernel expected 1 to 3 values, given " << kernel;
  ConvGeometry g;
  g.nspatial = kernel.ndim();
  g.batch = batch;
  g.in_channels = channels;
  g.filters = channels;
  g.bias = false;
  CHECK_EQ(image_spatial.ndim(), g.nspatial)
      << "Operator " << op << ": the image has " << image_spatial.ndim() << " spatial dims "
      << image_spatial << " but kernel " << kernel << " has " << g.nspatial;
  SpatialArg(attrs, "kernel", kernel, g.nspatial, 1, 1, g.kernel);
  SpatialArg(attrs, "stride", stride, g.nspatial, 1, 1, g.stride);
  SpatialArg(attrs, "dilate", dilate, g.nspatial, 1, 1, g.dilate);
  SpatialArg(attrs, "pad", pad, g.nspatial, 0, 0, g.pad);
  for (int k = 0; k < g.nspatial; ++k) {
    const int i = conv::kMaxSpatial - g.nspatial + k;
    g.in[i] = image_spatial[k];
    const index_t span = g.dilate[i] * (g.kernel[i] - 1) + 1;
    const index_t padded = g.in[i] + 2 * g.pad[i];
    CHECK_LE(span, padded) << "Operator " << op << ": the kernel (kernel=" << kernel
                           << ", dilate=" << dilate << ") is larger than the padded image "
                           << "(spatial size " << image_spatial << ", pad=" << pad << ")";
    g.out[i] = (padded - span) / g.stride[i] + 1;
  }
  return g;
}

TShape Spatial(const TShape& s, int from) { return TShape(s.begin() + from, s.end()); }

TShape ColumnShape(const ConvGeometry& g) {
  return TShape({g.batch, g.in_channels * g.KernelSize(), g.OutSize()});
}

ConvGeometry Im2colGeometry(const NodeAttrs& attrs, const TShape& data) {
  CHECK_GE(data.ndim(), 3) << "Operator " << attrs.op->name << ": data expected (N, C, "
                           << "spatial...), given shape " << data;
  return BlockGeometry(attrs, data[0], data[1], Spatial(data, 2));
}

ConvGeometry Col2imGeometry(const NodeAttrs& attrs, const TShape& cols) {
  const Col2imParam& p = Param<Col2imParam>(attrs);
  const std::string& op = attrs.op->name;
  CHECK_EQ(cols.ndim(), 3) << "Operator " << op << ": data expected (N, C * prod(kernel), "
                           << "blocks), given shape " << cols;
  const index_t ks = p.kernel.Size();
  CHECK(ks > 0 && cols[1] % ks == 0) << "Operator " << op << ": the second dim of data (shape "
                                     << cols << ") must be a multiple of prod(kernel) = " << ks;
  const ConvGeometry g = BlockGeometry(attrs, cols[0], cols[1] / ks, p.output_size);
  CHECK_EQ(cols[2], g.OutSize()) << "Operator " << op << ": data (shape " << cols << ") has "
                                 << cols[2] << " blocks, but output_size=" << p.output_size
                                 << " with these kernel, stride, dilate and pad gives "
                                 << g.OutSize();
  return g;
}

TShape ImageShape(const ConvGeometry& g) {
  TShape s({g.batch, g.in_channels});
  std::vector<index_t> dims(s.begin(), s.end());
  for (int i = conv::kMaxSpatial - g.nspatial; i < conv::kMaxSpatial; ++i) dims.push_back(g.in[i]);
  return TShape(dims.begin(), dims.end());
}

// image (N, C, spatial) -> cols (N, C * ks, blocks), per req (kAddTo through temp space).
template <typename DType>
void Unfold(const ConvGeometry& g, const OpContext& ctx, const TBlob& image, const TBlob& cols,
            OpReqType req) {
  const index_t per_image = g.in_channels * g.InSize();
  const index_t per_cols = g.in_channels * g.KernelSize() * g.OutSize();
  DType* tmp = req == kAddTo ? static_cast<DType*>(ctx.RequestTempSpace(per_cols * sizeof(DType)))
                             : nullptr;
  for (index_t n = 0; n < g.batch; ++n) {
    DType* dst = cols.dptr<DType>() + n * per_cols;
    Im2Col(g, image.dptr<DType>() + n * per_image, tmp ? tmp : dst);
    if (tmp) {
      for (index_t i = 0; i < per_cols; ++i) dst[i] += tmp[i];
    }
  }
}

// cols -> image, overlapping blocks summed, per req.
template <typename DType>
void Fold(const ConvGeometry& g, const TBlob& cols, const TBlob& image, OpReqType req) {
  const index_t per_image = g.in_channels * g.InSize();
  const index_t per_cols = g.in_channels * g.KernelSize() * g.OutSize();
  if (req != kAddTo) std::memset(image.dptr_, 0, image.Size() * sizeof(DType));
  for (index_t n = 0; n < g.batch; ++n) {
    Col2ImAdd(g, cols.dptr<DType>() + n * per_cols, image.dptr<DType>() + n * per_image);
  }
}

bool Im2colShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[0].IsKnown()) return false;
  AssignShape(attrs, "output", &(*out)[0], ColumnShape(Im2colGeometry(attrs, (*in)[0])));
  return true;
}

bool Col2imShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[0].IsKnown()) return false;
  AssignShape(attrs, "output", &(*out)[0], ImageShape(Col2imGeometry(attrs, (*in)[0])));
  return true;
}

void Im2colForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const ConvGeometry g = Im2colGeometry(attrs, in[0].shape_);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, { Unfold<DType>(g, ctx, in[0], out[0], req[0]); });
}

// _backward_im2col: inputs (ograd, data); output the data gradient.
void Im2colBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const ConvGeometry g = Im2colGeometry(attrs, in[1].shape_);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, { Fold<DType>(g, in[0], out[0], req[0]); });
}

void Col2imForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const ConvGeometry g = Col2imGeometry(attrs, in[0].shape_);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, { Fold<DType>(g, in[0], out[0], req[0]); });
}

// _backward_col2im: inputs (ograd, data); output the data gradient.
void Col2imBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const ConvGeometry g = Col2imGeometry(attrs, in[1].shape_);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, { Unfold<DType>(g, ctx, in[0], out[0], req[0]); });
}

void RegisterBlockOp(nnvm::Op& op, const char* doc, const char* data_doc,
                     std::function<void(NodeAttrs*)> parser,
                     const std::vector<dmlc::ParamFieldInfo>& fields, FInferShape shape,
                     FCompute forward, const char* backward_name, FCompute backward) {
  op.describe(doc)
      .set_num_inputs(1)
      .set_num_outputs(1)
      .set_attr_parser(parser)
      .add_argument("data", "NDArray-or-Symbol", data_doc)
      .add_arguments(fields);
  op.set_attr<FListInputNames>("FListInputNames", InputNames({"data"}));
  op.set_attr<FInferShape>("FInferShape", shape);
  op.set_attr<FInferType>("FInferType", FloatElemwiseType);
  op.set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest);
  op.set_attr<FCompute>("FCompute<cpu>", forward);
  const std::string bwd = backward_name;
  op.set_attr<FGradient>("FGradient", [bwd](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
    return GradOfEachInput(bwd.c_str(), n, og);
  });
  nnvm::Op& bw = nnvm::Op::Register(backward_name);
  bw.describe(std::string("Gradient of ") + op.name + " with respect to data.")
      .set_num_inputs(2)
      .set_num_outputs(1)
      .set_attr_parser(parser)
      .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output")
      .add_argument("data", "NDArray-or-Symbol", "data of the forward call")
      .add_arguments(fields);
  bw.set_attr<FListInputNames>("FListInputNames", InputNames({"ograd", "data"}));
  bw.set_attr<FInferShape>("FInferShape", ForwardInputShapes);
  bw.set_attr<FInferType>("FInferType", FloatElemwiseType);
  bw.set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest);
  bw.set_attr<FCompute>("FCompute<cpu>", backward);
}

const bool registered [[maybe_unused]] = [] {
  RegisterBlockOp(nnvm::Op::Register("im2col"), R"doc(Extract sliding blocks from input array.

Data ``(N, C, spatial...)`` (1 to 3 spatial dims, matching ``kernel``) gives
``(N, C * prod(kernel), L)``: column ``l`` holds block ``l`` of the zero-padded input in
row-major block order, rows ordered by channel then kernel offset. ``L`` is the product over
the spatial dims of ``(size + 2 * pad - dilate * (kernel - 1) - 1) // stride + 1``.
col2im is its adjoint.
)doc", "Input array to extract sliding blocks.", ParamParser<Im2colParam>,
                  Im2colParam::__FIELDS__(), Im2colShape, Im2colForward, "_backward_im2col",
                  Im2colBackward);
  RegisterBlockOp(nnvm::Op::Register("col2im"), R"doc(Combining sliding blocks into a large array.

Data ``(N, C * prod(kernel), L)`` as im2col makes it is folded into an image
``(N, C, output_size...)``: every column entry is added to the pixel it was read from, so
overlapping blocks sum and padding is dropped. ``L`` must match ``output_size`` with the given
kernel, stride, dilate and pad.
)doc", "Input array to combine sliding blocks.", ParamParser<Col2imParam>,
                  Col2imParam::__FIELDS__(), Col2imShape, Col2imForward, "_backward_col2im",
                  Col2imBackward);
  return true;
}();

}  // namespace
}  // namespace op
}  // namespace mxnet
