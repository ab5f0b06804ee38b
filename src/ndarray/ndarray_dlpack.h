// DLPack exchange of NDArrays: the one export/import rule that the C API and the Python
// front share.
#ifndef MXNET_NDARRAY_NDARRAY_DLPACK_H_
#define MXNET_NDARRAY_NDARRAY_DLPACK_H_

#include <dlpack/dlpack.h>

#include <functional>

#include "mxnet/ndarray.h"

namespace mxnet {
namespace dlpack {

/*!
 * \brief A DLManagedTensor over a's memory (compact row-major). The caller must have waited
 *  for a (read or write, as it intends); the tensor keeps a alive until its deleter runs.
 */
DLManagedTensor* Export(const NDArray& a);

/*!
 * \brief The array a DLManagedTensor describes, sharing its memory.
 *  release says who owns t: with a function, the array takes t over and release(t) runs once
 *  the array and every operation using it are done; empty, the producer keeps t (and must
 *  keep it alive as long as the array). A tensor made by Export hands back the original array
 *  (one engine variable, so reads and writes stay ordered), and is released at once when
 *  taken over. Any other tensor must be a compact CPU tensor. Throws dmlc::Error on what it
 *  cannot import, naming what was expected.
 */
NDArray Import(DLManagedTensor* t, std::function<void(DLManagedTensor*)> release);

/*! \brief DLPack device type and id of a context (kDLCUDA for GPUs, else kDLCPU). */
DLDevice DeviceOf(const Context& ctx);

}  // namespace dlpack
}  // namespace mxnet

#endif  // MXNET_NDARRAY_NDARRAY_DLPACK_H_
