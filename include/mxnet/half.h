// half_t: IEEE 754 binary16 storage type; arithmetic happens in float.
#ifndef MXNET_HALF_H_
#define MXNET_HALF_H_

#include <cstdint>
#include <cstring>

namespace mxnet {

struct half_t {
  uint16_t bits{0};

  half_t() = default;
  half_t(float f) : bits(FromFloat(f)) {}  // NOLINT(runtime/explicit)
  half_t(double d) : bits(FromFloat(static_cast<float>(d))) {}  // NOLINT
  half_t(int v) : bits(FromFloat(static_cast<float>(v))) {}  // NOLINT
  half_t(int64_t v) : bits(FromFloat(static_cast<float>(v))) {}  // NOLINT
  half_t(unsigned v) : bits(FromFloat(static_cast<float>(v))) {}  // NOLINT
  operator float() const { return ToFloat(bits); }  // NOLINT(runtime/explicit)

  half_t& operator+=(half_t o) { return *this = half_t(float(*this) + float(o)); }
  half_t& operator-=(half_t o) { return *this = half_t(float(*this) - float(o)); }
  half_t& operator*=(half_t o) { return *this = half_t(float(*this) * float(o)); }
  half_t& operator/=(half_t o) { return *this = half_t(float(*this) / float(o)); }

  static half_t FromBits(uint16_t b) { half_t h; h.bits = b; return h; }

  static float ToFloat(uint16_t h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t f;
    if (exp == 0) {
      if (mant == 0) {
        f = sign;
      } else {  // subnormal: normalize
        exp = 127 - 15 + 1;
        while ((mant & 0x400u) == 0) { mant <<= 1; --exp; }
        mant &= 0x3ffu;
        f = sign | (exp << 23) | (mant << 13);
      }
    } else if (exp == 0x1f) {
      f = sign | 0x7f800000u | (mant << 13);
    } else {
      f = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    }
    float out;
    std::memcpy(&out, &f, 4);
    return out;
  }

  static uint16_t FromFloat(float value) {
    uint32_t f;
    std::memcpy(&f, &value, 4);
    uint32_t sign = (f >> 16) & 0x8000u;
    uint32_t abs = f & 0x7fffffffu;
    if (abs >= 0x7f800000u) {  // inf or nan
      return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0));
    }
    if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
    if (abs < 0x38800000u) {  // subnormal or zero in half
      if (abs < 0x33000000u) return static_cast<uint16_t>(sign);
      uint32_t exp = abs >> 23;
      uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
      uint32_t shift = 126 - exp;  // 113 + 13 - exp
      uint32_t half_mant = mant >> (shift);
      uint32_t rem = mant & ((1u << shift) - 1);
      uint32_t halfway = 1u << (shift - 1);
      if (rem > halfway || (rem == halfway && (half_mant & 1u))) ++half_mant;
      return static_cast<uint16_t>(sign | half_mant);
    }
    uint32_t h = ((abs - 0x38000000u) >> 13);
    uint32_t rem = abs & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
};

}  // namespace mxnet

#endif  // MXNET_HALF_H_
