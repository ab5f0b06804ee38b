// IndexedGraph numbering and the InferShape / InferType passes: full, partial and backward
// inference, variable attributes, and errors naming the node.
#include <gtest/gtest.h>

#include <dmlc/logging.h>

#include <string>

#include "nnvm/graph.h"
#include "nnvm/op.h"
#include "nnvm/pass.h"

namespace nnvm {
namespace {

using mxnet::TShape;

struct Mlp {
  ObjectPtr data = CreateVariableNode("data");
  ObjectPtr weight = CreateVariableNode("fc_weight");
  ObjectPtr bias = CreateVariableNode("fc_bias");
  ObjectPtr fc = CreateNode("FullyConnected", "fc",
                            {{data, 0, 0}, {weight, 0, 0}, {bias, 0, 0}}, {{"num_hidden", "4"}});
  ObjectPtr act = CreateNode("Activation", "relu", {{fc, 0, 0}}, {{"act_type", "relu"}});
  std::vector<NodeEntry> heads{{act, 0, 0}};
};

TEST(IndexedGraph, numbers_nodes_inputs_first_and_entries_per_output) {
  Mlp m;
  IndexedGraph idx(m.heads);
  ASSERT_EQ(idx.num_nodes(), 5u);
  EXPECT_EQ(idx.num_node_entries(), 5u);
  EXPECT_EQ(idx.node_id(m.act.get()), 4u);
  EXPECT_LT(idx.node_id(m.data.get()), idx.node_id(m.fc.get()));
  ASSERT_EQ(idx.arg_nodes().size(), 3u);
  EXPECT_EQ(idx[idx.arg_nodes()[1]].source->attrs.name, "fc_weight");
  EXPECT_TRUE(idx.mutable_input_nodes().empty());
  ASSERT_EQ(idx.outputs().size(), 1u);
  EXPECT_EQ(idx.entry_id(idx.outputs()[0]), 4u);
  EXPECT_EQ(idx[4].inputs[0].node_id, 3u);
}

TEST(InferShape, fills_weights_and_outputs_from_data) {
  Mlp m;
  auto r = InferSymbolShapes(m.heads, {"data"}, {TShape({2, 3})});
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.arg[1], TShape({4, 3}));
  EXPECT_EQ(r.arg[2], TShape({4}));
  EXPECT_EQ(r.out[0], TShape({2, 4}));
}

TEST(InferShape, partial_leaves_unknowns_unknown) {
  Mlp m;
  // FullyConnected needs its data's shape: knowing only the weight decides nothing else.
  auto r = InferSymbolShapes(m.heads, {"fc_weight"}, {TShape({4, 3})});
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.arg[1], TShape({4, 3}));
  EXPECT_FALSE(r.arg[0].IsKnown());
  EXPECT_FALSE(r.out[0].IsKnown());
}

TEST(InferShape, partially_known_dims_merge_across_an_elementwise_op) {
  ObjectPtr a = CreateVariableNode("a");
  ObjectPtr b = CreateVariableNode("b");
  a->attrs.dict["__shape__"] = "(0, 10)";
  b->attrs.dict["__shape__"] = "(12, 0)";
  ObjectPtr add = CreateNode("elemwise_add", "add", {{a, 0, 0}, {b, 0, 0}});
  auto r = InferSymbolShapes({{add, 0, 0}}, {}, {});
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.arg[0], TShape({12, 10}));
  EXPECT_EQ(r.arg[1], TShape({12, 10}));
}

TEST(InferShape, positional_shapes_follow_argument_order) {
  Mlp m;
  auto r = InferSymbolShapes(m.heads, {}, {TShape({5, 7})});
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.arg[1], TShape({4, 7}));
  EXPECT_EQ(r.out[0], TShape({5, 4}));
}

TEST(InferShape, variable_shape_attribute_seeds_inference) {
  Mlp m;
  m.data->attrs.dict["__shape__"] = "(6, 2)";
  auto r = InferSymbolShapes(m.heads, {}, {});
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.out[0], TShape({6, 4}));
  // Legacy 0 in the attribute is an unknown dim, filled by the other side.
  Mlp m2;
  m2.data->attrs.dict["__shape__"] = "(0, 2)";
  auto r2 = InferSymbolShapes(m2.heads, {}, {});
  EXPECT_FALSE(r2.complete);
  EXPECT_FALSE(r2.arg[0].IsKnown());
  EXPECT_EQ(r2.arg[0].ndim(), 2);
}

TEST(InferShape, backward_sweep_reaches_inputs_from_outputs) {
  ObjectPtr a = CreateVariableNode("a");
  ObjectPtr b = CreateVariableNode("b");
  ObjectPtr add = CreateNode("elemwise_add", "add", {{a, 0, 0}, {b, 0, 0}});
  ObjectPtr neg = CreateNode("negative", "neg", {{add, 0, 0}});
  ObjectPtr c = CreateVariableNode("c");
  ObjectPtr mul = CreateNode("elemwise_mul", "mul", {{neg, 0, 0}, {c, 0, 0}});
  auto r = InferSymbolShapes({{mul, 0, 0}}, {"c"}, {TShape({2, 2})});
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.arg[0], TShape({2, 2}));
}

TEST(InferShape, inconsistent_shapes_name_the_node_and_shapes) {
  Mlp m;
  try {
    InferSymbolShapes(m.heads, {"data", "fc_weight"}, {TShape({2, 3}), TShape({4, 5})});
    FAIL() << "expected an error";
  } catch (const dmlc::Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("Error in operator fc"), std::string::npos) << msg;
    EXPECT_NE(msg.find("FullyConnected"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(4,5)"), std::string::npos) << msg;
  }
}

TEST(InferShape, unknown_keyword_lists_candidates) {
  Mlp m;
  try {
    InferSymbolShapes(m.heads, {"dat"}, {TShape({2, 3})});
    FAIL() << "expected an error";
  } catch (const dmlc::Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("Keyword argument name dat not found"), std::string::npos) << msg;
    EXPECT_NE(msg.find("fc_weight"), std::string::npos) << msg;
  }
}

TEST(InferType, propagates_from_one_input_and_dtype_attribute) {
  Mlp m;
  auto r = InferSymbolTypes(m.heads, {"data"}, {mxnet::kFloat64});
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.arg[1], mxnet::kFloat64);
  EXPECT_EQ(r.out[0], mxnet::kFloat64);
  Mlp m2;
  m2.bias->attrs.dict["__dtype__"] = "1";
  auto r2 = InferSymbolTypes(m2.heads, {}, {});
  ASSERT_TRUE(r2.complete);
  EXPECT_EQ(r2.out[0], mxnet::kFloat64);
  Mlp m3;
  auto r3 = InferSymbolTypes(m3.heads, {}, {});
  EXPECT_FALSE(r3.complete);
  EXPECT_EQ(r3.out[0], -1);
}

}  // namespace
}  // namespace nnvm
