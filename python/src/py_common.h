// Shared declarations of the mxnet._ffi extension's parts (one file per area).
#ifndef MXNET_PY_COMMON_H_
#define MXNET_PY_COMMON_H_

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "mxnet/ndarray.h"
#include "profiler/profiler.h"

/*! \brief Record this binding as the C API call MXNet's Python front would make (shows in
 *  the profiler with profile_api; one branch when off). */
#define MXNET_PY_API(c_api_name) ::mxnet::profiler::ApiCallScope mxnet_api_scope_(c_api_name)

namespace mxnet {
namespace py = pybind11;

void DefineNDArray(py::module_& m, py::class_<NDArray>& cls);
void DefineInvoke(py::module_& m, py::class_<NDArray>& cls);
void DefineAutograd(py::module_& m);
void DefineRuntime(py::module_& m);
void DefineSymbol(py::module_& m);

/*! \brief Context from the (device_type, device_id) pair the Python front passes. */
inline Context MakeContext(int dev_type, int dev_id) {
  if (dev_type != Context::kCPU && dev_type != Context::kGPU && dev_type != Context::kCPUPinned &&
      dev_type != Context::kCPUShared) {
    throw py::value_error("unknown device type " + std::to_string(dev_type));
  }
  return Context(static_cast<Context::DeviceType>(dev_type), dev_id);
}

/*! \brief numpy dtype name of a dtype flag ("float32", ...). */
std::string NumpyName(int dtype);
/*! \brief dtype flag of a numpy dtype (object convertible by numpy.dtype); throws otherwise. */
int FlagFromNumpy(const py::handle& dtype);

}  // namespace mxnet

#endif  // MXNET_PY_COMMON_H_
