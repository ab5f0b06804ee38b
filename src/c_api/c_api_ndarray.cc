// C API, NDArray: create/free, shape/dtype/context, host copies, waits, views, save/load, grad.
#include <climits>
#include <memory>
#include <string>
#include <vector>

#include "c_api/c_api_common.h"
#include "mxnet/imperative.h"
#include "mxnet/storage.h"
#include "ndarray/ndarray_dlpack.h"

namespace mxnet {
namespace c_api {
namespace {

/*! \brief A new handle owning a copy of arr; released by MXNDArrayFree. */
NDArrayHandle NewHandle(NDArray arr) { return std::make_unique<NDArray>(std::move(arr)).release(); }

Context ContextFromC(int dev_type, int dev_id, const char* fn) {
  API_CHECK(dev_type == Context::kCPU || dev_type == Context::kGPU ||
                dev_type == Context::kCPUPinned || dev_type == Context::kCPUShared,
            fn << ": argument dev_type expected 1 (cpu), 2 (gpu), 3 (cpu_pinned) or "
               "5 (cpu_shared), given " << dev_type);
  API_CHECK(dev_id >= 0, fn << ": argument dev_id must be >= 0, given " << dev_id);
  return Context(static_cast<Context::DeviceType>(dev_type), dev_id);
}

/*! \brief "0 (float32), 1 (float64), ..." from the dtype table, for messages. */
std::string DTypeFlagList() {
  std::string s;
  for (const DTypeInfo& r : DTypeTable()) {
    s += (s.empty() ? "" : ", ") + std::to_string(r.flag) + " (" + r.name + ")";
  }
  return s;
}

/*! \brief Record view = op(src) for autograd when recording and src is part of a graph, as
 *  MXNet's SliceWithRecord / ReshapeWithRecord do (the view shares memory; the node only
 *  carries the gradient). */
void RecordView(const std::shared_ptr<const nnvm::NodeAttrs>& attrs, NDArray* src, NDArray* view) {
  if (!Imperative::Get()->is_recording() || src->entry().node == nullptr) return;
  Imperative::Get()->RecordExisting(*attrs, {src}, {view});
}

std::shared_ptr<const nnvm::NodeAttrs> SliceAxis0Attrs(dim_t begin, dim_t end) {
  return Imperative::ParseAttrs(nnvm::Op::GetOrThrow("slice_axis"),
                                {{"axis", "0"},
                                 {"begin", std::to_string(begin)},
                                 {"end", std::to_string(end)}});
}

}  // namespace
}  // namespace c_api
}  // namespace mxnet

using namespace mxnet;  // NOLINT(build/namespaces)
using mxnet::c_api::NewHandle;

int MXNDArrayCreateNone(NDArrayHandle* out) {
  API_BEGIN();
  API_NOT_NULL(out);
  *out = NewHandle(NDArray());
  API_END();
}

int MXNDArrayCreateEx(const mx_uint* shape, mx_uint ndim, int dev_type, int dev_id,
                      int delay_alloc, int dtype, NDArrayHandle* out) {
  API_BEGIN();
  API_NOT_NULL(out);
  API_CHECK(ndim <= static_cast<mx_uint>(TShape::kMaxNDim),
            "MXNDArrayCreateEx: argument ndim is " << ndim << ", at most " << TShape::kMaxNDim
                                                   << " dimensions are supported");
  API_CHECK(ndim == 0 || shape != nullptr,
            "MXNDArrayCreateEx: argument shape is NULL but ndim is " << ndim);
  API_CHECK(IsValidDType(dtype),
            "MXNDArrayCreateEx: argument dtype expected one of " << c_api::DTypeFlagList()
                << ", given " << dtype);
  Context ctx = c_api::ContextFromC(dev_type, dev_id, "MXNDArrayCreateEx");
  if (ctx.dev_mask() == Context::kGPU) Storage::Get()->Alloc(0, ctx);  // report no-GPU now
  TShape s(shape, shape + ndim);
  *out = NewHandle(NDArray(s, ctx, delay_alloc != 0, dtype));
  API_END();
}

int MXNDArrayFree(NDArrayHandle handle) {
  API_BEGIN();
  std::unique_ptr<NDArray> owned(static_cast<NDArray*>(handle));
  API_END();
}

int MXNDArrayGetShapeEx(NDArrayHandle handle, int* out_dim, const int** out_pdata) {
  thread_local std::vector<int> dims;
  API_BEGIN();
  NDArray* arr = API_ARRAY(handle);
  API_NOT_NULL(out_dim);
  API_NOT_NULL(out_pdata);
  const TShape& s = arr->shape();
  dims.clear();
  // MXNet's legacy (non-numpy) shape semantics: an unknown shape reports ndim 0.
  for (dim_t d : s) {
    API_CHECK(d <= INT_MAX, "MXNDArrayGetShapeEx: dimension " << d << " of shape " << s
                                                              << " does not fit in an int");
    dims.push_back(d < 0 ? 0 : static_cast<int>(d));
  }
  *out_dim = static_cast<int>(dims.size());
  *out_pdata = dims.data();
  API_END();
}

int MXNDArrayGetDType(NDArrayHandle handle, int* out_dtype) {
  API_BEGIN();
  NDArray* arr = API_ARRAY(handle);
  API_NOT_NULL(out_dtype);
  *out_dtype = arr->is_none() ? -1 : arr->dtype();
  API_END();
}

int MXNDArrayGetContext(NDArrayHandle handle, int* out_dev_type, int* out_dev_id) {
  API_BEGIN();
  NDArray* arr = API_ARRAY(handle);
  API_NOT_NULL(out_dev_type);
  API_NOT_NULL(out_dev_id);
  if (arr->is_none()) {
    *out_dev_type = 0;
    *out_dev_id = 0;
  } else {
    Context ctx = arr->ctx();
    *out_dev_type = static_cast<int>(ctx.dev_type);
    *out_dev_id = ctx.dev_id;
  }
  API_END();
}

int MXNDArrayGetData(NDArrayHandle handle, void** out_pdata) {
  API_BEGIN();
  NDArray* arr = API_ARRAY(handle);
  API_NOT_NULL(out_pdata);
  // Like MXNet, no wait here: the caller waits (MXNDArrayWaitToRead/ToWrite) before using it.
  *out_pdata = arr->is_none() ? nullptr : arr->data().dptr_;
  API_END();
}

int MXNDArraySyncCopyFromCPU(NDArrayHandle handle, const void* data, size_t size) {
  API_BEGIN();
  NDArray* arr = API_ARRAY(handle);
  API_CHECK(data != nullptr || size == 0, "MXNDArraySyncCopyFromCPU: argument data is NULL");
  API_CHECK(!arr->is_none(), "MXNDArraySyncCopyFromCPU: the array is empty (none)");
  API_CHECK(size == arr->shape().Size(),
            "MXNDArraySyncCopyFromCPU: argument size expected " << arr->shape().Size()
                << " elements (the size of shape " << arr->shape() << "), given " << size);
  if (size > 0) arr->SyncCopyFromCPU(data, size);
  API_END();
}

int MXNDArraySyncCopyToCPU(NDArrayHandle handle, void* data, size_t size) {
  API_BEGIN();
  NDArray* arr = API_ARRAY(handle);
  API_CHECK(data != nullptr || size == 0, "MXNDArraySyncCopyToCPU: argument data is NULL");
  API_CHECK(!arr->is_none(), "MXNDArraySyncCopyToCPU: the array is empty (none)");
  API_CHECK(size == arr->shape().Size(),
            "MXNDArraySyncCopyToCPU: argument size expected " << arr->shape().Size()
                << " elements (the size of shape " << arr->shape() << "), given " << size);
  if (size > 0) {
    arr->SyncCopyToCPU(data, size);
  } else {
    arr->WaitToRead();  // still report an error of the work that wrote the array
  }
  API_END();
}

int MXNDArrayWaitToRead(NDArrayHandle handle) {
  API_BEGIN();
  NDArray* arr = API_ARRAY(handle);
  if (!arr->is_none()) arr->WaitToRead();
  API_END();
}

int MXNDArrayWaitToWrite(NDArrayHandle handle) {
  API_BEGIN();
  NDArray* arr = API_ARRAY(handle);
  if (!arr->is_none()) arr->WaitToWrite();
  API_END();
}

int MXNDArrayWaitAll(void) {
  API_BEGIN();
  Engine::Get()->WaitForAll();
  API_END();
}

int MXNDArraySlice(NDArrayHandle handle, mx_uint slice_begin, mx_uint slice_end,
                   NDArrayHandle* out) {
  API_BEGIN();
  NDArray* arr = API_ARRAY(handle);
  API_NOT_NULL(out);
  NDArray view = arr->Slice(slice_begin, slice_end);
  if (Imperative::Get()->is_recording()) {
    c_api::RecordView(c_api::SliceAxis0Attrs(slice_begin, slice_end), arr, &view);
  }
  *out = NewHandle(std::move(view));
  API_END();
}

int MXNDArrayAt(NDArrayHandle handle, mx_uint idx, NDArrayHandle* out) {
  API_BEGIN();
  NDArray* arr = API_ARRAY(handle);
  API_NOT_NULL(out);
  NDArray view = arr->At(idx);
  if (Imperative::Get()->is_recording() && arr->entry().node != nullptr) {
    // Recorded as MXNet does: a one-row slice, then a reshape dropping axis 0.
    NDArray row = arr->Slice(idx, static_cast<dim_t>(idx) + 1);
    c_api::RecordView(c_api::SliceAxis0Attrs(idx, static_cast<dim_t>(idx) + 1), arr, &row);
    std::vector<dim_t> dims = view.shape().ToVector();
    view = Imperative::Get()->ReshapeWithRecord(row, std::vector<int64_t>(dims.begin(), dims.end()),
                                                false);
  }
  *out = NewHandle(std::move(view));
  API_END();
}

int MXNDArrayReshape64(NDArrayHandle handle, int ndim, dim_t* dims, bool reverse,
                       NDArrayHandle* out) {
  API_BEGIN();
  NDArray* arr = API_ARRAY(handle);
  API_NOT_NULL(out);
  API_CHECK(ndim >= 0 && ndim <= TShape::kMaxNDim,
            "MXNDArrayReshape64: argument ndim must be in [0, " << TShape::kMaxNDim
                                                              << "], given " << ndim);
  API_CHECK(ndim == 0 || dims != nullptr, "MXNDArrayReshape64: argument dims is NULL");
  API_CHECK(!arr->is_none(), "MXNDArrayReshape64: the array is empty (none)");
  NDArray view = Imperative::Get()->ReshapeWithRecord(
      *arr, std::vector<int64_t>(dims, dims + ndim), reverse);
  *out = NewHandle(std::move(view));
  API_END();
}

int MXNDArraySave(const char* fname, mx_uint num_args, NDArrayHandle* args, const char** keys) {
  API_BEGIN();
  API_NOT_NULL(fname);
  API_CHECK(num_args == 0 || args != nullptr,
            "MXNDArraySave: argument args is NULL but num_args is " << num_args);
  std::vector<NDArray> arrays;
  std::vector<std::string> names;
  arrays.reserve(num_args);
  for (mx_uint i = 0; i < num_args; ++i) {
    API_CHECK(args[i] != nullptr, "MXNDArraySave: args[" << i << "] is NULL");
    arrays.push_back(static_cast<NDArray*>(args[i])->Detach());
    if (keys != nullptr) {
      API_CHECK(keys[i] != nullptr, "MXNDArraySave: keys[" << i << "] is NULL");
      names.emplace_back(keys[i]);
    }
  }
  SaveNDArrayFile(fname, arrays, names, Imperative::Get()->is_np_shape());
  API_END();
}

int MXNDArrayLoad(const char* fname, mx_uint* out_size, NDArrayHandle** out_arr,
                  mx_uint* out_name_size, const char*** out_names) {
  thread_local std::vector<NDArrayHandle> handles;
  thread_local std::vector<std::string> names;
  thread_local std::vector<const char*> name_ptrs;
  API_BEGIN();
  API_NOT_NULL(fname);
  API_NOT_NULL(out_size);
  API_NOT_NULL(out_arr);
  std::vector<NDArray> arrays;
  std::vector<std::string> loaded_names;
  LoadNDArrayFile(fname, &arrays, &loaded_names, Imperative::Get()->is_np_shape());
  handles.clear();
  for (NDArray& a : arrays) handles.push_back(NewHandle(std::move(a)));
  names = std::move(loaded_names);
  name_ptrs.clear();
  for (const std::string& n : names) name_ptrs.push_back(n.c_str());
  *out_size = static_cast<mx_uint>(handles.size());
  *out_arr = handles.data();
  if (out_name_size != nullptr) *out_name_size = static_cast<mx_uint>(name_ptrs.size());
  if (out_names != nullptr) *out_names = name_ptrs.data();
  API_END();
}

int MXNDArrayGetGrad(NDArrayHandle handle, NDArrayHandle* out) {
  API_BEGIN();
  NDArray* arr = API_ARRAY(handle);
  API_NOT_NULL(out);
  NDArray grad = Imperative::Get()->GetGrad(*arr);
  *out = grad.is_none() ? nullptr : NewHandle(std::move(grad));
  API_END();
}

int MXNDArrayToDLPack(NDArrayHandle handle, DLManagedTensorHandle* out) {
  API_BEGIN();
  NDArray* arr = API_ARRAY(handle);
  API_NOT_NULL(out);
  arr->WaitToRead();
  *out = dlpack::Export(*arr);
  API_END();
}

int MXNDArrayFromDLPack(DLManagedTensorHandle dlpack, NDArrayHandle* out) {
  return MXNDArrayFromDLPackEx(dlpack, false, out);
}

int MXNDArrayFromDLPackEx(DLManagedTensorHandle dlpack, const bool transient_handle,
                          NDArrayHandle* out) {
  API_BEGIN();
  API_NOT_NULL(dlpack);
  API_NOT_NULL(out);
  std::function<void(DLManagedTensor*)> release;
  if (!transient_handle) {
    release = [](DLManagedTensor* t) {
      if (t->deleter) t->deleter(t);
    };
  }
  *out = NewHandle(dlpack::Import(static_cast<DLManagedTensor*>(dlpack), std::move(release)));
  API_END();
}

int MXNDArrayCallDLPackDeleter(DLManagedTensorHandle dlpack) {
  API_BEGIN();
  auto* t = static_cast<DLManagedTensor*>(dlpack);
  if (t != nullptr && t->deleter != nullptr) t->deleter(t);
  API_END();
}

// ---------------------------------------------------------------- sparse arrays
namespace mxnet {
namespace c_api {
namespace {

NDArray NewSparse(int storage_type, const TShape& shape, int dev_type, int dev_id,
                  int delay_alloc, int dtype, uint32_t num_aux, const int* aux_type,
                  const std::vector<TShape>& aux_shapes, const char* fn) {
  API_CHECK(storage_type == kRowSparseStorage || storage_type == kCSRStorage,
            fn << ": argument storage_type expected 1 (row_sparse) or 2 (csr), given "
               << storage_type);
  API_CHECK(static_cast<int>(num_aux) == NumAuxData(storage_type),
            fn << ": argument num_aux expected " << NumAuxData(storage_type) << ", given "
               << num_aux);
  API_CHECK(IsValidDType(dtype),
            fn << ": argument dtype expected one of " << DTypeFlagList() << ", given " << dtype);
  Context ctx = ContextFromC(dev_type, dev_id, fn);
  std::vector<int> types(aux_type, aux_type + num_aux);
  return NDArray(static_cast<NDArrayStorageType>(storage_type), shape, ctx, delay_alloc != 0,
                 dtype, types, aux_shapes);
}

}  // namespace
}  // namespace c_api
}  // namespace mxnet

int MXNDArrayCreateSparseEx(int storage_type, const uint32_t* shape, uint32_t ndim, int dev_type,
                            int dev_id, int delay_alloc, int dtype, uint32_t num_aux,
                            int* aux_type, uint32_t* aux_ndims, const uint32_t* aux_shape,
                            NDArrayHandle* out) {
  API_BEGIN();
  API_NOT_NULL(out);
  API_CHECK(num_aux == 0 || (aux_type && aux_ndims && aux_shape),
            "MXNDArrayCreateSparseEx: aux_type, aux_ndims and aux_shape must not be NULL");
  std::vector<TShape> aux_shapes;
  for (uint32_t i = 0, pos = 0; i < num_aux; pos += aux_ndims[i], ++i) {
    aux_shapes.emplace_back(aux_shape + pos, aux_shape + pos + aux_ndims[i]);
  }
  *out = NewHandle(c_api::NewSparse(storage_type, TShape(shape, shape + ndim), dev_type, dev_id,
                                    delay_alloc, dtype, num_aux, aux_type, aux_shapes, __func__));
  API_END();
}

int MXNDArrayCreateSparseEx64(int storage_type, const int64_t* shape, int ndim, int dev_type,
                              int dev_id, int delay_alloc, int dtype, uint32_t num_aux,
                              int* aux_type, int* aux_ndims, const int64_t* aux_shape,
                              NDArrayHandle* out) {
  API_BEGIN();
  API_NOT_NULL(out);
  API_CHECK(ndim >= 0, "MXNDArrayCreateSparseEx64: argument ndim must be >= 0, given " << ndim);
  API_CHECK(num_aux == 0 || (aux_type && aux_ndims && aux_shape),
            "MXNDArrayCreateSparseEx64: aux_type, aux_ndims and aux_shape must not be NULL");
  std::vector<TShape> aux_shapes;
  for (uint32_t i = 0, pos = 0; i < num_aux; pos += aux_ndims[i], ++i) {
    aux_shapes.emplace_back(aux_shape + pos, aux_shape + pos + aux_ndims[i]);
  }
  *out = NewHandle(c_api::NewSparse(storage_type, TShape(shape, shape + ndim), dev_type, dev_id,
                                    delay_alloc, dtype, num_aux, aux_type, aux_shapes, __func__));
  API_END();
}

int MXNDArrayGetStorageType(NDArrayHandle handle, int* out_storage_type) {
  API_BEGIN();
  NDArray* arr = API_ARRAY(handle);
  API_NOT_NULL(out_storage_type);
  *out_storage_type = arr->storage_type();
  API_END();
}

int MXNDArrayGetAuxType64(NDArrayHandle handle, int64_t i, int* out_type) {
  API_BEGIN();
  NDArray* arr = API_ARRAY(handle);
  API_NOT_NULL(out_type);
  API_CHECK(i >= 0 && i < NumAuxData(arr->storage_type()),
            "MXNDArrayGetAuxType: aux index " << i << " out of range for storage type "
                                              << arr->storage_type());
  *out_type = arr->aux_type(i);
  API_END();
}

int MXNDArrayGetAuxType(NDArrayHandle handle, uint32_t i, int* out_type) {
  return MXNDArrayGetAuxType64(handle, i, out_type);
}

int MXNDArrayGetAuxNDArray64(NDArrayHandle handle, int64_t i, NDArrayHandle* out) {
  API_BEGIN();
  NDArray* arr = API_ARRAY(handle);
  API_NOT_NULL(out);
  API_CHECK(i >= 0 && i < NumAuxData(arr->storage_type()),
            "MXNDArrayGetAuxNDArray: aux index " << i << " out of range for storage type "
                                                 << arr->storage_type());
  *out = NewHandle(arr->aux_ndarray(i));
  API_END();
}

int MXNDArrayGetAuxNDArray(NDArrayHandle handle, uint32_t i, NDArrayHandle* out) {
  return MXNDArrayGetAuxNDArray64(handle, i, out);
}

int MXNDArrayGetDataNDArray(NDArrayHandle handle, NDArrayHandle* out) {
  API_BEGIN();
  NDArray* arr = API_ARRAY(handle);
  API_NOT_NULL(out);
  *out = NewHandle(arr->data_ndarray());
  API_END();
}

int MXNDArraySyncCopyFromNDArray(NDArrayHandle handle_dst, const NDArrayHandle handle_src,
                                 const int i) {
  API_BEGIN();
  NDArray* dst = API_ARRAY(handle_dst);
  NDArray* src = API_ARRAY(handle_src);
  dst->SyncCopyFromNDArray(*src, -1, i);
  API_END();
}

int MXNDArraySyncCheckFormat(NDArrayHandle handle, const bool full_check) {
  API_BEGIN();
  API_ARRAY(handle)->SyncCheckFormat(full_check);
  API_END();
}
