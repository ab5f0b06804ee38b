// 2-bit gradient compression: the CPU kernels and their engine ops (layout in the header).
#include "kvstore/gradient_compression.h"

#include <dmlc/logging.h>

#include <cstring>
#include <sstream>

namespace mxnet {
namespace kvstore {
namespace {

// Bit masks for position i % 4 inside a byte: both bits for +t, the high one for -t.
constexpr uint8_t kPosBits[4] = {0xc0, 0x30, 0x0c, 0x03};
constexpr uint8_t kNegBits[4] = {0x80, 0x20, 0x08, 0x02};
// Blocks per OpenMP chunk; small arrays stay on one thread.
constexpr int64_t kParallelBlocks = 4096;

void QuantizeBlock(const float* grad, float* residual, float* out_word, int64_t start,
                   int64_t end, float threshold) {
  uint8_t bytes[4] = {0, 0, 0, 0};
  for (int64_t i = start; i < end; ++i) {
    const int64_t j = i - start;
    float r = residual[i] + grad[i];
    if (r >= threshold) {
      bytes[j >> 2] |= kPosBits[j & 3];
      r -= threshold;
    } else if (r <= -threshold) {
      bytes[j >> 2] |= kNegBits[j & 3];
      r += threshold;
    }
    residual[i] = r;
  }
  std::memcpy(out_word, bytes, 4);
}

void CheckFloat32Cpu(const NDArray& a, const char* what) {
  CHECK_EQ(a.dtype(), kFloat32) << "2-bit gradient compression: " << what
                                << " must be float32, given " << DTypeName(a.dtype());
  CHECK_EQ(a.ctx().dev_mask(), Context::kCPU)
      << "2-bit gradient compression: " << what << " is on " << a.ctx()
      << "; this build quantizes on CPU only (GPU kernels need a CUDA build with them)";
}

}  // namespace

void Quantize2Bit(const float* grad, float* residual, float* out, int64_t n, float threshold) {
  const int64_t blocks = TwoBitCompressedSize(n);
#pragma omp parallel for schedule(static) if (blocks >= 2 * kParallelBlocks)
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t start = b * 16;
    const int64_t end = start + 16 <= n ? start + 16 : n;
    QuantizeBlock(grad, residual, out + b, start, end, threshold);
  }
}

void Dequantize2Bit(const float* in, float* out, int64_t n, float threshold) {
  const uint8_t* bytes = reinterpret_cast<const uint8_t*>(in);
#pragma omp parallel for schedule(static) if (n >= 32 * kParallelBlocks)
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t byte = bytes[(i >> 4) * 4 + ((i & 15) >> 2)];
    const uint8_t masked = byte & kPosBits[i & 3];
    out[i] = masked == kPosBits[i & 3] ? threshold
             : masked == kNegBits[i & 3] ? -threshold
                                          : 0.0f;
  }
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
  CHECK_EQ(type, "2bit") << "set_gradient_compression: unknown type for gradient compression '"
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
  CheckFloat32Cpu(from, "the gradient");
  CheckFloat32Cpu(*to, "the compressed buffer");
  CheckFloat32Cpu(*residual, "the residual");
  CHECK_EQ(residual->shape().Size(), from.shape().Size())
      << "2-bit gradient compression: residual has " << residual->shape().Size()
      << " elements, the gradient " << from.shape().Size();
  CHECK_EQ(to->shape().Size(), TwoBitCompressedSize(from.shape().Size()))
      << "2-bit gradient compression: compressed buffer has " << to->shape().Size()
      << " elements, expected " << TwoBitCompressedSize(from.shape().Size());
  const float threshold = threshold_;
  NDArray src = from, dst = *to, res = *residual;
  Engine::Get()->PushSync(
      [src, dst, res, threshold](RunContext) {
        Quantize2Bit(src.data().dptr<float>(), res.data().dptr<float>(), dst.data().dptr<float>(),
                     static_cast<int64_t>(src.shape().Size()), threshold);
      },
      from.ctx(), {from.var()}, {to->var(), residual->var()}, FnProperty::kNormal, priority,
      "QuantizeCPU");
}

void GradientCompression::Dequantize(const NDArray& from, NDArray* to, int priority) const {
  CHECK(type_ == CompressionType::kTwoBit) << "gradient compression: Dequantize without a type";
  CheckFloat32Cpu(from, "the compressed buffer");
  CheckFloat32Cpu(*to, "the output");
  CHECK_EQ(from.shape().Size(), TwoBitCompressedSize(to->shape().Size()))
      << "2-bit gradient compression: compressed buffer has " << from.shape().Size()
      << " elements, expected " << TwoBitCompressedSize(to->shape().Size());
  const float threshold = threshold_;
  NDArray src = from, dst = *to;
  Engine::Get()->PushSync(
      [src, dst, threshold](RunContext) {
        Dequantize2Bit(src.data().dptr<float>(), dst.data().dptr<float>(),
                       static_cast<int64_t>(dst.shape().Size()), threshold);
      },
      from.ctx(), {from.var()}, {to->var()}, FnProperty::kNormal, priority, "DequantizeCPU");
}

}  // namespace kvstore
}  // namespace mxnet
