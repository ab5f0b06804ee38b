// Shared machinery of the C API: the thread-local last error, API_BEGIN/API_END, handle checks.
#ifndef MXNET_C_API_C_API_COMMON_H_
#define MXNET_C_API_C_API_COMMON_H_

#include <dmlc/logging.h>

#include <exception>
#include <sstream>
#include <string>

#include "mxnet/c_api.h"
#include "mxnet/ndarray.h"
#include "profiler/profiler.h"

namespace nnvm {
class Op;
}

namespace mxnet {
namespace c_api {

/*! \brief Store msg as the calling thread's last error; returns -1 for `return`. */
int SetLastError(const char* msg);

/*! \brief Throw dmlc::Error with the text streamed into a message. */
[[noreturn]] inline void Fail(const std::string& msg) { throw dmlc::Error(msg); }

/*! \brief The NDArray behind a handle; fails naming the function and argument when NULL. */
inline NDArray* ArrayFromHandle(NDArrayHandle h, const char* fn, const char* arg) {
  if (h == nullptr) Fail(std::string(fn) + ": argument " + arg + " is NULL (expected an NDArray handle)");
  return static_cast<NDArray*>(h);
}

/*! \brief The op behind an AtomicSymbolCreator / OpHandle; fails (naming fn) unless it is a
 *  registered operator. */
const nnvm::Op* OpFromHandle(const void* creator, const char* fn);

/*! \brief Check that an out-parameter or array argument is not NULL. */
inline void RequireNonNull(const void* p, const char* fn, const char* arg) {
  if (p == nullptr) Fail(std::string(fn) + ": argument " + arg + " is NULL");
}

}  // namespace c_api
}  // namespace mxnet

/*! \brief Fail with a streamed message unless cond holds: API_CHECK(n > 0, "fn: n is " << n). */
#define API_CHECK(cond, msg_stream)                    \
  do {                                                 \
    if (!(cond)) {                                     \
      std::ostringstream api_check_os_;                \
      api_check_os_ << msg_stream;                     \
      ::mxnet::c_api::Fail(api_check_os_.str());       \
    }                                                  \
  } while (0)

/*! \brief The NDArray* of handle argument h of the current C function (fails when NULL). */
#define API_ARRAY(h) ::mxnet::c_api::ArrayFromHandle((h), __func__, #h)
/*! \brief Fail when pointer argument p of the current C function is NULL. */
#define API_NOT_NULL(p) ::mxnet::c_api::RequireNonNull((p), __func__, #p)

/*! \brief Every C function body sits between API_BEGIN() and API_END(): exceptions become -1.
 *  The call is timed for the profiler when it records API calls (one branch otherwise). */
#define API_BEGIN() \
  try {             \
    ::mxnet::profiler::ApiCallScope api_call_scope_(__func__);
#define API_END()                                                  \
  }                                                                \
  catch (const dmlc::Error& e) {                                   \
    return ::mxnet::c_api::SetLastError(e.what());                 \
  }                                                                \
  catch (const std::exception& e) {                                \
    return ::mxnet::c_api::SetLastError(e.what());                 \
  }                                                                \
  catch (...) {                                                    \
    return ::mxnet::c_api::SetLastError("unknown C++ exception");  \
  }                                                                \
  return 0;

#endif  // MXNET_C_API_C_API_COMMON_H_
