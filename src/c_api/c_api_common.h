// Shared machinery of the C API: the thread-local last error, API_BEGIN/API_END, handle checks.
#ifndef MXNET_C_API_C_API_COMMON_H_
#define MXNET_C_API_C_API_COMMON_H_

#include <dmlc/logging.h>

#include <exception>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "mxnet/c_api.h"
#include "mxnet/ndarray.h"
#include "nnvm/pass.h"
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

/*! \brief The context of a C API (dev_type, dev_id) pair; fails on an unknown device type. */
inline Context MakeCtx(int dev_type, int dev_id) {
  if (dev_type != Context::kCPU && dev_type != Context::kGPU &&
      dev_type != Context::kCPUPinned && dev_type != Context::kCPUShared) {
    Fail("unknown device type " + std::to_string(dev_type) +
         " (expected 1 cpu, 2 gpu, 3 cpu_pinned or 5 cpu_shared)");
  }
  return Context(static_cast<Context::DeviceType>(dev_type), dev_id);
}

/*! \brief Shapes by name from a C API's CSR triple: names[i] has the legacy shape
 *  data[idx[i] .. idx[i + 1]) (a dim of 0 unknown). */
template <typename DimT>
std::map<std::string, TShape> ShapesFrom(uint32_t n, const char** names, const DimT* data,
                                         const uint32_t* idx) {
  std::map<std::string, TShape> shapes;
  if (n == 0) return shapes;
  RequireNonNull(names, "shapes", "names");
  RequireNonNull(idx, "shapes", "index pointer");
  for (uint32_t i = 0; i < n; ++i) {
    RequireNonNull(names[i], "shapes", "name");
    if (idx[i + 1] < idx[i]) {
      Fail("shape of '" + std::string(names[i]) + "': index pointer decreases (" +
           std::to_string(idx[i]) + " then " + std::to_string(idx[i + 1]) + ")");
    }
    if (idx[i + 1] > idx[i]) RequireNonNull(data, "shapes", "shape data");
    std::vector<dim_t> dims(data + idx[i], data + idx[i + 1]);
    shapes[names[i]] = nnvm::ShapeFromLegacy(TShape(dims.begin(), dims.end()));
  }
  return shapes;
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
