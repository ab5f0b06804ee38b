// mx.image's OpenCV operators as MXNet 1.9.1 names them: _cvimdecode and _cvimread (decode to
// an (H, W, C) uint8 NDArray, computed in the calling thread since the shape comes from the
// bytes), _cvcopyMakeBorder (pad with OpenCV's border rules), and _cvimencode, the encoder
// mx.recordio.pack_img uses when Python's cv2 is absent.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/type_switch.h"
#include "mxnet/ndarray.h"
#include "operator/image/image_codec.h"
#include "operator/image/image_common.h"
#include "operator/optimizer/update_common.h"

namespace mxnet {
namespace op {
namespace image {
namespace {

struct ImdecodeParam : public dmlc::Parameter<ImdecodeParam> {
  int flag;
  bool to_rgb;
  DMLC_DECLARE_PARAMETER(ImdecodeParam) {
    DMLC_DECLARE_FIELD(flag).set_lower_bound(0).set_default(1).describe(
        "Convert decoded image to grayscale (0) or color (1).");
    DMLC_DECLARE_FIELD(to_rgb).set_default(true).describe(
        "Whether to convert decoded image to mxnet's default RGB format (instead of opencv's "
        "default BGR).");
  }
};
DMLC_REGISTER_PARAMETER(ImdecodeParam);

struct ImreadParam : public dmlc::Parameter<ImreadParam> {
  std::string filename;
  int flag;
  bool to_rgb;
  DMLC_DECLARE_PARAMETER(ImreadParam) {
    DMLC_DECLARE_FIELD(filename).describe("Name of the image file to be loaded.");
    DMLC_DECLARE_FIELD(flag).set_lower_bound(0).set_default(1).describe(
        "Convert decoded image to grayscale (0) or color (1).");
    DMLC_DECLARE_FIELD(to_rgb).set_default(true).describe(
        "Whether to convert decoded image to mxnet's default RGB format (instead of opencv's "
        "default BGR).");
  }
};
DMLC_REGISTER_PARAMETER(ImreadParam);

struct ImencodeParam : public dmlc::Parameter<ImencodeParam> {
  std::string img_fmt;
  int quality;
  DMLC_DECLARE_PARAMETER(ImencodeParam) {
    DMLC_DECLARE_FIELD(img_fmt).set_default(".jpg").describe(
        "Encoding: .jpg/.jpeg (JPEG) or .png (PNG).");
    DMLC_DECLARE_FIELD(quality).set_default(95).describe(
        "JPEG quality (1-100) or PNG compression level (0-9).");
  }
};
DMLC_REGISTER_PARAMETER(ImencodeParam);

struct CopyMakeBorderParam : public dmlc::Parameter<CopyMakeBorderParam> {
  int top, bot, left, right, type;
  double value;
  update::FloatTuple values;
  DMLC_DECLARE_PARAMETER(CopyMakeBorderParam) {
    DMLC_DECLARE_FIELD(top).set_lower_bound(0).describe("Top margin.");
    DMLC_DECLARE_FIELD(bot).set_lower_bound(0).describe("Bottom margin.");
    DMLC_DECLARE_FIELD(left).set_lower_bound(0).describe("Left margin.");
    DMLC_DECLARE_FIELD(right).set_lower_bound(0).describe("Right margin.");
    DMLC_DECLARE_FIELD(type).set_default(0).set_lower_bound(0).describe(
        "Filling type (default=cv2.BORDER_CONSTANT): 0 constant, 1 replicate, 2 reflect, "
        "3 wrap, 4 reflect_101, each optionally | 16 (cv2.BORDER_ISOLATED, no effect on a "
        "whole image).");
    DMLC_DECLARE_FIELD(value).set_default(0.0).describe(
        "(Deprecated! Use ``values`` instead.) Fill with single value.");
    DMLC_DECLARE_FIELD(values).set_default(update::FloatTuple()).describe(
        "Fill with value(RGB[A] or gray), up to 4 channels.");
  }
};
DMLC_REGISTER_PARAMETER(CopyMakeBorderParam);

NDArray ToNDArray(const DecodedImage& img) {
  NDArray out(TShape({img.height, img.width, img.channels}), Context::CPU(), false, kUint8);
  out.SyncCopyFromCPU(img.pixels.data(), img.pixels.size());
  return out;
}

void Imdecode(const NodeAttrs& attrs, const std::vector<NDArray>& inputs,
              std::vector<NDArray>* outputs) {
  const auto& p = Param<ImdecodeParam>(attrs);
  const NDArray& buf = inputs[0];
  CHECK_EQ(buf.ctx().dev_mask(), Context::kCPU)
      << "Operator _cvimdecode: argument buf must be on cpu, given " << buf.ctx();
  CHECK_EQ(buf.dtype(), kUint8) << "Operator _cvimdecode: argument buf must be a uint8 buffer, "
                                << "given dtype " << DTypeName(buf.dtype());
  CHECK_GT(buf.shape().Size(), 0) << "Operator _cvimdecode: argument buf is empty";
  buf.WaitToRead();
  outputs->assign(1, ToNDArray(DecodeImage(buf.data().dptr_, buf.shape().Size(), p.flag,
                                           p.to_rgb, "Operator _cvimdecode")));
}

void Imread(const NodeAttrs& attrs, const std::vector<NDArray>&, std::vector<NDArray>* outputs) {
  const auto& p = Param<ImreadParam>(attrs);
  std::ifstream file(p.filename, std::ios::binary);
  CHECK(file.is_open()) << "Operator _cvimread: cannot open file '" << p.filename << "'";
  std::stringstream bytes;
  bytes << file.rdbuf();
  const std::string data = bytes.str();
  CHECK(!data.empty()) << "Operator _cvimread: file '" << p.filename << "' is empty";
  outputs->assign(1, ToNDArray(DecodeImage(data.data(), data.size(), p.flag, p.to_rgb,
                                           "Operator _cvimread: file '" + p.filename + "'")));
}

void Imencode(const NodeAttrs& attrs, const std::vector<NDArray>& inputs,
              std::vector<NDArray>* outputs) {
  const auto& p = Param<ImencodeParam>(attrs);
  const NDArray& img = inputs[0];
  CHECK_EQ(img.dtype(), kUint8) << "Operator _cvimencode: argument src must be uint8, given "
                                << DTypeName(img.dtype());
  const TShape& s = img.shape();
  CHECK(s.ndim() == 2 || s.ndim() == 3)
      << "Operator _cvimencode: argument src must be (H, W) or (H, W, C), given " << s;
  std::vector<uint8_t> pixels(s.Size());
  img.SyncCopyToCPU(pixels.data(), pixels.size());
  std::vector<uint8_t> code = EncodeImage(pixels.data(), s[0], s[1], s.ndim() == 3 ? s[2] : 1,
                                          p.img_fmt, p.quality);
  NDArray out(TShape({static_cast<index_t>(code.size())}), Context::CPU(), false, kUint8);
  out.SyncCopyFromCPU(code.data(), code.size());
  outputs->assign(1, out);
}

constexpr int kBorderIsolated = 16;

/*! \brief The source index OpenCV's borderInterpolate gives position p of an axis of n; -1
 *  for the constant border. */
index_t BorderIndex(index_t p, index_t n, int type) {
  if (p >= 0 && p < n) return p;
  switch (type) {
    case 1:  // replicate: aaa|abcd|ddd
      return p < 0 ? 0 : n - 1;
    case 3:  // wrap: bcd|abcd|abc
      return ((p % n) + n) % n;
    case 2:    // reflect: cba|abcd|dcb
    case 4: {  // reflect_101: dcb|abcd|cba
      if (n == 1) return 0;
      const index_t delta = type == 4 ? 1 : 0;
      while (p < 0 || p >= n) {
        p = p < 0 ? -p - 1 + delta : 2 * n - p - 1 - delta;
      }
      return p;
    }
    default:
      return -1;
  }
}

bool CopyMakeBorderShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                         std::vector<TShape>* out) {
  const TShape& s = (*in)[0];
  if (!s.IsKnown()) return false;
  CHECK_EQ(s.ndim(), 3) << "Operator _cvcopyMakeBorder: argument src must be (H, W, C), given "
                        << s;
  const auto& p = Param<CopyMakeBorderParam>(attrs);
  CHECK_LE(p.type & ~kBorderIsolated, 4)
      << "Operator _cvcopyMakeBorder: argument type must be 0-4 (optionally | 16), given "
      << p.type;
  AssignShape(attrs, "output", &(*out)[0],
              TShape({s[0] + p.top + p.bot, s[1] + p.left + p.right, s[2]}));
  return true;
}

void CopyMakeBorderCompute(const NodeAttrs& attrs, const OpContext&,
                           const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                           const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = Param<CopyMakeBorderParam>(attrs);
  const int type = p.type & ~kBorderIsolated;
  const index_t h = in[0].shape_[0], w = in[0].shape_[1], c = in[0].shape_[2];
  const index_t oh = out[0].shape_[0], ow = out[0].shape_[1];
  MXNET_NUMERIC_TYPE_SWITCH(in[0].type_flag_, DType, {
    std::vector<DType> fill(c);
    for (index_t k = 0; k < c; ++k) {
      double v = p.values.ndim() == 0 ? p.value
                 : k < p.values.ndim() ? p.values[k] : 0.0;  // OpenCV's Scalar pads with 0
      if constexpr (std::is_same<DType, uint8_t>::value) {
        v = std::min(std::max(std::round(v), 0.0), 255.0);
      }
      fill[k] = static_cast<DType>(v);
    }
    const DType* src = in[0].dptr<DType>();
    DType* dst = out[0].dptr<DType>();
    for (index_t y = 0; y < oh; ++y) {
      const index_t sy = BorderIndex(y - p.top, h, type);
      for (index_t x = 0; x < ow; ++x) {
        const index_t sx = BorderIndex(x - p.left, w, type);
        DType* o = dst + (y * ow + x) * c;
        if (sy < 0 || sx < 0) {
          std::copy(fill.begin(), fill.end(), o);
        } else {
          std::copy(src + (sy * w + sx) * c, src + (sy * w + sx + 1) * c, o);
        }
      }
    }
  });
}

}  // namespace

NNVM_REGISTER_OP(_cvimdecode)
    .describe("Decode image with OpenCV. \nNote: return image in RGB by default, instead of "
              "OpenCV's default BGR.")
    .set_attr_parser(ParamParser<ImdecodeParam>)
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("buf", "NDArray", "Buffer containing binary encoded image")
    .add_arguments(ImdecodeParam::__FIELDS__())
    .set_attr<FNDArrayFunction>("FNDArrayFunction", Imdecode);

NNVM_REGISTER_OP(_cvimread)
    .describe("Read and decode image with OpenCV. \nNote: return image in RGB by default, "
              "instead of OpenCV's default BGR.")
    .set_attr_parser(ParamParser<ImreadParam>)
    .set_num_inputs(0)
    .set_num_outputs(1)
    .add_arguments(ImreadParam::__FIELDS__())
    .set_attr<FNDArrayFunction>("FNDArrayFunction", Imread);

NNVM_REGISTER_OP(_cvimencode)
    .describe("Encode an (H, W[, C]) uint8 image (channels in OpenCV's order) as JPEG or PNG "
              "bytes, a 1-D uint8 NDArray.")
    .set_attr_parser(ParamParser<ImencodeParam>)
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("src", "NDArray", "source image")
    .add_arguments(ImencodeParam::__FIELDS__())
    .set_attr<FNDArrayFunction>("FNDArrayFunction", Imencode);

NNVM_REGISTER_OP(_cvcopyMakeBorder)
    .describe("Pad image border with OpenCV. \n")
    .set_attr_parser(ParamParser<CopyMakeBorderParam>)
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("src", "NDArray", "source image")
    .add_arguments(CopyMakeBorderParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", CopyMakeBorderShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", CopyMakeBorderCompute);

}  // namespace image
}  // namespace op
}  // namespace mxnet
