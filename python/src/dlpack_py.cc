// mxnet._ffi: DLPack export (__dlpack__, to_dlpack_for_read/write) and import (from_dlpack).
#include "ndarray/ndarray_dlpack.h"
#include "py_common.h"

namespace mxnet {
namespace {

constexpr const char* kCapsuleName = "dltensor";
constexpr const char* kUsedCapsuleName = "used_dltensor";

void CapsuleDestructor(PyObject* capsule) {
  // A capsule never consumed by a consumer still owns its tensor.
  if (PyCapsule_IsValid(capsule, kCapsuleName)) {
    auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsuleName));
    if (t && t->deleter) t->deleter(t);
  }
}

py::capsule Export(const NDArray& a, bool for_write) {
  {
    py::gil_scoped_release nogil;
    if (for_write) a.WaitToWrite(); else a.WaitToRead();
  }
  return py::capsule(dlpack::Export(a), kCapsuleName, CapsuleDestructor);
}

/*! \brief Release of an imported tensor: the last reference may drop on an engine worker,
 *  and the producer's deleter (numpy's, say) touches Python objects, so it runs under the
 *  GIL, and is skipped once Python is gone. */
void ReleaseUnderGil(DLManagedTensor* t) {
  if (!t->deleter || !Py_IsInitialized() || _Py_IsFinalizing()) return;
  PyGILState_STATE state = PyGILState_Ensure();
  t->deleter(t);
  PyGILState_Release(state);
}

}  // namespace

void DefineDLPack(py::module_& m, py::class_<NDArray>& cls) {
  cls.def("to_dlpack_for_read", [](const NDArray& a) { return Export(a, false); });
  cls.def("to_dlpack_for_write", [](const NDArray& a) { return Export(a, true); });
  cls.def("__dlpack__", [](const NDArray& a, py::object stream) { return Export(a, false); },
          py::arg("stream") = py::none());
  cls.def("__dlpack_device__", [](const NDArray& a) {
    DLDevice d = dlpack::DeviceOf(a.ctx());
    return py::make_tuple(static_cast<int>(d.device_type), d.device_id);
  });
  m.def("from_dlpack", [](py::capsule capsule) {
    if (std::string(capsule.name() ? capsule.name() : "") != kCapsuleName) {
      throw py::value_error("from_dlpack: expected an unconsumed 'dltensor' capsule");
    }
    auto* t = static_cast<DLManagedTensor*>(capsule.get_pointer());
    NDArray out = dlpack::Import(t, ReleaseUnderGil);
    // Consumed: the NDArray now owns the tensor.
    PyCapsule_SetName(capsule.ptr(), kUsedCapsuleName);
    return out;
  });
}

}  // namespace mxnet
