// Autograd rules that protect recorded graphs: unreachable variables, writes into recorded
// arrays, in-place ops while recording, and the fresh-gradient flag.
#include <gtest/gtest.h>

#include <dmlc/logging.h>

#include <memory>
#include <vector>

#include "mxnet/imperative.h"

namespace mxnet {
namespace {

NDArray Filled(float v, int n = 3) {
  NDArray a(TShape({n}), Context::CPU(), false, kFloat32);
  std::vector<float> host(n, v);
  a.SyncCopyFromCPU(host.data(), host.size());
  return a;
}

float First(const NDArray& a) {
  std::vector<float> host(a.shape().Size());
  a.SyncCopyToCPU(host.data(), host.size());
  return host[0];
}

/*! \brief Runs op on inputs, into out when given (as out= does). */
NDArray InvokeOp(const char* op, std::vector<NDArray*> in, NDArray* out = nullptr) {
  auto attrs = Imperative::ParseAttrs(nnvm::Op::GetOrThrow(op), {});
  std::vector<NDArray> outs;
  if (out != nullptr) outs.push_back(*out);
  Imperative::Get()->Invoke(Context::CPU(), attrs, in, &outs);
  if (out != nullptr) out->set_entry(outs[0].entry());
  return outs[0];
}

class AutogradTest : public ::testing::Test {
 protected:
  void SetUp() override { prev_ = Imperative::Get()->set_is_recording(true); }
  void TearDown() override { Imperative::Get()->set_is_recording(prev_); }
  void Mark(NDArray* var, NDArray* grad) {
    Imperative::Get()->MarkVariables({var}, {kGradWrite}, {grad});
  }
  bool prev_{false};
};

TEST_F(AutogradTest, grad_of_unreachable_variable_raises) {
  NDArray x = Filled(1), z = Filled(1), gx = Filled(0), gz = Filled(0);
  Mark(&x, &gx);
  Mark(&z, &gz);
  NDArray y = InvokeOp("negative", {&x});
  EXPECT_THROW(Imperative::Get()->Backward({&y}, {}, {&z}, true, true, false), dmlc::Error);
  std::vector<NDArray> g = Imperative::Get()->Backward({&y}, {}, {&x}, true, false, false);
  EXPECT_EQ(First(g[0]), -1.0f);
}

TEST_F(AutogradTest, writing_into_recorded_array_raises_and_keeps_its_value) {
  NDArray x = Filled(2), w = Filled(3), gw = Filled(0);
  Mark(&w, &gw);
  NDArray y = InvokeOp("elemwise_mul", {&x, &w});
  EXPECT_THROW(InvokeOp("elemwise_add", {&x, &w}, &y), dmlc::Error);  // y is in the graph
  EXPECT_EQ(First(y), 6.0f);
  EXPECT_THROW(InvokeOp("elemwise_add", {&x, &w}, &x), dmlc::Error);  // x += w while recording
  EXPECT_EQ(First(x), 2.0f);
}

TEST_F(AutogradTest, fresh_grad_is_set_by_backward_and_cleared_by_caller) {
  NDArray x = Filled(1), gx = Filled(0), plain = Filled(1);
  Mark(&x, &gx);
  EXPECT_FALSE(Imperative::Get()->GetFreshGrad(x));
  NDArray y = InvokeOp("negative", {&x});
  Imperative::Get()->Backward({&y}, {}, {}, true, false, false);
  EXPECT_TRUE(Imperative::Get()->GetFreshGrad(x));
  Imperative::Get()->SetFreshGrad(x, false);
  EXPECT_FALSE(Imperative::Get()->GetFreshGrad(x));
  EXPECT_FALSE(Imperative::Get()->GetFreshGrad(plain));
  EXPECT_THROW(Imperative::Get()->SetFreshGrad(plain, true), dmlc::Error);
}

}  // namespace
}  // namespace mxnet
