// The executor's temp spaces (MXNET_EXEC_NUM_TEMP, src/executor/temp_space.cc): nodes of one
// executor run with the temp space it took at bind, imperative calls keep taking the shared
// copies in turn, and TempSpaceScope gives a thread one space for one context only.
#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <vector>

#include "executor/temp_space.h"
#include "imperative/op_resource.h"
#include "mxnet/engine.h"
#include "mxnet/executor.h"
#include "mxnet/imperative.h"
#include "nnvm/graph.h"
#include "operator/operator_common.h"

namespace mxnet {
namespace {

std::mutex g_mu;
std::vector<const void*> g_spaces;  // the temp-space var each call of the op ran with

void RecordTempSpace(const nnvm::NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>&, const std::vector<TBlob>& out) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_spaces.push_back(ctx.requested.at(0).var);
  std::copy(in[0].dptr<float>(), in[0].dptr<float>() + in[0].Size(), out[0].dptr<float>());
}

const nnvm::Op* RecordingOp() {
  static const nnvm::Op* op = [] {
    nnvm::Op& reg = nnvm::Op::Register("_test_exec_temp_space");
    reg.set_num_inputs(1).set_num_outputs(1);
    reg.set_attr<FInferShape>("FInferShape", op::ElemwiseShape);
    reg.set_attr<FInferType>("FInferType", op::ElemwiseType);
    reg.set_attr<FCompute>("FCompute<cpu>", RecordTempSpace);
    reg.set_attr<FResourceRequest>("FResourceRequest", op::TempSpaceRequest);
    return &reg;
  }();
  return op;
}

// x -> op -> op -> op
nnvm::Symbol Chain(int n) {
  nnvm::NodeEntry e(nnvm::CreateVariableNode("x"), 0, 0);
  RecordingOp();
  for (int i = 0; i < n; ++i) {
    e = nnvm::NodeEntry(nnvm::CreateNode("_test_exec_temp_space", "t" + std::to_string(i), {e}),
                        0, 0);
  }
  nnvm::Symbol s;
  s.outputs = {e};
  return s;
}

TEST(ExecTempSpace, executor_nodes_share_the_one_temp_space_it_took) {
  // MXNET_EXEC_NUM_TEMP is 1 by default, MXNET_CPU_TEMP_COPY 4
  NDArray x(TShape({4}), Context::CPU());
  auto ex = Executor::Bind(Chain(3), Context::CPU(), {x}, {}, {}, {});
  g_spaces.clear();
  ex->Forward(false);
  Engine::Get()->WaitForAll();
  ASSERT_EQ(g_spaces.size(), 3u);
  EXPECT_EQ(std::set<const void*>(g_spaces.begin(), g_spaces.end()).size(), 1u);
  // imperative calls of the same op take the device's copies in turn
  g_spaces.clear();
  for (int i = 0; i < 3; ++i) {
    std::vector<NDArray> out;
    NDArray in = x;
    Imperative::Get()->Invoke(Context::CPU(), Imperative::ParseAttrs(RecordingOp(), {}), {&in},
                              &out);
  }
  Engine::Get()->WaitForAll();
  EXPECT_EQ(std::set<const void*>(g_spaces.begin(), g_spaces.end()).size(), 3u);
}

TEST(ExecTempSpace, num_temp_spaces_are_given_in_turn_per_context) {
  nnvm::Symbol s = Chain(5);
  nnvm::IndexedGraph idx(s.outputs);
  std::vector<Context> ctx(idx.num_nodes(), Context::CPU(0));
  ctx[idx.num_nodes() - 1] = Context::CPU(1);  // the last node on another device
  std::vector<Resource> t = exec::AssignTempSpaces(idx, ctx, 2);
  EXPECT_EQ(t[0].space, nullptr);  // the variable asks for none
  EXPECT_NE(t[1].space, nullptr);
  EXPECT_NE(t[1].var, t[2].var);
  EXPECT_EQ(t[1].var, t[3].var);
  EXPECT_EQ(t[2].var, t[4].var);
  EXPECT_NE(t[5].var, t[1].var);
  EXPECT_NE(t[5].var, t[2].var);
  std::vector<Resource> one = exec::AssignTempSpaces(idx, ctx, 1);
  EXPECT_EQ(one[1].var, one[4].var);
}

TEST(ExecTempSpace, scope_overrides_requests_for_its_context_only) {
  const Resource mine = RequestResource(Context::CPU(0), ResourceRequest::kTempSpace);
  {
    TempSpaceScope scope(&mine);
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(RequestResource(Context::CPU(0), ResourceRequest::kTempSpace).var, mine.var);
    }
    EXPECT_NE(RequestResource(Context::CPU(3), ResourceRequest::kTempSpace).var, mine.var);
    TempSpaceScope none(nullptr);  // no change
    EXPECT_EQ(RequestResource(Context::CPU(0), ResourceRequest::kTempSpace).var, mine.var);
  }
  std::set<const void*> after;
  for (int i = 0; i < 4; ++i) {
    after.insert(RequestResource(Context::CPU(0), ResourceRequest::kTempSpace).var);
  }
  EXPECT_EQ(after.size(), 4u);  // back to the shared copies in turn
}

}  // namespace
}  // namespace mxnet
