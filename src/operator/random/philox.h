// Philox4x32-10 counter-based generator (Salmon et al., SC'11) and the per-element random
// stream random operators draw from: element i of a call uses key = seed and counter
// (block, i, stream), so its numbers do not depend on which thread computes it.
#ifndef MXNET_OPERATOR_RANDOM_PHILOX_H_
#define MXNET_OPERATOR_RANDOM_PHILOX_H_

#include <cstdint>

namespace mxnet {
namespace op {

struct Philox4x32 {
  /*! \brief Encrypt counter ctr with key (10 rounds); returns 4 random words in ctr. */
  static inline void Generate(uint32_t ctr[4], uint32_t k0, uint32_t k1) {
    constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
    constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
    for (int round = 0; round < 10; ++round) {
      const uint64_t p0 = static_cast<uint64_t>(kM0) * ctr[0];
      const uint64_t p1 = static_cast<uint64_t>(kM1) * ctr[2];
      const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
      const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
      const uint32_t c1 = ctr[1], c3 = ctr[3];
      ctr[0] = hi1 ^ c1 ^ k0;
      ctr[1] = lo1;
      ctr[2] = hi0 ^ c3 ^ k1;
      ctr[3] = lo0;
      k0 += kW0;
      k1 += kW1;
    }
  }
};

/*! \brief The random numbers of one output element: successive Philox blocks of counter
 *  (block, lo(index), hi(index), lo(stream)) under key (lo(seed), hi(seed) ^ hi(stream)). */
class RandomStream {
 public:
  RandomStream(uint64_t seed, uint64_t stream, uint64_t index)
      : k0_(static_cast<uint32_t>(seed)),
        k1_(static_cast<uint32_t>(seed >> 32) ^ static_cast<uint32_t>(stream >> 32)),
        i0_(static_cast<uint32_t>(index)),
        i1_(static_cast<uint32_t>(index >> 32)),
        s0_(static_cast<uint32_t>(stream)) {}

  uint32_t NextU32() {
    if (pos_ == 4) Refill();
    return buf_[pos_++];
  }
  uint64_t NextU64() {
    const uint64_t hi = NextU32();
    return (hi << 32) | NextU32();
  }
  /*! \brief Uniform in [0, 1) with 24 random bits. */
  float UniformF() { return static_cast<float>(NextU32() >> 8) * (1.0f / 16777216.0f); }
  /*! \brief Uniform in [0, 1) with 53 random bits. */
  double UniformD() { return static_cast<double>(NextU64() >> 11) * (1.0 / 9007199254740992.0); }
  template <typename R>
  R Uniform() { return sizeof(R) == sizeof(float) ? R(UniformF()) : R(UniformD()); }
  /*! \brief Uniform in (0, 1]: safe for log. */
  template <typename R>
  R UniformOpen0() { return R(1) - Uniform<R>(); }

 private:
  void Refill() {
    buf_[0] = block_++;
    buf_[1] = i0_;
    buf_[2] = i1_;
    buf_[3] = s0_;
    Philox4x32::Generate(buf_, k0_, k1_);
    pos_ = 0;
  }
  uint32_t k0_, k1_, i0_, i1_, s0_;
  uint32_t block_{0};
  uint32_t buf_[4] = {0, 0, 0, 0};
  int pos_{4};
};

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_RANDOM_PHILOX_H_
