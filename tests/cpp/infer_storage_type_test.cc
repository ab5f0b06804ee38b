// The graph storage-type pass (src/executor/infer_storage_type): storage types flowing
// through operators with and without FInferStorageType, preset outputs, variable attributes,
// the gradient graph of simple_bind, and errors naming the node.
#include <gtest/gtest.h>

#include <dmlc/logging.h>

#include <map>
#include <string>

#include "executor/bind_storage_types.h"
#include "imperative/cached_op.h"
#include "imperative/infer_storage_type.h"
#include "mxnet/imperative.h"
#include "mxnet/ndarray.h"
#include "nnvm/graph.h"
#include "nnvm/op.h"

namespace mxnet {
namespace exec {
namespace {

using imperative::InferStorageTypes;
using nnvm::CreateNode;
using nnvm::CreateVariableNode;
using nnvm::NodeEntry;
using nnvm::ObjectPtr;

constexpr int kCpu = 1;  // Context::kCPU

uint32_t Entry(const nnvm::IndexedGraph& idx, const ObjectPtr& n, uint32_t i = 0) {
  return idx.entry_id(idx.node_id(n.get()), i);
}

TEST(InferStorageTypes, sparse_kernels_keep_sparse_and_dense_ops_fall_back) {
  ObjectPtr a = CreateVariableNode("a"), b = CreateVariableNode("b");
  ObjectPtr add = CreateNode("elemwise_add", "add", {{a, 0, 0}, {b, 0, 0}}, {});
  ObjectPtr relu = CreateNode("relu", "relu", {{add, 0, 0}}, {});   // 0 -> 0: stays sparse
  ObjectPtr ex = CreateNode("exp", "exp", {{relu, 0, 0}}, {});      // 0 -> 1: dense
  nnvm::IndexedGraph idx(std::vector<NodeEntry>{{ex, 0, 0}});
  std::vector<int> st(idx.num_node_entries(), kUndefinedStorage);
  st[Entry(idx, a)] = kRowSparseStorage;
  st[Entry(idx, b)] = kRowSparseStorage;
  std::vector<DispatchMode> modes = InferStorageTypes(idx, kCpu, &st);
  EXPECT_EQ(st[Entry(idx, add)], kRowSparseStorage);
  EXPECT_EQ(st[Entry(idx, relu)], kRowSparseStorage);
  EXPECT_EQ(st[Entry(idx, ex)], kDefaultStorage);
  EXPECT_EQ(modes[idx.node_id(a.get())], DispatchMode::kVariable);
  EXPECT_EQ(modes[idx.node_id(add.get())], DispatchMode::kFComputeEx);
  EXPECT_EQ(modes[idx.node_id(relu.get())], DispatchMode::kFComputeEx);
  EXPECT_EQ(modes[idx.node_id(ex.get())], DispatchMode::kFComputeFallback);
}

TEST(InferStorageTypes, dense_graph_is_all_fcompute) {
  ObjectPtr x = CreateVariableNode("x");
  ObjectPtr fc = CreateNode("FullyConnected", "fc",
                            {{x, 0, 0}, {CreateVariableNode("w"), 0, 0}, {CreateVariableNode("b"), 0, 0}},
                            {{"num_hidden", "4"}});
  nnvm::IndexedGraph idx(std::vector<NodeEntry>{{fc, 0, 0}});
  std::vector<int> st(idx.num_node_entries(), kUndefinedStorage);
  std::vector<DispatchMode> modes = InferStorageTypes(idx, kCpu, &st);
  for (int s : st) EXPECT_EQ(s, kDefaultStorage);
  EXPECT_EQ(modes[idx.node_id(fc.get())], DispatchMode::kFCompute);
}

TEST(InferStorageTypes, variable_attribute_gives_storage_type) {
  ObjectPtr c = CreateVariableNode("c");
  c->attrs.dict["__storage_type__"] = "2";
  ObjectPtr w = CreateVariableNode("w");
  ObjectPtr dot = CreateNode("dot", "dot", {{c, 0, 0}, {w, 0, 0}}, {{"transpose_a", "True"}});
  nnvm::IndexedGraph idx(std::vector<NodeEntry>{{dot, 0, 0}});
  std::vector<int> st(idx.num_node_entries(), kUndefinedStorage);
  InferStorageTypes(idx, kCpu, &st);
  EXPECT_EQ(st[Entry(idx, c)], kCSRStorage);
  EXPECT_EQ(st[Entry(idx, w)], kDefaultStorage);
  EXPECT_EQ(st[Entry(idx, dot)], kRowSparseStorage);  // csr.T . dense
  // a storage type set by the caller (a bound array) wins over the attribute
  std::vector<int> dense(idx.num_node_entries(), kUndefinedStorage);
  dense[Entry(idx, c)] = kDefaultStorage;
  InferStorageTypes(idx, kCpu, &dense);
  EXPECT_EQ(dense[Entry(idx, dot)], kDefaultStorage);
}

TEST(InferStorageTypes, preset_output_is_honoured_by_fallback) {
  ObjectPtr c = CreateVariableNode("c"), w = CreateVariableNode("w");
  ObjectPtr dot = CreateNode("dot", "dot", {{c, 0, 0}, {w, 0, 0}}, {{"transpose_a", "True"}});
  nnvm::IndexedGraph idx(std::vector<NodeEntry>{{dot, 0, 0}});
  std::vector<int> st(idx.num_node_entries(), kUndefinedStorage);
  st[Entry(idx, c)] = kCSRStorage;
  st[Entry(idx, dot)] = kCSRStorage;  // no kernel writes csr here: the dense one, converted
  std::vector<DispatchMode> modes = InferStorageTypes(idx, kCpu, &st);
  EXPECT_EQ(st[Entry(idx, dot)], kCSRStorage);
  EXPECT_EQ(modes[idx.node_id(dot.get())], DispatchMode::kFComputeFallback);
}

TEST(InferStorageTypes, bad_variable_attribute_names_the_variable) {
  ObjectPtr x = CreateVariableNode("weird");
  x->attrs.dict["__storage_type__"] = "9";
  ObjectPtr r = CreateNode("relu", "relu", {{x, 0, 0}}, {});
  nnvm::IndexedGraph idx(std::vector<NodeEntry>{{r, 0, 0}});
  std::vector<int> st(idx.num_node_entries(), kUndefinedStorage);
  try {
    InferStorageTypes(idx, kCpu, &st);
    FAIL() << "expected an error";
  } catch (const dmlc::Error& e) {
    EXPECT_NE(std::string(e.what()).find("variable weird"), std::string::npos) << e.what();
  }
}

TEST(InferBindStorageTypes, gradient_of_dot_csr_weight_is_row_sparse) {
  ObjectPtr c = CreateVariableNode("data"), w = CreateVariableNode("w");
  ObjectPtr dot = CreateNode("dot", "dot", {{c, 0, 0}, {w, 0, 0}}, {});
  nnvm::Symbol sym;
  sym.outputs = {{dot, 0, 0}};
  BindStorageTypes st = InferBindStorageTypes(sym, {{"data", kCSRStorage}},
                                              {kGradNull, kGradWrite}, kCpu);
  ASSERT_EQ(st.args.size(), 2u);
  EXPECT_EQ(st.args[0], kCSRStorage);
  EXPECT_EQ(st.args[1], kDefaultStorage);
  EXPECT_EQ(st.grads[0], kUndefinedStorage);  // no gradient wanted
  EXPECT_EQ(st.grads[1], kRowSparseStorage);
  // dense data: dense gradient
  st = InferBindStorageTypes(sym, {}, {kGradWrite, kGradWrite}, kCpu);
  EXPECT_EQ(st.grads[0], kDefaultStorage);
  EXPECT_EQ(st.grads[1], kDefaultStorage);
}

TEST(InferBindStorageTypes, embedding_sparse_grad_and_aux_states) {
  ObjectPtr d = CreateVariableNode("data"), w = CreateVariableNode("embed_weight");
  ObjectPtr emb = CreateNode("Embedding", "embed", {{d, 0, 0}, {w, 0, 0}},
                             {{"input_dim", "10"}, {"output_dim", "3"}, {"sparse_grad", "True"}});
  nnvm::Symbol sym;
  sym.outputs = {{emb, 0, 0}};
  BindStorageTypes st = InferBindStorageTypes(sym, {}, {kGradNull, kGradWrite}, kCpu);
  EXPECT_EQ(st.grads[1], kRowSparseStorage);
  EXPECT_TRUE(st.aux.empty());
}

TEST(CachedOpStorageType, outputs_and_gradients_follow_the_inner_graph) {
  ObjectPtr c = CreateVariableNode("data"), w = CreateVariableNode("w");
  ObjectPtr dot = CreateNode("dot", "dot", {{c, 0, 0}, {w, 0, 0}}, {});
  ObjectPtr dot_t = CreateNode("dot", "dot_t", {{c, 0, 0}, {w, 0, 0}}, {{"transpose_a", "True"}});
  nnvm::Symbol sym;
  sym.outputs = {{dot, 0, 0}, {dot_t, 0, 0}};
  auto op = std::make_shared<CachedOp>(sym, std::vector<std::pair<std::string, std::string>>{});
  nnvm::NodeAttrs attrs;
  attrs.op = nnvm::Op::GetOrThrow("_CachedOp");
  attrs.parsed = op;
  static const auto& finfer = nnvm::Op::GetAttr<FInferStorageType>("FInferStorageType");
  DispatchMode mode = DispatchMode::kUndefined;
  std::vector<int> in{kCSRStorage, kDefaultStorage}, out;
  ASSERT_TRUE(finfer[attrs.op](attrs, kCpu, &mode, &in, &out));
  ASSERT_EQ(out.size(), 2u + op->num_saved());
  EXPECT_EQ(out[0], kDefaultStorage);     // csr . dense
  EXPECT_EQ(out[1], kRowSparseStorage);   // csr.T . dense
  EXPECT_EQ(mode, DispatchMode::kFComputeEx);
  // backward: head gradients, inputs, saved values -> one gradient per input
  nnvm::NodeAttrs battrs = attrs;
  battrs.op = nnvm::Op::GetOrThrow("_backward_CachedOp");
  std::vector<int> bin{kDefaultStorage, kDefaultStorage, kCSRStorage, kDefaultStorage};
  for (uint32_t i = 0; i < op->num_saved(); ++i) bin.push_back(kDefaultStorage);
  std::vector<int> bout;
  ASSERT_TRUE(finfer[battrs.op](battrs, kCpu, &mode, &bin, &bout));
  ASSERT_EQ(bout.size(), 2u);
  EXPECT_EQ(bout[0], kDefaultStorage);
  EXPECT_EQ(bout[1], kDefaultStorage);  // row_sparse (dot) + dense (dot_t) gradients: dense sum
}

}  // namespace
}  // namespace exec
}  // namespace mxnet
