// Tests of src/imperative/imperative.cc: a queued kernel stays valid while operators are
// registered at run time.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mxnet/engine.h"
#include "mxnet/imperative.h"
#include "operator/operator_common.h"

namespace mxnet {
namespace {

void TimesTwo(const nnvm::NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
              const std::vector<OpReqType>&, const std::vector<TBlob>& out) {
  const float* a = in[0].dptr<float>();
  float* b = out[0].dptr<float>();
  for (size_t i = 0; i < in[0].Size(); ++i) b[i] = 2 * a[i];
}

nnvm::Op& DeclareTimesTwo(const std::string& name) {
  nnvm::Op& op = nnvm::Op::Register(name);
  op.set_num_inputs(1).set_num_outputs(1);
  op.set_attr<FInferShape>("FInferShape", op::ElemwiseShape);
  op.set_attr<FInferType>("FInferType", op::ElemwiseType);
  op.set_attr<FCompute>("FCompute<cpu>", TimesTwo);
  return op;
}

// The kernel used to be captured as a pointer into the FCompute<cpu> map, whose storage
// registering attributes reallocates: a kernel still queued then called freed memory (an
// AddressSanitizer build, tools/asan_check.sh, reports it as heap-use-after-free).
TEST(Imperative, queued_kernel_survives_attribute_registration) {
  const char* engine = std::getenv("MXNET_ENGINE_TYPE");
  if (engine != nullptr && std::strstr(engine, "Naive") != nullptr) {
    GTEST_SKIP() << "needs a threaded engine to hold the kernel in the queue";
  }
  static const nnvm::Op* op = &DeclareTimesTwo("_test_queued_times_two");
  NDArray x(TShape({4}), Context::CPU());
  std::vector<float> v{1, 2, 3, 4};
  x.SyncCopyFromCPU(v.data(), v.size());
  std::atomic<bool> release{false};
  Engine::Get()->PushSync([&](RunContext) {
    while (!release.load()) {
    }
  }, Context::CPU(), {}, {x.var()});
  std::vector<NDArray> out;
  Imperative::Get()->Invoke(Context::CPU(), Imperative::ParseAttrs(op, {}), {&x}, &out);
  for (int i = 0; i < 300; ++i) DeclareTimesTwo("_test_realloc_times_two_" + std::to_string(i));
  release.store(true);
  std::vector<float> got(4);
  out[0].SyncCopyToCPU(got.data(), got.size());
  EXPECT_EQ(got, (std::vector<float>{2, 4, 6, 8}));
}

}  // namespace
}  // namespace mxnet
