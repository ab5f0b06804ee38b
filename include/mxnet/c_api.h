/*
 * The C API of libmxnet.so: plain C declarations, signature-compatible with MXNet 1.9.1.
 *
 * Conventions (every function below):
 *  - Returns 0 on success and -1 on failure; after a failure MXGetLastError() gives the
 *    message of the calling thread's last error.
 *  - Handles are opaque pointers. An NDArrayHandle is the address of a C++ mxnet::NDArray;
 *    the Python package's `arr.handle` is such an address too, so a handle taken from Python
 *    can be passed here (but must not be freed here: Python owns it).
 *  - Arrays returned through `const T**` / `T**` out-parameters (shapes, names, handle lists)
 *    live in thread-local storage owned by the library. They stay valid until the same
 *    function is called again on the same thread; copy them if you need them longer.
 *  - Handles created for the caller (MXNDArrayCreate*, MXNDArraySlice/At/Reshape64,
 *    MXNDArrayLoad, MXNDArrayGetGrad, MXImperativeInvoke, MXAutogradBackwardEx outputs)
 *    belong to the caller and are released with MXNDArrayFree.
 *  - Work is asynchronous: operators are queued to the dependency engine. Reads of results
 *    through MXNDArraySyncCopyToCPU wait by themselves; raw pointers from MXNDArrayGetData do
 *    not (call MXNDArrayWaitToRead / MXNDArrayWaitToWrite first). An error raised inside queued
 *    work is reported by the next call that waits on the affected array.
 *
 * Valid C99 and C++.
 */
#ifndef MXNET_C_API_H_
#define MXNET_C_API_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief A default argument value in C++; nothing in C. */
#ifdef __cplusplus
#define DEFAULT(x) = x
#else
#define DEFAULT(x)
#endif

#ifndef MXNET_DLL
#define MXNET_DLL
#endif

/* Shared with mxnet/c_predict_api.h, which may be included before or after this file. */
#ifndef MXNET_C_BASIC_TYPES_
#define MXNET_C_BASIC_TYPES_
/*! \brief Unsigned 32-bit integer used for counts and legacy shapes. */
typedef unsigned int mx_uint;
/*! \brief The default floating-point element type. */
typedef float mx_float;
/*! \brief An NDArray (a C++ mxnet::NDArray*). */
typedef void* NDArrayHandle;
#endif
/*! \brief A 64-bit dimension extent. */
typedef int64_t dim_t;

/*! \brief A legacy NDArray function (unused by this library). */
typedef const void* FunctionHandle;
/*! \brief An operator of the registry, as taken by MXImperativeInvoke. */
typedef void* AtomicSymbolCreator;
/*! \brief An operator of the registry (the same value as an AtomicSymbolCreator). */
typedef void* OpHandle;
/*! \brief Handles of parts of the API not declared here yet. */
typedef void* SymbolHandle;
typedef void* AtomicSymbolHandle;
typedef void* CachedOpHandle;
typedef void* ExecutorHandle;
typedef void* DataIterCreator;
typedef void* DataIterHandle;
typedef void* KVStoreHandle;
typedef void* RecordIOHandle;
typedef void* ProfileHandle;
/*! \brief A DLManagedTensor* of DLPack (dlpack/dlpack.h). */
typedef void* DLManagedTensorHandle;

/*! \brief One compile-time feature of the library (see MXLibInfoFeatures). */
struct LibFeature {
  const char* name;
  bool enabled;
};

/*!
 * \brief The message of the last error raised on the calling thread ("" when none).
 * \return a thread-local string, valid until the next failing call on this thread.
 */
MXNET_DLL const char* MXGetLastError(void);

/* ------------------------------------------------------------------ global state */

/*! \brief The library version as an integer, major*10000 + minor*100 + patch (10901). */
MXNET_DLL int MXGetVersion(int* out);

/*!
 * \brief The list of compile-time features (CUDA, ONEDNN, OPENMP, ...).
 * \param libFeature receives a pointer to a static array owned by the library.
 * \param size receives the number of entries.
 */
MXNET_DLL int MXLibInfoFeatures(const struct LibFeature** libFeature, size_t* size);

/*! \brief Seed the random number generators of every device. */
MXNET_DLL int MXRandomSeed(int seed);

/*! \brief Seed the random number generator of one device (dev_type 1 = cpu, 2 = gpu). */
MXNET_DLL int MXRandomSeedContext(int seed, int dev_type, int dev_id);

/*!
 * \brief Tell the engine the process is ending: waits for all queued work, then stops the
 *  worker threads (later work runs synchronously in the caller). Optional; call it last.
 */
MXNET_DLL int MXNotifyShutdown(void);

/*! \brief Set the number of OpenMP threads operator kernels use in this process. */
MXNET_DLL int MXSetNumOMPThreads(int thread_num);

/*!
 * \brief Set how many operators the engine may bulk into one.
 * \param prev_bulk_size receives the previous value (may be NULL).
 */
MXNET_DLL int MXEngineSetBulkSize(int bulk_size, int* prev_bulk_size);

/*! \brief The number of visible GPUs (0 in a build without CUDA). */
MXNET_DLL int MXGetGPUCount(int* out);

/*!
 * \brief Turn numpy-shape semantics off (0), on for this thread (1) or on for every thread (2).
 *  With them on, a dim of 0 is a zero extent and () a scalar shape; off, 0 means unknown.
 * \param prev receives 1 when they were on before, else 0 (may be NULL).
 */
MXNET_DLL int MXSetIsNumpyShape(int is_np_shape, int* prev);

/*! \brief numpy-shape state seen by this thread: 0 off, 1 on for this thread, 2 on globally. */
MXNET_DLL int MXIsNumpyShape(int* curr);

/*!
 * \brief Read an environment variable of the process.
 * \param value receives the value, or NULL when the variable is not set; the string belongs
 *  to the process environment and is valid until the variable changes.
 */
MXNET_DLL int MXGetEnv(const char* name, const char** value);

/*!
 * \brief Set (value not NULL) or unset (value NULL) an environment variable of the process.
 *  The library's cached reads of its registered variables are dropped, so a variable that is
 *  read per use sees the new value; settings fixed at start-up (engine, pools) keep theirs.
 */
MXNET_DLL int MXSetEnv(const char* name, const char* value);

/* ------------------------------------------------------------------ NDArray */

/*!
 * \brief Create an empty ("none") NDArray: no shape, no memory. It can be passed as an output
 *  of MXImperativeInvoke, which then makes it hold the result.
 */
MXNET_DLL int MXNDArrayCreateNone(NDArrayHandle* out);

/*!
 * \brief Create an NDArray.
 * \param shape ndim extents (ndim may be 0 for a scalar array).
 * \param dev_type 1 cpu, 2 gpu, 3 cpu_pinned, 5 cpu_shared.
 * \param dev_id device ordinal.
 * \param delay_alloc nonzero to take memory only when the array is first written.
 * \param dtype 0 float32, 1 float64, 2 float16, 3 uint8, 4 int32, 5 int8, 6 int64, 7 bool.
 * \param out receives the new handle (free it with MXNDArrayFree).
 */
MXNET_DLL int MXNDArrayCreateEx(const mx_uint* shape, mx_uint ndim, int dev_type, int dev_id,
                                int delay_alloc, int dtype, NDArrayHandle* out);

/*!
 * \brief Create a sparse NDArray (storage_type 1 row_sparse, 2 csr), as MXNet 1.9.1.
 * \param num_aux number of aux arrays (1 for row_sparse, 2 for csr); aux_type their dtypes;
 *  aux_ndims their ndims and aux_shape their extents, concatenated. With delay_alloc the
 *  memory is taken when the array is first written.
 */
MXNET_DLL int MXNDArrayCreateSparseEx(int storage_type, const uint32_t* shape, uint32_t ndim,
                                      int dev_type, int dev_id, int delay_alloc, int dtype,
                                      uint32_t num_aux, int* aux_type, uint32_t* aux_ndims,
                                      const uint32_t* aux_shape, NDArrayHandle* out);
MXNET_DLL int MXNDArrayCreateSparseEx64(int storage_type, const int64_t* shape, int ndim,
                                        int dev_type, int dev_id, int delay_alloc, int dtype,
                                        uint32_t num_aux, int* aux_type, int* aux_ndims,
                                        const int64_t* aux_shape, NDArrayHandle* out);
/*! \brief Storage type of an array: 0 default, 1 row_sparse, 2 csr; -1 for a none array. */
MXNET_DLL int MXNDArrayGetStorageType(NDArrayHandle handle, int* out_storage_type);
/*! \brief dtype of a sparse array's aux array i. */
MXNET_DLL int MXNDArrayGetAuxType(NDArrayHandle handle, uint32_t i, int* out_type);
MXNET_DLL int MXNDArrayGetAuxType64(NDArrayHandle handle, int64_t i, int* out_type);
/*! \brief A dense copy of a sparse array's aux array i (a new handle). */
MXNET_DLL int MXNDArrayGetAuxNDArray(NDArrayHandle handle, uint32_t i, NDArrayHandle* out);
MXNET_DLL int MXNDArrayGetAuxNDArray64(NDArrayHandle handle, int64_t i, NDArrayHandle* out);
/*! \brief A dense copy of a sparse array's stored values (a new handle). */
MXNET_DLL int MXNDArrayGetDataNDArray(NDArrayHandle handle, NDArrayHandle* out);
/*! \brief Copy the dense src into dst's values (i == -1; a sparse dst takes src's shape for
 *  them) or into dst's aux array i; blocking. */
MXNET_DLL int MXNDArraySyncCopyFromNDArray(NDArrayHandle handle_dst,
                                           const NDArrayHandle handle_src, const int i);
/*! \brief Check a sparse array's indices; full_check checks every index. */
MXNET_DLL int MXNDArraySyncCheckFormat(NDArrayHandle handle, const bool full_check);

/*!
 * \brief Release a handle made by this API. The memory itself is returned once every queued
 *  operation using it has finished. Freeing NULL does nothing (returns 0).
 */
MXNET_DLL int MXNDArrayFree(NDArrayHandle handle);

/*!
 * \brief The shape of an array. A none array reports ndim 0.
 * \param out_dim receives the number of dimensions.
 * \param out_pdata receives out_dim extents (thread-local storage).
 */
MXNET_DLL int MXNDArrayGetShapeEx(NDArrayHandle handle, int* out_dim, const int** out_pdata);

/*! \brief The dtype flag of an array (see MXNDArrayCreateEx); -1 for a none array. */
MXNET_DLL int MXNDArrayGetDType(NDArrayHandle handle, int* out_dtype);

/*! \brief The device of an array; 0, 0 for a none array. */
MXNET_DLL int MXNDArrayGetContext(NDArrayHandle handle, int* out_dev_type, int* out_dev_id);

/*!
 * \brief The address of the array's first element (device memory for gpu arrays); NULL for a
 *  none array. Does NOT wait for queued work: call MXNDArrayWaitToRead (before reading) or
 *  MXNDArrayWaitToWrite (before writing) first.
 */
MXNET_DLL int MXNDArrayGetData(NDArrayHandle handle, void** out_pdata);

/*!
 * \brief Copy size elements (not bytes) of the array's dtype from host memory into the array.
 *  Waits for earlier work on the array; returns when the copy is done.
 */
MXNET_DLL int MXNDArraySyncCopyFromCPU(NDArrayHandle handle, const void* data, size_t size);

/*!
 * \brief Copy the array's size elements (not bytes) into host memory. Waits for the pending
 *  writes of the array; returns when the copy is done.
 */
MXNET_DLL int MXNDArraySyncCopyToCPU(NDArrayHandle handle, void* data, size_t size);

/*! \brief Wait until every queued write to the array is done (reports its errors). */
MXNET_DLL int MXNDArrayWaitToRead(NDArrayHandle handle);

/*! \brief Wait until every queued read and write of the array is done. */
MXNET_DLL int MXNDArrayWaitToWrite(NDArrayHandle handle);

/*! \brief Wait until all queued work of the process is done (reports the first error). */
MXNET_DLL int MXNDArrayWaitAll(void);

/*!
 * \brief A view of rows [slice_begin, slice_end) along axis 0, sharing memory with handle.
 *  Recorded for autograd when recording is on and the array is part of a graph.
 */
MXNET_DLL int MXNDArraySlice(NDArrayHandle handle, mx_uint slice_begin, mx_uint slice_end,
                             NDArrayHandle* out);

/*! \brief A view of row idx (axis 0 removed), sharing memory with handle. */
MXNET_DLL int MXNDArrayAt(NDArrayHandle handle, mx_uint idx, NDArrayHandle* out);

/*!
 * \brief A view with another shape of the same size, sharing memory with handle. dims may use
 *  the Reshape operator's special values (0 copy, -1 infer, -2 copy rest, -3 merge two,
 *  -4 split one); reverse applies them from the right.
 */
MXNET_DLL int MXNDArrayReshape64(NDArrayHandle handle, int ndim, dim_t* dims, bool reverse,
                                 NDArrayHandle* out);

/*!
 * \brief Save arrays to a file in MXNet's .params/.nd format.
 * \param keys NULL for an unnamed list, or num_args names.
 */
MXNET_DLL int MXNDArraySave(const char* fname, mx_uint num_args, NDArrayHandle* args,
                            const char** keys);

/*!
 * \brief Load a .params/.nd file.
 * \param out_size receives the number of arrays.
 * \param out_arr receives the array of new handles (the array is thread-local; each handle
 *  belongs to the caller and is released with MXNDArrayFree).
 * \param out_name_size receives the number of names (0 for an unnamed list).
 * \param out_names receives the names (thread-local storage).
 */
MXNET_DLL int MXNDArrayLoad(const char* fname, mx_uint* out_size, NDArrayHandle** out_arr,
                            mx_uint* out_name_size, const char*** out_names);

/*!
 * \brief The gradient buffer of an array marked with MXAutogradMarkVariables, as a new handle;
 *  *out is NULL when the array has none.
 */
MXNET_DLL int MXNDArrayGetGrad(NDArrayHandle handle, NDArrayHandle* out);

/*!
 * \brief Export an array as a DLPack tensor sharing its memory (waits for pending writes).
 * \param out receives a DLManagedTensor*; release it with MXNDArrayCallDLPackDeleter unless
 *  a consumer takes it over.
 */
MXNET_DLL int MXNDArrayToDLPack(NDArrayHandle handle, DLManagedTensorHandle* out);

/*!
 * \brief An array sharing the memory of a DLPack tensor; the array owns the tensor and runs
 *  its deleter once it and every operation using it are done. Same as
 *  MXNDArrayFromDLPackEx(dlpack, false, out).
 */
MXNET_DLL int MXNDArrayFromDLPack(DLManagedTensorHandle dlpack, NDArrayHandle* out);

/*!
 * \brief As MXNDArrayFromDLPack; with transient_handle the producer keeps ownership of the
 *  tensor (its deleter is never called by the library), so it must outlive the array.
 *  A tensor made by MXNDArrayToDLPack always gives back the original array.
 */
MXNET_DLL int MXNDArrayFromDLPackEx(DLManagedTensorHandle dlpack, const bool transient_handle,
                                    NDArrayHandle* out);

/*! \brief Run a DLPack tensor's deleter (no-op for NULL or a tensor without one). */
MXNET_DLL int MXNDArrayCallDLPackDeleter(DLManagedTensorHandle dlpack);

/* ------------------------------------------------------------------ operators */

/*!
 * \brief The names of every registered operator (aliases included).
 * \param out_array receives out_size names (thread-local storage).
 */
MXNET_DLL int MXListAllOpNames(mx_uint* out_size, const char*** out_array);

/*! \brief The operator registered under op_name; fails for an unknown name. */
MXNET_DLL int NNGetOpHandle(const char* op_name, OpHandle* op_out);

/*!
 * \brief Documentation of an operator. Strings stay valid for the life of the process; the
 *  arrays are thread-local.
 * \param num_args receives the number of arguments (inputs and parameters).
 * \param key_var_num_args receives the name of the parameter giving the number of variadic
 *  inputs ("num_args"), or "" when the op takes a fixed number.
 * \param return_type receives NULL (may itself be NULL).
 */
MXNET_DLL int MXSymbolGetAtomicSymbolInfo(AtomicSymbolCreator creator, const char** name,
                                          const char** description, mx_uint* num_args,
                                          const char*** arg_names,
                                          const char*** arg_type_infos,
                                          const char*** arg_descriptions,
                                          const char** key_var_num_args,
                                          const char** return_type DEFAULT(NULL));

/* ---- Symbols (c_api_symbolic.cc). A SymbolHandle is a graph's output list; every handle a
 * function returns through SymbolHandle* belongs to the caller (MXSymbolFree). Strings and
 * arrays returned are thread-local, valid until the next call of this family. ---- */
/*! \brief Every registered operator once (aliases left out). */
MXNET_DLL int MXSymbolListAtomicSymbolCreators(uint32_t* out_size, AtomicSymbolCreator** out_array);
MXNET_DLL int MXSymbolGetAtomicSymbolName(AtomicSymbolCreator creator, const char** name);
/*! \brief An op node with its parameters parsed (bad ones fail naming the op), no inputs yet. */
MXNET_DLL int MXSymbolCreateAtomicSymbol(AtomicSymbolCreator creator, uint32_t num_param,
                                         const char** keys, const char** vals, SymbolHandle* out);
MXNET_DLL int MXSymbolCreateVariable(const char* name, SymbolHandle* out);
MXNET_DLL int MXSymbolCreateGroup(uint32_t num_symbols, SymbolHandle* symbols, SymbolHandle* out);
/*! \brief Load -symbol.json (any MXNet 0.8-1.9 layout; older ones are upgraded). */
MXNET_DLL int MXSymbolCreateFromFile(const char* fname, SymbolHandle* out);
MXNET_DLL int MXSymbolCreateFromJSON(const char* json, SymbolHandle* out);
MXNET_DLL int MXSymbolRemoveAmpCast(SymbolHandle sym_handle, SymbolHandle* ret_sym_handle);
/*! \brief Save in MXNet 1.9.1's -symbol.json layout, byte for byte. */
MXNET_DLL int MXSymbolSaveToFile(SymbolHandle symbol, const char* fname);
MXNET_DLL int MXSymbolSaveToJSON(SymbolHandle symbol, const char** out_json);
MXNET_DLL int MXSymbolFree(SymbolHandle symbol);
/*! \brief A deep copy (new nodes). MXShallowCopySymbol shares the nodes. */
MXNET_DLL int MXSymbolCopy(SymbolHandle symbol, SymbolHandle* out);
MXNET_DLL int MXShallowCopySymbol(SymbolHandle src, SymbolHandle* out);
/*! \brief A new node of the head's op and attributes, without inputs or name. */
MXNET_DLL int MXGenAtomicSymbolFromSymbol(SymbolHandle sym_handle, SymbolHandle* ret_sym_handle);
/*! \brief The text of Symbol.debug_str(). */
MXNET_DLL int MXSymbolPrint(SymbolHandle symbol, const char** out_str);
/*! \brief Name of the single head node; *success is 0 for a group. */
MXNET_DLL int MXSymbolGetName(SymbolHandle symbol, const char** out, int* success);
/*! \brief One attribute of the head node (lr_mult also finds __lr_mult__); *success 0 if unset. */
MXNET_DLL int MXSymbolGetAttr(SymbolHandle symbol, const char* key, const char** out, int* success);
MXNET_DLL int MXSymbolSetAttr(SymbolHandle symbol, const char* key, const char* value);
/*! \brief Every node's attributes as out_size pairs "<node>$<key>", value in *out. */
MXNET_DLL int MXSymbolListAttr(SymbolHandle symbol, uint32_t* out_size, const char*** out);
/*! \brief The head node's attributes as out_size key, value pairs. */
MXNET_DLL int MXSymbolListAttrShallow(SymbolHandle symbol, uint32_t* out_size, const char*** out);
MXNET_DLL int MXSymbolListArguments(SymbolHandle symbol, uint32_t* out_size,
                                    const char*** out_str_array);
MXNET_DLL int MXSymbolListOutputs(SymbolHandle symbol, uint32_t* out_size,
                                  const char*** out_str_array);
MXNET_DLL int MXSymbolListAuxiliaryStates(SymbolHandle symbol, uint32_t* out_size,
                                          const char*** out_str_array);
/*! \brief Variable names: option 0 all, 1 arguments, 2 auxiliary states. */
MXNET_DLL int NNSymbolListInputNames(SymbolHandle symbol, int option, uint32_t* out_size,
                                     const char*** out_str_array);
MXNET_DLL int MXSymbolGetNumOutputs(SymbolHandle symbol, uint32_t* output_count);
MXNET_DLL int MXSymbolGetInternals(SymbolHandle symbol, SymbolHandle* out);
MXNET_DLL int MXSymbolGetChildren(SymbolHandle symbol, SymbolHandle* out);
MXNET_DLL int MXSymbolGetOutput(SymbolHandle symbol, uint32_t index, SymbolHandle* out);
/*! \brief One new handle per variable of the graph (in *inputs, thread-local array). */
MXNET_DLL int MXSymbolGetInputSymbols(SymbolHandle sym, SymbolHandle** inputs, int* input_size);
/*! \brief Cut the graph traced for a subgraph (the head's "__subgraph_name__") off from the
 *  nodes outside it, in place: one new handle per cut edge, on the entry it read (nnvm::CutSubgraph). */
MXNET_DLL int MXSymbolCutSubgraph(SymbolHandle sym, SymbolHandle** input_symbols, int* input_size);
/*!
 * \brief Infer the shapes of sym's arguments, outputs and auxiliary states (c_api_symbolic_infer.cc).
 * Known shapes: num_args shapes in CSR form (shape i is arg_shape_data[arg_ind_ptr[i] ..
 * arg_ind_ptr[i+1]]) for the variables named keys[i], or for the first num_args arguments when
 * keys is NULL. Shapes use MXNet's convention of the moment (0 unknown; -1 under numpy shape
 * semantics, which the uint32 form cannot express). Results are thread-local arrays; *complete
 * is 1 when every shape is known. The Partial forms behave the same (an unknown shape is
 * never an error; MXNet 1.9.1's Partial forms always set *complete to 1, these tell the
 * truth); Ex takes int dims, Ex64 int64 dims and size_t counts.
 */
MXNET_DLL int MXSymbolInferShape(SymbolHandle sym, uint32_t num_args, const char** keys,
                                 const uint32_t* arg_ind_ptr, const uint32_t* arg_shape_data,
                                 uint32_t* in_shape_size, const uint32_t** in_shape_ndim,
                                 const uint32_t*** in_shape_data, uint32_t* out_shape_size,
                                 const uint32_t** out_shape_ndim,
                                 const uint32_t*** out_shape_data, uint32_t* aux_shape_size,
                                 const uint32_t** aux_shape_ndim,
                                 const uint32_t*** aux_shape_data, int* complete);
MXNET_DLL int MXSymbolInferShapePartial(
    SymbolHandle sym, uint32_t num_args, const char** keys, const uint32_t* arg_ind_ptr,
    const uint32_t* arg_shape_data, uint32_t* in_shape_size, const uint32_t** in_shape_ndim,
    const uint32_t*** in_shape_data, uint32_t* out_shape_size, const uint32_t** out_shape_ndim,
    const uint32_t*** out_shape_data, uint32_t* aux_shape_size, const uint32_t** aux_shape_ndim,
    const uint32_t*** aux_shape_data, int* complete);
MXNET_DLL int MXSymbolInferShapeEx(SymbolHandle sym, uint32_t num_args, const char** keys,
                                   const uint32_t* arg_ind_ptr, const int* arg_shape_data,
                                   uint32_t* in_shape_size, const int** in_shape_ndim,
                                   const int*** in_shape_data, uint32_t* out_shape_size,
                                   const int** out_shape_ndim, const int*** out_shape_data,
                                   uint32_t* aux_shape_size, const int** aux_shape_ndim,
                                   const int*** aux_shape_data, int* complete);
MXNET_DLL int MXSymbolInferShapePartialEx(SymbolHandle sym, uint32_t num_args, const char** keys,
                                          const uint32_t* arg_ind_ptr, const int* arg_shape_data,
                                          uint32_t* in_shape_size, const int** in_shape_ndim,
                                          const int*** in_shape_data, uint32_t* out_shape_size,
                                          const int** out_shape_ndim, const int*** out_shape_data,
                                          uint32_t* aux_shape_size, const int** aux_shape_ndim,
                                          const int*** aux_shape_data, int* complete);
MXNET_DLL int MXSymbolInferShapeEx64(SymbolHandle sym, uint32_t num_args, const char** keys,
                                     const int64_t* arg_ind_ptr, const int64_t* arg_shape_data,
                                     size_t* in_shape_size, const int** in_shape_ndim,
                                     const int64_t*** in_shape_data, size_t* out_shape_size,
                                     const int** out_shape_ndim, const int64_t*** out_shape_data,
                                     size_t* aux_shape_size, const int** aux_shape_ndim,
                                     const int64_t*** aux_shape_data, int* complete);
MXNET_DLL int MXSymbolInferShapePartialEx64(
    SymbolHandle sym, uint32_t num_args, const char** keys, const int64_t* arg_ind_ptr,
    const int64_t* arg_shape_data, size_t* in_shape_size, const int** in_shape_ndim,
    const int64_t*** in_shape_data, size_t* out_shape_size, const int** out_shape_ndim,
    const int64_t*** out_shape_data, size_t* aux_shape_size, const int** aux_shape_ndim,
    const int64_t*** aux_shape_data, int* complete);
/*! \brief The same for dtype flags (-1 unknown); arg_type_data holds num_args flags. */
MXNET_DLL int MXSymbolInferType(SymbolHandle sym, uint32_t num_args, const char** keys,
                                const int* arg_type_data, uint32_t* in_type_size,
                                const int** in_type_data, uint32_t* out_type_size,
                                const int** out_type_data, uint32_t* aux_type_size,
                                const int** aux_type_data, int* complete);
MXNET_DLL int MXSymbolInferTypePartial(SymbolHandle sym, uint32_t num_args, const char** keys,
                                       const int* arg_type_data, uint32_t* in_type_size,
                                       const int** in_type_data, uint32_t* out_type_size,
                                       const int** out_type_data, uint32_t* aux_type_size,
                                       const int** aux_type_data, int* complete);
/*!
 * \brief Give sym its inputs, in place: keys NULL means args are positional, else args[i]
 *  is the input named keys[i]. name (may be NULL) renames the head node; inputs not given
 *  become variables "<name>_<input>".
 */
MXNET_DLL int MXSymbolCompose(SymbolHandle sym, const char* name, uint32_t num_args,
                              const char** keys, SymbolHandle* args);

/*!
 * \brief Run one operator on NDArrays.
 * \param creator an operator handle (NNGetOpHandle).
 * \param num_inputs, inputs the input arrays.
 * \param num_outputs in/out. When *outputs is NULL the outputs are allocated: *num_outputs
 *  receives the number of visible outputs and *outputs a thread-local array of new handles
 *  (each belongs to the caller). Otherwise *outputs holds *num_outputs arrays to write into
 *  (all the op's outputs, or only its visible ones); none arrays there receive the results.
 * \param num_params, param_keys, param_vals the operator's parameters as text, e.g.
 *  "axis" = "(0,1)", "scalar" = "0.5". A variadic op's count ("num_args") defaults to
 *  num_inputs.
 */
MXNET_DLL int MXImperativeInvoke(AtomicSymbolCreator creator, int num_inputs,
                                 NDArrayHandle* inputs, int* num_outputs,
                                 NDArrayHandle** outputs, int num_params,
                                 const char** param_keys, const char** param_vals);

/* ------------------------------------------------------------------ autograd */

/*! \brief Turn recording on (1) or off (0) for this thread; *prev (may be NULL) gets the old state. */
MXNET_DLL int MXAutogradSetIsRecording(int is_recording, int* prev);

/*! \brief Turn training mode on (1) or off (0) for this thread; *prev (may be NULL) gets the old state. */
MXNET_DLL int MXAutogradSetIsTraining(int is_training, int* prev);

/*! \brief Whether this thread records operators for autograd. */
MXNET_DLL int MXAutogradIsRecording(bool* curr);

/*! \brief Whether this thread runs in training mode. */
MXNET_DLL int MXAutogradIsTraining(bool* curr);

/*!
 * \brief Mark arrays as variables whose gradients are wanted.
 * \param reqs_array per variable: 0 null, 1 write, 3 add.
 * \param grad_handles per variable, the array that receives its gradient (same shape).
 */
MXNET_DLL int MXAutogradMarkVariables(mx_uint num_var, NDArrayHandle* var_handles,
                                      mx_uint* reqs_array, NDArrayHandle* grad_handles);

/*!
 * \brief Backpropagate from recorded outputs.
 * \param ograd_handles NULL, or num_output head gradients (NULL entries mean ones).
 * \param num_variables 0 to write the gradients of the marked variables into their buffers;
 *  otherwise the gradients of var_handles are returned in *grad_handles (a thread-local array
 *  of new handles owned by the caller) and their storage types (0, dense) in *grad_stypes
 *  (may be NULL).
 * \param retain_graph keep the recorded graph for another backward.
 * \param create_graph record the backward computation (for higher-order gradients).
 * \param is_train run backward in training mode.
 */
MXNET_DLL int MXAutogradBackwardEx(mx_uint num_output, NDArrayHandle* output_handles,
                                   NDArrayHandle* ograd_handles, mx_uint num_variables,
                                   NDArrayHandle* var_handles, int retain_graph,
                                   int create_graph, int is_train, NDArrayHandle** grad_handles,
                                   int** grad_stypes);

/* ------------------------------------------------------------------ profiler */

/*!
 * \brief Configure the profiler (MXNet's ProfileConfigParam): keys profile_all,
 *  profile_symbolic, profile_imperative, profile_memory, profile_api, filename,
 *  continuous_dump, dump_period, aggregate_stats, profile_process; values as text ("True",
 *  "0", "1.5", "worker"). Unknown keys and bad values fail naming the key.
 * \param kvstoreHandle unused; profile_process must be "worker" (no server-side profiling).
 */
MXNET_DLL int MXSetProcessProfilerConfig(int num_params, const char* const* keys,
                                         const char* const* vals, KVStoreHandle kvstoreHandle);
/*! \brief MXSetProcessProfilerConfig for this process. */
MXNET_DLL int MXSetProfilerConfig(int num_params, const char* const* keys,
                                  const char* const* vals);
/*!
 * \brief Stop (state 0) or run (state 1) the profiler.
 * \param profile_process must be 0 (this process, "worker").
 */
MXNET_DLL int MXSetProcessProfilerState(int state, int profile_process,
                                        KVStoreHandle kvStoreHandle);
/*! \brief MXSetProcessProfilerState for this process. */
MXNET_DLL int MXSetProfilerState(int state);
/*! \brief Prefix "<scope>:" to the names of operators invoked from now on ("<unk>:": none). */
MXNET_DLL int MXSetProfilerScope(const char* scope);
/*!
 * \brief Write the Chrome trace to the configured file (kept whole, or appended to with
 *  continuous_dump). finished: forget the written events and close a continuous file.
 */
MXNET_DLL int MXDumpProcessProfile(int finished, int profile_process, KVStoreHandle kvStoreHandle);
/*! \brief MXDumpProcessProfile for this process. */
MXNET_DLL int MXDumpProfile(int finished);
/*! \brief The aggregate statistics as a table, sorted by total time, descending. */
MXNET_DLL int MXAggregateProfileStatsPrint(const char** out_str, int reset);
/*!
 * \brief The aggregate statistics.
 * \param out_str receives a thread-local string, valid until the next call on this thread.
 * \param reset clear the statistics afterwards.
 * \param format 0 table, 1 JSON.
 * \param sort_by 0 total, 1 avg, 2 min, 3 max, 4 count.
 * \param ascending nonzero for ascending order.
 */
MXNET_DLL int MXAggregateProfileStatsPrintEx(const char** out_str, int reset, int format,
                                             int sort_by, int ascending);
/*! \brief Pause (nonzero) or resume (0) recording; global, not recursive. */
MXNET_DLL int MXProcessProfilePause(int paused, int profile_process, KVStoreHandle kvStoreHandle);
/*! \brief MXProcessProfilePause for this process. */
MXNET_DLL int MXProfilePause(int paused);
/*! \brief Create a domain; free every handle below with MXProfileDestroyHandle. */
MXNET_DLL int MXProfileCreateDomain(const char* domain, ProfileHandle* out);
/*! \brief Create a task in a domain (a duration; category: the domain's name). */
MXNET_DLL int MXProfileCreateTask(ProfileHandle domain, const char* task_name, ProfileHandle* out);
/*! \brief Create a frame in a domain (a duration; category: the domain's name). */
MXNET_DLL int MXProfileCreateFrame(ProfileHandle domain, const char* frame_name,
                                   ProfileHandle* out);
/*! \brief Create an event (a duration; category "event"). */
MXNET_DLL int MXProfileCreateEvent(const char* event_name, ProfileHandle* out);
/*! \brief Create a counter in a domain (starts at 0). */
MXNET_DLL int MXProfileCreateCounter(ProfileHandle domain, const char* counter_name,
                                     ProfileHandle* out);
/*! \brief Destroy a handle made by MXProfileCreate*. */
MXNET_DLL int MXProfileDestroyHandle(ProfileHandle frame_handle);
/*! \brief Start timing a task, frame or event. */
MXNET_DLL int MXProfileDurationStart(ProfileHandle duration_handle);
/*! \brief Stop timing a task, frame or event: records one complete event when running. */
MXNET_DLL int MXProfileDurationStop(ProfileHandle duration_handle);
/*! \brief Set a counter's value. */
MXNET_DLL int MXProfileSetCounter(ProfileHandle counter_handle, uint64_t value);
/*! \brief Add value (may be negative) to a counter. */
MXNET_DLL int MXProfileAdjustCounter(ProfileHandle counter_handle, int64_t value);
/*!
 * \brief Record an instant marker in a domain.
 * \param scope "global", "process", "thread", "task" or "marker".
 */
MXNET_DLL int MXProfileSetMarker(ProfileHandle domain, const char* instant_marker_name,
                                 const char* scope);

/* ------------------------------------------------------------------ custom operators */

/*!
 * \brief A list of callbacks and their context pointers, filled by the front (MXNet 1.9's
 *  layout). callbacks[i] is called with contexts[i] as its last argument; the enums below
 *  give the index of each. Callbacks return nonzero on success and 0 on failure.
 */
struct MXCallbackList {
  int num_callbacks;
  int (**callbacks)(void);
  void** contexts;
};

/*! \brief Callbacks of one operator instance (filled by CustomOpCreateFunc). */
enum CustomOpCallbacks { kCustomOpDelete, kCustomOpForward, kCustomOpBackward };

/*! \brief Callbacks of an operator's prop (filled by CustomOpPropCreator). Those from
 *  kCustomOpPropInferType on are optional (num_callbacks may stop before them). */
enum CustomOpPropCallbacks {
  kCustomOpPropDelete,
  kCustomOpPropListArguments,
  kCustomOpPropListOutputs,
  kCustomOpPropListAuxiliaryStates,
  kCustomOpPropInferShape,
  kCustomOpPropDeclareBackwardDependency,
  kCustomOpPropCreateOperator,
  kCustomOpPropInferType,
  kCustomOpPropInferStorageType,
  kCustomOpPropBackwardInferStorageType
};

/*!
 * \brief Forward or backward: size arrays (NDArrayHandles that belong to the callee, which
 *  frees them with MXNDArrayFree) tagged 0 input, 1 output, 2 input gradient, 3 output
 *  gradient, 4 auxiliary state; reqs has one OpReqType (0 null, 1 write, 2 inplace, 3 add) per
 *  array written. Forward gets inputs, outputs, aux; backward gets out_grad, in_data,
 *  out_data (none arrays where not declared as dependencies), in_grad, aux.
 *  Called on a custom-operator worker thread (in the invoking thread with NaiveEngine).
 */
typedef int (*CustomOpFBFunc)(int /*size*/, void** /*ptrs*/, int* /*tags*/,
                              const int* /*reqs*/, const int /*is_train*/, void* /*state*/);
typedef int (*CustomOpDelFunc)(void* /*state*/);
/*! \brief *args receives a NULL-terminated list of names owned by the callee. */
typedef int (*CustomOpListFunc)(char*** /*args*/, void* /*state*/);
/*! \brief Shapes of arguments, outputs and aux states in that order; the callee fills the
 *  outputs and aux states by pointing shapes[i] at memory it owns and setting ndims[i]. */
typedef int (*CustomOpInferShapeFunc)(int /*num_input*/, int* /*ndims*/, int** /*shapes*/,
                                      void* /*state*/);
typedef int (*CustomOpInferStorageTypeFunc)(int /*num_input*/, int* /*stypes*/, void* /*state*/);
typedef int (*CustomOpBackwardInferStorageTypeFunc)(int /*num_input*/, int* /*stypes*/,
                                                    int* /*tags*/, void* /*state*/);
/*! \brief dtype flags of arguments, outputs and aux states; -1 where unknown. */
typedef int (*CustomOpInferTypeFunc)(int /*num_input*/, int* /*types*/, void* /*state*/);
/*! \brief *rdeps receives *num_deps ids (owned by the callee) taken from the three lists. */
typedef int (*CustomOpBwdDepFunc)(const int* /*out_grad*/, const int* /*in_data*/,
                                  const int* /*out_data*/, int* /*num_deps*/, int** /*rdeps*/,
                                  void* /*state*/);
/*! \brief ctx is "cpu(0)" or "gpu(1)"; fills ret with the CustomOpCallbacks. */
typedef int (*CustomOpCreateFunc)(const char* /*ctx*/, int /*num_inputs*/,
                                  unsigned** /*shapes*/, const int* /*ndims*/,
                                  const int* /*dtypes*/, struct MXCallbackList* /*ret*/,
                                  void* /*state*/);
/*! \brief Builds the prop of op_type from the call's other parameters; fills ret with the
 *  CustomOpPropCallbacks. */
typedef int (*CustomOpPropCreator)(const char* /*op_type*/, const int /*num_kwargs*/,
                                   const char** /*keys*/, const char** /*values*/,
                                   struct MXCallbackList* /*ret*/);

/*!
 * \brief Register (or replace) custom operator op_type, run with the operator "Custom"
 *  (MXImperativeInvoke with parameter "op_type"). The callback lists must stay valid until
 *  their delete callback is called. Only dense storage exists: the storage-type callbacks
 *  are not called.
 */
MXNET_DLL int MXCustomOpRegister(const char* op_type, CustomOpPropCreator creator);

/* ---------------------------------------------------------------- data iterators */

/*! \brief The registered data iterators (MNISTIter, CSVIter, LibSVMIter, ...) as creators. */
MXNET_DLL int MXListDataIters(uint32_t* out_size, DataIterCreator** out_array);
/*! \brief Name, description and arguments (names, type strings, descriptions) of an
 *  iterator; the strings live as long as the library. */
MXNET_DLL int MXDataIterGetIterInfo(DataIterCreator creator, const char** name,
                                    const char** description, uint32_t* num_args,
                                    const char*** arg_names, const char*** arg_type_infos,
                                    const char*** arg_descriptions);
/*! \brief Create an iterator from string arguments; bad files or arguments fail here.
 *  Release it with MXDataIterFree. */
MXNET_DLL int MXDataIterCreateIter(DataIterCreator handle, uint32_t num_param, const char** keys,
                                   const char** vals, DataIterHandle* out);
/*! \brief Stop the iterator's prefetching thread and release it. */
MXNET_DLL int MXDataIterFree(DataIterHandle handle);
/*! \brief Move to the next batch: *out is 1, or 0 at the end of the epoch. */
MXNET_DLL int MXDataIterNext(DataIterHandle handle, int* out);
/*! \brief Start a new epoch (may be called mid-epoch). */
MXNET_DLL int MXDataIterBeforeFirst(DataIterHandle handle);
/*! \brief The current batch's data as a new NDArray handle (free with MXNDArrayFree). */
MXNET_DLL int MXDataIterGetData(DataIterHandle handle, NDArrayHandle* out);
/*! \brief The example indices of the current batch; valid until the next MXDataIterNext. */
MXNET_DLL int MXDataIterGetIndex(DataIterHandle handle, uint64_t** out_index,
                                 uint64_t* out_size);
/*! \brief The number of padding examples at the end of the current batch. */
MXNET_DLL int MXDataIterGetPadNum(DataIterHandle handle, int* pad);
/*! \brief The current batch's label as a new NDArray handle (free with MXNDArrayFree). */
MXNET_DLL int MXDataIterGetLabel(DataIterHandle handle, NDArrayHandle* out);

/* ------------------------------------------------------------------ KVStore */

/*!
 * \brief Create a KVStore: "local" (also "local_update_cpu", "local_allreduce_cpu"),
 *  "device" ("local_allreduce_device"). "nccl" needs a build with NCCL and "dist_*" the
 *  parameter server, which this build lacks: both fail with a message saying so.
 */
MXNET_DLL int MXKVStoreCreate(const char* type, KVStoreHandle* out);
/*! \brief Gradient compression: keys "type" ("2bit") and "threshold" (> 0, default 0.5). */
MXNET_DLL int MXKVStoreSetGradientCompression(KVStoreHandle handle, uint32_t num_params,
                                              const char** keys, const char** vals);
MXNET_DLL int MXKVStoreFree(KVStoreHandle handle);
/*! \brief Store a copy of vals[i] under keys[i]; a key is initialized once. */
MXNET_DLL int MXKVStoreInit(KVStoreHandle handle, uint32_t num, const int* keys,
                            NDArrayHandle* vals);
MXNET_DLL int MXKVStoreInitEx(KVStoreHandle handle, uint32_t num, const char** keys,
                              NDArrayHandle* vals);
/*! \brief Sum the values of each key (a key may repeat, one value per device) into the store,
 *  through the updater when one is set. Returns at once; the work runs on the engine. */
MXNET_DLL int MXKVStorePush(KVStoreHandle handle, uint32_t num, const int* keys,
                            NDArrayHandle* vals, int priority);
MXNET_DLL int MXKVStorePushEx(KVStoreHandle handle, uint32_t num, const char** keys,
                              NDArrayHandle* vals, int priority);
/*! \brief Copy each key's value into vals (a key may repeat). ignore_sparse has no effect:
 *  there is no sparse storage in this build. */
MXNET_DLL int MXKVStorePullWithSparse(KVStoreHandle handle, uint32_t num, const int* keys,
                                      NDArrayHandle* vals, int priority, bool ignore_sparse);
MXNET_DLL int MXKVStorePullWithSparseEx(KVStoreHandle handle, uint32_t num, const char** keys,
                                        NDArrayHandle* vals, int priority, bool ignore_sparse);
MXNET_DLL int MXKVStorePull(KVStoreHandle handle, uint32_t num, const int* keys,
                            NDArrayHandle* vals, int priority);
MXNET_DLL int MXKVStorePullEx(KVStoreHandle handle, uint32_t num, const char** keys,
                              NDArrayHandle* vals, int priority);
/*! \brief Pull of selected rows of row_sparse values: fails (no sparse storage here). */
MXNET_DLL int MXKVStorePullRowSparse(KVStoreHandle handle, uint32_t num, const int* keys,
                                     NDArrayHandle* vals, const NDArrayHandle* row_ids,
                                     int priority);
MXNET_DLL int MXKVStorePullRowSparseEx(KVStoreHandle handle, uint32_t num, const char** keys,
                                       NDArrayHandle* vals, const NDArrayHandle* row_ids,
                                       int priority);
/*! \brief Init(vkeys, vals) then Pull(okeys, outs). */
MXNET_DLL int MXKVStoreBroadcast(KVStoreHandle handle, mx_uint vnum, const int* vkeys,
                                 mx_uint onum, const int* okeys, NDArrayHandle* vals,
                                 NDArrayHandle* outs, int priority);
MXNET_DLL int MXKVStoreBroadcastEx(KVStoreHandle handle, mx_uint vnum, const char** vkeys,
                                   mx_uint onum, const char** okeys, NDArrayHandle* vals,
                                   NDArrayHandle* outs, int priority);
/*! \brief Push(vkeys, vals) then Pull(okeys, outs). */
MXNET_DLL int MXKVStorePushPull(KVStoreHandle handle, mx_uint vnum, const int* vkeys,
                                mx_uint onum, const int* okeys, NDArrayHandle* vals,
                                NDArrayHandle* outs, int priority);
MXNET_DLL int MXKVStorePushPullEx(KVStoreHandle handle, mx_uint vnum, const char** vkeys,
                                  mx_uint onum, const char** okeys, NDArrayHandle* vals,
                                  NDArrayHandle* outs, int priority);
/*!
 * \brief The function run on the store at each push: local += update(recv). recv and local
 *  are new handles owned by the callee (free them with MXNDArrayFree); local shares memory
 *  with the stored value, so writing into it updates the store.
 */
typedef void(MXKVStoreUpdater)(int key, NDArrayHandle recv, NDArrayHandle local, void* handle);
typedef void(MXKVStoreStrUpdater)(const char* key, NDArrayHandle recv, NDArrayHandle local,
                                  void* handle);
MXNET_DLL int MXKVStoreSetUpdater(KVStoreHandle handle, MXKVStoreUpdater updater,
                                  void* updater_handle);
MXNET_DLL int MXKVStoreSetUpdaterEx(KVStoreHandle handle, MXKVStoreUpdater updater,
                                    MXKVStoreStrUpdater str_updater, void* updater_handle);
/*! \brief The type given at creation; the string lives as long as the store. */
MXNET_DLL int MXKVStoreGetType(KVStoreHandle handle, const char** type);
/*! \brief Rank of this worker (0) and number of workers (1): one process. */
MXNET_DLL int MXKVStoreGetRank(KVStoreHandle handle, int* ret);
MXNET_DLL int MXKVStoreGetGroupSize(KVStoreHandle handle, int* ret);
/*! \brief Roles: without the parameter server every process is a worker. */
MXNET_DLL int MXKVStoreIsWorkerNode(int* ret);
MXNET_DLL int MXKVStoreIsServerNode(int* ret);
MXNET_DLL int MXKVStoreIsSchedulerNode(int* ret);
/*! \brief Wait for all workers: returns at once in one process. */
MXNET_DLL int MXKVStoreBarrier(KVStoreHandle handle);
MXNET_DLL int MXKVStoreSetBarrierBeforeExit(KVStoreHandle handle, const int barrier_before_exit);
typedef void(MXKVStoreServerController)(int head, const char* body, void* controller_handle);
/*! \brief Run the server loop: fails, there is no parameter server in this build. */
MXNET_DLL int MXKVStoreRunServer(KVStoreHandle handle, MXKVStoreServerController controller,
                                 void* controller_handle);
/*! \brief Send a command to the servers: there are none in one process (nothing is sent). */
MXNET_DLL int MXKVStoreSendCommmandToServers(KVStoreHandle handle, int cmd_id,
                                             const char* cmd_body);
/*! \brief Number of dead nodes in the group node_id: 0 in one process. */
MXNET_DLL int MXKVStoreGetNumDeadNode(KVStoreHandle handle, const int node_id, int* number,
                                      const int timeout_sec DEFAULT(60));
/* ---------------------------------------------------------------- RecordIO files */

/*! \brief Open uri for writing RecordIO records (the file is truncated). */
MXNET_DLL int MXRecordIOWriterCreate(const char* uri, RecordIOHandle* out);
/*! \brief Flush and close a writer. */
MXNET_DLL int MXRecordIOWriterFree(RecordIOHandle handle);
/*! \brief Append one record of size bytes (under 2^29). */
MXNET_DLL int MXRecordIOWriterWriteRecord(RecordIOHandle handle, const char* buf, size_t size);
/*! \brief The byte position where the next record will start (what .idx files hold). */
MXNET_DLL int MXRecordIOWriterTell(RecordIOHandle handle, size_t* pos);
/*! \brief Open uri for reading RecordIO records; a missing file fails here. */
MXNET_DLL int MXRecordIOReaderCreate(const char* uri, RecordIOHandle* out);
/*! \brief Close a reader. */
MXNET_DLL int MXRecordIOReaderFree(RecordIOHandle handle);
/*! \brief Read the next record: *buf (valid until the next call on handle) and *size, or
 *  *buf NULL at the end of the file. A corrupt or truncated record fails naming its position. */
MXNET_DLL int MXRecordIOReaderReadRecord(RecordIOHandle handle, char const** buf, size_t* size);
/*! \brief Move to the record starting at byte pos. */
MXNET_DLL int MXRecordIOReaderSeek(RecordIOHandle handle, size_t pos);
/*! \brief The byte position of the next record. */
MXNET_DLL int MXRecordIOReaderTell(RecordIOHandle handle, size_t* pos);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#include "mxnet/c_api_executor.h"
#include "mxnet/c_api_test.h"

#endif  /* MXNET_C_API_H_ */
