// The 2-bit rules shared by the CPU and GPU code (src/kvstore/two_bit_codec.h), run on the CPU:
// the per-element rule, the bit layout, and the GPU kernels' word-at-a-time loop against the
// CPU's Quantize2Bit/Dequantize2Bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kvstore/gradient_compression.h"
#include "kvstore/two_bit_codec.h"

namespace {

using mxnet::kvstore::Dequantize2Bit;
using mxnet::kvstore::Quantize2Bit;
using mxnet::kvstore::TwoBitCompressedSize;
using mxnet::kvstore::TwoBitDequantizeOne;
using mxnet::kvstore::TwoBitQuantizeOne;
using mxnet::kvstore::TwoBitQuantizeWord;
using mxnet::kvstore::TwoBitShift;

TEST(TwoBitCodec, quantize_one_sends_threshold_and_keeps_the_rest) {
  float r = 0.2f;
  EXPECT_EQ(TwoBitQuantizeOne(0.4f, &r, 0.5f), 3u);  // 0.6 >= 0.5: +t
  EXPECT_FLOAT_EQ(r, 0.6f - 0.5f);
  r = -0.3f;
  EXPECT_EQ(TwoBitQuantizeOne(-0.2f, &r, 0.5f), 2u);  // -0.5 <= -0.5: -t
  EXPECT_EQ(r, -0.5f + 0.5f);
  r = 0.1f;
  EXPECT_EQ(TwoBitQuantizeOne(0.3f, &r, 0.5f), 0u);
  EXPECT_EQ(r, 0.1f + 0.3f);
  r = 0.0f;
  EXPECT_EQ(TwoBitQuantizeOne(std::numeric_limits<float>::quiet_NaN(), &r, 0.5f), 0u);
  EXPECT_TRUE(std::isnan(r));
}

TEST(TwoBitCodec, element_j_sits_in_byte_j_div_4_from_the_top_bits) {
  for (int j = 0; j < 16; ++j) {
    uint8_t bytes[4] = {0, 0, 0, 0};
    bytes[j / 4] = static_cast<uint8_t>(3u << (6 - 2 * (j % 4)));
    uint32_t word;
    std::memcpy(&word, bytes, 4);  // little-endian host, as every CUDA GPU
    EXPECT_EQ(word, 3u << TwoBitShift(j)) << "element " << j;
    EXPECT_EQ(TwoBitDequantizeOne(word, j, 0.25f), 0.25f);
    EXPECT_EQ(TwoBitDequantizeOne(word, (j + 1) % 16, 0.25f), 0.0f);
  }
  EXPECT_EQ(TwoBitDequantizeOne(2u << TwoBitShift(5), 5, 0.25f), -0.25f);
  EXPECT_EQ(TwoBitDequantizeOne(1u << TwoBitShift(5), 5, 0.25f), 0.0f);  // 01 reads as 0
}

// The GPU kernel's loop (one word per thread, in any order) gives the CPU's bytes and residuals.
TEST(TwoBitCodec, word_at_a_time_equals_the_cpu_quantize_bit_for_bit) {
  std::mt19937 gen(7);
  std::normal_distribution<float> dist(0.0f, 0.6f);
  for (int64_t n : {1, 15, 16, 17, 1000, 5003}) {
    std::vector<float> grad(n), res_cpu(n), res_word(n);
    for (int64_t i = 0; i < n; ++i) {
      grad[i] = dist(gen);
      res_cpu[i] = res_word[i] = dist(gen);
    }
    const int64_t words = TwoBitCompressedSize(n);
    std::vector<float> out_cpu(words), out_word(words);
    for (int round = 0; round < 3; ++round) {
      Quantize2Bit(grad.data(), res_cpu.data(), out_cpu.data(), n, 0.5f);
      for (int64_t w = words - 1; w >= 0; --w) {
        const uint32_t word = TwoBitQuantizeWord(grad.data(), res_word.data(), n, w, 0.5f);
        std::memcpy(&out_word[w], &word, 4);
      }
      ASSERT_EQ(std::memcmp(out_cpu.data(), out_word.data(), 4 * words), 0) << "n=" << n;
      ASSERT_EQ(std::memcmp(res_cpu.data(), res_word.data(), 4 * n), 0) << "n=" << n;
    }
    std::vector<float> back(n);
    Dequantize2Bit(out_cpu.data(), back.data(), n, 0.5f);
    for (int64_t i = 0; i < n; ++i) {
      uint32_t word;
      std::memcpy(&word, &out_word[i / 16], 4);
      ASSERT_EQ(back[i], TwoBitDequantizeOne(word, i, 0.5f)) << "n=" << n << " i=" << i;
    }
  }
}

}  // namespace
