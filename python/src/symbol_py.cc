// mxnet._ffi: SymbolHandle (the output entries of a graph) and the symbol entry points the
// C API's MXSymbol* functions also call; autograd.get_symbol.
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "nnvm/graph_edit.h"
#include "nnvm/graph_json.h"
#include "nnvm/op.h"
#include "nnvm/symbol.h"
#include "operator/subgraph/subgraph_property.h"
#include "py_common.h"

namespace mxnet {

using SymbolHandle = nnvm::Symbol;

namespace {

std::string ReadTextFile(const std::string& fname) {
  std::ifstream is(fname, std::ios::binary);
  if (!is) throw dmlc::Error("cannot open symbol file " + fname + " for reading");
  std::ostringstream os;
  os << is.rdbuf();
  return os.str();
}

py::object OptionalString(bool ok, const std::string& s) {
  return ok ? py::object(py::str(s)) : py::object(py::none());
}

}  // namespace

void DefineSymbol(py::module_& m) {
  py::class_<SymbolHandle>(m, "SymbolHandle")
      // ctypes passes a SymbolHandle to the C API (_LIB.MX...(sym.handle, ...)) as this address.
      .def_property_readonly("_as_parameter_",
                             [](SymbolHandle& s) {
                               return py::module_::import("ctypes").attr("c_void_p")(
                                   reinterpret_cast<uintptr_t>(&s));
                             })
      .def("tojson", [](const SymbolHandle& s) {
        MXNET_PY_API("MXSymbolSaveToJSON");
        return nnvm::SaveJSON(s.outputs);
      })
      .def("save", [](const SymbolHandle& s, const std::string& fname) {
        MXNET_PY_API("MXSymbolSaveToFile");
        std::string json = nnvm::SaveJSON(s.outputs);
        std::ofstream os(fname, std::ios::binary);
        if (!os) throw dmlc::Error("Symbol.save: cannot open " + fname + " for writing");
        os << json;
      })
      .def("list_arguments",
           [](const SymbolHandle& s) { return s.ListInputNames(nnvm::Symbol::kReadOnlyArgs); })
      .def("list_auxiliary_states",
           [](const SymbolHandle& s) { return s.ListInputNames(nnvm::Symbol::kAuxiliaryStates); })
      .def("list_inputs", [](const SymbolHandle& s) { return s.ListInputNames(nnvm::Symbol::kAll); })
      .def("list_outputs", [](const SymbolHandle& s) { return s.ListOutputNames(); })
      .def("num_outputs", [](const SymbolHandle& s) { return s.outputs.size(); })
      .def("name", [](const SymbolHandle& s) {
        std::string out;
        bool ok = s.GetAttr("name", &out);
        return OptionalString(ok, out);
      })
      .def("attr", [](const SymbolHandle& s, const std::string& key) {
        std::string out;
        bool ok = nnvm::GetFrontAttr(s, key, &out);
        return OptionalString(ok, out);
      })
      .def("set_attr", [](SymbolHandle& s, const std::string& key, const std::string& value) {
        nnvm::SetFrontAttr(&s, key, value);
      })
      .def("list_attr", [](const SymbolHandle& s, bool recursive) {
        return nnvm::ListFrontAttrs(s, recursive);
      })
      .def("output", [](const SymbolHandle& s, size_t index) { return s[index]; })
      .def("get_internals", [](const SymbolHandle& s) { return s.GetInternals(); })
      .def("get_children", [](const SymbolHandle& s) { return s.GetChildren(); })
      .def("copy", [](const SymbolHandle& s) { return s.Copy(); })
      // MXSymbolCutSubgraph / MXSymbolGetInputSymbols (mx.sym.contrib's control flow).
      .def("cut_subgraph",
           [](const SymbolHandle& s) {
             std::vector<SymbolHandle> out;
             for (const nnvm::NodeEntry& e : nnvm::CutSubgraph(s)) out.push_back(SymbolHandle{{e}});
             return out;
           })
      .def("input_symbols",
           [](const SymbolHandle& s) {
             std::vector<SymbolHandle> out;
             for (const nnvm::ObjectPtr& v : s.ListInputs(nnvm::Symbol::kAll)) {
               out.push_back(SymbolHandle{{nnvm::NodeEntry(v, 0, 0)}});
             }
             return out;
           })
      .def("gen_atomic", [](const SymbolHandle& s) { return nnvm::GenAtomicSymbol(s); })
      .def("debug_str", [](const SymbolHandle& s) {
        std::ostringstream os;
        s.Print(os);
        return os.str();
      })
      /*!
       * compose(args, kwargs, name): give the symbol its inputs in place (args: SymbolHandles
       * taken positionally; kwargs: dict input name -> SymbolHandle).
       */
      .def("compose", [](SymbolHandle& s, const std::vector<const SymbolHandle*>& args,
                         const std::map<std::string, const SymbolHandle*>& kwargs,
                         const std::string& name) {
        MXNET_PY_API("MXSymbolCompose");
        std::unordered_map<std::string, const nnvm::Symbol*> kw(kwargs.begin(), kwargs.end());
        s.Compose(args, kw, name);
      });

  /*! symbol_create_atomic(op_name, keys, vals): an op node with parsed kwargs, no inputs. */
  m.def("symbol_create_atomic", [](const std::string& op_name, const std::vector<std::string>& keys,
                                   const std::vector<std::string>& vals) {
    MXNET_PY_API("MXSymbolCreateAtomicSymbol");
    if (keys.size() != vals.size()) throw py::value_error("keys and vals differ in length");
    std::vector<std::pair<std::string, std::string>> kwargs;
    for (size_t i = 0; i < keys.size(); ++i) kwargs.emplace_back(keys[i], vals[i]);
    return nnvm::CreateAtomicSymbol(nnvm::Op::GetOrThrow(op_name), kwargs);
  });
  m.def("symbol_create_variable", [](const std::string& name) {
    MXNET_PY_API("MXSymbolCreateVariable");
    return nnvm::Symbol::CreateVariable(name);
  });
  m.def("symbol_create_group", [](const std::vector<const SymbolHandle*>& parts) {
    MXNET_PY_API("MXSymbolCreateGroup");
    std::vector<nnvm::Symbol> copies;
    for (const SymbolHandle* p : parts) copies.push_back(*p);
    return nnvm::Symbol::CreateGroup(copies);
  });
  m.def("symbol_load_json", [](const std::string& json) {
    MXNET_PY_API("MXSymbolCreateFromJSON");
    return nnvm::LoadJSON(json);
  });
  m.def("symbol_load_file", [](const std::string& fname) {
    MXNET_PY_API("MXSymbolCreateFromFile");
    return nnvm::LoadJSON(ReadTextFile(fname));
  });

  /*! symbol_from_c_handle(address): take over a SymbolHandle a C API call returned. */
  m.def("symbol_from_c_handle", [](uintptr_t address) {
    if (address == 0) throw py::value_error("Symbol: the C handle is NULL");
    std::unique_ptr<nnvm::Symbol> owned(reinterpret_cast<nnvm::Symbol*>(address));
    return SymbolHandle(std::move(*owned));
  });
  /*! symbol_optimize_for(sym, backend, options): Symbol.optimize_for's partitioning. */
  m.def("symbol_optimize_for", [](const SymbolHandle& s, const std::string& backend,
                                  const std::map<std::string, std::string>& options) {
    MXNET_PY_API("MXOptimizeForBackend");
    return op::OptimizeForBackend(s, backend, options);
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
