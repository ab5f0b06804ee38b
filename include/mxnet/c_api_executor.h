/* The C API of executors (MXExecutor*) and cached ops (MXCreateCachedOp*, MXInvokeCachedOp*),
 * with MXNet 1.9.1's signatures. Included by mxnet/c_api.h; do not include it alone. */
#ifndef MXNET_C_API_EXECUTOR_H_
#define MXNET_C_API_EXECUTOR_H_

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief Monitor callback: (name "<node>_<output>", a new NDArray handle, callback_handle).
 *  The callee owns the NDArray handle (free it with MXNDArrayFree). */
typedef void (*ExecutorMonitorCallback)(const char*, NDArrayHandle, void*);

/*! \brief A cached op of the symbol (no flags). */
MXNET_DLL int MXCreateCachedOp(SymbolHandle handle, CachedOpHandle* out);
/*! \brief A cached op with flags (static_alloc, static_shape, ...; kept as given). */
MXNET_DLL int MXCreateCachedOpEx(SymbolHandle handle, int num_flags, const char** keys,
                                 const char** vals, CachedOpHandle* out);
/*! \brief As MXCreateCachedOpEx (thread_safe accepted: calls are serialized by the caller). */
MXNET_DLL int MXCreateCachedOpEX(SymbolHandle handle, int num_flags, const char** keys,
                                 const char** vals, CachedOpHandle* out,
                                 bool thread_safe DEFAULT(false));
MXNET_DLL int MXFreeCachedOp(CachedOpHandle handle);
/*! \brief Run the cached op on one array per list_inputs name. *outputs NULL: new handles
 *  are returned (valid until the next call on this thread; free each with MXNDArrayFree);
 *  else *num_outputs arrays receive the outputs. Recorded as one node under autograd. */
MXNET_DLL int MXInvokeCachedOp(CachedOpHandle handle, int num_inputs, NDArrayHandle* inputs,
                               int* num_outputs, NDArrayHandle** outputs);
/*! \brief As MXInvokeCachedOp; out_stypes receives the storage types (all default). */
MXNET_DLL int MXInvokeCachedOpEx(CachedOpHandle handle, int num_inputs, NDArrayHandle* inputs,
                                 int* num_outputs, NDArrayHandle** outputs,
                                 const int** out_stypes);

MXNET_DLL int MXExecutorFree(ExecutorHandle handle);
/*! \brief Text of the bound graph: nodes, their inputs and output shapes. */
MXNET_DLL int MXExecutorPrint(ExecutorHandle handle, const char** out_str);
MXNET_DLL int MXExecutorForward(ExecutorHandle handle, int is_train);
MXNET_DLL int MXExecutorBackward(ExecutorHandle handle, uint32_t len, NDArrayHandle* head_grads);
MXNET_DLL int MXExecutorBackwardEx(ExecutorHandle handle, uint32_t len,
                                   NDArrayHandle* head_grads, int is_train);
/*! \brief The output arrays as new handles (free each with MXNDArrayFree). */
MXNET_DLL int MXExecutorOutputs(ExecutorHandle handle, uint32_t* out_size, NDArrayHandle** out);
/*! \brief Bind: in_args / arg_grad_store / grad_req_type per argument (list_arguments
 *  order; a NULL gradient handle or req 0 means none), aux_states per auxiliary state. */
MXNET_DLL int MXExecutorBind(SymbolHandle symbol_handle, int dev_type, int dev_id, uint32_t len,
                             NDArrayHandle* in_args, NDArrayHandle* arg_grad_store,
                             uint32_t* grad_req_type, uint32_t aux_states_len,
                             NDArrayHandle* aux_states, ExecutorHandle* out);
/*! \brief Bind with a group2ctx map (map_keys: ctx_group names; nodes run on their contexts). */
MXNET_DLL int MXExecutorBindX(SymbolHandle symbol_handle, int dev_type, int dev_id,
                              uint32_t num_map_keys, const char** map_keys,
                              const int* map_dev_types, const int* map_dev_ids, uint32_t len,
                              NDArrayHandle* in_args, NDArrayHandle* arg_grad_store,
                              uint32_t* grad_req_type, uint32_t aux_states_len,
                              NDArrayHandle* aux_states, ExecutorHandle* out);
MXNET_DLL int MXExecutorBindEX(SymbolHandle symbol_handle, int dev_type, int dev_id,
                               uint32_t num_map_keys, const char** map_keys,
                               const int* map_dev_types, const int* map_dev_ids, uint32_t len,
                               NDArrayHandle* in_args, NDArrayHandle* arg_grad_store,
                               uint32_t* grad_req_type, uint32_t aux_states_len,
                               NDArrayHandle* aux_states, ExecutorHandle shared_exec,
                               ExecutorHandle* out);
/*! \brief Symbol.simple_bind: shapes, dtypes and grad_req by name; arrays allocated and
 *  returned as new handles (valid until the next call on this thread). */
MXNET_DLL int MXExecutorSimpleBindEx(
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
    NDArrayHandle** aux_states, ExecutorHandle shared_exec_handle, ExecutorHandle* out);
/*! \brief As MXExecutorSimpleBindEx with 64-bit shape data. */
MXNET_DLL int MXExecutorSimpleBindEx64(
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
    NDArrayHandle** aux_states, ExecutorHandle shared_exec_handle, ExecutorHandle* out);
/*! \brief Executor.reshape: a new executor sharing shared_exec's arrays where it can. */
MXNET_DLL int MXExecutorReshapeEx(int partial_shaping, int allow_up_sizing, int dev_type,
                                  int dev_id, uint32_t num_map_keys, const char** map_keys,
                                  const int* map_dev_types, const int* map_dev_ids,
                                  const uint32_t num_provided_arg_shapes,
                                  const char** provided_arg_shape_names,
                                  const int* provided_arg_shape_data,
                                  const uint32_t* provided_arg_shape_idx, uint32_t* num_in_args,
                                  NDArrayHandle** in_args, NDArrayHandle** arg_grads,
                                  uint32_t* num_aux_states, NDArrayHandle** aux_states,
                                  ExecutorHandle shared_exec, ExecutorHandle* out);
/*! \brief The symbol the executor runs (a new symbol handle). */
MXNET_DLL int MXExecutorGetOptimizedSymbol(ExecutorHandle handle, SymbolHandle* out);
MXNET_DLL int MXExecutorSetMonitorCallback(ExecutorHandle handle,
                                           ExecutorMonitorCallback callback,
                                           void* callback_handle);
MXNET_DLL int MXExecutorSetMonitorCallbackEX(ExecutorHandle handle,
                                             ExecutorMonitorCallback callback,
                                             void* callback_handle, bool monitor_all);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* MXNET_C_API_EXECUTOR_H_ */
