// Symbol: the output entries of a graph, which own the graph through them (MXNet's Symbol).
#ifndef NNVM_SYMBOL_H_
#define NNVM_SYMBOL_H_

#include <vector>

#include "nnvm/node.h"

namespace nnvm {

/*! \brief A symbol is the list of entries it outputs; nodes are shared between symbols. */
struct Symbol {
  std::vector<NodeEntry> outputs;
};

}  // namespace nnvm

#endif  // NNVM_SYMBOL_H_
