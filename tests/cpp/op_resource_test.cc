// Tests of the resource manager (src/imperative/op_resource.cc): temp space comes from Storage
// through the op's kTempSpace declaration (a large block is shared by the copies), and
// undeclared use fails instead of working by luck.
#include <dmlc/logging.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "mxnet/engine.h"
#include "mxnet/imperative.h"
#include "mxnet/storage.h"
#include "imperative/op_resource.h"
#include "operator/operator_common.h"

namespace mxnet {
namespace {

// Storage bytes in use while the last CopyThroughTempSpace held its temp space.
size_t g_bytes_in_use_during_call = 0;

// out = in, staged through temp space of the input's size.
void CopyThroughTempSpace(const nnvm::NodeAttrs&, const OpContext& ctx,
                          const std::vector<TBlob>& in, const std::vector<OpReqType>&,
                          const std::vector<TBlob>& out) {
  size_t bytes = in[0].Size() * sizeof(float);
  void* tmp = ctx.RequestTempSpace(bytes);
  g_bytes_in_use_during_call = Storage::Get()->BytesInUse(Context::CPU());
  std::memcpy(tmp, in[0].dptr_, bytes);
  std::memcpy(out[0].dptr_, tmp, bytes);
}

const nnvm::Op* TempSpaceOp(const char* name, bool declared) {
  nnvm::Op& op = nnvm::Op::Register(name);
  op.set_num_inputs(1).set_num_outputs(1);
  op.set_attr<FInferShape>("FInferShape", op::ElemwiseShape);
  op.set_attr<FInferType>("FInferType", op::ElemwiseType);
  op.set_attr<FCompute>("FCompute<cpu>", CopyThroughTempSpace);
  if (declared) op.set_attr<FResourceRequest>("FResourceRequest", op::TempSpaceRequest);
  return &op;
}

NDArray Iota(size_t n) {
  NDArray a(TShape({static_cast<dim_t>(n)}), Context::CPU());
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  a.SyncCopyFromCPU(v.data(), n);
  return a;
}

NDArray InvokeOn(const nnvm::Op* op, NDArray* x) {
  std::vector<NDArray> out;
  Imperative::Get()->Invoke(Context::CPU(), Imperative::ParseAttrs(op, {}), {x}, &out);
  out[0].WaitToRead();
  return out[0];
}

TEST(OpResource, declared_temp_space_comes_from_storage_and_the_result_is_right) {
  static const nnvm::Op* op = TempSpaceOp("_test_temp_space_declared", true);
  // 64 MiB of float32: more temp space than any other test in this binary asks for, so the
  // resource manager cannot already hold a large enough block whatever ran before.
  const size_t n = 1 << 24;
  // Small blocks released late by earlier tests' objects may leave the count meanwhile.
  const size_t slack = 4096;
  NDArray x = Iota(n);
  Engine::Get()->WaitForAll();
  size_t before = Storage::Get()->BytesInUse(Context::CPU());
  NDArray y = InvokeOn(op, &x);
  // During the call: the output and the temp space, both counted by Storage.
  EXPECT_GE(g_bytes_in_use_during_call - before + slack, 2 * n * sizeof(float));
  std::vector<float> got(n);
  y.SyncCopyToCPU(got.data(), n);
  for (size_t i = 0; i < n; i += 4097) EXPECT_EQ(got[i], static_cast<float>(i));
}

TEST(OpResource, large_temp_blocks_are_shared_by_the_copies_of_a_device) {
  static const nnvm::Op* op = TempSpaceOp("_test_temp_space_shared", true);
  const size_t n = 1 << 24, slack = 4096;
  NDArray x = Iota(n), half = Iota(n / 2);
  InvokeOn(op, &x);  // the device now keeps one large block of at least 64 MiB
  Engine::Get()->WaitForAll();
  const size_t before = Storage::Get()->BytesInUse(Context::CPU());
  // Five calls, round robin over the MXNET_CPU_TEMP_COPY copies: each takes the kept block
  // (the smallest that fits) instead of a block of its own, so only the outputs are new.
  std::vector<NDArray> outs;
  outs.push_back(InvokeOn(op, &x));
  for (int i = 0; i < 4; ++i) outs.push_back(InvokeOn(op, &half));
  Engine::Get()->WaitForAll();
  const size_t outputs = (n + 4 * (n / 2)) * sizeof(float);
  const size_t after = Storage::Get()->BytesInUse(Context::CPU());
  EXPECT_GE(after + slack, before + outputs);
  EXPECT_LE(after, before + outputs + slack);
  EXPECT_LE(g_bytes_in_use_during_call, before + outputs + slack);
  std::vector<float> got(n / 2);
  outs.back().SyncCopyToCPU(got.data(), n / 2);
  for (size_t i = 0; i < n / 2; i += 4097) EXPECT_EQ(got[i], static_cast<float>(i));
}

TEST(OpResource, undeclared_temp_space_use_is_an_error_naming_the_op) {
  static const nnvm::Op* op = TempSpaceOp("_test_temp_space_undeclared", false);
  NDArray x = Iota(16);
  std::string msg;
  try {
    InvokeOn(op, &x);
  } catch (const dmlc::Error& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("_test_temp_space_undeclared"), std::string::npos) << msg;
  EXPECT_NE(msg.find("kTempSpace"), std::string::npos) << msg;
}

TEST(OpResource, temp_space_resource_carries_an_engine_var) {
  Resource r = RequestResource(Context::CPU(), ResourceRequest::kTempSpace);
  EXPECT_NE(r.var, nullptr);
  EXPECT_NE(r.space, nullptr);
  Resource random = RequestResource(Context::CPU(), ResourceRequest::kRandom);
  EXPECT_EQ(random.var, nullptr);
}

}  // namespace
}  // namespace mxnet
