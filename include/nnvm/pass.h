// Graph passes over an IndexedGraph: shape and dtype inference from each op's registered
// FInferShape / FInferType (the rules Imperative::Invoke applies to one op).
#ifndef NNVM_PASS_H_
#define NNVM_PASS_H_

#include <string>
#include <vector>

#include "mxnet/base.h"
#include "nnvm/graph.h"

namespace nnvm {

/*!
 * \brief Shape inference over the whole graph (MXNet 1.9.1's InferShape pass).
 * shapes holds one shape per entry of idx in numpy convention (ndim -1 or a dim of -1 is
 * unknown); the known ones are kept and checked by the ops. A variable whose shape is still
 * unknown takes its attribute "__shape__" (MXNet's text form; outside numpy-shape semantics a
 * dim of 0 there means unknown). Forward and backward sweeps alternate until nothing more is
 * learnt, so unknowns stay unknown (partial inference). An op rejecting its shapes raises
 * dmlc::Error "Error in operator <node>: <the op's message>", with the node's op and known
 * input and output shapes. Returns the number of entries left not fully known.
 */
size_t InferShape(const IndexedGraph& idx, std::vector<mxnet::TShape>* shapes);

/*! \brief The same for dtypes (-1 unknown), seeded from the variable attribute "__dtype__". */
size_t InferType(const IndexedGraph& idx, std::vector<int>* types);

/*! \brief Shapes (or dtypes) of a symbol's arguments, outputs and auxiliary states. */
template <typename T>
struct SymbolAttrs {
  std::vector<T> arg, out, aux;
  /*! \brief True when every entry of the graph is known (Symbol.infer_shape's success). */
  bool complete{false};
};

/*!
 * \brief Infer the shapes of the symbol with outputs heads from known input shapes, as
 * MXSymbolInferShape does: with keys, known[i] is the shape of the variable named keys[i]
 * (an argument or an auxiliary state; an unknown name is an error listing the candidates);
 * without keys, known[i] is the shape of the i-th argument (list_arguments order). Shapes in
 * numpy convention; an unknown shape in known is simply not given.
 */
SymbolAttrs<mxnet::TShape> InferSymbolShapes(const std::vector<NodeEntry>& heads,
                                             const std::vector<std::string>& keys,
                                             const std::vector<mxnet::TShape>& known);
/*! \brief The same for dtypes (-1 = not given). */
SymbolAttrs<int> InferSymbolTypes(const std::vector<NodeEntry>& heads,
                                  const std::vector<std::string>& keys,
                                  const std::vector<int>& known);

/*! \brief A legacy (MXNet 1.x) shape in numpy convention: ndim 0 is unknown, dims of 0 are
 *  unknown. Identity under numpy-shape semantics. */
mxnet::TShape ShapeFromLegacy(const mxnet::TShape& s);
/*! \brief The reverse, for returning shapes to a legacy front: unknown ndim becomes (),
 *  unknown dims 0. Identity under numpy-shape semantics. */
mxnet::TShape ShapeToLegacy(const mxnet::TShape& s);

}  // namespace nnvm

#endif  // NNVM_PASS_H_
