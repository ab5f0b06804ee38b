// Convolution's arguments (MXNet's ConvolutionParam) and the geometry one call works on.
#ifndef MXNET_OPERATOR_NN_CONVOLUTION_PARAM_H_
#define MXNET_OPERATOR_NN_CONVOLUTION_PARAM_H_

#include <dmlc/optional.h>

#include "operator/operator_common.h"
#include "operator/tuple_args.h"

namespace mxnet {
namespace op {

namespace conv {
enum Layout { kNCW = 0, kNCHW, kNCDHW, kNHWC, kNDHWC };
enum CudnnTune { kOff = 0, kLimited, kFastest };
constexpr int kMaxSpatial = 3;
}  // namespace conv

struct ConvolutionParam : public dmlc::Parameter<ConvolutionParam> {
  ShapeArg kernel;
  ShapeArg stride;
  ShapeArg dilate;
  ShapeArg pad;
  uint32_t num_filter;
  uint32_t num_group;
  uint64_t workspace;
  bool no_bias;
  dmlc::optional<int> cudnn_tune;
  bool cudnn_off;
  dmlc::optional<int> layout;
  DMLC_DECLARE_PARAMETER(ConvolutionParam) {
    DMLC_DECLARE_FIELD(kernel).describe("Convolution kernel size: (w,), (h, w) or (d, h, w)");
    DMLC_DECLARE_FIELD(stride).set_default(ShapeArg(TShape(0, 0))).describe(
        "Convolution stride: (w,), (h, w) or (d, h, w). Defaults to 1 for each dimension.");
    DMLC_DECLARE_FIELD(dilate).set_default(ShapeArg(TShape(0, 0))).describe(
        "Convolution dilate: (w,), (h, w) or (d, h, w). Defaults to 1 for each dimension.");
    DMLC_DECLARE_FIELD(pad).set_default(ShapeArg(TShape(0, 0))).describe(
        "Zero pad for convolution: (w,), (h, w) or (d, h, w). Defaults to no padding.");
    DMLC_DECLARE_FIELD(num_filter).describe("Convolution filter(channel) number");
    DMLC_DECLARE_FIELD(num_group).set_default(1).describe("Number of group partitions.");
    DMLC_DECLARE_FIELD(workspace).set_default(1024).describe(
        "Maximum temporary workspace allowed (MB) in convolution. Accepted for compatibility; "
        "the CPU kernels size their scratch themselves.");
    DMLC_DECLARE_FIELD(no_bias).set_default(false).describe("Whether to disable bias parameter.");
    DMLC_DECLARE_FIELD(cudnn_tune)
        .add_enum("off", conv::kOff)
        .add_enum("limited_workspace", conv::kLimited)
        .add_enum("fastest", conv::kFastest)
        .set_default(dmlc::optional<int>())
        .describe("Whether to pick convolution algo by running performance test (cuDNN; "
                  "accepted and unused on CPU).");
    DMLC_DECLARE_FIELD(cudnn_off).set_default(false).describe("Turn off cudnn for this layer.");
    DMLC_DECLARE_FIELD(layout)
        .add_enum("NCW", conv::kNCW)
        .add_enum("NCHW", conv::kNCHW)
        .add_enum("NCDHW", conv::kNCDHW)
        .add_enum("NHWC", conv::kNHWC)
        .add_enum("NDHWC", conv::kNDHWC)
        .set_default(dmlc::optional<int>())
        .describe("Set layout for input, output and weight. Empty for default layout: NCW for "
                  "1d, NCHW for 2d and NCDHW for 3d. NHWC and NDHWC put the channel last (the "
                  "weight is then (num_filter, spatial..., channel/num_group)).");
  }
};

/*!
 * \brief Everything a convolution kernel needs, from the arguments and the data shape. Spatial
 *  dims are padded to 3 (leading unit dims) so one loop nest serves 1D, 2D and 3D.
 */
struct ConvGeometry {
  int nspatial{0};           // 1, 2 or 3
  bool channel_last{false};  // NWC/NHWC/NDHWC
  index_t batch{0}, in_channels{0}, filters{0}, groups{1};
  index_t in[conv::kMaxSpatial]{1, 1, 1};      // input spatial size (d, h, w)
  index_t out[conv::kMaxSpatial]{1, 1, 1};     // output spatial size
  index_t kernel[conv::kMaxSpatial]{1, 1, 1};
  index_t stride[conv::kMaxSpatial]{1, 1, 1};
  index_t dilate[conv::kMaxSpatial]{1, 1, 1};
  index_t pad[conv::kMaxSpatial]{0, 0, 0};
  bool bias{true};
  index_t InSize() const { return in[0] * in[1] * in[2]; }
  index_t OutSize() const { return out[0] * out[1] * out[2]; }
  index_t KernelSize() const { return kernel[0] * kernel[1] * kernel[2]; }
  index_t GroupInChannels() const { return in_channels / groups; }
  index_t GroupFilters() const { return filters / groups; }
};

/*!
 * \brief The geometry of Convolution on data of shape data (checked: ndim, channels divisible by
 *  num_group, kernel no larger than the dilated, padded input, positive strides and dilations).
 *  Throws dmlc::Error naming the operator, the argument and the shapes.
 */
ConvGeometry MakeConvGeometry(const NodeAttrs& attrs, const TShape& data);
/*! \brief Read a spatial argument (kernel, stride, dilate, pad, ...) of nspatial values into
 *  the last nspatial slots of dst; an empty one means fallback in every dim. Checks count and
 *  minimum, naming the operator and the argument. */
void SpatialArg(const NodeAttrs& attrs, const char* name, const TShape& v, int nspatial,
                index_t fallback, index_t min_value, index_t* dst);
/*! \brief The layout argument, or the default for nspatial dims; checked against nspatial. */
int ConvLayout(const NodeAttrs& attrs, const dmlc::optional<int>& layout, int nspatial);
/*! \brief Shapes of weight and output for a geometry, in the layout's order. */
TShape ConvWeightShape(const ConvGeometry& g);
TShape ConvOutputShape(const ConvGeometry& g);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_CONVOLUTION_PARAM_H_
