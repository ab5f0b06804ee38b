// 2-bit gradient compression: the CPU kernels and their engine ops (layout in the header).
#include "kvstore/gradient_compression.h"

#include <dmlc/logging.h>

#include <algorithm>
#include <cstring>
#include <sstream>

namespace mxnet {
namespace kvstore {
namespace {


// Elements quantized per step: residuals and codes first (a plain loop of selects that the
// compiler vectorizes), then the codes packed 16 to a word. The arithmetic is MXNet's:
// r = residual + grad; r >= t sends +t (r - t), r <= -t sends -t (r - (-t)), else 0.
constexpr int64_t kChunk = 1024;

inline uint32_t Bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}

inline float FromBits(uint32_t u) {
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}

void QuantizeChunk(const float* __restrict grad, float* __restrict residual,
                   uint8_t* __restrict codes, int64_t len, float threshold) {
  for (int64_t j = 0; j < len; ++j) {
    const float r = residual[j] + grad[j];
    // Quiet comparisons and bit masks instead of branches, so the loop vectorizes; the
    // stored residual is exactly r - t, r + t or r.
    const uint32_t pos = 0u - static_cast<uint32_t>(__builtin_isgreaterequal(r, threshold));
    const uint32_t neg =
        (0u - static_cast<uint32_t>(__builtin_islessequal(r, -threshold))) & ~pos;
    residual[j] = FromBits((Bits(r - threshold) & pos) | (Bits(r + threshold) & neg) |
                           (Bits(r) & ~(pos | neg)));
    codes[j] = static_cast<uint8_t>((pos & 3u) | (neg & 2u));
  }
}

// Element j of a word: byte j / 4 (lowest address first), bit pair j % 4 from the top.
void PackWords(const uint8_t* codes, int64_t len, float* out) {
  for (int64_t w = 0; w * 16 < len; ++w) {
    uint8_t bytes[4] = {0, 0, 0, 0};
    for (int64_t j = w * 16; j < std::min(len, w * 16 + 16); ++j) {
      bytes[(j & 15) >> 2] |= static_cast<uint8_t>(codes[j] << (6 - 2 * (j & 3)));
    }
    std::memcpy(out + w, bytes, 4);
  }
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
  // A pair reads +t when both bits are set (11), -t when only the high one is (10), else 0.
  const float value[4] = {0.0f, 0.0f, -threshold, threshold};  // by code: 00, 01, 10, 11
  auto expand = [&value](uint32_t word, float* dst, int len) {
    for (int j = 0; j < len; ++j) {
      dst[j] = value[(word >> (8 * (j >> 2) + 6 - 2 * (j & 3))) & 3u];
    }
  };
  const int64_t full = n / 16;
#pragma omp parallel for schedule(static) if (full >= 2048)
  for (int64_t b = 0; b < full; ++b) {
    const uint8_t* w = bytes + 4 * b;
    const uint32_t word = w[0] | w[1] << 8 | w[2] << 16 | static_cast<uint32_t>(w[3]) << 24;
    float tmp[16];
    expand(word, tmp, 16);
    std::memcpy(out + 16 * b, tmp, sizeof(tmp));
  }
  if (full * 16 < n) {
    const uint8_t* w = bytes + 4 * full;
    const uint32_t word = w[0] | w[1] << 8 | w[2] << 16 | static_cast<uint32_t>(w[3]) << 24;
    expand(word, out + 16 * full, static_cast<int>(n - 16 * full));
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
