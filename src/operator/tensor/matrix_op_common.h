// Helpers shared by the shape, slicing, joining and indexing operators: axis checks, the
// identity-copy kernel of reshape-like ops, and gradient-node shorthands.
#ifndef MXNET_OPERATOR_TENSOR_MATRIX_OP_COMMON_H_
#define MXNET_OPERATOR_TENSOR_MATRIX_OP_COMMON_H_

#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "operator/operator_common.h"
#include "operator/tuple_args.h"
#include "operator/tensor/strided_copy.h"

namespace mxnet {
namespace op {

using tuple_args::IntTuple;
using tuple_args::OptIntTuple;

/*! \brief axis (possibly negative) of an ndim-dimensional array, checked; range_ndim is the
 *  number of valid positions (ndim, or ndim + 1 for an inserted axis). */
inline int CheckAxis(const NodeAttrs& attrs, const char* arg, int64_t axis, int range_ndim) {
  int64_t a = axis < 0 ? axis + range_ndim : axis;
  if (a < 0 || a >= range_ndim) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument " << arg << " expected in ["
               << -range_ndim << ", " << range_ndim - 1 << "], given " << axis;
  }
  return static_cast<int>(a);
}

/*! \brief Output 0 = input 0 element for element (same size, any shape): reshape-like ops. */
inline void IdentityCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                            const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  CHECK_EQ(in[0].Size(), out[0].Size());
  CopyElements(out[0].type_flag_, in[0].dptr_, out[0].dptr_, out[0].Size(), req[0]);
}


/*! \brief (0, 0): output 0 may reuse input 0's memory. */
inline std::vector<std::pair<int, int>> InplaceFirst(const NodeAttrs&) { return {{0, 0}}; }

/*! \brief A node applying op to inputs, named after the forward node n. */
inline NodeEntry GradNode(const ObjectPtr& n, const char* op, std::vector<NodeEntry> inputs,
                          std::unordered_map<std::string, std::string> dict = {}) {
  return MakeNode(op, n->attrs.name + "_backward", std::move(inputs), std::move(dict));
}

/*! \brief Shape and dtype rules of a backward op whose one output is shaped and typed like
 *  its input i (the forward's input). */
inline FInferShape OutputLikeInputShape(size_t i) {
  return [i](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
    if (!(*in)[i].IsKnown()) return false;
    AssignShape(attrs, "output", &(*out)[0], (*in)[i]);
    return true;
  };
}
inline FInferType OutputLikeInputType(size_t i) {
  return [i](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
    AssignType(attrs, "output", &(*out)[0], (*in)[i]);
    return (*in)[i] >= 0;
  };
}

/*! \brief zeros_like(input i of n). */
inline NodeEntry ZeroGradOf(const ObjectPtr& n, size_t i) {
  return MakeNode("zeros_like", n->attrs.name + "_zero_grad", {n->inputs[i]});
}

/*! \brief "(a,b,c)" as MXNet kwargs spell tuples. */
template <typename T>
inline std::string TupleText(const std::vector<T>& v) {
  std::ostringstream os;
  os << '(';
  for (size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v[i];
  if (v.size() == 1) os << ',';
  os << ')';
  return os.str();
}

/*! \brief Text of any streamable argument value. */
template <typename T>
inline std::string ArgText(const T& v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

/*! \brief Shape as a vector of dims (for building shapes incrementally). */
inline TShape ShapeOf(const std::vector<dim_t>& v) { return TShape(v.begin(), v.end()); }

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_MATRIX_OP_COMMON_H_
