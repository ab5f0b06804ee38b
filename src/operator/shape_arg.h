// ShapeArg: the TShape operator argument shared by every family parsed from MXNet's kwarg text ("(2, 3)", "[2,3]", "5",
// "()", "None"). Unset (or None) leaves ndim -1.
#ifndef MXNET_OPERATOR_SHAPE_ARG_H_
#define MXNET_OPERATOR_SHAPE_ARG_H_

#include <dmlc/parameter.h>

#include <cctype>
#include <istream>
#include <string>
#include <vector>

#include "mxnet/base.h"

namespace mxnet {
namespace op {

struct ShapeArg : public TShape {
  ShapeArg() = default;
  ShapeArg(const TShape& s) : TShape(s) {}  // NOLINT(runtime/explicit)
};

/*! \brief Reads "(d0, d1, ...)", "[d0, ...]", "d0", "()" or "None"; sets failbit otherwise. */
inline std::istream& operator>>(std::istream& is, ShapeArg& shape) {
  std::string text;
  std::getline(is, text, '\0');
  if (is.eof()) is.clear();
  std::string t;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) t += c;
  if (t == "None") {
    shape = ShapeArg();
    return is;
  }
  size_t b = 0, e = t.size();
  if (e >= 2 && ((t[0] == '(' && t[e - 1] == ')') || (t[0] == '[' && t[e - 1] == ']'))) {
    ++b;
    --e;
  }
  std::vector<dim_t> dims;
  size_t i = b;
  while (i < e) {
    size_t j = i;
    if (j < e && t[j] == '-') ++j;
    const size_t digits = j;
    while (j < e && std::isdigit(static_cast<unsigned char>(t[j]))) ++j;
    if (j == digits) {
      is.setstate(std::ios::failbit);
      return is;
    }
    dims.push_back(std::stoll(t.substr(i, j - i)));
    if (j < e && t[j] == 'L') ++j;  // Python 2 longs
    if (j < e) {
      if (t[j] != ',') {
        is.setstate(std::ios::failbit);
        return is;
      }
      ++j;
    }
    i = j;
  }
  if (b == 0 && dims.empty()) {
    is.setstate(std::ios::failbit);
    return is;
  }
  shape = ShapeArg(TShape(dims.begin(), dims.end()));
  return is;
}

}  // namespace op
}  // namespace mxnet

namespace dmlc {
DMLC_DECLARE_TYPE_NAME(::mxnet::op::ShapeArg, "Shape(tuple)");
}  // namespace dmlc

#endif  // MXNET_OPERATOR_SHAPE_ARG_H_
