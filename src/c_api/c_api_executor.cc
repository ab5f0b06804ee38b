// C API of executors and cached ops: handles over mxnet::Executor and mxnet::CachedOp.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "c_api/c_api_common.h"
#include "imperative/cached_op.h"
#include "mxnet/executor.h"
#include "nnvm/graph_json.h"
#include "nnvm/pass.h"

namespace mxnet {
namespace {

using CachedOpPtr = std::shared_ptr<CachedOp>;

nnvm::Symbol* SymbolFrom(SymbolHandle h, const char* fn) {
  API_CHECK(h != nullptr, fn << ": argument symbol_handle is NULL");
  return static_cast<nnvm::Symbol*>(h);
}

Executor* ExecutorFrom(ExecutorHandle h, const char* fn) {
  API_CHECK(h != nullptr, fn << ": argument handle is NULL (expected an executor)");
  return static_cast<Executor*>(h);
}

using c_api::MakeCtx;
using c_api::ShapesFrom;

std::vector<NDArray> ArraysFrom(uint32_t n, NDArrayHandle* handles, bool allow_null) {
  std::vector<NDArray> v;
  for (uint32_t i = 0; i < n; ++i) {
    if (handles == nullptr || handles[i] == nullptr) {
      API_CHECK(allow_null, "array " << i << " is NULL");
      v.emplace_back();
    } else {
      v.push_back(*static_cast<NDArray*>(handles[i]));
    }
  }
  return v;
}

// New handles (the caller frees them) in a thread-local list valid until the next call.
NDArrayHandle* NewHandles(const std::vector<NDArray>& arrays, std::vector<NDArrayHandle>* store) {
  store->clear();
  for (const NDArray& a : arrays) {
    store->push_back(a.is_none() ? nullptr : new NDArray(a));
  }
  return store->data();
}

uint32_t GradReqFromName(const std::string& s) {
  if (s == "null") return kGradNull;
  if (s == "write" || s == "inplace") return kGradWrite;
  if (s == "add") return kGradAdd;
  throw dmlc::Error("grad_req expected 'null', 'write' or 'add', given '" + s + "'");
}

void ReturnArrays(const Executor& ex, uint32_t* num_in_args, NDArrayHandle** in_args,
                  NDArrayHandle** arg_grads, uint32_t* num_aux_states,
                  NDArrayHandle** aux_states) {
  thread_local std::vector<NDArrayHandle> args, grads, aux;
  *num_in_args = static_cast<uint32_t>(ex.in_args().size());
  *in_args = NewHandles(ex.in_args(), &args);
  *arg_grads = NewHandles(ex.arg_grads(), &grads);
  *num_aux_states = static_cast<uint32_t>(ex.aux_states().size());
  *aux_states = NewHandles(ex.aux_states(), &aux);
}

// group2ctx from the C API's parallel arrays (null or empty: none).
std::map<std::string, Context> GroupContexts(uint32_t n, const char** keys, const int* dev_types,
                                             const int* dev_ids) {
  std::map<std::string, Context> m;
  for (uint32_t i = 0; i < n; ++i) m[keys[i]] = MakeCtx(dev_types[i], dev_ids[i]);
  return m;
}

template <typename DimT>
int SimpleBindImpl(SymbolHandle symbol_handle, int dev_type, int dev_id,
                   const std::map<std::string, Context>& group2ctx,
                   const uint32_t provided_grad_req_list_len, const char** provided_grad_req_names,
                   const char** provided_grad_req_types, const uint32_t num_provided_arg_shapes,
                   const char** provided_arg_shape_names, const DimT* provided_arg_shape_data,
                   const uint32_t* provided_arg_shape_idx, const uint32_t num_provided_arg_dtypes,
                   const char** provided_arg_dtype_names, const int* provided_arg_dtypes,
                   const uint32_t num_provided_arg_stypes, const char** provided_arg_stype_names,
                   const int* provided_arg_stypes, const uint32_t num_shared_arg_names,
                   const char** shared_arg_name_list, int* shared_buffer_len,
                   const char** shared_buffer_name_list, NDArrayHandle* shared_buffer_handle_list,
                   const char*** updated_shared_buffer_name_list,
                   NDArrayHandle** updated_shared_buffer_handle_list, uint32_t* num_in_args,
                   NDArrayHandle** in_args, NDArrayHandle** arg_grads, uint32_t* num_aux_states,
                   NDArrayHandle** aux_states, ExecutorHandle shared_exec_handle,
                   ExecutorHandle* out) {
  API_BEGIN();
  const nnvm::Symbol* sym = SymbolFrom(symbol_handle, "MXExecutorSimpleBindEx");
  API_NOT_NULL(out);
  std::vector<std::string> arg_names = nnvm::ListVariableNames(sym->outputs, false);
  // grad_req: one type for all (list length 0), one per argument (no names), or by name.
  std::vector<uint32_t> reqs(arg_names.size(), kGradWrite);
  if (provided_grad_req_types != nullptr) {
    if (provided_grad_req_list_len == 0) {
      reqs.assign(arg_names.size(), GradReqFromName(provided_grad_req_types[0]));
    } else if (provided_grad_req_names == nullptr) {
      API_CHECK(provided_grad_req_list_len == arg_names.size(),
                "simple_bind: " << arg_names.size() << " grad_req values expected, given "
                                << provided_grad_req_list_len);
      for (uint32_t i = 0; i < provided_grad_req_list_len; ++i) {
        reqs[i] = GradReqFromName(provided_grad_req_types[i]);
      }
    } else {
      std::map<std::string, uint32_t> by_name;
      for (uint32_t i = 0; i < provided_grad_req_list_len; ++i) {
        by_name[provided_grad_req_names[i]] = GradReqFromName(provided_grad_req_types[i]);
      }
      for (size_t i = 0; i < arg_names.size(); ++i) {
        auto it = by_name.find(arg_names[i]);
        reqs[i] = it == by_name.end() ? kGradNull : it->second;
      }
    }
  }
  auto shapes = ShapesFrom(num_provided_arg_shapes, provided_arg_shape_names,
                           provided_arg_shape_data, provided_arg_shape_idx);
  std::map<std::string, int> dtypes;
  for (uint32_t i = 0; i < num_provided_arg_dtypes; ++i) {
    dtypes[provided_arg_dtype_names[i]] = provided_arg_dtypes[i];
  }
  std::map<std::string, int> stypes;
  for (uint32_t i = 0; i < num_provided_arg_stypes; ++i) {
    stypes[provided_arg_stype_names[i]] = provided_arg_stypes[i];
  }
  std::vector<std::string> shared_names(shared_arg_name_list,
                                        shared_arg_name_list + num_shared_arg_names);
  std::map<std::string, NDArray> buffer;
  const bool use_buffer = shared_buffer_len != nullptr && *shared_buffer_len >= 0;
  if (use_buffer) {
    for (int i = 0; i < *shared_buffer_len; ++i) {
      buffer[shared_buffer_name_list[i]] = *static_cast<NDArray*>(shared_buffer_handle_list[i]);
    }
  }
  const Executor* shared =
      shared_exec_handle == nullptr ? nullptr : static_cast<Executor*>(shared_exec_handle);
  std::unique_ptr<Executor> ex =
      Executor::SimpleBind(*sym, MakeCtx(dev_type, dev_id), shapes, dtypes, reqs, shared,
                           shared_names, use_buffer ? &buffer : nullptr, stypes, group2ctx);
  if (use_buffer) {
    thread_local std::vector<std::string> names;
    thread_local std::vector<const char*> name_ptrs;
    thread_local std::vector<NDArrayHandle> handles;
    names.clear();
    name_ptrs.clear();
    std::vector<NDArray> arrays;
    for (const auto& kv : buffer) {
      names.push_back(kv.first);
      arrays.push_back(kv.second);
    }
    for (const std::string& n : names) name_ptrs.push_back(n.c_str());
    *shared_buffer_len = static_cast<int>(names.size());
    *updated_shared_buffer_name_list = name_ptrs.data();
    *updated_shared_buffer_handle_list = NewHandles(arrays, &handles);
  }
  ReturnArrays(*ex, num_in_args, in_args, arg_grads, num_aux_states, aux_states);
  *out = ex.release();
  API_END();
}

int BindImpl(SymbolHandle symbol_handle, int dev_type, int dev_id, uint32_t len,
             NDArrayHandle* in_args, NDArrayHandle* arg_grad_store, uint32_t* grad_req_type,
             uint32_t aux_states_len, NDArrayHandle* aux_states, ExecutorHandle* out,
             const std::map<std::string, Context>& group2ctx = {}) {
  API_BEGIN();
  const nnvm::Symbol* sym = SymbolFrom(symbol_handle, "MXExecutorBind");
  API_NOT_NULL(out);
  std::vector<uint32_t> reqs;
  if (grad_req_type != nullptr) reqs.assign(grad_req_type, grad_req_type + len);
  *out = Executor::Bind(*sym, MakeCtx(dev_type, dev_id), ArraysFrom(len, in_args, false),
                        ArraysFrom(len, arg_grad_store, true), reqs,
                        ArraysFrom(aux_states_len, aux_states, false), nullptr, group2ctx)
             .release();
  API_END();
}

}  // namespace
}  // namespace mxnet

using mxnet::CachedOp;
using mxnet::Executor;
using mxnet::NDArray;

int MXCreateCachedOp(SymbolHandle handle, CachedOpHandle* out) {
  return MXCreateCachedOpEx(handle, 0, nullptr, nullptr, out);
}

int MXCreateCachedOpEx(SymbolHandle handle, int num_flags, const char** keys, const char** vals,
                       CachedOpHandle* out) {
  API_BEGIN();
  const nnvm::Symbol* sym = mxnet::SymbolFrom(handle, "MXCreateCachedOpEx");
  API_NOT_NULL(out);
  std::vector<std::pair<std::string, std::string>> flags;
  for (int i = 0; i < num_flags; ++i) flags.emplace_back(keys[i], vals[i]);
  *out = new mxnet::CachedOpPtr(std::make_shared<CachedOp>(*sym, std::move(flags)));
  API_END();
}

int MXCreateCachedOpEX(SymbolHandle handle, int num_flags, const char** keys, const char** vals,
                       CachedOpHandle* out, bool thread_safe) {
  (void)thread_safe;
  return MXCreateCachedOpEx(handle, num_flags, keys, vals, out);
}

int MXFreeCachedOp(CachedOpHandle handle) {
  API_BEGIN();
  delete static_cast<mxnet::CachedOpPtr*>(handle);
  API_END();
}

int MXInvokeCachedOpEx(CachedOpHandle handle, int num_inputs, NDArrayHandle* inputs,
                       int* num_outputs, NDArrayHandle** outputs, const int** out_stypes) {
  API_BEGIN();
  API_CHECK(handle != nullptr, "MXInvokeCachedOpEx: argument handle is NULL");
  API_NOT_NULL(num_outputs);
  API_NOT_NULL(outputs);
  CachedOp& op = **static_cast<mxnet::CachedOpPtr*>(handle);
  std::vector<NDArray*> in;
  for (int i = 0; i < num_inputs; ++i) in.push_back(API_ARRAY(inputs[i]));
  std::vector<NDArray*> out;
  if (*outputs != nullptr) {
    for (int i = 0; i < *num_outputs; ++i) out.push_back(API_ARRAY((*outputs)[i]));
  }
  mxnet::Context ctx = in.empty() ? mxnet::Context::CPU() : in[0]->ctx();
  std::vector<NDArray> res = op.Invoke(ctx, in, out);
  thread_local std::vector<NDArrayHandle> handles;
  thread_local std::vector<int> stypes;
  if (*outputs == nullptr) {
    *outputs = mxnet::NewHandles(res, &handles);
    *num_outputs = static_cast<int>(res.size());
  }
  stypes.assign(res.size(), 0);
  if (out_stypes != nullptr) *out_stypes = stypes.data();
  API_END();
}

int MXInvokeCachedOp(CachedOpHandle handle, int num_inputs, NDArrayHandle* inputs,
                     int* num_outputs, NDArrayHandle** outputs) {
  return MXInvokeCachedOpEx(handle, num_inputs, inputs, num_outputs, outputs, nullptr);
}

int MXExecutorFree(ExecutorHandle handle) {
  API_BEGIN();
  delete static_cast<Executor*>(handle);
  API_END();
}

int MXExecutorPrint(ExecutorHandle handle, const char** out_str) {
  API_BEGIN();
  thread_local std::string text;
  text = mxnet::ExecutorFrom(handle, "MXExecutorPrint")->DebugString();
  *out_str = text.c_str();
  API_END();
}

int MXExecutorForward(ExecutorHandle handle, int is_train) {
  API_BEGIN();
  mxnet::ExecutorFrom(handle, "MXExecutorForward")->Forward(is_train != 0);
  API_END();
}

int MXExecutorBackwardEx(ExecutorHandle handle, uint32_t len, NDArrayHandle* head_grads,
                         int is_train) {
  API_BEGIN();
  mxnet::ExecutorFrom(handle, "MXExecutorBackwardEx")
      ->Backward(mxnet::ArraysFrom(len, head_grads, true), is_train != 0);
  API_END();
}

int MXExecutorBackward(ExecutorHandle handle, uint32_t len, NDArrayHandle* head_grads) {
  return MXExecutorBackwardEx(handle, len, head_grads, 1);
}

int MXExecutorOutputs(ExecutorHandle handle, uint32_t* out_size, NDArrayHandle** out) {
  API_BEGIN();
  const Executor* ex = mxnet::ExecutorFrom(handle, "MXExecutorOutputs");
  thread_local std::vector<NDArrayHandle> handles;
  *out = mxnet::NewHandles(ex->outputs(), &handles);
  *out_size = static_cast<uint32_t>(handles.size());
  API_END();
}

int MXExecutorBind(SymbolHandle symbol_handle, int dev_type, int dev_id, uint32_t len,
                   NDArrayHandle* in_args, NDArrayHandle* arg_grad_store, uint32_t* grad_req_type,
                   uint32_t aux_states_len, NDArrayHandle* aux_states, ExecutorHandle* out) {
  return mxnet::BindImpl(symbol_handle, dev_type, dev_id, len, in_args, arg_grad_store,
                         grad_req_type, aux_states_len, aux_states, out);
}

int MXExecutorBindX(SymbolHandle symbol_handle, int dev_type, int dev_id, uint32_t num_map_keys,
                    const char** map_keys, const int* map_dev_types, const int* map_dev_ids,
                    uint32_t len, NDArrayHandle* in_args, NDArrayHandle* arg_grad_store,
                    uint32_t* grad_req_type, uint32_t aux_states_len, NDArrayHandle* aux_states,
                    ExecutorHandle* out) {
  return mxnet::BindImpl(
      symbol_handle, dev_type, dev_id, len, in_args, arg_grad_store, grad_req_type,
      aux_states_len, aux_states, out,
      mxnet::GroupContexts(num_map_keys, map_keys, map_dev_types, map_dev_ids));
}

int MXExecutorBindEX(SymbolHandle symbol_handle, int dev_type, int dev_id, uint32_t num_map_keys,
                     const char** map_keys, const int* map_dev_types, const int* map_dev_ids,
                     uint32_t len, NDArrayHandle* in_args, NDArrayHandle* arg_grad_store,
                     uint32_t* grad_req_type, uint32_t aux_states_len, NDArrayHandle* aux_states,
                     ExecutorHandle shared_exec, ExecutorHandle* out) {
  (void)shared_exec;
  return mxnet::BindImpl(
      symbol_handle, dev_type, dev_id, len, in_args, arg_grad_store, grad_req_type,
      aux_states_len, aux_states, out,
      mxnet::GroupContexts(num_map_keys, map_keys, map_dev_types, map_dev_ids));
}

#define MX_SIMPLE_BIND_ARGS                                                                  \
  symbol_handle, dev_type, dev_id,                                                           \
      mxnet::GroupContexts(num_g2c_keys, g2c_keys, g2c_dev_types, g2c_dev_ids),              \
      provided_grad_req_list_len, provided_grad_req_names,      \
      provided_grad_req_types, num_provided_arg_shapes, provided_arg_shape_names,            \
      provided_arg_shape_data, provided_arg_shape_idx, num_provided_arg_dtypes,              \
      provided_arg_dtype_names, provided_arg_dtypes, num_provided_arg_stypes,                \
      provided_arg_stype_names, provided_arg_stypes, num_shared_arg_names,                   \
      shared_arg_name_list, shared_buffer_len, shared_buffer_name_list,                      \
      shared_buffer_handle_list, updated_shared_buffer_name_list,                            \
      updated_shared_buffer_handle_list, num_in_args, in_args, arg_grads, num_aux_states,    \
      aux_states, shared_exec_handle, out

int MXExecutorSimpleBindEx(
    SymbolHandle symbol_handle, int dev_type, int dev_id, const uint32_t num_g2c_keys,
    const char** g2c_keys, const int* g2c_dev_types, const int* g2c_dev_ids,
    const uint32_t provided_grad_req_list_len, const char** provided_grad_req_names,
    const char** provided_grad_req_types, const uint32_t num_provided_arg_shapes,
    const char** provided_arg_shape_names, const int* provided_arg_shape_data,
    const uint32_t* provided_arg_shape_idx, const uint32_t num_provided_arg_dtypes,
    const char** provided_arg_dtype_names, const int* provided_arg_dtypes,
    const uint32_t num_provided_arg_stypes, const char** provided_arg_stype_names,
    const int* provided_arg_stypes, const uint32_t num_shared_arg_names,
    const char** shared_arg_name_list, int* shared_buffer_len,
    const char** shared_buffer_name_list, NDArrayHandle* shared_buffer_handle_list,
    const char*** updated_shared_buffer_name_list,
    NDArrayHandle** updated_shared_buffer_handle_list, uint32_t* num_in_args,
    NDArrayHandle** in_args, NDArrayHandle** arg_grads, uint32_t* num_aux_states,
    NDArrayHandle** aux_states, ExecutorHandle shared_exec_handle, ExecutorHandle* out) {
  return mxnet::SimpleBindImpl<int>(MX_SIMPLE_BIND_ARGS);
}

int MXExecutorSimpleBindEx64(
    SymbolHandle symbol_handle, int dev_type, int dev_id, const uint32_t num_g2c_keys,
    const char** g2c_keys, const int* g2c_dev_types, const int* g2c_dev_ids,
    const uint32_t provided_grad_req_list_len, const char** provided_grad_req_names,
    const char** provided_grad_req_types, const uint32_t num_provided_arg_shapes,
    const char** provided_arg_shape_names, const int64_t* provided_arg_shape_data,
    const uint32_t* provided_arg_shape_idx, const uint32_t num_provided_arg_dtypes,
    const char** provided_arg_dtype_names, const int* provided_arg_dtypes,
    const uint32_t num_provided_arg_stypes, const char** provided_arg_stype_names,
    const int* provided_arg_stypes, const uint32_t num_shared_arg_names,
    const char** shared_arg_name_list, int* shared_buffer_len,
    const char** shared_buffer_name_list, NDArrayHandle* shared_buffer_handle_list,
    const char*** updated_shared_buffer_name_list,
    NDArrayHandle** updated_shared_buffer_handle_list, uint32_t* num_in_args,
    NDArrayHandle** in_args, NDArrayHandle** arg_grads, uint32_t* num_aux_states,
    NDArrayHandle** aux_states, ExecutorHandle shared_exec_handle, ExecutorHandle* out) {
  return mxnet::SimpleBindImpl<int64_t>(MX_SIMPLE_BIND_ARGS);
}

int MXExecutorReshapeEx(int partial_shaping, int allow_up_sizing, int dev_type, int dev_id,
                        uint32_t num_map_keys, const char** map_keys, const int* map_dev_types,
                        const int* map_dev_ids, const uint32_t num_provided_arg_shapes,
                        const char** provided_arg_shape_names, const int* provided_arg_shape_data,
                        const uint32_t* provided_arg_shape_idx, uint32_t* num_in_args,
                        NDArrayHandle** in_args, NDArrayHandle** arg_grads,
                        uint32_t* num_aux_states, NDArrayHandle** aux_states,
                        ExecutorHandle shared_exec, ExecutorHandle* out) {
  API_BEGIN();
  (void)dev_type, (void)dev_id, (void)num_map_keys, (void)map_keys, (void)map_dev_types,
      (void)map_dev_ids;
  const Executor* ex = mxnet::ExecutorFrom(shared_exec, "MXExecutorReshapeEx");
  API_NOT_NULL(out);
  auto shapes = mxnet::ShapesFrom(num_provided_arg_shapes, provided_arg_shape_names,
                                  provided_arg_shape_data, provided_arg_shape_idx);
  std::unique_ptr<Executor> res = ex->Reshape(shapes, partial_shaping != 0, allow_up_sizing != 0);
  mxnet::ReturnArrays(*res, num_in_args, in_args, arg_grads, num_aux_states, aux_states);
  *out = res.release();
  API_END();
}

int MXExecutorGetOptimizedSymbol(ExecutorHandle handle, SymbolHandle* out) {
  API_BEGIN();
  API_NOT_NULL(out);
  *out = new nnvm::Symbol(mxnet::ExecutorFrom(handle, "MXExecutorGetOptimizedSymbol")->symbol());
  API_END();
}

int MXExecutorSetMonitorCallbackEX(ExecutorHandle handle, ExecutorMonitorCallback callback,
                                   void* callback_handle, bool monitor_all) {
  API_BEGIN();
  Executor* ex = mxnet::ExecutorFrom(handle, "MXExecutorSetMonitorCallbackEX");
  if (callback == nullptr) {
    ex->SetMonitorCallback(nullptr, false);
  } else {
    ex->SetMonitorCallback(
        [callback, callback_handle](const std::string& name, const NDArray& a) {
          callback(name.c_str(), new NDArray(a), callback_handle);
        },
        monitor_all);
  }
  API_END();
}

int MXExecutorSetMonitorCallback(ExecutorHandle handle, ExecutorMonitorCallback callback,
                                 void* callback_handle) {
  return MXExecutorSetMonitorCallbackEX(handle, callback, callback_handle, false);
}
