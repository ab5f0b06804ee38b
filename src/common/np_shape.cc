// The numpy-shape switch: a thread-local flag plus a global one that covers every thread.
#include "common/np_shape.h"

#include <dmlc/logging.h>

#include <atomic>

#include "mxnet/base.h"

namespace mxnet {
namespace common {
namespace {
thread_local bool tls_np_shape = false;
thread_local bool tls_graph_shape_inference = false;
std::atomic<bool> g_np_shape{false};
}  // namespace

int NumpyShapeState() {
  if (g_np_shape.load(std::memory_order_relaxed)) return kNumpyShapeGlobalOn;
  return tls_np_shape ? kNumpyShapeThreadLocalOn : kNumpyShapeOff;
}

int SetNumpyShapeState(int flag) {
  CHECK(flag >= kNumpyShapeOff && flag <= kNumpyShapeGlobalOn)
      << "set_np_shape: argument active expected 0 (off), 1 (this thread) or 2 (all threads), "
      << "given " << flag;
  int old = NumpyShapeState() != kNumpyShapeOff ? 1 : 0;
  // Off clears both switches; GlobalOn sets both, so this thread stays on if it later drops
  // the global switch's reach (as MXNet 1.9.1 does).
  if (flag == kNumpyShapeOff) g_np_shape.store(false, std::memory_order_relaxed);
  if (flag == kNumpyShapeGlobalOn) g_np_shape.store(true, std::memory_order_relaxed);
  tls_np_shape = flag != kNumpyShapeOff;
  return old;
}

bool InGraphShapeInference() { return tls_graph_shape_inference; }

GraphShapeInferenceScope::GraphShapeInferenceScope() : saved_(tls_graph_shape_inference) {
  tls_graph_shape_inference = true;
}

GraphShapeInferenceScope::~GraphShapeInferenceScope() { tls_graph_shape_inference = saved_; }

}  // namespace common
}  // namespace mxnet
