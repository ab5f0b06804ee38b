// mxnet._ffi: module entry point; the NDArray type and the MXNetError exception.
#include <dmlc/logging.h>

#include "py_common.h"

namespace mxnet {
void DefineDLPack(py::module_& m, py::class_<NDArray>& cls);
void DefineCustomOp(py::module_& m);
}

PYBIND11_MODULE(_ffi, m) {
  using mxnet::NDArray;
  namespace py = pybind11;
  m.doc() = "Native core of the mxnet package (libmxnet.so bindings).";
  static py::exception<dmlc::Error> mxnet_error(m, "MXNetError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const dmlc::Error& e) {
      PyErr_SetString(mxnet_error.ptr(), e.what());
    }
  });
  py::class_<NDArray> cls(m, "NDArray");
  mxnet::DefineNDArray(m, cls);
  mxnet::DefineInvoke(m, cls);
  mxnet::DefineAutograd(m);
  mxnet::DefineRuntime(m);
  mxnet::DefineDLPack(m, cls);
  mxnet::DefineSymbol(m);
  mxnet::DefineCustomOp(m);
}
