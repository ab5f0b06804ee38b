// oneDNN's switch, cache bound, engine and per-thread streams.
#include "operator/nn/onednn/onednn_base.h"

#include "common/env.h"

namespace mxnet {
namespace op {
namespace onednn {

bool Enabled() {
#if MXNET_USE_ONEDNN
  if (env::IsSet("MXNET_ONEDNN_ENABLED")) return env::GetBool("MXNET_ONEDNN_ENABLED");
  return env::GetBool("MXNET_MKLDNN_ENABLED");
#else
  return false;
#endif
}

int64_t CacheCapacity() {
  if (env::IsSet("MXNET_ONEDNN_CACHE_NUM")) return env::GetInt("MXNET_ONEDNN_CACHE_NUM");
  return env::GetInt("MXNET_MKLDNN_CACHE_NUM");
}

#if MXNET_USE_ONEDNN
const dnnl::engine& CpuEngine() {
  static const dnnl::engine* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

dnnl::stream& ThreadStream() {
  thread_local dnnl::stream stream(CpuEngine());
  return stream;
}
#endif

}  // namespace onednn
}  // namespace op
}  // namespace mxnet
