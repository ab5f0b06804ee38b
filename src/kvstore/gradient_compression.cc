// 2-bit gradient compression: the CPU kernels and the engine ops (CPU or GPU; layout in the header).
#include "kvstore/gradient_compression.h"

#include <dmlc/logging.h>

#include <algorithm>
#include <cstring>
#include <sstream>

#include "kvstore/gpu_kernels.h"
#include "kvstore/two_bit_codec.h"
#include "mxnet/cuda_config.h"

namespace mxnet {
namespace kvstore {
namespace {


// Elements quantized per step: residuals and codes first (a plain loop of selects that the
// compiler vectorizes; the per-element rule is two_bit_codec.h's, shared with the GPU), then
// the codes packed 16 to a word.
constexpr int64_t kChunk = 1024;

void QuantizeChunk(const float* __restrict grad, float* __restrict residual,
                   uint8_t* __restrict codes, int64_t len, float threshold) {
  for (int64_t j = 0; j < len; ++j) {
    codes[j] = static_cast<uint8_t>(TwoBitQuantizeOne(grad[j], residual + j, threshold));
  }
}

// Codes into words, 16 to a word at TwoBitShift(j) (the little-endian byte order).
void PackWords(const uint8_t* codes, int64_t len, float* out) {
  for (int64_t w = 0; w * 16 < len; ++w) {
    uint32_t word = 0;
    for (int64_t j = w * 16; j < std::min(len, w * 16 + 16); ++j) {
      word |= static_cast<uint32_t>(codes[j]) << TwoBitShift(j);
    }
    std::memcpy(out + w, &word, 4);
  }
}

// Every operand float32 and on ctx (the gradient's device: quantizing runs where it lives).
void CheckOperand(const NDArray& a, const char* what, Context ctx) {
  CHECK_EQ(a.dtype(), kFloat32) << "2-bit gradient compression: " << what
                                << " must be float32, given " << DTypeName(a.dtype());
  CHECK(a.ctx() == ctx) << "2-bit gradient compression: " << what << " is on " << a.ctx()
                        << ", expected " << ctx << " (where the input is)";
#if !MXNET_USE_CUDA
  CHECK_EQ(a.ctx().dev_mask(), Context::kCPU)
      << "2-bit gradient compression: " << what << " is on " << a.ctx()
      << "; this build has no GPU support (build with USE_CUDA=ON)";
#endif
}

}  // namespace

void Quantize2Bit(const float* grad, float* residual, float* out, int64_t n, float threshold) {
  const int64_t nchunk = (n + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static) if (nchunk >= 32)
  for (int64_t c = 0; c < nchunk; ++c) {
    const int64_t start = c * kChunk, len = std::min(kChunk, n - start);
    uint8_t codes[kChunk];
    QuantizeChunk(grad + start, residual + start, codes, len, threshold);
    PackWords(codes, len, out + start / 16);
  }
}

void Dequantize2Bit(const float* in, float* out, int64_t n, float threshold) {
  const uint8_t* bytes = reinterpret_cast<const uint8_t*>(in);
  auto expand = [threshold](uint32_t word, int64_t first, float* dst, int len) {
    for (int j = 0; j < len; ++j) dst[j] = TwoBitDequantizeOne(word, first + j, threshold);
  };
  auto word_at = [bytes](int64_t b) {  // little-endian, whatever the host's order
    const uint8_t* w = bytes + 4 * b;
    return w[0] | w[1] << 8 | w[2] << 16 | static_cast<uint32_t>(w[3]) << 24;
  };
  const int64_t full = n / 16;
#pragma omp parallel for schedule(static) if (full >= 2048)
  for (int64_t b = 0; b < full; ++b) {
    float tmp[16];
    expand(word_at(b), 0, tmp, 16);
    std::memcpy(out + 16 * b, tmp, sizeof(tmp));
  }
  if (full * 16 < n) expand(word_at(full), 0, out + 16 * full, static_cast<int>(n - 16 * full));
}

void GradientCompression::SetParams(
    const std::vector<std::pair<std::string, std::string>>& kwargs) {
  std::string type;
  bool has_type = false;
  float threshold = 0.5f;
  for (const auto& kv : kwargs) {
    if (kv.first == "type") {
      type = kv.second;
      has_type = true;
    } else if (kv.first == "threshold") {
      std::istringstream is(kv.second);
      is >> threshold;
      CHECK(!is.fail() && (is >> std::ws).eof())
          << "set_gradient_compression: threshold must be a number, given '" << kv.second
          << "'";
    }
  }
  CHECK(has_type) << "set_gradient_compression: 'type' is required (expected '2bit')";
  CHECK_GT(threshold, 0) << "set_gradient_compression: threshold must be greater than 0";
  CHECK_EQ(type, "2bit") << "set_gradient_compression: Unknown type for gradient compression '"
                         << type << "' (expected '2bit')";
  type_ = CompressionType::kTwoBit;
  threshold_ = threshold;
}

std::string GradientCompression::EncodeParams() const {
  std::string s = std::to_string(static_cast<int>(type_));
  if (type_ == CompressionType::kTwoBit) s += "," + std::to_string(threshold_);
  return s;
}

void GradientCompression::DecodeParams(const std::string& s) {
  const size_t comma = s.find(',');
  type_ = static_cast<CompressionType>(std::stoi(s.substr(0, comma)));
  if (comma != std::string::npos && comma + 1 < s.size()) {
    threshold_ = std::stof(s.substr(comma + 1));
  }
}

int64_t GradientCompression::GetCompressedSize(int64_t original_size) const {
  CHECK(type_ == CompressionType::kTwoBit)
      << "gradient compression: no compression type set (call set_gradient_compression)";
  return TwoBitCompressedSize(original_size);
}

void GradientCompression::Quantize(const NDArray& from, NDArray* to, NDArray* residual,
                                   int priority) const {
  CHECK(type_ == CompressionType::kTwoBit) << "gradient compression: Quantize without a type";
  CheckOperand(from, "the gradient", from.ctx());
  CheckOperand(*to, "the compressed buffer", from.ctx());
  CheckOperand(*residual, "the residual", from.ctx());
  CHECK_EQ(residual->shape().Size(), from.shape().Size())
      << "2-bit gradient compression: residual has " << residual->shape().Size()
      << " elements, the gradient " << from.shape().Size();
  CHECK_EQ(to->shape().Size(), TwoBitCompressedSize(from.shape().Size()))
      << "2-bit gradient compression: compressed buffer has " << to->shape().Size()
      << " elements, expected " << TwoBitCompressedSize(from.shape().Size());
  const float threshold = threshold_;
  NDArray src = from, dst = *to, res = *residual;
  Engine::Get()->PushSync(
      [src, dst, res, threshold](RunContext rctx) {
        const int64_t n = static_cast<int64_t>(src.shape().Size());
        float *r = res.data().dptr<float>(), *o = dst.data().dptr<float>();
#if MXNET_USE_CUDA
        if (src.ctx().dev_mask() == Context::kGPU) {
          GpuQuantize2Bit(src.data().dptr<float>(), r, o, n, threshold, rctx.stream);
          return;
        }
#endif
        Quantize2Bit(src.data().dptr<float>(), r, o, n, threshold);
      },
      from.ctx(), {from.var()}, {to->var(), residual->var()}, FnProperty::kNormal, priority,
      from.ctx().dev_mask() == Context::kGPU ? "QuantizeGPU" : "QuantizeCPU");
}

void GradientCompression::Dequantize(const NDArray& from, NDArray* to, int priority) const {
  CHECK(type_ == CompressionType::kTwoBit) << "gradient compression: Dequantize without a type";
  CheckOperand(from, "the compressed buffer", from.ctx());
  CheckOperand(*to, "the output", from.ctx());
  CHECK_EQ(from.shape().Size(), TwoBitCompressedSize(to->shape().Size()))
      << "2-bit gradient compression: compressed buffer has " << from.shape().Size()
      << " elements, expected " << TwoBitCompressedSize(to->shape().Size());
  const float threshold = threshold_;
  NDArray src = from, dst = *to;
  Engine::Get()->PushSync(
      [src, dst, threshold](RunContext rctx) {
        const int64_t n = static_cast<int64_t>(dst.shape().Size());
#if MXNET_USE_CUDA
        if (src.ctx().dev_mask() == Context::kGPU) {
          GpuDequantize2Bit(src.data().dptr<float>(), dst.data().dptr<float>(), n, threshold,
                            rctx.stream);
          return;
        }
#endif
        Dequantize2Bit(src.data().dptr<float>(), dst.data().dptr<float>(), n, threshold);
      },
      from.ctx(), {from.var()}, {to->var()}, FnProperty::kNormal, priority,
      from.ctx().dev_mask() == Context::kGPU ? "DequantizeGPU" : "DequantizeCPU");
}

}  // namespace kvstore
}  // namespace mxnet
