// mxnet._ffi: custom operators written in Python (mx.operator) behind custom::CustomOpProp.
#include <dmlc/logging.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "imperative/storage_dispatch.h"
#include "mxnet/imperative.h"
#include "operator/custom/custom_op.h"
#include "py_common.h"

namespace mxnet {
namespace {

// ---------------------------------------------------------------- Python's lifetime
// Callbacks run on custom-op worker threads and objects are released on engine threads, so
// Python may be entered from threads it does not know while the interpreter shuts down. At
// exit (ShutdownCustomOps, from atexit) pending work is finished, then g_python_alive turns
// false: from then on no thread enters Python (callbacks fail with an error, references are
// leaked). g_in_flight counts threads between their check of the flag and their exit from
// Python, so the shutdown waits for the ones already admitted.
std::atomic<bool> g_python_alive{true};
std::atomic<int> g_in_flight{0};

/*! \brief Admission to Python for one call; ok() false once the interpreter is going away. */
class PythonEntry {
 public:
  PythonEntry() {
    g_in_flight.fetch_add(1);
    ok_ = g_python_alive.load();
    if (!ok_) g_in_flight.fetch_sub(1);
  }
  ~PythonEntry() {
    if (ok_) g_in_flight.fetch_sub(1);
  }
  PythonEntry(const PythonEntry&) = delete;
  PythonEntry& operator=(const PythonEntry&) = delete;
  bool ok() const { return ok_; }

 private:
  bool ok_;
};

/*! \brief A Python object owned from C++; released under the GIL, or leaked after shutdown. */
struct PyRef {
  py::object obj;
  explicit PyRef(py::object o) : obj(std::move(o)) {}
  ~PyRef() {
    PythonEntry entry;
    if (!entry.ok()) {
      obj.release();
      return;
    }
    py::gil_scoped_acquire gil;
    obj = py::object();
  }
};

/*! \brief "<Type>: message" and the traceback of the Python exception e, for MXNetError. */
std::string Describe(py::error_already_set& e) {
  try {
    py::list lines = py::module_::import("traceback")
                         .attr("format_exception")(e.type(), e.value(), e.trace());
    std::string text;
    for (auto l : lines) text += l.cast<std::string>();
    return text;
  } catch (...) {
    return e.what();
  }
}

/*!
 * \brief Run f holding the GIL; a Python exception becomes dmlc::Error "Error in <where>: ..."
 *  with its traceback (surfacing as MXNetError where the op's result is waited for).
 */
template <typename F>
auto CallPython(const std::string& where, F f) -> decltype(f()) {
  PythonEntry entry;
  if (!entry.ok()) {
    throw dmlc::Error("Error in " + where + ": the Python interpreter is shutting down");
  }
  py::gil_scoped_acquire gil;
  try {
    return f();
  } catch (py::error_already_set& e) {
    throw dmlc::Error("Error in " + where + ": " + Describe(e));
  } catch (const py::cast_error& e) {
    throw dmlc::Error("Error in " + where + ": " + e.what());
  }
}

// ---------------------------------------------------------------- conversions

py::list ShapesToPy(const std::vector<TShape>& shapes, size_t n) {
  py::list l;
  for (size_t i = 0; i < n; ++i) {
    py::list s;
    for (int d = 0; d < shapes[i].ndim(); ++d) s.append(shapes[i][d]);
    l.append(s);
  }
  return l;
}

std::vector<std::string> StringList(const py::handle& seq) {
  std::vector<std::string> v;
  for (auto s : seq) v.push_back(py::str(s).cast<std::string>());
  return v;
}

/*! \brief The 2 or 3 lists an infer_* method returns, each checked against its length. */
std::vector<py::object> InferResult(const std::string& where, const py::object& ret,
                                    const std::vector<size_t>& sizes) {
  static const char* kWhat[] = {"input", "output", "aux state"};
  size_t n = py::len(ret);
  if (n != 2 && n != 3) {
    throw dmlc::Error("Error in " + where + ": must return 2 or 3 lists, returned " +
                      std::to_string(n));
  }
  std::vector<py::object> lists;
  for (size_t i = 0; i < 3; ++i) {
    py::object l = i < n ? py::reinterpret_borrow<py::object>(ret[py::int_(i)]) : py::list();
    if (py::len(l) != sizes[i]) {
      throw dmlc::Error("Error in " + where + ": expecting " + std::to_string(sizes[i]) +
                        " entries in returned " + kWhat[i] + " list, got " +
                        std::to_string(py::len(l)));
    }
    lists.push_back(l);
  }
  return lists;
}

int StypeFromName(const std::string& where, const py::handle& name) {
  const std::string s = py::str(name).cast<std::string>();
  if (s == "default") return kDefaultStorage;
  if (s == "row_sparse") return kRowSparseStorage;
  if (s == "csr") return kCSRStorage;
  if (s == "undefined") return kUndefinedStorage;
  throw dmlc::Error("Error in " + where + ": expected storage types 'default', 'row_sparse' "
                    "or 'csr', given '" + s + "'");
}

py::list ArraysToPy(const std::vector<NDArray>& arrays) {
  py::list l;
  for (const NDArray& a : arrays) l.append(py::cast(a));
  return l;
}

py::list ReqsToPy(const std::vector<OpReqType>& req) {
  static const char* kNames[] = {"null", "write", "inplace", "add"};
  py::list l;
  for (OpReqType r : req) l.append(kNames[static_cast<int>(r)]);
  return l;
}

/*! \brief Autograd off and the train flag as given while a callback runs in this thread. */
class CallbackModes {
 public:
  explicit CallbackModes(bool is_train)
      : recording_(Imperative::Get()->set_is_recording(false)),
        training_(Imperative::Get()->set_is_training(is_train)) {}
  ~CallbackModes() {
    Imperative::Get()->set_is_recording(recording_);
    Imperative::Get()->set_is_training(training_);
  }

 private:
  bool recording_, training_;
};

// ---------------------------------------------------------------- the interface

class PyCustomOperator final : public custom::CustomOperator {
 public:
  PyCustomOperator(std::string op_type, py::object op)
      : op_type_(std::move(op_type)), op_(std::make_shared<PyRef>(std::move(op))) {}

  void Forward(bool is_train, const std::vector<OpReqType>& req,
               const std::vector<NDArray>& in_data, const std::vector<NDArray>& out_data,
               const std::vector<NDArray>& aux) override {
    CallPython(op_type_ + ".forward", [&] {
      CallbackModes modes(is_train);
      op_->obj.attr("forward")(py::arg("is_train") = is_train, py::arg("req") = ReqsToPy(req),
                               py::arg("in_data") = ArraysToPy(in_data),
                               py::arg("out_data") = ArraysToPy(out_data),
                               py::arg("aux") = ArraysToPy(aux));
    });
  }

  void Backward(const std::vector<OpReqType>& req, const std::vector<NDArray>& out_grad,
                const std::vector<NDArray>& in_data, const std::vector<NDArray>& out_data,
                const std::vector<NDArray>& in_grad, const std::vector<NDArray>& aux) override {
    CallPython(op_type_ + ".backward", [&] {
      CallbackModes modes(true);
      op_->obj.attr("backward")(py::arg("req") = ReqsToPy(req),
                                py::arg("out_grad") = ArraysToPy(out_grad),
                                py::arg("in_data") = ArraysToPy(in_data),
                                py::arg("out_data") = ArraysToPy(out_data),
                                py::arg("in_grad") = ArraysToPy(in_grad),
                                py::arg("aux") = ArraysToPy(aux));
    });
  }

 private:
  std::string op_type_;
  std::shared_ptr<PyRef> op_;
};

class PyCustomOpProp final : public custom::CustomOpProp {
 public:
  PyCustomOpProp(std::string op_type, py::object prop)
      : op_type_(std::move(op_type)), prop_(std::make_shared<PyRef>(std::move(prop))) {}

  std::vector<std::string> ListArguments() override { return List("list_arguments"); }
  std::vector<std::string> ListOutputs() override { return List("list_outputs"); }
  std::vector<std::string> ListAuxiliaryStates() override {
    return List("list_auxiliary_states");
  }

  bool InferShape(std::vector<TShape>* shapes) override {
    const std::string where = op_type_ + ".infer_shape";
    return CallPython(where, [&] {
      std::vector<size_t> sizes = Sizes();
      py::object ret = prop_->obj.attr("infer_shape")(ShapesToPy(*shapes, sizes[0]));
      std::vector<py::object> lists = InferResult(where, ret, sizes);
      size_t k = 0;
      for (const py::object& l : lists) {
        for (auto s : l) {
          std::vector<dim_t> dims;
          for (auto d : s) dims.push_back(d.cast<dim_t>());
          (*shapes)[k++] = TShape(dims.begin(), dims.end());
        }
      }
      return true;
    });
  }

  bool InferType(std::vector<int>* types) override {
    const std::string where = op_type_ + ".infer_type";
    return CallPython(where, [&] {
      std::vector<size_t> sizes = Sizes();
      py::object np_dtype = py::module_::import("numpy").attr("dtype");
      py::list in;
      for (size_t i = 0; i < sizes[0]; ++i) {
        const int t = (*types)[i];
        py::object type = py::none();
        if (t >= 0) type = np_dtype(NumpyName(t)).attr("type");
        in.append(type);
      }
      py::object ret = prop_->obj.attr("infer_type")(in);
      std::vector<py::object> lists = InferResult(where, ret, sizes);
      size_t k = 0;
      for (const py::object& l : lists) {
        for (auto t : l) (*types)[k++] = t.is_none() ? -1 : FlagFromNumpy(t);
      }
      return true;
    });
  }

  bool InferStorageType(std::vector<int>* stypes) override {
    const std::string where = op_type_ + ".infer_storage_type";
    return CallPython(where, [&] {
      std::vector<size_t> sizes = Sizes();
      py::list in;
      for (size_t i = 0; i < sizes[0]; ++i) in.append(imperative::StorageTypeName((*stypes)[i]));
      py::object ret = prop_->obj.attr("infer_storage_type")(in);
      std::vector<py::object> lists = InferResult(where, ret, sizes);
      size_t k = 0;
      for (const py::object& l : lists) {
        for (auto t : l) (*stypes)[k++] = StypeFromName(where, t);
      }
      return true;
    });
  }

  bool InferBackwardStorageType(std::vector<int>* stypes) override {
    const std::string where = op_type_ + ".infer_storage_type_backward";
    return CallPython(where, [&] {
      const std::vector<size_t> s = Sizes();  // arguments, outputs, aux states
      const std::vector<size_t> sizes{s[1], s[0], s[1], s[0], s[2]};
      std::vector<py::list> lists(sizes.size());
      size_t k = 0;
      for (size_t j = 0; j < sizes.size(); ++j) {
        for (size_t i = 0; i < sizes[j]; ++i) lists[j].append(imperative::StorageTypeName((*stypes)[k++]));
      }
      py::object ret = prop_->obj.attr("infer_storage_type_backward")(
          lists[0], lists[1], lists[2], lists[3], lists[4]);
      if (py::len(ret) != sizes.size()) {
        throw dmlc::Error("Error in " + where + ": must return 5 lists, returned " +
                          std::to_string(py::len(ret)));
      }
      k = 0;
      for (size_t j = 0; j < sizes.size(); ++j) {
        py::object l = py::reinterpret_borrow<py::object>(ret[py::int_(j)]);
        if (py::len(l) != sizes[j]) {
          throw dmlc::Error("Error in " + where + ": list " + std::to_string(j) + " has " +
                            std::to_string(py::len(l)) + " entries, expected " +
                            std::to_string(sizes[j]));
        }
        for (auto t : l) (*stypes)[k++] = StypeFromName(where, t);
      }
      return true;
    });
  }

  std::vector<int> DeclareBackwardDependency(const std::vector<int>& out_grad,
                                             const std::vector<int>& in_data,
                                             const std::vector<int>& out_data) override {
    return CallPython(op_type_ + ".declare_backward_dependency", [&] {
      py::object ret = prop_->obj.attr("declare_backward_dependency")(
          py::cast(out_grad), py::cast(in_data), py::cast(out_data));
      std::vector<int> deps;
      for (auto d : ret) deps.push_back(d.cast<int>());
      return deps;
    });
  }

  std::shared_ptr<custom::CustomOperator> CreateOperator(
      const Context& ctx, const std::vector<TShape>& in_shapes,
      const std::vector<int>& in_types) override {
    return CallPython(op_type_ + ".create_operator", [&] {
      const char* dev = ctx.dev_mask() == Context::kGPU ? "gpu" : "cpu";
      py::object py_ctx = py::module_::import("mxnet.context").attr("Context")(dev, ctx.dev_id);
      py::object op = prop_->obj.attr("create_operator")(
          py_ctx, ShapesToPy(in_shapes, in_shapes.size()), py::cast(in_types));
      if (op.is_none()) {
        throw dmlc::Error("Error in " + op_type_ + ".create_operator: returned None, expected a "
                          "CustomOp");
      }
      return std::shared_ptr<custom::CustomOperator>(
          std::make_shared<PyCustomOperator>(op_type_, std::move(op)));
    });
  }

 private:
  std::vector<std::string> List(const char* method) {
    return CallPython(op_type_ + "." + method,
                      [&] { return StringList(prop_->obj.attr(method)()); });
  }
  // Called with the GIL held: numbers of arguments, outputs and aux states.
  std::vector<size_t> Sizes() {
    return {py::len(prop_->obj.attr("list_arguments")()),
            py::len(prop_->obj.attr("list_outputs")()),
            py::len(prop_->obj.attr("list_auxiliary_states")())};
  }

  std::string op_type_;
  std::shared_ptr<PyRef> prop_;
};

/*! \brief Finish pending work while Python can still run callbacks, then close Python off. */
void ShutdownCustomOps() {
  if (!g_python_alive.load()) return;
  {
    py::gil_scoped_release nogil;
    try {
      Engine::Get()->WaitForAll();
    } catch (const dmlc::Error&) {
      // errors of work nobody waited for are dropped at exit, as in MXNet
    }
  }
  g_python_alive.store(false);
  py::gil_scoped_release nogil;
  while (g_in_flight.load() != 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

}  // namespace

void DefineCustomOp(py::module_& m) {
  /*! custom_op_register(reg_name, prop_cls): Custom(op_type=reg_name, **kw) builds
   *  prop_cls(**kw) (values as strings) and runs the operators it creates. */
  m.def("custom_op_register", [](const std::string& reg_name, py::object prop_cls) {
    auto cls = std::make_shared<PyRef>(std::move(prop_cls));
    custom::RegisterCustomOp(
        reg_name,
        [cls](const std::string& op_type,
              const std::vector<std::pair<std::string, std::string>>& kwargs) {
          return CallPython(op_type + ".__init__", [&] {
            py::dict kw;
            for (const auto& kv : kwargs) kw[py::str(kv.first)] = py::str(kv.second);
            py::object prop = cls->obj(**kw);
            return std::shared_ptr<custom::CustomOpProp>(
                std::make_shared<PyCustomOpProp>(op_type, std::move(prop)));
          });
        });
  });
  m.def("custom_op_shutdown", &ShutdownCustomOps,
        "Finish pending custom-op work and stop calling into Python (run at exit).");
  m.def("custom_op_before_fork", [] {
    py::gil_scoped_release nogil;
    custom::WaitForCustomOps();
  }, "Wait, without the GIL, for custom-op calls in flight (their callbacks need the GIL and "
     "the engine finishes its work before a fork).");
}

}  // namespace mxnet
