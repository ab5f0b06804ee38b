/* The C API of subgraph partitioning: optimize_for (MXOptimizeForBackend,
 * MXGenBackendSubgraph) and the entry points MXNet 1.9.1's c_api_test.h gives its subgraph
 * tests, with 1.9.1's signatures. Included by mxnet/c_api.h; do not include it alone. */
#ifndef MXNET_C_API_TEST_H_
#define MXNET_C_API_TEST_H_

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief A copy of the symbol partitioned by the backend prop_name with the given op names
 *  (the "default" test backends fold those ops into _CachedOp nodes); no names: a copy. */
MXNET_DLL int MXBuildSubgraphByOpNames(SymbolHandle sym_handle, const char* prop_name,
                                       const uint32_t num_ops, const char** op_names,
                                       SymbolHandle* ret_sym_handle);
/*! \brief Op names the backend uses when MXNET_SUBGRAPH_BACKEND names it at bind. */
MXNET_DLL int MXSetSubgraphPropertyOpNames(const char* prop_name, const uint32_t num_ops,
                                           const char** op_names);
/*! \brief Op names of every property of the backend (optimize_for, hybridize(backend=)). */
MXNET_DLL int MXSetSubgraphPropertyOpNamesV2(const char* prop_name, const uint32_t num_ops,
                                             const char** op_names);
MXNET_DLL int MXRemoveSubgraphPropertyOpNames(const char* prop_name);
MXNET_DLL int MXRemoveSubgraphPropertyOpNamesV2(const char* prop_name);

/*! \brief The symbol partitioned by the backend (no options). */
MXNET_DLL int MXGenBackendSubgraph(SymbolHandle sym_handle, const char* backend,
                                   SymbolHandle* ret_sym_handle);
/*!
 * \brief Symbol.optimize_for: the symbol partitioned by backend_name with the options
 * keys/vals (dedup_subgraph). An unknown backend fails naming it and the registered ones.
 * The backends of this library add no parameters: *new_args_cnt and *new_aux_cnt are 0.
 * Argument arrays, input shapes, dtypes and storage types are accepted for 1.9.1's callers.
 */
MXNET_DLL int MXOptimizeForBackend(
    SymbolHandle sym_handle, const char* backend_name, const int dev_type,
    SymbolHandle* ret_sym_handle, const uint32_t args_len, NDArrayHandle* in_args_handle,
    const uint32_t aux_len, NDArrayHandle* in_aux_handle, const uint32_t num_options,
    const char** keys, const char** vals, const uint32_t num_input_shapes,
    const char** input_shape_names, const int64_t* input_shape_data,
    const uint32_t* input_shape_idx, const uint32_t num_input_dtypes,
    const char** input_dtype_names, const int* input_dtypes, const uint32_t num_input_stypes,
    const char** input_stype_names, const int* input_stypes, bool skip_infer, int* new_args_cnt,
    NDArrayHandle** new_args_handle, char*** new_arg_names_handle, int* new_aux_cnt,
    NDArrayHandle** new_aux_handle, char*** new_aux_names_handle);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* MXNET_C_API_TEST_H_ */
