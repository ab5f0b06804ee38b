// DimTuple: a tuple of integers usable as a dmlc::Parameter field (axis lists, target shapes),
// parsed from the texts Python sends: "2", "(0, 1)", "[0,1]", "(1,)", "()".
#ifndef MXNET_OPERATOR_TENSOR_DIM_TUPLE_H_
#define MXNET_OPERATOR_TENSOR_DIM_TUPLE_H_

#include <dmlc/optional.h>
#include <dmlc/type_traits.h>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <istream>
#include <ostream>
#include <vector>

#include "mxnet/base.h"

namespace mxnet {
namespace op {

struct DimTuple {
  std::vector<int64_t> v;

  DimTuple() = default;
  DimTuple(std::initializer_list<int64_t> l) : v(l) {}
  int ndim() const { return static_cast<int>(v.size()); }
  int64_t operator[](int i) const { return v[i]; }
  bool operator==(const DimTuple& o) const { return v == o.v; }
  TShape ToShape() const { return TShape(v.begin(), v.end()); }
};

/*! \brief The next character, or EOF without touching the state once the stream is not good
 *  (peek() on a stream at its end would set failbit). */
inline int PeekChar(std::istream& is) { return is.good() ? is.peek() : EOF; }

inline void SkipSpaces(std::istream& is) {
  while (std::isspace(PeekChar(is))) is.get();
}

/*! \brief One integer, with an optional Python-2 'L' suffix. */
inline bool ReadDimInt(std::istream& is, int64_t* x) {
  SkipSpaces(is);
  is >> *x;
  if (is.fail()) return false;
  if (PeekChar(is) == 'L') is.get();
  return true;
}

inline std::istream& operator>>(std::istream& is, DimTuple& t) {
  t.v.clear();
  SkipSpaces(is);
  int c = PeekChar(is);
  if (c == '-' || c == '+' || std::isdigit(c)) {  // a bare integer means a 1-tuple
    int64_t x;
    if (ReadDimInt(is, &x)) t.v.push_back(x);
    return is;
  }
  if (c != '(' && c != '[') {
    is.setstate(std::ios::failbit);
    return is;
  }
  const char close = c == '(' ? ')' : ']';
  is.get();
  while (true) {
    SkipSpaces(is);
    if (PeekChar(is) == close) {
      is.get();
      return is;
    }
    int64_t x;
    if (!ReadDimInt(is, &x)) return is;
    t.v.push_back(x);
    SkipSpaces(is);
    int n = PeekChar(is);
    if (n == ',') {
      is.get();
    } else if (n != close) {
      is.setstate(std::ios::failbit);
      return is;
    }
  }
}

inline std::ostream& operator<<(std::ostream& os, const DimTuple& t) {
  os << '(';
  for (size_t i = 0; i < t.v.size(); ++i) os << (i ? "," : "") << t.v[i];
  if (t.v.size() == 1) os << ',';
  return os << ')';
}

}  // namespace op
}  // namespace mxnet

namespace dmlc {
DMLC_DECLARE_TYPE_NAME(mxnet::op::DimTuple, "Shape(tuple)");
DMLC_DECLARE_TYPE_NAME(optional<mxnet::op::DimTuple>, "Shape or None");
}  // namespace dmlc

#endif  // MXNET_OPERATOR_TENSOR_DIM_TUPLE_H_
