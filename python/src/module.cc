// mxnet._ffi: module entry point; the NDArray type and the MXNetError exception.
#include <dmlc/logging.h>

#include "py_common.h"

namespace mxnet {
void DefineDLPack(py::module_& m, py::class_<NDArray>& cls);
void DefineCustomOp(py::module_& m);
void DefineKVStore(py::module_& m);
}

namespace mxnet {
namespace {
PyObject* g_mxnet_error = nullptr;
}  // namespace

PyObject* MXNetErrorType() { return g_mxnet_error; }

void SetPythonErrorFromCurrentException() {
  // The same mapping as pybind11's dispatcher with the translator registered below.
  try {
    throw;
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const py::builtin_exception& e) {
    e.set_error();
  } catch (const dmlc::Error& e) {
    PyErr_SetString(MXNetErrorTypeFor(e.what()), e.what());
  } catch (const std::bad_alloc&) {
    PyErr_SetString(PyExc_MemoryError, "std::bad_alloc");
  } catch (const std::domain_error& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const std::invalid_argument& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const std::length_error& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const std::out_of_range& e) {
    PyErr_SetString(PyExc_IndexError, e.what());
  } catch (const std::range_error& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const std::overflow_error& e) {
    PyErr_SetString(PyExc_OverflowError, e.what());
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "Caught an unknown exception!");
  }
}
}  // namespace mxnet

PYBIND11_MODULE(_ffi, m) {
  using mxnet::NDArray;
  namespace py = pybind11;
  m.doc() = "Native core of the mxnet package (libmxnet.so bindings).";
  static py::exception<dmlc::Error> mxnet_error(m, "MXNetError", PyExc_RuntimeError);
  mxnet::g_mxnet_error = mxnet_error.ptr();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const dmlc::Error& e) {
      PyErr_SetString(mxnet::MXNetErrorTypeFor(e.what()), e.what());
    }
  });
  py::class_<NDArray> cls(m, "NDArray");
  mxnet::DefineNDArray(m, cls);
  mxnet::DefineSparse(m, cls);
  mxnet::DefineInvoke(m, cls);
  mxnet::InstallFastArithmetic(cls);
  mxnet::DefineOpFunction(m);
  mxnet::DefineAutograd(m);
  mxnet::DefineRuntime(m);
  mxnet::DefineDLPack(m, cls);
  mxnet::DefineSymbol(m);
  mxnet::DefineExecutor(m);
  mxnet::DefineCustomOp(m);
  mxnet::DefineKVStore(m);
}
