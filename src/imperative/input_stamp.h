// Content stamps of the inputs of the kernel call running on this thread, for kernels that
// cache work derived from an input (oneDNN's reordered convolution weights).
#ifndef MXNET_IMPERATIVE_INPUT_STAMP_H_
#define MXNET_IMPERATIVE_INPUT_STAMP_H_

#include <cstdint>

namespace mxnet {
namespace imperative {

/*!
 * \brief A stamp of the current content of the running call's input whose data starts at
 * dptr: two calls see equal stamps only when that array was not written in between (the
 * engine variable's version, unique across variables). 0 when dptr is no input of a call
 * running on this thread: then nothing may be cached.
 */
uint64_t InputContentStamp(const void* dptr);

}  // namespace imperative
}  // namespace mxnet

#endif  // MXNET_IMPERATIVE_INPUT_STAMP_H_
