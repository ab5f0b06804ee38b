// _contrib_RROIAlign: ROI align over rotated boxes (text detection). Each ROI
// [batch_index, center_x, center_y, width, height, angle in degrees] is split into a
// pooled_size grid of bins in its own rotated frame; each bin averages bilinear samples of the
// feature map. Forward only, as in MXNet 1.9.1 (no gradient is registered).
#include <algorithm>
#include <cmath>
#include <string>

#include "operator/contrib/bilinear_sample.h"
#include "operator/nn/float_op_helpers.h"
#include "operator/tuple_args.h"

namespace mxnet {
namespace op {

struct RROIAlignParam : public dmlc::Parameter<RROIAlignParam> {
  ShapeArg pooled_size;
  float spatial_scale;
  int sampling_ratio;
  DMLC_DECLARE_PARAMETER(RROIAlignParam) {
    DMLC_DECLARE_FIELD(pooled_size).describe("RROI align output shape (h,w) ");
    DMLC_DECLARE_FIELD(spatial_scale)
        .set_range(0.0, 1.0)
        .describe(
            "Ratio of input feature map height (or width) to raw image height (or width). Equals "
            "the reciprocal of total stride in convolutional layers");
    DMLC_DECLARE_FIELD(sampling_ratio)
        .set_default(-1)
        .describe("Optional sampling ratio of RROI align, using adaptive size by default.");
  }
};
DMLC_REGISTER_PARAMETER(RROIAlignParam);

namespace {

bool RROIAlignShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const RROIAlignParam& p = Param<RROIAlignParam>(attrs);
  const std::string& op = attrs.op->name;
  const TShape &d = (*in)[0], &r = (*in)[1];
  if (!d.IsKnown() || !r.IsKnown()) return false;
  CHECK_EQ(d.ndim(), 4) << "Operator " << op << ": data expected 4 dims (NCHW), given shape " << d;
  CHECK(r.ndim() == 2 && r[1] == 6)
      << "Operator " << op << ": rois expected shape (num_rois, 6) of [batch_index, center_x, "
      << "center_y, width, height, angle], given " << r;
  CHECK(p.pooled_size.ndim() == 2 && p.pooled_size[0] > 0 && p.pooled_size[1] > 0)
      << "Operator " << op << ": argument pooled_size expected (h, w) of positive sizes, given "
      << p.pooled_size;
  AssignShape(attrs, "output", &(*out)[0],
              TShape({r[0], d[1], p.pooled_size[0], p.pooled_size[1]}));
  return true;
}

// Computed in C (float for float32 and float16, double for float64), as 1.9.1 does in DType.
template <typename DType>
void RotatedAlignForward(const RROIAlignParam& p, const TBlob& data, const TBlob& rois,
                         const TBlob& out, OpReqType req) {
  using C = FloatComputeOf<DType>;
  const index_t N = data.shape_[0], Cin = data.shape_[1], H = data.shape_[2], W = data.shape_[3];
  const index_t R = out.shape_[0], PH = out.shape_[2], PW = out.shape_[3];
  const DType* r = rois.dptr<DType>();
  for (index_t n = 0; n < R; ++n) {
    const index_t bi = static_cast<index_t>(static_cast<float>(r[n * 6]));
    CHECK(bi >= 0 && bi < N) << "Operator _contrib_RROIAlign: roi " << n
                             << " batch_index expected in [0, " << N << "), given " << bi;
  }
  LoopMaybeParallel(R * Cin * PH * PW >= ParallelGrain() / 16, R, [&](index_t n) {
    const DType* roi = r + n * 6;
    const index_t batch = static_cast<index_t>(static_cast<float>(roi[0]));
    const C s = static_cast<C>(p.spatial_scale);
    const C cx = static_cast<C>(roi[1]) * s, cy = static_cast<C>(roi[2]) * s;
    const C rw = std::max(static_cast<C>(roi[3]) * s, C(1));
    const C rh = std::max(static_cast<C>(roi[4]) * s, C(1));
    const C theta = static_cast<C>(static_cast<double>(roi[5]) * M_PI / 180.0);
    const C cos_t = std::cos(theta), sin_t = std::sin(theta);
    const C bh = rh / static_cast<C>(PH), bw = rw / static_cast<C>(PW);
    const index_t gh =
        p.sampling_ratio > 0 ? p.sampling_ratio : static_cast<index_t>(std::ceil(rh / C(PH)));
    const index_t gw =
        p.sampling_ratio > 0 ? p.sampling_ratio : static_cast<index_t>(std::ceil(rw / C(PW)));
    const C count = static_cast<C>(gh * gw);
    // Samples of every bin (bin-major), shared by the channels.
    std::vector<BilinearSample<C>> samples;
    samples.reserve(PH * PW * gh * gw);
    for (index_t ph = 0; ph < PH; ++ph) {
      for (index_t pw = 0; pw < PW; ++pw) {
        for (index_t iy = 0; iy < gh; ++iy) {
          const C yy = -rh / C(2) + C(ph) * bh + (C(iy) + C(0.5)) * bh / C(gh);
          for (index_t ix = 0; ix < gw; ++ix) {
            const C xx = -rw / C(2) + C(pw) * bw + (C(ix) + C(0.5)) * bw / C(gw);
            samples.push_back(BilinearSampleAt<C>(yy * cos_t - xx * sin_t + cy,
                                                  xx * cos_t + yy * sin_t + cx, H, W));
          }
        }
      }
    }
    const index_t per_bin = gh * gw;
    for (index_t c = 0; c < Cin; ++c) {
      const DType* plane = data.dptr<DType>() + (batch * Cin + c) * H * W;
      DType* y = out.dptr<DType>() + (n * Cin + c) * PH * PW;
      for (index_t b = 0; b < PH * PW; ++b) {
        C v = 0;
        for (index_t k = b * per_bin; k < (b + 1) * per_bin; ++k) {
          const BilinearSample<C>& sm = samples[k];
          v += sm.w[0] * static_cast<C>(plane[sm.at[0]]) +
               sm.w[1] * static_cast<C>(plane[sm.at[1]]) +
               sm.w[2] * static_cast<C>(plane[sm.at[2]]) +
               sm.w[3] * static_cast<C>(plane[sm.at[3]]);
        }
        Assign(y + b, req, DType(v / count));
      }
    }
  });
}

void RROIAlignForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const RROIAlignParam& p = Param<RROIAlignParam>(attrs);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType,
                         { RotatedAlignForward<DType>(p, in[0], in[1], out[0], req[0]); });
}

}  // namespace

NNVM_REGISTER_OP(_contrib_RROIAlign)
    .describe(R"doc(Performs Rotated ROI Align on the input array.

This operator takes a 4D feature map as an input array and region proposals as `rois`,
then align the feature map over sub-regions of input and produces a fixed-sized output array.

Different from ROI Align, RROI Align uses rotated rois, which is suitable for text detection.
RRoIAlign computes the value of each sampling point by bilinear interpolation from the nearby
grid points on the rotated feature map. No quantization is performed on any coordinates
involved in the RoI, its bins, or the sampling points. Bilinear interpolation is used to
compute the exact values of the input features at four regularly sampled locations in
each RoI bin. Then the feature map can be aggregated by avgpooling.

Each ROI is ``[batch_index, center_x, center_y, width, height, theta]`` with ``theta`` in
degrees; the output is ``(num_rois, channels, pooled_size[0], pooled_size[1])``.

References
----------

Ma, Jianqi, et al. "Arbitrary-Oriented Scene Text Detection via Rotation Proposals."
IEEE Transactions on Multimedia, 2018.
)doc")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<RROIAlignParam>)
    .add_argument("data", "NDArray-or-Symbol",
                  "Input data to the pooling operator, a 4D Feature maps")
    .add_argument("rois", "NDArray-or-Symbol", "Bounding box coordinates, a 2D array")
    .add_arguments(RROIAlignParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data", "rois"}))
    .set_attr<FInferShape>("FInferShape", RROIAlignShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", RROIAlignForward);

}  // namespace op
}  // namespace mxnet
