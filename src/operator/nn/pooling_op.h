// Pooling's arguments, its resolved window geometry and the plain CPU kernels, declared for
// the operator registration and for any accelerated dispatcher that falls back to them.
#ifndef MXNET_OPERATOR_NN_POOLING_OP_H_
#define MXNET_OPERATOR_NN_POOLING_OP_H_

#include <dmlc/optional.h>

#include "operator/operator_common.h"
#include "operator/tuple_args.h"

namespace mxnet {
namespace op {

enum class PoolType { kMax = 0, kAvg = 1, kSum = 2, kLp = 3 };
enum class PoolConvention { kValid = 0, kFull = 1, kSame = 2 };
// Values of the layout argument, numbered as MXNet's mshadow layout flags.
enum PoolLayout { kNCHW = 0, kNHWC = 1, kNCW = 3, kNCDHW = 4, kNDHWC = 5, kNWC = 6 };

struct PoolingParam : public dmlc::Parameter<PoolingParam> {
  ShapeArg kernel;
  int pool_type;
  bool global_pool;
  bool cudnn_off;
  int pooling_convention;
  ShapeArg stride;
  ShapeArg pad;
  dmlc::optional<int> p_value;
  dmlc::optional<bool> count_include_pad;
  dmlc::optional<int> layout;
  DMLC_DECLARE_PARAMETER(PoolingParam) {
    DMLC_DECLARE_FIELD(kernel).set_default(ShapeArg(TShape(0, 0)))
        .describe("Pooling kernel size: (y, x) or (d, y, x)");
    DMLC_DECLARE_FIELD(pool_type).set_default(static_cast<int>(PoolType::kMax))
        .add_enum("max", static_cast<int>(PoolType::kMax))
        .add_enum("avg", static_cast<int>(PoolType::kAvg))
        .add_enum("sum", static_cast<int>(PoolType::kSum))
        .add_enum("lp", static_cast<int>(PoolType::kLp))
        .describe("Pooling type to be applied.");
    DMLC_DECLARE_FIELD(global_pool).set_default(false)
        .describe("Ignore kernel size, do global pooling based on current input feature map. ");
    DMLC_DECLARE_FIELD(cudnn_off).set_default(false)
        .describe("Turn off cudnn pooling and use MXNet pooling operator. ");
    DMLC_DECLARE_FIELD(pooling_convention)
        .set_default(static_cast<int>(PoolConvention::kValid))
        .add_enum("full", static_cast<int>(PoolConvention::kFull))
        .add_enum("valid", static_cast<int>(PoolConvention::kValid))
        .add_enum("same", static_cast<int>(PoolConvention::kSame))
        .describe("Pooling convention to be applied.");
    DMLC_DECLARE_FIELD(stride).set_default(ShapeArg(TShape(0, 0)))
        .describe("Stride: for pooling (y, x) or (d, y, x). Defaults to 1 for each dimension.");
    DMLC_DECLARE_FIELD(pad).set_default(ShapeArg(TShape(0, 0)))
        .describe("Pad for pooling: (y, x) or (d, y, x). Defaults to no padding.");
    DMLC_DECLARE_FIELD(p_value).set_default(dmlc::optional<int>())
        .describe("Value of p for Lp pooling, can be 1 or 2, required for Lp Pooling.");
    DMLC_DECLARE_FIELD(count_include_pad).set_default(dmlc::optional<bool>())
        .describe("Only used for AvgPool, specify whether to count padding elements for average"
                  "calculation. For example, with a 5*5 kernel on a 3*3 corner of a image,"
                  "the sum of the 9 valid elements will be divided by 25 if this is set to true,"
                  "or it will be divided by 9 if this is set to false. Defaults to true.");
    DMLC_DECLARE_FIELD(layout)
        .add_enum("NCW", kNCW).add_enum("NCHW", kNCHW).add_enum("NCDHW", kNCDHW)
        .add_enum("NWC", kNWC).add_enum("NHWC", kNHWC).add_enum("NDHWC", kNDHWC)
        .set_default(dmlc::optional<int>())
        .describe("Set layout for input and output. Empty for\n    default layout: NCW for 1d, "
                  "NCHW for 2d and NCDHW for 3d.");
  }
};

/*! \brief Where every pooling window lies: the argument tuples resolved against one input
 *  shape (global pooling, defaults, the convention's output size), spatial dims padded to 3 with
 *  size 1, and element strides so channel-first and channel-last layouts share one loop. */
struct PoolGeometry {
  int nspatial = 0;
  index_t batch = 0, channels = 0;
  index_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  index_t kernel[3] = {1, 1, 1}, stride[3] = {1, 1, 1};
  index_t pad[3] = {0, 0, 0};  // on each side
  // Element strides of batch, channel and each spatial dim, in the input and the output.
  index_t in_n = 0, in_c = 0, in_s[3] = {0, 0, 0};
  index_t out_n = 0, out_c = 0, out_s[3] = {0, 0, 0};
  bool channel_last = false;

  /*! \brief Resolves p against the data shape; errors name the operator and the argument. */
  PoolGeometry(const char* op_name, const PoolingParam& p, const TShape& data);
  TShape OutputShape() const;
  index_t OutputsPerPlane() const { return out[0] * out[1] * out[2]; }
};

/*! \brief out (req) = pooling of data: the plain CPU kernel (float32, float64, float16). */
void PoolingForwardPlain(const PoolingParam& p, const PoolGeometry& g, const TBlob& data,
                         const TBlob& out, OpReqType req);
/*! \brief data_grad (req) from out_grad, given the forward's data and out. */
void PoolingBackwardPlain(const PoolingParam& p, const PoolGeometry& g, const TBlob& out_grad,
                          const TBlob& data, const TBlob& out, const TBlob& data_grad,
                          OpReqType req);

/*! \brief Max pooling whose 2-D channel-first windows neither overlap nor reach padding
 *  (stride == kernel, pad 0), float32 or float64: pooling_tiled.cc's single-pass kernels. */
bool PoolTiledMaxApplies(const PoolingParam& p, const PoolGeometry& g, int dtype);
void PoolTiledMaxForward(const PoolGeometry& g, const TBlob& data, const TBlob& out,
                         OpReqType req);
/*! \brief The data gradient: each window's output gradient to its first maximum. */
void PoolTiledMaxBackward(const PoolGeometry& g, const TBlob& out_grad, const TBlob& data,
                          const TBlob& data_grad, OpReqType req);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_POOLING_OP_H_
