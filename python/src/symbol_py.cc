// mxnet._ffi: SymbolHandle (the output entries of a graph) and autograd.get_symbol.
#include <map>
#include <string>
#include <vector>

#include "nnvm/graph_json.h"
#include "nnvm/op.h"
#include "nnvm/symbol.h"
#include "py_common.h"

namespace mxnet {

using SymbolHandle = nnvm::Symbol;

void DefineSymbol(py::module_& m) {
  py::class_<SymbolHandle>(m, "SymbolHandle")
      .def("tojson", [](const SymbolHandle& s) { return nnvm::SaveJSON(s.outputs); })
      .def("list_arguments",
           [](const SymbolHandle& s) { return nnvm::ListVariableNames(s.outputs, false); })
      .def("list_auxiliary_states",
           [](const SymbolHandle& s) { return nnvm::ListVariableNames(s.outputs, true); })
      .def("list_outputs", [](const SymbolHandle& s) { return nnvm::ListOutputNames(s.outputs); })
      .def("head_names",
           [](const SymbolHandle& s) {
             std::vector<std::string> names;
             for (const nnvm::NodeEntry& h : s.outputs) names.push_back(h.node->attrs.name);
             return names;
           })
      .def("head_attrs", [](const SymbolHandle& s) {
        // kwargs of the single head node (Symbol.list_attr); empty for a group.
        std::map<std::string, std::string> attrs;
        if (s.outputs.size() == 1) attrs.insert(s.outputs[0].node->attrs.dict.begin(),
                                              s.outputs[0].node->attrs.dict.end());
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
