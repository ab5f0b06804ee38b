// _contrib_ROIAlign (Mask R-CNN): each region of interest is split into a pooled_size grid of
// bins and each bin averages bilinear samples of the feature map; optionally position
// sensitive (R-FCN) and center-aligned (Detectron2). Backward for data; rois get zeros.
#include <algorithm>
#include <cmath>
#include <string>

#include "operator/contrib/bilinear_sample.h"
#include "operator/nn/float_op_helpers.h"
#include "operator/tuple_args.h"

namespace mxnet {
namespace op {

struct ROIAlignParam : public dmlc::Parameter<ROIAlignParam> {
  ShapeArg pooled_size;
  float spatial_scale;
  int sample_ratio;
  bool position_sensitive;
  bool aligned;
  DMLC_DECLARE_PARAMETER(ROIAlignParam) {
    DMLC_DECLARE_FIELD(pooled_size).describe(
        "ROI Align output roi feature map height and width: (h, w)");
    DMLC_DECLARE_FIELD(spatial_scale).describe(
        "Ratio of input feature map height (or w) to raw image height (or w). Equals the "
        "reciprocal of total stride in convolutional layers");
    DMLC_DECLARE_FIELD(sample_ratio).set_default(-1).describe(
        "Optional sampling ratio of ROI align, using adaptive size by default.");
    DMLC_DECLARE_FIELD(position_sensitive).set_default(false).describe(
        "Whether to perform position-sensitive RoI pooling. PSRoIPooling is first proposaled "
        "by R-FCN and it can reduce the input channels by ph*pw times, where (ph, pw) is the "
        "pooled_size");
    DMLC_DECLARE_FIELD(aligned).set_default(false).describe(
        "Center-aligned ROIAlign introduced in Detectron2. To enable, set aligned to True.");
  }
};
DMLC_REGISTER_PARAMETER(ROIAlignParam);

namespace {

bool ROIAlignShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const ROIAlignParam& p = Param<ROIAlignParam>(attrs);
  const std::string& op = attrs.op->name;
  const TShape &d = (*in)[0], &r = (*in)[1];
  if (!d.IsKnown() || !r.IsKnown()) return false;
  CHECK_EQ(d.ndim(), 4) << "Operator " << op << ": data expected 4 dims (NCHW), given shape " << d;
  CHECK(r.ndim() == 2 && r[1] == 5) << "Operator " << op << ": rois expected shape "
                                    << "(num_rois, 5) of [batch_index, x1, y1, x2, y2], given "
                                    << r;
  CHECK(p.pooled_size.ndim() == 2 && p.pooled_size[0] > 0 && p.pooled_size[1] > 0)
      << "Operator " << op << ": argument pooled_size expected (h, w) of positive sizes, given "
      << p.pooled_size;
  index_t channels = d[1];
  if (p.position_sensitive) {
    const index_t bins = p.pooled_size[0] * p.pooled_size[1];
    CHECK_EQ(channels % bins, 0) << "Operator " << op << ": with position_sensitive=True the "
                                 << "channels of data (shape " << d << ") must be a multiple "
                                 << "of pooled_size[0] * pooled_size[1] = " << bins;
    channels /= bins;
  }
  AssignShape(attrs, "output", &(*out)[0],
              TShape({r[0], channels, p.pooled_size[0], p.pooled_size[1]}));
  return true;
}

using Sample = BilinearSample<double>;

// The samples of every bin of one ROI (bin-major), each weight already divided by the bin's
// sample count; empty for an ROI whose batch index is negative.
struct RoiSamples {
  index_t batch = -1;
  index_t per_bin = 0;
  std::vector<Sample> samples;
};

// An ROI's corner and size on the feature map (before the 1x1 floor of unaligned ROIs).
struct RoiBox {
  double x1, y1, w, h;
};

template <typename DType>
RoiBox BoxOf(const ROIAlignParam& p, const DType* roi) {
  const double offset = p.aligned ? 0.5 : 0.0, s = p.spatial_scale;
  const double x1 = static_cast<double>(roi[1]) * s - offset;
  const double y1 = static_cast<double>(roi[2]) * s - offset;
  return {x1, y1, static_cast<double>(roi[3]) * s - offset - x1,
          static_cast<double>(roi[4]) * s - offset - y1};
}

template <typename DType>
RoiSamples SamplesOf(const ROIAlignParam& p, const DType* roi, index_t H, index_t W) {
  RoiSamples rs;
  rs.batch = static_cast<index_t>(static_cast<float>(roi[0]));
  if (rs.batch < 0) return rs;
  const index_t PH = p.pooled_size[0], PW = p.pooled_size[1];
  const RoiBox box = BoxOf(p, roi);
  const double x1 = box.x1, y1 = box.y1;
  double rw = box.w, rh = box.h;
  if (!p.aligned) {
    rw = std::max(rw, 1.0);
    rh = std::max(rh, 1.0);
  }
  const double bh = rh / PH, bw = rw / PW;
  const index_t gh = p.sample_ratio > 0 ? p.sample_ratio : static_cast<index_t>(std::ceil(rh / PH));
  const index_t gw = p.sample_ratio > 0 ? p.sample_ratio : static_cast<index_t>(std::ceil(rw / PW));
  const double count = static_cast<double>(std::max<index_t>(gh * gw, 1));
  rs.per_bin = gh * gw;
  rs.samples.reserve(PH * PW * gh * gw);
  for (index_t ph = 0; ph < PH; ++ph) {
    for (index_t pw = 0; pw < PW; ++pw) {
      for (index_t iy = 0; iy < gh; ++iy) {
        const double y = y1 + ph * bh + (iy + 0.5) * bh / gh;
        for (index_t ix = 0; ix < gw; ++ix) {
          Sample smp = BilinearSampleAt<double>(y, x1 + pw * bw + (ix + 0.5) * bw / gw, H, W);
          for (double& w : smp.w) w /= count;
          rs.samples.push_back(smp);
        }
      }
    }
  }
  return rs;
}

// Input channel read by output channel c at bin b (position sensitive: one channel per bin).
inline index_t InputChannel(const ROIAlignParam& p, index_t c, index_t b) {
  return p.position_sensitive ? c * p.pooled_size[0] * p.pooled_size[1] + b : c;
}

// Checked before the (possibly parallel) loops: batch indices in range and, when aligned,
// ROIs of positive size (as MXNet 1.9.1 requires).
template <typename DType>
void CheckRois(const ROIAlignParam& p, const TBlob& rois, index_t batch) {
  const DType* r = rois.dptr<DType>();
  for (index_t n = 0; n < rois.shape_[0]; ++n) {
    const index_t bi = static_cast<index_t>(static_cast<float>(r[n * 5]));
    CHECK(bi < batch) << "Operator _contrib_ROIAlign: roi " << n << " has batch_index " << bi
                      << ", expected below " << batch << " (negative ones are skipped)";
    if (bi < 0 || !p.aligned) continue;
    const RoiBox box = BoxOf(p, r + n * 5);
    CHECK(box.w > 0 && box.h > 0) << "Operator _contrib_ROIAlign: with aligned=True roi " << n
                                  << " needs a positive width and height on the feature map, "
                                  << "given " << box.w << " x " << box.h;
  }
}

template <typename DType>
void AlignForward(const ROIAlignParam& p, const TBlob& data, const TBlob& rois, const TBlob& out,
                  OpReqType req) {
  using C = FloatComputeOf<DType>;
  const index_t Cin = data.shape_[1], H = data.shape_[2], W = data.shape_[3];
  const index_t R = out.shape_[0], Cout = out.shape_[1], bins = out.shape_[2] * out.shape_[3];
  CheckRois<DType>(p, rois, data.shape_[0]);
  LoopMaybeParallel(R * Cout * bins >= ParallelGrain() / 16, R, [&](index_t n) {
    const RoiSamples rs = SamplesOf(p, rois.dptr<DType>() + n * 5, H, W);
    for (index_t c = 0; c < Cout; ++c) {
      DType* y = out.dptr<DType>() + (n * Cout + c) * bins;
      for (index_t b = 0; b < bins; ++b) {
        C v = 0;
        if (rs.batch >= 0) {
          const DType* plane = data.dptr<DType>() + (rs.batch * Cin + InputChannel(p, c, b)) * H * W;
          for (index_t k = b * rs.per_bin; k < (b + 1) * rs.per_bin; ++k) {
            const Sample& s = rs.samples[k];
            for (int t = 0; t < 4; ++t) v += C(s.w[t]) * C(plane[s.at[t]]);
          }
        }
        Assign(y + b, req, DType(v));
      }
    }
  });
}

template <typename DType>
void AlignBackward(const ROIAlignParam& p, const TBlob& ograd, const TBlob& rois, const TBlob& dx,
                   OpReqType req) {
  using C = FloatComputeOf<DType>;
  const index_t Cin = dx.shape_[1], H = dx.shape_[2], W = dx.shape_[3];
  const index_t R = ograd.shape_[0], Cout = ograd.shape_[1];
  const index_t bins = ograd.shape_[2] * ograd.shape_[3];
  CheckRois<DType>(p, rois, dx.shape_[0]);
  ZeroGradient(dx, req);
  // ROIs overlap: one at a time; within one, output channels write distinct input planes.
  for (index_t n = 0; n < R; ++n) {
    const RoiSamples rs = SamplesOf(p, rois.dptr<DType>() + n * 5, H, W);
    if (rs.batch < 0) continue;
    LoopMaybeParallel(Cout * bins * rs.per_bin >= ParallelGrain() / 4, Cout, [&](index_t c) {
      const DType* dy = ograd.dptr<DType>() + (n * Cout + c) * bins;
      for (index_t b = 0; b < bins; ++b) {
        DType* plane = dx.dptr<DType>() + (rs.batch * Cin + InputChannel(p, c, b)) * H * W;
        const C d = C(dy[b]);
        for (index_t k = b * rs.per_bin; k < (b + 1) * rs.per_bin; ++k) {
          const Sample& s = rs.samples[k];
          for (int t = 0; t < 4; ++t) plane[s.at[t]] = DType(C(plane[s.at[t]]) + d * C(s.w[t]));
        }
      }
    });
  }
}

void ROIAlignForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const ROIAlignParam& p = Param<ROIAlignParam>(attrs);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    AlignForward<DType>(p, in[0], in[1], out[0], req[0]);
  });
}

// _backward_ROIAlign: inputs (ograd, data, rois); outputs (data grad, rois grad = 0).
void ROIAlignBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ROIAlignParam& p = Param<ROIAlignParam>(attrs);
  if (req[0] != kNullOp) {
    MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
      AlignBackward<DType>(p, in[0], in[2], out[0], req[0]);
    });
  }
  ZeroGradient(out[1], req[1]);
}

}  // namespace

NNVM_REGISTER_OP(_contrib_ROIAlign)
    .describe(R"doc(This operator takes a 4D feature map as an input array and region proposals
as `rois`, then align the feature map over sub-regions of input and produces a fixed-sized
output array. This operator is typically used in Faster R-CNN & Mask R-CNN networks.

Each ROI ``[batch_index, x1, y1, x2, y2]`` (scaled by ``spatial_scale``; shifted by half a
pixel when ``aligned``) is split into ``pooled_size`` bins; each bin averages
``sample_ratio`` x ``sample_ratio`` bilinear samples (adaptive, ``ceil(bin size)``, when
``sample_ratio <= 0``). Samples more than a pixel outside the map read 0; an ROI with a
negative batch index gives zeros. With ``position_sensitive`` output channel ``c`` of bin
``(i, j)`` reads input channel ``(c * ph + i) * pw + j``. The output is
``(num_rois, channels, ph, pw)``.
)doc")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<ROIAlignParam>)
    .add_argument("data", "NDArray-or-Symbol",
                  "Input data to the pooling operator, a 4D Feature maps")
    .add_argument("rois", "NDArray-or-Symbol",
                  "Bounding box coordinates, a 2D array, if batchid is less than 0, it will be "
                  "ignored.")
    .add_arguments(ROIAlignParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data", "rois"}))
    .set_attr<FInferShape>("FInferShape", ROIAlignShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", ROIAlignForward)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return GradOfEachInput("_backward_ROIAlign", n, og);
    });

NNVM_REGISTER_OP(_backward_ROIAlign)
    .describe("Gradient of _contrib_ROIAlign with respect to data (rois get zeros).")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<ROIAlignParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output")
    .add_argument("data", "NDArray-or-Symbol", "data of the forward call")
    .add_argument("rois", "NDArray-or-Symbol", "rois of the forward call")
    .add_arguments(ROIAlignParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"ograd", "data", "rois"}))
    .set_attr<FInferShape>("FInferShape", ForwardInputShapes)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", ROIAlignBackward);

}  // namespace op
}  // namespace mxnet
