/*
 * The C predict API of libmxnet.so: load a -symbol.json graph and its .params, set inputs,
 * run forward, read outputs. Signature-compatible with MXNet 1.9.1's c_predict_api.h.
 *
 * Conventions:
 *  - Every function returns 0 on success and -1 on failure; MXGetLastError() then gives the
 *    calling thread's message (an unknown input key, a wrong input size, a malformed JSON, a
 *    params file that lacks an argument, a shape that cannot be inferred ...).
 *  - Shapes are given as a CSR pair: input i has the dimensions
 *    input_shape_data[input_shape_indptr[i] .. input_shape_indptr[i + 1]).
 *  - Data pointers are typed float, as in MXNet; an input or output of another dtype (see
 *    MXPredCreateEx, MXPredGetOutputType) is read or written as `size` elements of that dtype.
 *  - A PredictorHandle is used by one thread at a time; MXPredCreateMultiThread gives one
 *    handle per thread, sharing the parameters.
 *
 * Self-contained valid C99 and C++; it may be included with or without mxnet/c_api.h.
 */
#ifndef MXNET_C_PREDICT_API_H_
#define MXNET_C_PREDICT_API_H_

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef MXNET_DLL
#define MXNET_DLL
#endif

#ifndef MXNET_C_BASIC_TYPES_
#define MXNET_C_BASIC_TYPES_
/*! \brief Unsigned 32-bit integer used for counts and legacy shapes. */
typedef unsigned int mx_uint;
/*! \brief The default floating-point element type. */
typedef float mx_float;
/*! \brief An NDArray (a C++ mxnet::NDArray*); free handles given to you with MXNDArrayFree. */
typedef void* NDArrayHandle;
#endif

/*! \brief A predictor: a symbol bound to its parameters and inputs on one device. */
typedef void* PredictorHandle;
/*! \brief A list of named float32 arrays read from a .nd/.params file (MXNDListCreate). */
typedef void* NDListHandle;
/*! \brief Monitor callback: (name "<node>_<output>", a new NDArray handle that the callee
 *  frees with MXNDArrayFree, callback_handle). */
typedef void (*PredMonitorCallback)(const char*, NDArrayHandle, void*);

/*! \brief The message of the last error raised on the calling thread ("" when none). */
MXNET_DLL const char* MXGetLastError(void);

/*!
 * \brief Create a predictor.
 * \param symbol_json_str the -symbol.json text (any MXNet 0.8 to 1.9 version)
 * \param param_bytes, param_size the bytes of a .params file: "arg:NAME" / "aux:NAME" arrays
 *        (plain "NAME" is accepted too); entries the symbol does not use are ignored
 * \param dev_type 1: cpu, 2: gpu, 3: cpu_pinned; dev_id the device number
 * \param num_input_nodes, input_keys the inputs whose shapes are given ({"data"})
 * \param input_shape_indptr, input_shape_data their shapes (CSR, see above)
 * \param out the new predictor (free it with MXPredFree)
 * Every other argument must be in the params (an argument whose name ends in "label", e.g.
 * softmax_label, is zero-filled instead, as MXNet 1.9.1 does for checkpoints of Module).
 */
MXNET_DLL int MXPredCreate(const char* symbol_json_str, const void* param_bytes, int param_size,
                           int dev_type, int dev_id, uint32_t num_input_nodes,
                           const char** input_keys, const uint32_t* input_shape_indptr,
                           const uint32_t* input_shape_data, PredictorHandle* out);

/*!
 * \brief MXPredCreate with the dtypes of some arguments given (mshadow type flags: 0 float32,
 * 1 float64, 2 float16, 3 uint8, 4 int32, 5 int8, 6 int64). A dtype stored in the params
 * wins over one given here; arguments decided by neither are float32.
 */
MXNET_DLL int MXPredCreateEx(const char* symbol_json_str, const void* param_bytes,
                             int param_size, int dev_type, int dev_id,
                             const uint32_t num_input_nodes, const char** input_keys,
                             const uint32_t* input_shape_indptr,
                             const uint32_t* input_shape_data,
                             const uint32_t num_provided_arg_dtypes,
                             const char** provided_arg_dtype_names,
                             const int* provided_arg_dtypes, PredictorHandle* out);

/*!
 * \brief MXPredCreate whose outputs are internal node outputs: output_keys name nodes
 * ("fc1", meaning its output "fc1_output") or outputs exactly as get_internals lists them
 * ("bn1_moving_mean"). Only the part of the graph these outputs need is run.
 */
MXNET_DLL int MXPredCreatePartialOut(const char* symbol_json_str, const void* param_bytes,
                                     int param_size, int dev_type, int dev_id,
                                     uint32_t num_input_nodes, const char** input_keys,
                                     const uint32_t* input_shape_indptr,
                                     const uint32_t* input_shape_data,
                                     uint32_t num_output_nodes, const char** output_keys,
                                     PredictorHandle* out);

/*!
 * \brief Create num_threads predictors (out must hold num_threads handles) that share one
 * copy of the parameters; each has its own inputs, outputs and executor and is meant for one
 * thread. Free each with MXPredFree. Unlike MXNet 1.9.1, any engine type works.
 */
MXNET_DLL int MXPredCreateMultiThread(const char* symbol_json_str, const void* param_bytes,
                                      int param_size, int dev_type, int dev_id,
                                      uint32_t num_input_nodes, const char** input_keys,
                                      const uint32_t* input_shape_indptr,
                                      const uint32_t* input_shape_data, int num_threads,
                                      PredictorHandle* out);

/*!
 * \brief A new predictor for new input shapes, sharing handle's parameters (handle stays
 * valid; free both). Only the named inputs may change shape.
 */
MXNET_DLL int MXPredReshape(uint32_t num_input_nodes, const char** input_keys,
                            const uint32_t* input_shape_indptr,
                            const uint32_t* input_shape_data, PredictorHandle handle,
                            PredictorHandle* out);

/*!
 * \brief The shape of output index: *shape_data points to *shape_ndim dimensions, valid
 * until the next MXPred* call on this handle.
 */
MXNET_DLL int MXPredGetOutputShape(PredictorHandle handle, uint32_t index,
                                   uint32_t** shape_data, uint32_t* shape_ndim);

/*! \brief The dtype (type flag, see MXPredCreateEx) of output out_index. */
MXNET_DLL int MXPredGetOutputType(PredictorHandle handle, uint32_t out_index, int* out_dtype);

/*!
 * \brief Copy an input (or any argument) by name from host memory; size is its number of
 * elements, which must equal the size of its shape.
 */
MXNET_DLL int MXPredSetInput(PredictorHandle handle, const char* key, const float* data,
                             uint32_t size);

/*! \brief Run the whole forward pass (inference mode). */
MXNET_DLL int MXPredForward(PredictorHandle handle);

/*!
 * \brief Run step `step` of the forward pass (one graph node; steps over variables do
 * nothing) and set *step_left to the number of steps after it. Call with step = 0, 1, ...
 * until *step_left is 0.
 */
MXNET_DLL int MXPredPartialForward(PredictorHandle handle, int step, int* step_left);

/*!
 * \brief Copy output index to host memory (waits for the forward pass); size is its number of
 * elements, which must equal the size of the output's shape.
 */
MXNET_DLL int MXPredGetOutput(PredictorHandle handle, uint32_t index, float* data,
                              uint32_t size);

/*! \brief Free a predictor (NULL is allowed). */
MXNET_DLL int MXPredFree(PredictorHandle handle);

/*!
 * \brief Read the arrays of a .nd/.params file held in memory (e.g. a mean image), converted
 * to float32. *out_length is the number of arrays; free the list with MXNDListFree.
 */
MXNET_DLL int MXNDListCreate(const char* nd_file_bytes, int nd_file_size, NDListHandle* out,
                             uint32_t* out_length);

/*!
 * \brief Array index of the list: its key ("" for an unnamed list), data, shape and ndim.
 * The pointers stay valid until MXNDListFree (the shape until the next MXNDListGet).
 */
MXNET_DLL int MXNDListGet(NDListHandle handle, uint32_t index, const char** out_key,
                          const float** out_data, const uint32_t** out_shape,
                          uint32_t* out_ndim);

/*!
 * \brief Call callback with each node output (and, with monitor_all, each node input) as the
 * forward pass runs; callback NULL removes it. Kept by MXPredReshape.
 */
MXNET_DLL int MXPredSetMonitorCallback(PredictorHandle handle, PredMonitorCallback callback,
                                       void* callback_handle, bool monitor_all);

/*! \brief Free a list made by MXNDListCreate (NULL is allowed). */
MXNET_DLL int MXNDListFree(NDListHandle handle);

#ifdef __cplusplus
}
#endif

#endif  // MXNET_C_PREDICT_API_H_
