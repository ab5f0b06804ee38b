// _image_flip_left_right / _image_flip_top_bottom and their random variants, which flip with
// probability 1/2 drawn from the call's random stream.
#include <cstring>
#include <vector>

#include "operator/image/image_common.h"
#include "operator/random/philox.h"

namespace mxnet {
namespace op {
namespace image {
namespace {

/*! \brief Reverse an (H, W, C) image along axis 0 (rows) or 1 (columns); works in place. The
 *  middle row/column of an odd size is copied too (MXNet 1.9.1 leaves it unwritten). */
void FlipImage(const TBlob& in, const TBlob& out, int axis) {
  const size_t elem = DTypeSize(in.type_flag_);
  const index_t h = in.shape_[0], w = in.shape_[1];
  const size_t pixel = in.shape_[2] * elem;
  // A "line" is what moves as one block: a row for top-bottom, a pixel for left-right.
  const index_t outer = axis == 0 ? 1 : h, mid = axis == 0 ? h : w;
  const size_t line = axis == 0 ? w * pixel : pixel;
  const char* src = static_cast<const char*>(in.dptr_);
  char* dst = static_cast<char*>(out.dptr_);
  std::vector<char> hold(line);
  for (index_t o = 0; o < outer; ++o) {
    const size_t base = o * mid * line;
    for (index_t j = 0; j < (mid + 1) / 2; ++j) {
      const size_t a = base + j * line, b = base + (mid - 1 - j) * line;
      std::memcpy(hold.data(), src + a, line);
      std::memmove(dst + a, src + b, line);
      std::memcpy(dst + b, hold.data(), line);
    }
  }
}

template <int axis>
void FlipCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] != kNullOp) FlipImage(in[0], out[0], axis);
}

template <int axis>
void RandomFlipCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  RandomStream rs(ctx.random_seed, ctx.random_stream, 0);
  if (rs.UniformF() < 0.5f) {
    FlipImage(in[0], out[0], axis);
  } else if (out[0].dptr_ != in[0].dptr_) {
    std::memcpy(out[0].dptr_, in[0].dptr_, in[0].Size() * DTypeSize(in[0].type_flag_));
  }
}

}  // namespace

const bool reg_image_flips_ [[maybe_unused]] = [] {
  RegisterAugmenter("_image_flip_left_right",
                    "Reverses the order of columns of an image of shape (H x W x C).",
                    FlipCompute<1>, false);
  RegisterAugmenter("_image_flip_top_bottom",
                    "Reverses the order of rows of an image of shape (H x W x C).",
                    FlipCompute<0>, false);
  RegisterAugmenter("_image_random_flip_left_right",
                    "Randomly flips an image of shape (H x W x C) left to right with "
                    "probability 0.5.",
                    RandomFlipCompute<1>, true);
  RegisterAugmenter("_image_random_flip_top_bottom",
                    "Randomly flips an image of shape (H x W x C) top to bottom with "
                    "probability 0.5.",
                    RandomFlipCompute<0>, true);
  return true;
}();

}  // namespace image
}  // namespace op
}  // namespace mxnet
