// DLPack export and import of NDArrays (see ndarray_dlpack.h).
#include "ndarray/ndarray_dlpack.h"

#include <dmlc/logging.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mxnet {
namespace dlpack {
namespace {

// DLPack 0.8 added kDLBool = 6; Debian 12 ships 0.6, so the code is spelled out.
constexpr uint8_t kDLBoolCode = 6;

/*! \brief What an exported DLManagedTensor keeps alive: the array and its shape. */
struct ExportCtx {
  NDArray array;
  std::vector<int64_t> shape;
  DLManagedTensor managed;
};

/*! \brief What an imported foreign tensor keeps: the tensor and how to release it. */
struct ImportedTensor {
  ImportedTensor(DLManagedTensor* tensor, std::function<void(DLManagedTensor*)> rel)
      : t(tensor), release(std::move(rel)) {}
  ImportedTensor(const ImportedTensor&) = delete;
  ImportedTensor& operator=(const ImportedTensor&) = delete;
  ~ImportedTensor() {
    if (release) release(t);
  }
  DLManagedTensor* t;
  std::function<void(DLManagedTensor*)> release;
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
  LOG(FATAL) << "DLPack export: dtype " << dtype << " cannot be exported";
  throw;  // unreachable
}

int FromDLType(DLDataType t) {
  if (t.lanes != 1) LOG(FATAL) << "DLPack import: vector lanes are not supported, given " << t.lanes;
  if (t.code == kDLFloat && t.bits == 32) return kFloat32;
  if (t.code == kDLFloat && t.bits == 64) return kFloat64;
  if (t.code == kDLFloat && t.bits == 16) return kFloat16;
  if (t.code == kDLUInt && t.bits == 8) return kUint8;
  if (t.code == kDLInt && t.bits == 8) return kInt8;
  if (t.code == kDLInt && t.bits == 32) return kInt32;
  if (t.code == kDLInt && t.bits == 64) return kInt64;
  if (t.code == kDLBoolCode && t.bits == 8) return kBool;
  LOG(FATAL) << "DLPack import: dtype (code " << static_cast<int>(t.code) << ", bits "
             << static_cast<int>(t.bits) << ") is not supported";
  throw;  // unreachable
}

void DeleteExport(DLManagedTensor* t) { delete static_cast<ExportCtx*>(t->manager_ctx); }

}  // namespace

DLDevice DeviceOf(const Context& ctx) {
  const bool gpu = ctx.dev_mask() == Context::kGPU;
  return {gpu ? kDLCUDA : kDLCPU, gpu ? ctx.dev_id : 0};
}

DLManagedTensor* Export(const NDArray& a) {
  auto ctx = std::make_unique<ExportCtx>();
  ctx->array = a.Detach();
  TBlob blob = a.data();
  ctx->shape.assign(a.shape().begin(), a.shape().end());
  DLTensor& t = ctx->managed.dl_tensor;
  t.data = blob.dptr_;
  t.device = DeviceOf(a.ctx());
  t.ndim = a.shape().ndim();
  t.dtype = ToDLType(a.dtype());
  t.shape = ctx->shape.data();
  t.strides = nullptr;  // compact row-major
  t.byte_offset = 0;
  ctx->managed.manager_ctx = ctx.get();
  ctx->managed.deleter = DeleteExport;
  return &ctx.release()->managed;
}

NDArray Import(DLManagedTensor* t, std::function<void(DLManagedTensor*)> release) {
  CHECK(t != nullptr) << "DLPack import: the tensor is NULL";
  if (t->deleter == DeleteExport) {
    auto* ctx = static_cast<ExportCtx*>(t->manager_ctx);
    NDArray original = ctx->array;
    if (release) DeleteExport(t);  // consumed; else the producer still owns the tensor
    return original;
  }
  const DLTensor& dl = t->dl_tensor;
  if (dl.device.device_type != kDLCPU) {
    LOG(FATAL) << "DLPack import: only CPU tensors can be imported in this build, given device "
                  "type " << static_cast<int>(dl.device.device_type);
  }
  std::vector<dim_t> dims(dl.shape, dl.shape + dl.ndim);
  TShape shape(dims.begin(), dims.end());
  // Strides of a zero-size tensor are arbitrary (numpy keeps those of its base): no element
  // is addressed, so any layout is compact.
  bool zero_size = false;
  for (dim_t d : dims) zero_size = zero_size || d == 0;
  if (dl.strides != nullptr && !zero_size) {
    int64_t expect = 1;
    for (int i = dl.ndim - 1; i >= 0; --i) {
      if (dl.shape[i] != 1 && dl.strides[i] != expect) {
        LOG(FATAL) << "DLPack import: only compact row-major tensors can be imported (axis " << i
                   << " has stride " << dl.strides[i] << ", expected " << expect << ")";
      }
      expect *= dl.shape[i];
    }
  }
  int dtype = FromDLType(dl.dtype);
  void* data = static_cast<char*>(dl.data) + dl.byte_offset;
  auto keeper = std::make_shared<ImportedTensor>(t, std::move(release));
  return NDArray::FromExternal(TBlob(data, shape, dtype, Context::CPU()), keeper);
}

}  // namespace dlpack
}  // namespace mxnet
