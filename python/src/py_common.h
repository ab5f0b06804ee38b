// Shared declarations of the mxnet._ffi extension's parts (one file per area).
#ifndef MXNET_PY_COMMON_H_
#define MXNET_PY_COMMON_H_

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "mxnet/ndarray.h"
#include "profiler/profiler.h"

/*! \brief Record this binding as the C API call MXNet's Python front would make (shows in
 *  the profiler with profile_api; one branch when off). */
#define MXNET_PY_API(c_api_name) ::mxnet::profiler::ApiCallScope mxnet_api_scope_(c_api_name)

namespace nnvm {
class Op;
struct NodeAttrs;
}

namespace mxnet {
/*! \brief The Python classes of sparse arrays (mx.nd.sparse.CSRNDArray/RowSparseNDArray):
 *  the same C++ NDArray; the type hook below picks the class from the storage type. */
struct BaseSparseNDArrayPy : NDArray {};
struct CSRNDArrayPy : BaseSparseNDArrayPy {};
struct RowSparseNDArrayPy : BaseSparseNDArrayPy {};
}  // namespace mxnet

namespace pybind11 {
template <>
struct polymorphic_type_hook<mxnet::NDArray> {
  static const void* get(const mxnet::NDArray* src, const std::type_info*& type) {
    type = nullptr;
    if (src != nullptr && !src->is_none()) {
      const int stype = src->storage_type();
      if (stype == mxnet::kCSRStorage) type = &typeid(mxnet::CSRNDArrayPy);
      if (stype == mxnet::kRowSparseStorage) type = &typeid(mxnet::RowSparseNDArrayPy);
    }
    return src;
  }
};
}  // namespace pybind11

namespace mxnet {
namespace py = pybind11;

void DefineNDArray(py::module_& m, py::class_<NDArray>& cls);
void DefineInvoke(py::module_& m, py::class_<NDArray>& cls);
void DefineAutograd(py::module_& m);
void DefineRuntime(py::module_& m);
void DefineSymbol(py::module_& m);
void DefineExecutor(py::module_& m);
void DefineOpFunction(py::module_& m);
void DefineSparse(py::module_& m, py::class_<NDArray>& cls);

/*! \brief Context from the (device_type, device_id) pair the Python front passes. */
inline Context MakeContext(int dev_type, int dev_id) {
  if (dev_type != Context::kCPU && dev_type != Context::kGPU && dev_type != Context::kCPUPinned &&
      dev_type != Context::kCPUShared) {
    throw py::value_error("unknown device type " + std::to_string(dev_type));
  }
  return Context(static_cast<Context::DeviceType>(dev_type), dev_id);
}

using AttrsPtr = std::shared_ptr<const nnvm::NodeAttrs>;
/*! \brief Cached attrs of an op called with no kwargs. */
AttrsPtr PlainAttrs(const char* op_name);
AttrsPtr PlainAttrsOf(const nnvm::Op* op);
/*! \brief The body of every generated mx.nd.<op> function, as a vectorcall: positional args,
 *  then the values of the keywords named in kwnames (a tuple, or null). Returns a new
 *  reference, or null with the Python error set. */
PyObject* CallOp(uint32_t op_index, PyObject* const* args, size_t nargs, PyObject* kwnames);
/*! \brief Attrs of a scalar op (scalar=value); recent values are cached per op. */
AttrsPtr ScalarAttrs(const char* op_name, double scalar, bool is_int);
/*! \brief Run a one- or two-input op and return its first output. */
NDArray InvokeSingle(const AttrsPtr& attrs, NDArray* a, NDArray* b);
/*! \brief Run a one- or two-input op writing into dst (x += y). */
void InvokeInto(const AttrsPtr& attrs, NDArray* a, NDArray* b, NDArray* dst);
/*! \brief The mxnet.base.MXNetError type (set by the module's init). */
PyObject* MXNetErrorType();
/*! \brief The class to raise for an MXNetError with message what: a subclass of MXNetError
 *  and IndexError / ValueError / TypeError / AttributeError / NotImplementedError when a
 *  clause of the message starts with that name (as MXNet 1.9.1's mxnet.error), else
 *  MXNetError. Needs the GIL. */
PyObject* MXNetErrorTypeFor(const char* what);
/*! \brief Inside a catch block: set the Python error pybind11 would set for the exception
 *  in flight (for entry points that bypass pybind11's dispatcher). */
void SetPythonErrorFromCurrentException();
/*! \brief Install the CPython-level fast paths of NDArray arithmetic (after its pybind11
 *  operators are defined, which they fall back to). */
void InstallFastArithmetic(py::class_<NDArray>& cls);

/*! \brief numpy dtype name of a dtype flag ("float32", ...). */
std::string NumpyName(int dtype);
/*! \brief dtype flag of a numpy dtype (object convertible by numpy.dtype); throws otherwise. */
int FlagFromNumpy(const py::handle& dtype);

}  // namespace mxnet

#endif  // MXNET_PY_COMMON_H_
