// Tests of MXCustomOpRegister: a custom operator written against the C callback lists runs
// forward, backward (with its declared dependencies) and reports callback failures.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "mxnet/c_api.h"

namespace {

std::atomic<int> g_props_alive{0};
std::atomic<int> g_ops_alive{0};
std::atomic<bool> g_fail_forward{false};
std::atomic<int> g_backward_tags_ok{0};

using Generic = int (*)(void);

struct ScaleOp {
  float factor;
  Generic callbacks[3];
  void* contexts[3];
};

struct ScaleProp {
  float factor;
  Generic callbacks[7];
  void* contexts[7];
};

int FreeAll(int size, void** ptrs) {
  for (int i = 0; i < size; ++i) MXNDArrayFree(ptrs[i]);
  return 1;
}

size_t NumElements(void* handle) {
  int ndim = 0;
  const int* dims = nullptr;
  MXNDArrayGetShapeEx(handle, &ndim, &dims);
  size_t n = 1;
  for (int i = 0; i < ndim; ++i) n *= static_cast<size_t>(dims[i]);
  return n;
}

// y = factor * x; then dx = factor * dy. Raw pointers are safe: these arrays have no
// pending engine work of their own while the callback runs.
void Scale(void* from, void* to, float factor) {
  void* src = nullptr;
  void* dst = nullptr;
  MXNDArrayGetData(from, &src);
  MXNDArrayGetData(to, &dst);
  for (size_t i = 0; i < NumElements(from); ++i) {
    static_cast<float*>(dst)[i] = static_cast<float*>(src)[i] * factor;
  }
}

int Forward(int size, void** ptrs, int* tags, const int* reqs, const int, void* state) {
  const auto* op = static_cast<ScaleOp*>(state);
  if (g_fail_forward || size != 2 || tags[0] != 0 || tags[1] != 1 || reqs[0] != 1) {
    FreeAll(size, ptrs);
    return 0;
  }
  Scale(ptrs[0], ptrs[1], op->factor);
  return FreeAll(size, ptrs);
}

int Backward(int size, void** ptrs, int* tags, const int*, const int, void* state) {
  const auto* op = static_cast<ScaleOp*>(state);
  // out_grad, in_data, out_data, in_grad; only out_grad was declared.
  if (size == 4 && tags[0] == 3 && tags[1] == 0 && tags[2] == 1 && tags[3] == 2) {
    ++g_backward_tags_ok;
  }
  Scale(ptrs[0], ptrs[size - 1], op->factor);
  return FreeAll(size, ptrs);
}

int OpDelete(void* state) {
  delete static_cast<ScaleOp*>(state);
  --g_ops_alive;
  return 1;
}

int ListArguments(char*** out, void*) {
  static const char* names[] = {"data", nullptr};
  *out = const_cast<char**>(names);
  return 1;
}
int ListOutputs(char*** out, void*) {
  static const char* names[] = {"output", nullptr};
  *out = const_cast<char**>(names);
  return 1;
}
int ListAux(char*** out, void*) {
  static const char* names[] = {nullptr};
  *out = const_cast<char**>(names);
  return 1;
}

int InferShape(int num, int* ndims, int** shapes, void*) {
  if (num != 2) return 0;
  ndims[1] = ndims[0];  // the output has the argument's shape (its buffer outlives the call)
  shapes[1] = shapes[0];
  return 1;
}

int BackwardDependency(const int* out_grad, const int*, const int*, int* num_deps, int** deps,
                       void*) {
  static thread_local int ids[1];
  ids[0] = out_grad[0];
  *num_deps = 1;
  *deps = ids;
  return 1;
}

int CreateOperator(const char* ctx, int num_inputs, unsigned**, const int*, const int*,
                   MXCallbackList* ret, void* state) {
  if (std::string(ctx) != "cpu(0)" || num_inputs != 1) return 0;
  auto* op = new ScaleOp{static_cast<ScaleProp*>(state)->factor, {}, {}};
  ++g_ops_alive;
  op->callbacks[kCustomOpDelete] = reinterpret_cast<Generic>(OpDelete);
  op->callbacks[kCustomOpForward] = reinterpret_cast<Generic>(Forward);
  op->callbacks[kCustomOpBackward] = reinterpret_cast<Generic>(Backward);
  for (void*& c : op->contexts) c = op;
  *ret = MXCallbackList{3, op->callbacks, op->contexts};
  return 1;
}

int PropDelete(void* state) {
  delete static_cast<ScaleProp*>(state);
  --g_props_alive;
  return 1;
}

int CreateProp(const char*, const int num_kwargs, const char** keys, const char** values,
               MXCallbackList* ret) {
  float factor = 1.0f;
  for (int i = 0; i < num_kwargs; ++i) {
    if (std::string(keys[i]) == "factor") factor = std::stof(values[i]);
  }
  auto* prop = new ScaleProp{factor, {}, {}};
  ++g_props_alive;
  prop->callbacks[kCustomOpPropDelete] = reinterpret_cast<Generic>(PropDelete);
  prop->callbacks[kCustomOpPropListArguments] = reinterpret_cast<Generic>(ListArguments);
  prop->callbacks[kCustomOpPropListOutputs] = reinterpret_cast<Generic>(ListOutputs);
  prop->callbacks[kCustomOpPropListAuxiliaryStates] = reinterpret_cast<Generic>(ListAux);
  prop->callbacks[kCustomOpPropInferShape] = reinterpret_cast<Generic>(InferShape);
  prop->callbacks[kCustomOpPropDeclareBackwardDependency] =
      reinterpret_cast<Generic>(BackwardDependency);
  prop->callbacks[kCustomOpPropCreateOperator] = reinterpret_cast<Generic>(CreateOperator);
  for (void*& c : prop->contexts) c = prop;
  *ret = MXCallbackList{7, prop->callbacks, prop->contexts};  // no infer_type: elementwise
  return 1;
}

NDArrayHandle Array(const std::vector<float>& values) {
  mx_uint shape[] = {static_cast<mx_uint>(values.size())};
  NDArrayHandle h = nullptr;
  EXPECT_EQ(MXNDArrayCreateEx(shape, 1, 1, 0, 0, 0, &h), 0);
  EXPECT_EQ(MXNDArraySyncCopyFromCPU(h, values.data(), values.size()), 0);
  return h;
}

std::vector<float> Values(NDArrayHandle h, size_t n) {
  std::vector<float> v(n);
  EXPECT_EQ(MXNDArraySyncCopyToCPU(h, v.data(), n), 0) << MXGetLastError();
  return v;
}

// Runs Custom(x, op_type=c_scale, factor=3); returns the output handle (or NULL on error).
NDArrayHandle InvokeScale(NDArrayHandle x) {
  OpHandle custom = nullptr;
  EXPECT_EQ(NNGetOpHandle("Custom", &custom), 0);
  const char* keys[] = {"op_type", "factor"};
  const char* vals[] = {"c_scale", "3"};
  int num_out = 0;
  NDArrayHandle* outs = nullptr;
  if (MXImperativeInvoke(custom, 1, &x, &num_out, &outs, 2, keys, vals) != 0) return nullptr;
  EXPECT_EQ(num_out, 1);
  return outs[0];
}

bool EventuallyZero(const std::atomic<int>& n) {
  for (int i = 0; i < 500 && n.load() != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return n.load() == 0;
}

TEST(CustomOpCApi, forward_backward_and_failures_through_callback_lists) {
  ASSERT_EQ(MXCustomOpRegister("c_scale", CreateProp), 0) << MXGetLastError();

  NDArrayHandle x = Array({1, 2, 3, 4});
  NDArrayHandle y = InvokeScale(x);
  ASSERT_NE(y, nullptr) << MXGetLastError();
  EXPECT_EQ(Values(y, 4), (std::vector<float>{3, 6, 9, 12}));

  // Autograd: only out_grad is declared, so in_data and out_data come as none arrays.
  NDArrayHandle grad = Array({0, 0, 0, 0});
  mx_uint req = 1;
  ASSERT_EQ(MXAutogradMarkVariables(1, &x, &req, &grad), 0) << MXGetLastError();
  ASSERT_EQ(MXAutogradSetIsRecording(1, nullptr), 0);
  NDArrayHandle y2 = InvokeScale(x);
  ASSERT_EQ(MXAutogradSetIsRecording(0, nullptr), 0);
  ASSERT_NE(y2, nullptr) << MXGetLastError();
  ASSERT_EQ(MXAutogradBackwardEx(1, &y2, nullptr, 0, nullptr, 0, 0, 1, nullptr, nullptr), 0)
      << MXGetLastError();
  EXPECT_EQ(Values(grad, 4), (std::vector<float>{3, 3, 3, 3}));
  EXPECT_EQ(g_backward_tags_ok.load(), 1);

  // A failing callback surfaces at the wait, naming the operator and the callback.
  g_fail_forward = true;
  NDArrayHandle y3 = InvokeScale(x);
  ASSERT_NE(y3, nullptr) << MXGetLastError();
  EXPECT_EQ(MXNDArrayWaitToRead(y3), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("c_scale.forward"), std::string::npos)
      << MXGetLastError();
  g_fail_forward = false;

  for (NDArrayHandle h : {x, y, grad, y2, y3}) MXNDArrayFree(h);
  MXNDArrayWaitAll();
  // Every prop and operator instance is handed back through its delete callback.
  EXPECT_TRUE(EventuallyZero(g_ops_alive)) << g_ops_alive.load() << " operators alive";
  EXPECT_TRUE(EventuallyZero(g_props_alive)) << g_props_alive.load() << " props alive";
}

TEST(CustomOpCApi, unknown_op_type_fails_naming_it) {
  NDArrayHandle x = Array({1});
  OpHandle custom = nullptr;
  ASSERT_EQ(NNGetOpHandle("Custom", &custom), 0);
  const char* keys[] = {"op_type"};
  const char* vals[] = {"no_such_custom_op"};
  int num_out = 0;
  NDArrayHandle* outs = nullptr;
  EXPECT_EQ(MXImperativeInvoke(custom, 1, &x, &num_out, &outs, 1, keys, vals), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("no_such_custom_op"), std::string::npos);
  EXPECT_EQ(MXCustomOpRegister(nullptr, CreateProp), -1);
  MXNDArrayFree(x);
}

}  // namespace
