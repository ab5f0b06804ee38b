// mxnet._ffi: DLPack export (__dlpack__, to_dlpack_for_read/write) and import (from_dlpack).
#include <dlpack/dlpack.h>

#include "py_common.h"

namespace mxnet {
namespace {

constexpr const char* kCapsuleName = "dltensor";
// DLPack 0.8 added kDLBool = 6; Debian 12 ships 0.6, so the code is spelled out.
constexpr uint8_t kDLBoolCode = 6;
constexpr const char* kUsedCapsuleName = "used_dltensor";

/*! \brief What a DLManagedTensor we export keeps alive: the array and its shape arrays. */
struct ExportCtx {
  NDArray array;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  DLManagedTensor managed;
};

DLDataType ToDLType(int dtype) {
  switch (dtype) {
    case kFloat32: return {kDLFloat, 32, 1};
    case kFloat64: return {kDLFloat, 64, 1};
    case kFloat16: return {kDLFloat, 16, 1};
    case kUint8: return {kDLUInt, 8, 1};
    case kInt8: return {kDLInt, 8, 1};
    case kInt32: return {kDLInt, 32, 1};
    case kInt64: return {kDLInt, 64, 1};
    case kBool: return {kDLBoolCode, 8, 1};
  }
  throw py::type_error("dtype cannot be exported to DLPack");
}

int FromDLType(DLDataType t) {
  if (t.lanes != 1) throw py::type_error("DLPack: vector lanes are not supported");
  if (t.code == kDLFloat && t.bits == 32) return kFloat32;
  if (t.code == kDLFloat && t.bits == 64) return kFloat64;
  if (t.code == kDLFloat && t.bits == 16) return kFloat16;
  if (t.code == kDLUInt && t.bits == 8) return kUint8;
  if (t.code == kDLInt && t.bits == 8) return kInt8;
  if (t.code == kDLInt && t.bits == 32) return kInt32;
  if (t.code == kDLInt && t.bits == 64) return kInt64;
  if (t.code == kDLBoolCode && t.bits == 8) return kBool;
  throw py::type_error("DLPack: dtype (code " + std::to_string(t.code) + ", bits " +
                       std::to_string(t.bits) + ") is not supported");
}

void DeleteExport(DLManagedTensor* t) {
  delete static_cast<ExportCtx*>(t->manager_ctx);
}

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
  auto ctx = std::make_unique<ExportCtx>();
  ctx->array = a.Detach();
  TBlob blob = a.data();
  ctx->shape.assign(a.shape().begin(), a.shape().end());
  DLTensor& t = ctx->managed.dl_tensor;
  t.data = blob.dptr_;
  Context c = a.ctx();
  t.device = {c.dev_mask() == Context::kGPU ? kDLCUDA : kDLCPU, c.dev_mask() == Context::kGPU ? c.dev_id : 0};
  t.ndim = a.shape().ndim();
  t.dtype = ToDLType(a.dtype());
  t.shape = ctx->shape.data();
  t.strides = nullptr;  // compact row-major
  t.byte_offset = 0;
  ctx->managed.manager_ctx = ctx.get();
  ctx->managed.deleter = DeleteExport;
  DLManagedTensor* managed = &ctx->managed;
  ctx.release();
  return py::capsule(managed, kCapsuleName, CapsuleDestructor);
}

/*! \brief Keeps an imported DLManagedTensor alive until the NDArray's memory is released. */
struct ImportedTensor {
  explicit ImportedTensor(DLManagedTensor* tensor) : t(tensor) {}
  ImportedTensor(const ImportedTensor&) = delete;
  ImportedTensor& operator=(const ImportedTensor&) = delete;
  DLManagedTensor* t;
  // The last reference may drop on an engine worker: the producer's deleter (numpy's, say)
  // touches Python objects, so it runs under the GIL, and is skipped once Python is gone.
  ~ImportedTensor() {
    if (!t || !t->deleter || !Py_IsInitialized() || _Py_IsFinalizing()) return;
    PyGILState_STATE state = PyGILState_Ensure();
    t->deleter(t);
    PyGILState_Release(state);
  }
};

}  // namespace

void DefineDLPack(py::module_& m, py::class_<NDArray>& cls) {
  cls.def("to_dlpack_for_read", [](const NDArray& a) { return Export(a, false); });
  cls.def("to_dlpack_for_write", [](const NDArray& a) { return Export(a, true); });
  cls.def("__dlpack__", [](const NDArray& a, py::object stream) { return Export(a, false); },
          py::arg("stream") = py::none());
  cls.def("__dlpack_device__", [](const NDArray& a) {
    Context c = a.ctx();
    return py::make_tuple(static_cast<int>(c.dev_mask() == Context::kGPU ? kDLCUDA : kDLCPU),
                          c.dev_mask() == Context::kGPU ? c.dev_id : 0);
  });
  m.def("from_dlpack", [](py::capsule capsule) {
    if (std::string(capsule.name() ? capsule.name() : "") != kCapsuleName) {
      throw py::value_error("from_dlpack: expected an unconsumed 'dltensor' capsule");
    }
    auto* t = static_cast<DLManagedTensor*>(capsule.get_pointer());
    if (t->deleter == DeleteExport) {
      // Our own export: hand back the original array so both share one engine variable and
      // every read and write stays ordered (a fresh chunk over the memory would race).
      PyCapsule_SetName(capsule.ptr(), kUsedCapsuleName);
      std::unique_ptr<ExportCtx> ctx(static_cast<ExportCtx*>(t->manager_ctx));
      return ctx->array;
    }
    const DLTensor& dl = t->dl_tensor;
    if (dl.device.device_type != kDLCPU) {
      throw py::value_error("from_dlpack: only CPU tensors can be imported in this build");
    }
    std::vector<dim_t> dims(dl.shape, dl.shape + dl.ndim);
    TShape shape(dims.begin(), dims.end());
    // Strides of a zero-size tensor are arbitrary (numpy keeps those of its base): no element
    // is addressed, so any layout is compact.
    if (dl.strides != nullptr && shape.Size() != 0) {
      int64_t expect = 1;
      for (int i = dl.ndim - 1; i >= 0; --i) {
        if (dl.shape[i] != 1 && dl.strides[i] != expect) {
          throw py::value_error("from_dlpack: only compact row-major tensors can be imported");
        }
        expect *= dl.shape[i];
      }
    }
    int dtype = FromDLType(dl.dtype);
    void* data = static_cast<char*>(dl.data) + dl.byte_offset;
    // Mark the capsule consumed; the NDArray now owns the tensor through its keeper.
    PyCapsule_SetName(capsule.ptr(), kUsedCapsuleName);
    auto keeper = std::make_shared<ImportedTensor>(t);
    return NDArray::FromExternal(TBlob(data, shape, dtype, Context::CPU()), keeper);
  });
}

}  // namespace mxnet
