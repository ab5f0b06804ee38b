// Tuple-valued operator arguments of every family (axes, shapes, slice bounds), spelled as
// MXNet kwargs spell them: "(2, 3)", "[2,3]", "2", "()", "(2,)", and "(None, 1, -1)".
#ifndef MXNET_OPERATOR_TUPLE_ARGS_H_
#define MXNET_OPERATOR_TUPLE_ARGS_H_

#include <dmlc/optional.h>
#include <dmlc/type_traits.h>

#include <cctype>
#include <cstdio>
#include <cstdint>
#include <istream>
#include <ostream>
#include <vector>

#include "mxnet/base.h"

namespace mxnet {
namespace op {
namespace tuple_args {

/*! \brief peek() that never sets failbit at the end of the stream. */
inline int PeekChar(std::istream& is) { return is.good() ? is.peek() : EOF; }

/*! \brief Reads one element; "None" gives an empty optional when allowed. */
inline bool ReadTupleElem(std::istream& is, int64_t* v, bool* none, bool allow_none) {
  while (std::isspace(PeekChar(is))) is.get();
  *none = false;
  if (allow_none && PeekChar(is) == 'N') {
    char buf[4];
    is.read(buf, 4);
    if (is.fail() || buf[1] != 'o' || buf[2] != 'n' || buf[3] != 'e') return false;
    *none = true;
    return true;
  }
  long long x = 0;  // NOLINT(runtime/int)
  if (!(is >> x)) return false;
  *v = static_cast<int64_t>(x);
  if (PeekChar(is) == 'L' || PeekChar(is) == 'l') is.get();  // Python 2 long suffix
  return true;
}

/*! \brief Parses "(a, b, ...)", "[a, b]" or a bare "a" into elements. */
inline bool ReadTuple(std::istream& is, std::vector<int64_t>* vals, std::vector<bool>* nones,
                      bool allow_none) {
  vals->clear();
  nones->clear();
  while (std::isspace(PeekChar(is))) is.get();
  int open = PeekChar(is);
  int64_t v = 0;
  bool none = false;
  if (open != '(' && open != '[') {
    if (!ReadTupleElem(is, &v, &none, allow_none)) return false;
    vals->push_back(v);
    nones->push_back(none);
    return true;
  }
  const char close = open == '(' ? ')' : ']';
  is.get();
  while (true) {
    while (std::isspace(PeekChar(is))) is.get();
    if (PeekChar(is) == close) {
      is.get();
      return true;
    }
    if (!ReadTupleElem(is, &v, &none, allow_none)) return false;
    vals->push_back(v);
    nones->push_back(none);
    while (std::isspace(PeekChar(is))) is.get();
    int c = is.get();
    if (c == close) return true;
    if (c != ',') return false;
  }
}

/*! \brief A tuple of integers (MXNet's Tuple<int> / TShape arguments). */
struct IntTuple {
  std::vector<int64_t> v;
  IntTuple() = default;
  IntTuple(std::initializer_list<int64_t> l) : v(l) {}
  explicit IntTuple(std::vector<int64_t> x) : v(std::move(x)) {}
  int ndim() const { return static_cast<int>(v.size()); }
  int64_t operator[](int i) const { return v[i]; }
  std::vector<int64_t>::const_iterator begin() const { return v.begin(); }
  std::vector<int64_t>::const_iterator end() const { return v.end(); }
  bool operator==(const IntTuple& o) const { return v == o.v; }
  TShape ToShape() const { return TShape(v.begin(), v.end()); }
};

inline std::istream& operator>>(std::istream& is, IntTuple& t) {
  std::vector<bool> nones;
  if (!ReadTuple(is, &t.v, &nones, false)) is.setstate(std::ios::failbit);
  return is;
}

inline std::ostream& operator<<(std::ostream& os, const IntTuple& t) {
  os << '(';
  for (size_t i = 0; i < t.v.size(); ++i) os << (i ? "," : "") << t.v[i];
  if (t.v.size() == 1) os << ',';
  return os << ')';
}

/*! \brief A tuple whose entries may be None (slice begin/end/step). */
struct OptIntTuple {
  std::vector<dmlc::optional<int64_t>> v;
  int ndim() const { return static_cast<int>(v.size()); }
  const dmlc::optional<int64_t>& operator[](int i) const { return v[i]; }
};

inline std::istream& operator>>(std::istream& is, OptIntTuple& t) {
  std::vector<int64_t> vals;
  std::vector<bool> nones;
  if (!ReadTuple(is, &vals, &nones, true)) {
    is.setstate(std::ios::failbit);
    return is;
  }
  t.v.clear();
  for (size_t i = 0; i < vals.size(); ++i) {
    t.v.push_back(nones[i] ? dmlc::optional<int64_t>() : dmlc::optional<int64_t>(vals[i]));
  }
  return is;
}

inline std::ostream& operator<<(std::ostream& os, const OptIntTuple& t) {
  os << '(';
  for (size_t i = 0; i < t.v.size(); ++i) {
    if (i) os << ",";
    if (t.v[i].has_value()) os << t.v[i].value(); else os << "None";
  }
  if (t.v.size() == 1) os << ',';
  return os << ')';
}

}  // namespace tuple_args

/*! \brief A TShape argument: "(2, 3)", "[2,3]", "5", "()"; "None" leaves it unknown (ndim -1). */
struct ShapeArg : public TShape {
  ShapeArg() = default;
  ShapeArg(const TShape& s) : TShape(s) {}  // NOLINT(runtime/explicit)
};

inline std::istream& operator>>(std::istream& is, ShapeArg& shape) {
  while (std::isspace(tuple_args::PeekChar(is))) is.get();
  if (tuple_args::PeekChar(is) == 'N') {
    char buf[4];
    is.read(buf, 4);
    if (is.fail() || buf[1] != 'o' || buf[2] != 'n' || buf[3] != 'e') {
      is.setstate(std::ios::failbit);
    } else {
      shape = ShapeArg();
    }
    return is;
  }
  std::vector<int64_t> vals;
  std::vector<bool> nones;
  if (!tuple_args::ReadTuple(is, &vals, &nones, false)) {
    is.setstate(std::ios::failbit);
    return is;
  }
  shape = ShapeArg(TShape(vals.begin(), vals.end()));
  return is;
}

}  // namespace op
}  // namespace mxnet

namespace dmlc {
DMLC_DECLARE_TYPE_NAME(mxnet::op::tuple_args::IntTuple, "Shape(tuple)");
DMLC_DECLARE_TYPE_NAME(mxnet::op::tuple_args::OptIntTuple, "Shape(tuple)");
DMLC_DECLARE_TYPE_NAME(optional<mxnet::op::tuple_args::IntTuple>, "Shape or None");
DMLC_DECLARE_TYPE_NAME(optional<int64_t>, "long or None");
DMLC_DECLARE_TYPE_NAME(::mxnet::op::ShapeArg, "Shape(tuple)");
}  // namespace dmlc

#endif  // MXNET_OPERATOR_TUPLE_ARGS_H_
