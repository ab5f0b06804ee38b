// mxnet._ffi: SymbolHandle (the output entries of a graph) and autograd.get_symbol.
#include <map>
#include <string>
#include <vector>

#include "nnvm/graph_json.h"
#include "nnvm/op.h"
#include "py_common.h"

namespace mxnet {
namespace {

/*! \brief A symbol: the entries of a graph it outputs (the graph is owned through them). */
struct SymbolHandle {
  std::vector<nnvm::NodeEntry> heads;
};

}  // namespace

void DefineSymbol(py::module_& m) {
  py::class_<SymbolHandle>(m, "SymbolHandle")
      .def("tojson", [](const SymbolHandle& s) { return nnvm::SaveJSON(s.heads); })
      .def("list_arguments",
           [](const SymbolHandle& s) { return nnvm::ListVariableNames(s.heads, false); })
      .def("list_auxiliary_states",
           [](const SymbolHandle& s) { return nnvm::ListVariableNames(s.heads, true); })
      .def("list_outputs", [](const SymbolHandle& s) { return nnvm::ListOutputNames(s.heads); })
      .def("head_names",
           [](const SymbolHandle& s) {
             std::vector<std::string> names;
             for (const nnvm::NodeEntry& h : s.heads) names.push_back(h.node->attrs.name);
             return names;
           })
      .def("head_attrs", [](const SymbolHandle& s) {
        // kwargs of the single head node (Symbol.list_attr); empty for a group.
        std::map<std::string, std::string> attrs;
        if (s.heads.size() == 1) attrs.insert(s.heads[0].node->attrs.dict.begin(),
                                              s.heads[0].node->attrs.dict.end());
        return attrs;
      });

  m.def("autograd_get_symbol", [](const NDArray& x) {
    if (!x.entry().node) {
      throw dmlc::Error("autograd.get_symbol: the NDArray is not part of a computation graph. "
                        "Did you forget to turn on recording?");
    }
    return SymbolHandle{nnvm::CopyWithAutogradNames({x.entry()})};
  });
}

}  // namespace mxnet
