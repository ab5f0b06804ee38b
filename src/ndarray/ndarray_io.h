// One NDArray as a single record of MXNet's binary format (what MXNDArraySaveRawBytes writes
// and NDArray pickles carry); lists of arrays and files are declared in mxnet/ndarray.h.
#ifndef MXNET_NDARRAY_NDARRAY_IO_H_
#define MXNET_NDARRAY_NDARRAY_IO_H_

#include <string>

#include "mxnet/ndarray.h"

namespace mxnet {

/*! \brief The array's record (header, shape, context, dtype, data); waits for pending writes.
 *  np_shape is the caller's numpy-shape state (a NumpyShape value), as for files. */
std::string SaveNDArrayRawBytes(const NDArray& arr, int np_shape);
/*! \brief The array of one record, loaded on the CPU whatever device wrote it (as MXNet does
 *  when no GPU is present); a none array for MXNet's "no array" record. Throws dmlc::Error
 *  on truncated or corrupt data. */
NDArray LoadNDArrayRawBytes(const char* data, size_t size, int np_shape);

}  // namespace mxnet

#endif  // MXNET_NDARRAY_NDARRAY_IO_H_
