// group2ctx through the executor C API (MXExecutorBindX, MXExecutorSimpleBindEx): nodes run
// on their ctx_group's context, arrays of grouped variables live there, the printed plan
// shows the copy node.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mxnet/c_api.h"
#include "mxnet/ndarray.h"
#include "nnvm/node.h"
#include "nnvm/symbol.h"

namespace {

using mxnet::Context;
using mxnet::NDArray;

// a (group g1) -> e = exp(a) in g1 -> m = e * b in g2
nnvm::Symbol TwoGroups() {
  auto a = nnvm::CreateVariableNode("a");
  auto b = nnvm::CreateVariableNode("b");
  a->attrs.dict["__ctx_group__"] = "g1";
  b->attrs.dict["__ctx_group__"] = "g2";
  auto e = nnvm::CreateNode("exp", "e", {{a, 0, 0}});
  e->attrs.dict["__ctx_group__"] = "g1";
  auto m = nnvm::CreateNode("elemwise_mul", "m", {{e, 0, 0}, {b, 0, 0}});
  m->attrs.dict["__ctx_group__"] = "g2";
  return nnvm::Symbol{{{m, 0, 0}}};
}

NDArray* Filled(const Context& ctx, float x) {
  auto* a = new NDArray(mxnet::TShape({2, 2}), ctx);
  std::vector<float> v(4, x);
  a->SyncCopyFromCPU(v.data(), v.size());
  return a;
}

TEST(ExecutorGroup2CtxCApi, bindx_runs_nodes_on_their_group_context) {
  nnvm::Symbol sym = TwoGroups();
  const char* keys[] = {"g1", "g2"};
  int dev_types[] = {1, 1}, dev_ids[] = {1, 2};
  NDArrayHandle args[] = {Filled(Context::CPU(1), 0.0f), Filled(Context::CPU(2), 3.0f)};
  ExecutorHandle ex = nullptr;
  ASSERT_EQ(MXExecutorBindX(&sym, 1, 0, 2, keys, dev_types, dev_ids, 2, args, nullptr, nullptr,
                            0, nullptr, &ex),
            0)
      << MXGetLastError();
  ASSERT_EQ(MXExecutorForward(ex, 0), 0) << MXGetLastError();
  uint32_t n_out = 0;
  NDArrayHandle* outs = nullptr;
  ASSERT_EQ(MXExecutorOutputs(ex, &n_out, &outs), 0);
  auto* out = static_cast<NDArray*>(outs[0]);
  EXPECT_EQ(out->ctx(), Context::CPU(2));
  std::vector<float> v(4);
  out->SyncCopyToCPU(v.data(), 4);
  EXPECT_EQ(v, std::vector<float>(4, 3.0f));  // exp(0) * 3
  const char* text = nullptr;
  ASSERT_EQ(MXExecutorPrint(ex, &text), 0);
  EXPECT_NE(std::string(text).find("Op:_CrossDeviceCopy, Name=e_0_copy"), std::string::npos);
  delete out;
  for (NDArrayHandle h : args) delete static_cast<NDArray*>(h);
  EXPECT_EQ(MXExecutorFree(ex), 0);
  // without the map, arrays off the bind context are refused (MXNet 1.9.1)
  NDArrayHandle off[] = {Filled(Context::CPU(1), 0.0f), Filled(Context::CPU(0), 3.0f)};
  EXPECT_NE(MXExecutorBindX(&sym, 1, 0, 0, nullptr, nullptr, nullptr, 2, off, nullptr, nullptr,
                            0, nullptr, &ex),
            0);
  EXPECT_NE(std::string(MXGetLastError()).find("global context"), std::string::npos);
  for (NDArrayHandle h : off) delete static_cast<NDArray*>(h);
}

TEST(ExecutorGroup2CtxCApi, simple_bind_places_grouped_arrays) {
  nnvm::Symbol sym = TwoGroups();
  const char* keys[] = {"g1", "g2"};
  int dev_types[] = {1, 1}, dev_ids[] = {3, 4};
  const char* shape_names[] = {"a", "b"};
  int shape_data[] = {2, 2, 2, 2};
  uint32_t shape_idx[] = {0, 2, 4};
  const char* req_types[] = {"write"};
  int buffer_len = -1;
  uint32_t n_args = 0, n_aux = 0;
  NDArrayHandle *args = nullptr, *grads = nullptr, *aux = nullptr;
  ExecutorHandle ex = nullptr;
  ASSERT_EQ(MXExecutorSimpleBindEx(&sym, 1, 0, 2, keys, dev_types, dev_ids, 0, nullptr,
                                   req_types, 2, shape_names, shape_data, shape_idx, 0, nullptr,
                                   nullptr, 0, nullptr, nullptr, 0, nullptr, &buffer_len, nullptr,
                                   nullptr, nullptr, nullptr, &n_args, &args, &grads, &n_aux,
                                   &aux, nullptr, &ex),
            0)
      << MXGetLastError();
  ASSERT_EQ(n_args, 2u);
  EXPECT_EQ(static_cast<NDArray*>(args[0])->ctx(), Context::CPU(3));
  EXPECT_EQ(static_cast<NDArray*>(grads[0])->ctx(), Context::CPU(3));
  EXPECT_EQ(static_cast<NDArray*>(args[1])->ctx(), Context::CPU(4));
  for (uint32_t i = 0; i < n_args; ++i) {
    delete static_cast<NDArray*>(args[i]);
    delete static_cast<NDArray*>(grads[i]);
  }
  EXPECT_EQ(MXExecutorFree(ex), 0);
}

}  // namespace
