// mxnet._ffi: the graph passes Symbol calls (infer_shape / infer_type), the Executor of
// Symbol.bind / simple_bind (mx.executor.Executor wraps ExecutorHandle) and CachedOp.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "imperative/cached_op.h"
#include "mxnet/executor.h"
#include "nnvm/pass.h"
#include "nnvm/symbol.h"
#include "py_common.h"

namespace mxnet {
namespace {

// A shape from Python: a tuple (legacy dims of 0 unknown outside numpy-shape) or None.
TShape KnownShape(const py::handle& obj) {
  if (obj.is_none()) return TShape();
  std::vector<dim_t> dims;
  for (auto d : obj) dims.push_back(d.cast<dim_t>());
  return nnvm::ShapeFromLegacy(TShape(dims.begin(), dims.end()));
}

// As MXNet 1.9.1 returns shapes: outside numpy-shape an unknown shape is () and an unknown
// dim 0; under it, an unknown shape is None and an unknown dim -1.
py::object ShapeObject(const TShape& s) {
  TShape legacy = nnvm::ShapeToLegacy(s);
  if (legacy.is_none()) return py::none();
  py::tuple t(legacy.ndim());
  for (int i = 0; i < legacy.ndim(); ++i) t[i] = py::int_(legacy[i]);
  return t;
}

std::vector<std::string> Keys(const py::object& keys) {
  std::vector<std::string> k;
  if (!keys.is_none()) {
    for (auto key : keys) k.push_back(key.cast<std::string>());
  }
  return k;
}

template <typename T, typename Conv>
py::tuple Result(const nnvm::SymbolAttrs<T>& r, bool partial, Conv conv) {
  if (!r.complete && !partial) return py::make_tuple(py::none(), py::none(), py::none());
  auto list = [&](const std::vector<T>& v) {
    py::list l;
    for (const T& x : v) l.append(conv(x));
    return l;
  };
  return py::make_tuple(list(r.arg), list(r.out), list(r.aux));
}

std::vector<NDArray> Arrays(const py::handle& list) {
  std::vector<NDArray> v;
  for (auto a : list) v.push_back(a.is_none() ? NDArray() : a.cast<NDArray>());
  return v;
}

py::list ArrayList(const std::vector<NDArray>& v) {
  py::list l;
  for (const NDArray& a : v) l.append(a.is_none() ? py::none() : py::cast(a));
  return l;
}

// group2ctx from Python: {group: (dev_type, dev_id)}.
std::map<std::string, Context> GroupContexts(const py::dict& d) {
  std::map<std::string, Context> m;
  for (auto kv : d) {
    auto dev = kv.second.cast<std::pair<int, int>>();
    m[kv.first.cast<std::string>()] = MakeContext(dev.first, dev.second);
  }
  return m;
}

std::map<std::string, TShape> ShapeDict(const py::dict& d) {
  std::map<std::string, TShape> m;
  for (auto kv : d) m[kv.first.cast<std::string>()] = KnownShape(kv.second);
  return m;
}

}  // namespace

void DefineExecutor(py::module_& m) {
  // keys: None (values are the arguments in list_arguments order) or the variable names of
  // values. Returns (arg_shapes, out_shapes, aux_shapes), or three Nones when some shape is
  // left unknown and partial is False (MXSymbolInferShape's contract).
  m.def("symbol_infer_shape", [](const nnvm::Symbol& sym, const py::object& keys,
                                 const py::list& shapes, bool partial) {
    MXNET_PY_API(partial ? "MXSymbolInferShapePartialEx64" : "MXSymbolInferShapeEx64");
    std::vector<TShape> known;
    for (auto s : shapes) known.push_back(KnownShape(s));
    auto r = nnvm::InferSymbolShapes(sym.outputs, Keys(keys), known);
    return Result(r, partial, ShapeObject);
  });
  // As symbol_infer_shape, with dtype flags (-1: unknown) in and out.
  m.def("symbol_infer_type", [](const nnvm::Symbol& sym, const py::object& keys,
                                const std::vector<int>& types, bool partial) {
    MXNET_PY_API(partial ? "MXSymbolInferTypePartial" : "MXSymbolInferType");
    auto r = nnvm::InferSymbolTypes(sym.outputs, Keys(keys), types);
    return Result(r, partial, [](int t) { return py::int_(t); });
  });

  py::class_<Executor, std::unique_ptr<Executor>>(m, "ExecutorHandle")
      .def("forward", [](Executor& e, bool is_train) {
        MXNET_PY_API("MXExecutorForward");
        e.Forward(is_train);
      })
      .def("backward", [](Executor& e, const py::list& head_grads, bool is_train) {
        MXNET_PY_API("MXExecutorBackwardEx");
        e.Backward(Arrays(head_grads), is_train);
      })
      .def("outputs", [](const Executor& e) { return ArrayList(e.outputs()); })
      .def("arg_arrays", [](const Executor& e) { return ArrayList(e.in_args()); })
      .def("grad_arrays", [](const Executor& e) { return ArrayList(e.arg_grads()); })
      .def("aux_arrays", [](const Executor& e) { return ArrayList(e.aux_states()); })
      .def("arg_names", &Executor::arg_names)
      .def("aux_names", &Executor::aux_names)
      .def("output_names", &Executor::output_names)
      .def("grad_reqs", &Executor::grad_reqs)
      .def("symbol", &Executor::symbol)
      .def("debug_str", &Executor::DebugString)
      .def("reshape", [](const Executor& e, const py::dict& shapes, bool partial_shaping,
                         bool allow_up_sizing) {
        MXNET_PY_API("MXExecutorReshapeEx");
        return e.Reshape(ShapeDict(shapes), partial_shaping, allow_up_sizing);
      })
      .def("set_monitor_callback", [](Executor& e, py::object callback, bool monitor_all) {
        if (callback.is_none()) {
          e.SetMonitorCallback(nullptr, false);
          return;
        }
        e.SetMonitorCallback(
            [callback](const std::string& name, const NDArray& a) {
              py::gil_scoped_acquire gil;
              callback(name, a);
            },
            monitor_all);
      });

  // in_args / aux_states: the arrays in list_arguments / list_auxiliary_states order;
  // arg_grads: an array or None per argument; grad_reqs: 0 null, 1 write, 3 add.
  m.def("executor_bind", [](const nnvm::Symbol& sym, int dev_type, int dev_id,
                            const py::list& in_args, const py::list& arg_grads,
                            const std::vector<uint32_t>& grad_reqs, const py::list& aux_states,
                            const py::dict& group2ctx) {
    MXNET_PY_API("MXExecutorBindEX");
    return Executor::Bind(sym, MakeContext(dev_type, dev_id), Arrays(in_args),
                          Arrays(arg_grads), grad_reqs, Arrays(aux_states), nullptr,
                          GroupContexts(group2ctx));
  });
  // Returns the executor; shared_buffer (a dict or None) receives the arrays it added.
  m.def("executor_simple_bind", [](const nnvm::Symbol& sym, int dev_type, int dev_id,
                                   const py::dict& shapes, const std::map<std::string, int>& dtypes,
                                   const std::vector<uint32_t>& grad_reqs,
                                   const Executor* shared,
                                   const std::vector<std::string>& shared_arg_names,
                                   const py::object& shared_buffer,
                                   const std::map<std::string, int>& stypes,
                                   const py::dict& group2ctx) {
    MXNET_PY_API("MXExecutorSimpleBindEx");
    std::map<std::string, NDArray> buffer;
    if (!shared_buffer.is_none()) {
      for (auto kv : shared_buffer.cast<py::dict>()) {
        buffer[kv.first.cast<std::string>()] = kv.second.cast<NDArray>();
      }
    }
    auto ex = Executor::SimpleBind(sym, MakeContext(dev_type, dev_id), ShapeDict(shapes), dtypes,
                                   grad_reqs, shared, shared_arg_names,
                                   shared_buffer.is_none() ? nullptr : &buffer, stypes,
                                   GroupContexts(group2ctx));
    if (!shared_buffer.is_none()) {
      py::dict d = shared_buffer.cast<py::dict>();
      for (const auto& kv : buffer) d[py::str(kv.first)] = py::cast(kv.second);
    }
    return ex;
  }, py::arg("sym"), py::arg("dev_type"), py::arg("dev_id"), py::arg("shapes"),
     py::arg("dtypes"), py::arg("grad_reqs"), py::arg("shared").none(true),
     py::arg("shared_arg_names"), py::arg("shared_buffer"), py::arg("stypes"),
     py::arg("group2ctx"));

  // A symbol run as one operator (mx.nd.CachedOp); flags as MXCreateCachedOpEx takes them.
  py::class_<CachedOp, std::shared_ptr<CachedOp>>(m, "CachedOpHandle")
      .def(py::init([](const nnvm::Symbol& sym,
                       const std::vector<std::pair<std::string, std::string>>& flags) {
        MXNET_PY_API("MXCreateCachedOpEx");
        return std::make_shared<CachedOp>(sym, flags);
      }))
      .def("num_inputs", &CachedOp::num_inputs)
      .def("num_outputs", &CachedOp::num_outputs)
      .def("symbol", &CachedOp::symbol)
      .def("invoke", [](CachedOp& op, const py::list& inputs, const py::list& out, int dev_type,
                        int dev_id) {
        MXNET_PY_API("MXInvokeCachedOpEx");
        std::vector<NDArray> in = Arrays(inputs), outs = Arrays(out);
        std::vector<NDArray*> in_ptrs, out_ptrs;
        for (NDArray& a : in) {
          if (a.is_none()) throw py::type_error("CachedOp: an input is None");
          in_ptrs.push_back(&a);
        }
        for (NDArray& a : outs) out_ptrs.push_back(&a);
        return ArrayList(op.Invoke(MakeContext(dev_type, dev_id), in_ptrs, out_ptrs));
      });
}

}  // namespace mxnet
