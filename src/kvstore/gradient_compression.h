// 2-bit gradient compression with residual, bit for bit as MXNet 1.9.1 packs it.
//
// Per element i: residual[i] += grad[i]; if residual >= t the element is sent as +t and t is
// taken off the residual; if residual <= -t it is sent as -t and -t is taken off; else it is
// sent as 0 and the residual keeps it. 16 elements go into one 32-bit word (stored as a
// float32 array of ceil(n/16) elements): element i of a block uses byte (i%16)/4 of the word
// (byte 0 = lowest address) and in that byte the two bits (i%4) counting from the most
// significant end: 11 = +t, 10 = -t, 00 = 0 (01 also reads as 0).
#ifndef MXNET_KVSTORE_GRADIENT_COMPRESSION_H_
#define MXNET_KVSTORE_GRADIENT_COMPRESSION_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mxnet/ndarray.h"

namespace mxnet {
namespace kvstore {

/*! \brief Values as MXNet numbers them (EncodeParams writes the number). */
enum class CompressionType { kNone = 0, kTwoBit = 1 };

/*! \brief Number of float32 words that hold n 2-bit codes. */
inline int64_t TwoBitCompressedSize(int64_t n) { return (n + 15) / 16; }

/*! \brief Quantize n gradients into out (TwoBitCompressedSize(n) words), updating residual. */
void Quantize2Bit(const float* grad, float* residual, float* out, int64_t n, float threshold);
/*! \brief Expand n codes of in into out (+threshold, -threshold or 0). */
void Dequantize2Bit(const float* in, float* out, int64_t n, float threshold);

class GradientCompression {
 public:
  /*! \brief kwargs "type" (required: "2bit") and "threshold" (default 0.5, must be > 0). */
  void SetParams(const std::vector<std::pair<std::string, std::string>>& kwargs);
  CompressionType type() const { return type_; }
  float threshold() const { return threshold_; }
  /*! \brief "type[,threshold]" as MXNet sends it to servers; DecodeParams reads it back. */
  std::string EncodeParams() const;
  void DecodeParams(const std::string& s);
  /*! \brief Elements of the compressed array for an array of original_size elements. */
  int64_t GetCompressedSize(int64_t original_size) const;
  /*! \brief Engine op: to = quantize(from) with residual (all float32, on from's device: the
   *  CPU, or a GPU in a USE_CUDA build). */
  void Quantize(const NDArray& from, NDArray* to, NDArray* residual, int priority) const;
  /*! \brief Engine op: to = dequantize(from). */
  void Dequantize(const NDArray& from, NDArray* to, int priority) const;

 private:
  CompressionType type_{CompressionType::kNone};
  float threshold_{0.5f};
};

}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_GRADIENT_COMPRESSION_H_
