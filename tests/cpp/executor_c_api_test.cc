// The executor and cached-op C API on a small graph: simple_bind, forward, backward with
// grad_req add, outputs as new handles, and a cached op invoked like an operator.
#include <gtest/gtest.h>

#include <vector>

#include "mxnet/c_api.h"
#include "mxnet/ndarray.h"
#include "nnvm/node.h"
#include "nnvm/symbol.h"

namespace {

using mxnet::NDArray;

nnvm::Symbol ScaledSum() {  // out = (a + b) * b
  auto a = nnvm::CreateVariableNode("a");
  auto b = nnvm::CreateVariableNode("b");
  auto add = nnvm::CreateNode("elemwise_add", "add", {{a, 0, 0}, {b, 0, 0}});
  auto mul = nnvm::CreateNode("elemwise_mul", "mul", {{add, 0, 0}, {b, 0, 0}});
  return nnvm::Symbol{{{mul, 0, 0}}};
}

std::vector<float> Values(NDArrayHandle h) {
  auto* a = static_cast<NDArray*>(h);
  std::vector<float> v(a->shape().Size());
  a->SyncCopyToCPU(v.data(), v.size());
  return v;
}

void Fill(NDArrayHandle h, float x) {
  auto* a = static_cast<NDArray*>(h);
  std::vector<float> v(a->shape().Size(), x);
  a->SyncCopyFromCPU(v.data(), v.size());
}

TEST(ExecutorCApi, simple_bind_forward_backward_with_add) {
  nnvm::Symbol sym = ScaledSum();
  const char* shape_names[] = {"a"};
  int shape_data[] = {2, 3};
  uint32_t shape_idx[] = {0, 2};
  const char* req_names[] = {"a", "b"};
  const char* req_types[] = {"write", "add"};
  int buffer_len = -1;
  uint32_t n_args = 0, n_aux = 0;
  NDArrayHandle *args = nullptr, *grads = nullptr, *aux = nullptr;
  ExecutorHandle ex = nullptr;
  ASSERT_EQ(MXExecutorSimpleBindEx(&sym, 1, 0, 0, nullptr, nullptr, nullptr, 2, req_names,
                                   req_types, 1, shape_names, shape_data, shape_idx, 0, nullptr,
                                   nullptr, 0, nullptr, nullptr, 0, nullptr, &buffer_len, nullptr,
                                   nullptr, nullptr, nullptr, &n_args, &args, &grads, &n_aux,
                                   &aux, nullptr, &ex),
            0)
      << MXGetLastError();
  ASSERT_EQ(n_args, 2u);
  EXPECT_EQ(n_aux, 0u);
  std::vector<NDArrayHandle> a(args, args + 2), g(grads, grads + 2);
  Fill(a[0], 1.0f);
  Fill(a[1], 2.0f);
  ASSERT_EQ(MXExecutorForward(ex, 1), 0) << MXGetLastError();
  uint32_t n_out = 0;
  NDArrayHandle* outs = nullptr;
  ASSERT_EQ(MXExecutorOutputs(ex, &n_out, &outs), 0);
  ASSERT_EQ(n_out, 1u);
  NDArrayHandle out = outs[0];
  EXPECT_EQ(Values(out), std::vector<float>(6, 6.0f));
  NDArrayHandle head = new NDArray(static_cast<NDArray*>(out)->shape(), mxnet::Context::CPU());
  Fill(head, 1.0f);
  for (int i = 0; i < 2; ++i) ASSERT_EQ(MXExecutorBackward(ex, 1, &head), 0) << MXGetLastError();
  EXPECT_EQ(Values(g[0]), std::vector<float>(6, 2.0f));   // d/da = b, written
  EXPECT_EQ(Values(g[1]), std::vector<float>(6, 10.0f));  // d/db = a + 2b, added twice
  EXPECT_NE(MXExecutorBackward(ex, 0, nullptr), 0);  // not a loss: head gradient needed
  const char* text = nullptr;
  ASSERT_EQ(MXExecutorPrint(ex, &text), 0);
  EXPECT_NE(std::string(text).find("elemwise_mul"), std::string::npos);
  for (NDArrayHandle h : {a[0], a[1], g[0], g[1], out, head}) delete static_cast<NDArray*>(h);
  EXPECT_EQ(MXExecutorFree(ex), 0);
}

TEST(ExecutorCApi, cached_op_runs_the_graph) {
  nnvm::Symbol sym = ScaledSum();
  const char* keys[] = {"static_alloc"};
  const char* vals[] = {"true"};
  CachedOpHandle op = nullptr;
  ASSERT_EQ(MXCreateCachedOpEx(&sym, 1, keys, vals, &op), 0) << MXGetLastError();
  NDArray x(mxnet::TShape({4}), mxnet::Context::CPU()), y(mxnet::TShape({4}), mxnet::Context::CPU());
  Fill(&x, 3.0f);
  Fill(&y, 0.5f);
  NDArrayHandle in[] = {&x, &y};
  int n_out = 0;
  NDArrayHandle* outs = nullptr;
  ASSERT_EQ(MXInvokeCachedOp(op, 2, in, &n_out, &outs), 0) << MXGetLastError();
  ASSERT_EQ(n_out, 1);
  EXPECT_EQ(Values(outs[0]), std::vector<float>(4, 1.75f));
  delete static_cast<NDArray*>(outs[0]);
  EXPECT_NE(MXInvokeCachedOp(op, 1, in, &n_out, &outs), 0);
  EXPECT_NE(std::string(MXGetLastError()).find("2 inputs expected"), std::string::npos);
  EXPECT_EQ(MXFreeCachedOp(op), 0);
}

}  // namespace
