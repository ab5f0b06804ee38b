// Scalar functors of the elementwise binary operators (shared by broadcast and scalar forms).
#ifndef MXNET_OPERATOR_TENSOR_ELEMWISE_FUNCTORS_H_
#define MXNET_OPERATOR_TENSOR_ELEMWISE_FUNCTORS_H_

#include <cmath>
#include <type_traits>

#include "operator/operator_common.h"

namespace mxnet {
namespace op {
namespace mshadow_op {

template <typename T>
using Acc = typename AccType<T>::type;  // the one compute-type rule of operator_common.h

struct plus { template <typename T> static T Map(T a, T b) { return T(Acc<T>(a) + Acc<T>(b)); } };
struct minus { template <typename T> static T Map(T a, T b) { return T(Acc<T>(a) - Acc<T>(b)); } };
struct mul { template <typename T> static T Map(T a, T b) { return T(Acc<T>(a) * Acc<T>(b)); } };
struct div {
  template <typename T> static T Map(T a, T b) {
    if constexpr (std::is_integral<T>::value) {
      if (b == 0) return T(0);
    }
    return T(Acc<T>(a) / Acc<T>(b));
  }
};
/*! \brief Python-style modulo: the result takes the sign of b; 0 when b is 0. */
struct mod {
  template <typename T> static T Map(T a, T b) {
    if constexpr (std::is_same<T, bool>::value) {
      return b ? false : false;
    } else if constexpr (std::is_integral<T>::value) {
      if (b == 0) return T(0);
      T r = static_cast<T>(a % b);
      if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
      return r;
    } else {
      double x = static_cast<double>(Acc<T>(a)), y = static_cast<double>(Acc<T>(b));
      if (y == 0) return T(0.0f);
      double r = std::fmod(x, y);
      if (r != 0 && ((r < 0) != (y < 0))) r += y;
      return T(static_cast<Acc<T>>(r));
    }
  }
};
struct power {
  template <typename T> static T Map(T a, T b) {
    return T(static_cast<Acc<T>>(std::pow(static_cast<double>(Acc<T>(a)), static_cast<double>(Acc<T>(b)))));
  }
};
struct maximum {
  template <typename T> static T Map(T a, T b) {
    if constexpr (std::is_floating_point<Acc<T>>::value) {
      if (std::isnan(static_cast<double>(Acc<T>(a)))) return a;
    }
    return Acc<T>(a) > Acc<T>(b) ? a : b;
  }
};
struct minimum {
  template <typename T> static T Map(T a, T b) {
    if constexpr (std::is_floating_point<Acc<T>>::value) {
      if (std::isnan(static_cast<double>(Acc<T>(a)))) return a;
    }
    return Acc<T>(a) < Acc<T>(b) ? a : b;
  }
};
struct hypot {
  template <typename T> static T Map(T a, T b) {
    return T(static_cast<Acc<T>>(std::hypot(static_cast<double>(Acc<T>(a)), static_cast<double>(Acc<T>(b)))));
  }
};
#define MXNET_CMP_FUNCTOR_(name, expr)                                               \
  struct name {                                                                       \
    template <typename T> static T Map(T a_, T b_) {                                  \
      Acc<T> a = Acc<T>(a_), b = Acc<T>(b_);                                          \
      return T((expr) ? 1 : 0);                                                       \
    }                                                                                 \
  };
MXNET_CMP_FUNCTOR_(eq, a == b)
MXNET_CMP_FUNCTOR_(ne, a != b)
MXNET_CMP_FUNCTOR_(gt, a > b)
MXNET_CMP_FUNCTOR_(ge, a >= b)
MXNET_CMP_FUNCTOR_(lt, a < b)
MXNET_CMP_FUNCTOR_(le, a <= b)
MXNET_CMP_FUNCTOR_(logical_and, (a != Acc<T>(0)) && (b != Acc<T>(0)))
MXNET_CMP_FUNCTOR_(logical_or, (a != Acc<T>(0)) || (b != Acc<T>(0)))
MXNET_CMP_FUNCTOR_(logical_xor, (a != Acc<T>(0)) != (b != Acc<T>(0)))
#undef MXNET_CMP_FUNCTOR_

/*! \brief Swap the operands: rminus(a, s) = s - a, for the _r*_scalar operators. */
template <typename Op>
struct reversed { template <typename T> static T Map(T a, T b) { return Op::Map(b, a); } };

}  // namespace mshadow_op
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_ELEMWISE_FUNCTORS_H_
