// C API, process-wide state: last error, version, features, seeds, engine knobs, environment,
// shutdown.
#include <cstdlib>
#include <string>
#include <vector>

#include "c_api/c_api_common.h"
#include "common/env.h"
#include "mxnet/engine.h"
#include "mxnet/imperative.h"
#include "mxnet/libinfo.h"

namespace mxnet {
namespace c_api {
namespace {
thread_local std::string tls_last_error;
}  // namespace

int SetLastError(const char* msg) {
  tls_last_error = msg;
  return -1;
}

}  // namespace c_api
}  // namespace mxnet

using namespace mxnet;  // NOLINT(build/namespaces)

const char* MXGetLastError(void) { return c_api::tls_last_error.c_str(); }

int MXGetVersion(int* out) {
  API_BEGIN();
  API_NOT_NULL(out);
  *out = MXNET_VERSION;
  API_END();
}

int MXLibInfoFeatures(const struct LibFeature** libFeature, size_t* size) {
  API_BEGIN();
  API_NOT_NULL(libFeature);
  API_NOT_NULL(size);
  static const std::vector<LibFeature> features = [] {
    std::vector<LibFeature> v;
    for (const LibFeatureInfo& f : LibFeatures()) v.push_back(LibFeature{f.name, f.enabled});
    return v;
  }();
  *libFeature = features.data();
  *size = features.size();
  API_END();
}

int MXRandomSeed(int seed) {
  API_BEGIN();
  Imperative::Get()->SeedRandom(static_cast<uint64_t>(static_cast<uint32_t>(seed)), nullptr);
  API_END();
}

int MXRandomSeedContext(int seed, int dev_type, int dev_id) {
  API_BEGIN();
  API_CHECK(dev_type == Context::kCPU || dev_type == Context::kGPU ||
                dev_type == Context::kCPUPinned || dev_type == Context::kCPUShared,
            "MXRandomSeedContext: argument dev_type expected 1 (cpu), 2 (gpu), 3 (cpu_pinned) "
            "or 5 (cpu_shared), given " << dev_type);
  API_CHECK(dev_id >= 0, "MXRandomSeedContext: argument dev_id must be >= 0, given " << dev_id);
  Context ctx(static_cast<Context::DeviceType>(dev_type), dev_id);
  Imperative::Get()->SeedRandom(static_cast<uint64_t>(static_cast<uint32_t>(seed)), &ctx);
  API_END();
}

int MXNotifyShutdown(void) {
  API_BEGIN();
  Engine::Get()->NotifyShutdown();
  API_END();
}

int MXSetNumOMPThreads(int thread_num) {
  API_BEGIN();
  API_CHECK(thread_num > 0, "MXSetNumOMPThreads: argument thread_num must be positive, given "
                                << thread_num);
  SetNumOMPThreads(thread_num);
  API_END();
}

int MXEngineSetBulkSize(int bulk_size, int* prev_bulk_size) {
  API_BEGIN();
  API_CHECK(bulk_size >= 0, "MXEngineSetBulkSize: argument bulk_size must be >= 0, given "
                                << bulk_size);
  int prev = Engine::Get()->set_bulk_size(bulk_size);
  if (prev_bulk_size != nullptr) *prev_bulk_size = prev;
  API_END();
}

int MXSetIsNumpyShape(int is_np_shape, int* prev) {
  API_BEGIN();
  int old = Imperative::Get()->set_is_np_shape(is_np_shape);
  if (prev != nullptr) *prev = old;
  API_END();
}

int MXIsNumpyShape(int* curr) {
  API_BEGIN();
  API_NOT_NULL(curr);
  *curr = Imperative::Get()->is_np_shape();
  API_END();
}

int MXGetGPUCount(int* out) {
  API_BEGIN();
  API_NOT_NULL(out);
  *out = GetGPUCount();
  API_END();
}

int MXGetEnv(const char* name, const char** value) {
  API_BEGIN();
  API_NOT_NULL(name);
  API_NOT_NULL(value);
  *value = std::getenv(name);
  API_END();
}

int MXSetEnv(const char* name, const char* value) {
  API_BEGIN();
  API_NOT_NULL(name);
  const int rc = value == nullptr ? unsetenv(name) : setenv(name, value, 1);
  API_CHECK(rc == 0, "MXSetEnv: cannot set environment variable '" << name << "'");
  env::ResetCache();
  API_END();
}
