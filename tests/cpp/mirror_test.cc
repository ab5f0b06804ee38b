// Backward mirroring (nnvm/mirror.h): which forward nodes get recomputed in backward, and how
// the gradient graph is rewired to read their copies.
#include <gtest/gtest.h>

#include <dmlc/logging.h>

#include <string>
#include <unordered_set>
#include <vector>

#include "nnvm/gradient.h"
#include "nnvm/graph.h"
#include "nnvm/mirror.h"

namespace nnvm {
namespace {

NodeEntry Out(const ObjectPtr& n, uint32_t i = 0) { return NodeEntry(n, i, 0); }

// data -> fc1 -> relu -> sigmoid -> fc2 -> sum: two activations between kept FC outputs.
struct Mlp {
  ObjectPtr data = CreateVariableNode("data");
  ObjectPtr w1 = CreateVariableNode("w1");
  ObjectPtr w2 = CreateVariableNode("w2");
  ObjectPtr fc1 = CreateNode("FullyConnected", "fc1", {Out(data), Out(w1)},
                             {{"num_hidden", "8"}, {"no_bias", "True"}});
  ObjectPtr relu = CreateNode("Activation", "relu", {Out(fc1)}, {{"act_type", "relu"}});
  ObjectPtr sig = CreateNode("Activation", "sig", {Out(relu)}, {{"act_type", "sigmoid"}});
  ObjectPtr fc2 = CreateNode("FullyConnected", "fc2", {Out(sig), Out(w2)},
                             {{"num_hidden", "4"}, {"no_bias", "True"}});
  ObjectPtr loss = CreateNode("sum", "loss", {Out(fc2)});
  std::vector<NodeEntry> outputs{Out(loss)};

  std::vector<NodeEntry> Grads() const {
    return Gradient(outputs, {Out(w1), Out(w2)}, {Out(CreateVariableNode("head_grad"))});
  }
};

// Names of every node the gradient graph reaches.
std::unordered_set<std::string> NodeNames(const std::vector<NodeEntry>& heads) {
  std::unordered_set<std::string> names;
  for (const ObjectPtr& n : TopoSort(heads)) names.insert(n->attrs.name);
  return names;
}

// The nodes of heads' graph that read node's outputs.
std::vector<ObjectPtr> Readers(const std::vector<NodeEntry>& heads, const Node* node) {
  std::vector<ObjectPtr> out;
  for (const ObjectPtr& n : TopoSort(heads)) {
    for (const NodeEntry& e : n->inputs) {
      if (e.node.get() == node) {
        out.push_back(n);
        break;
      }
    }
  }
  return out;
}

TEST(NeedMirror, follows_mxnet_list_and_the_variable) {
  Mlp m;
  EXPECT_TRUE(NeedMirror(*m.relu, true));
  EXPECT_FALSE(NeedMirror(*m.relu, false));
  EXPECT_FALSE(NeedMirror(*m.fc1, true));   // costly: always kept
  EXPECT_FALSE(NeedMirror(*m.data, true));  // variables are inputs
  EXPECT_FALSE(NeedMirror(*CreateNode("_zeros", "z", {}, {{"shape", "(0,4)"}}), true));
  ObjectPtr conv = CreateNode("Convolution", "conv", {Out(m.data), Out(m.w1)},
                              {{"kernel", "(3,3)"}, {"num_filter", "2"}, {"no_bias", "True"}});
  EXPECT_FALSE(NeedMirror(*conv, true));
  ObjectPtr cat = CreateNode("Concat", "cat", {Out(m.relu), Out(m.sig)}, {{"num_args", "2"}});
  EXPECT_FALSE(NeedMirror(*cat, true));
  ObjectPtr pool = CreateNode("Pooling", "pool", {Out(m.data)},
                              {{"kernel", "(2,2)"}, {"pool_type", "max"}});
  EXPECT_TRUE(NeedMirror(*pool, true));
}

ObjectPtr BatchNorm(const NodeEntry& in) {
  return CreateNode("BatchNorm", "bn",
                    {in, Out(CreateVariableNode("gamma")), Out(CreateVariableNode("beta")),
                     Out(CreateVariableNode("moving_mean")), Out(CreateVariableNode("moving_var"))},
                    {{"fix_gamma", "True"}});
}

TEST(NeedMirror, never_random_or_input_writing_ops_even_when_forced) {
  Mlp m;
  ObjectPtr drop = CreateNode("Dropout", "drop", {Out(m.relu)}, {{"p", "0.5"}});
  ObjectPtr noise = CreateNode("_random_uniform", "noise", {}, {{"shape", "(2,2)"}});
  ObjectPtr sgd = CreateNode("sgd_mom_update", "sgd",
                             {Out(m.w1), Out(m.w1), Out(CreateVariableNode("mom"))},
                             {{"lr", "0.1"}});
  EXPECT_TRUE(NeedMirror(*BatchNorm(Out(m.fc1)), true));  // its writes can be redirected
  for (const ObjectPtr& n : {drop, noise, sgd}) {
    n->attrs.dict["__force_mirroring__"] = "True";
    EXPECT_FALSE(NeedMirror(*n, true)) << n->attrs.name;
  }
}

TEST(NeedMirror, force_mirroring_attribute_overrides_the_variable_and_the_list) {
  Mlp m;
  m.fc1->attrs.dict["__force_mirroring__"] = "True";
  m.relu->attrs.dict["__force_mirroring__"] = "1";
  EXPECT_TRUE(NeedMirror(*m.fc1, false));
  EXPECT_TRUE(NeedMirror(*m.relu, false));
  m.relu->attrs.dict["__force_mirroring__"] = "false";
  EXPECT_FALSE(NeedMirror(*m.relu, false));
  m.relu->attrs.dict["__force_mirroring__"] = "maybe";
  try {
    NeedMirror(*m.relu, false);
    FAIL() << "a malformed __force_mirroring__ was accepted";
  } catch (const dmlc::Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("relu"), std::string::npos) << msg;
    EXPECT_NE(msg.find("maybe"), std::string::npos) << msg;
  }
}

TEST(MirrorBackward, off_leaves_the_gradient_graph_alone) {
  Mlp m;
  std::vector<NodeEntry> grads = m.Grads();
  std::unordered_set<std::string> before = NodeNames(grads);
  EXPECT_EQ(MirrorBackward(m.outputs, &grads, false), 0u);
  EXPECT_EQ(NodeNames(grads), before);
}

TEST(MirrorBackward, backward_reads_copies_recomputed_from_kept_fc_output) {
  Mlp m;
  std::vector<NodeEntry> grads = m.Grads();
  ASSERT_FALSE(Readers(grads, m.sig.get()).empty());  // without mirroring backward reads sig
  EXPECT_EQ(MirrorBackward(m.outputs, &grads, true), 2u);  // relu_mirror, sig_mirror

  std::unordered_set<std::string> names = NodeNames(grads);
  EXPECT_TRUE(names.count("relu_mirror"));
  EXPECT_TRUE(names.count("sig_mirror"));
  EXPECT_FALSE(names.count("fc1_mirror"));
  EXPECT_FALSE(names.count("loss_mirror"));

  // Forward is unchanged: fc2 still reads sig, which reads relu. Backward no longer reads
  // relu or sig themselves, only their copies; the copies chain down to fc1's kept output.
  EXPECT_EQ(m.fc2->inputs[0].node, m.sig);
  EXPECT_EQ(m.sig->inputs[0].node, m.relu);
  for (const ObjectPtr& n : Readers(grads, m.sig.get())) EXPECT_EQ(n, m.fc2);
  for (const ObjectPtr& n : Readers(grads, m.relu.get())) EXPECT_EQ(n, m.sig);
  ObjectPtr sig_copy, relu_copy;
  for (const ObjectPtr& n : TopoSort(grads)) {
    if (n->attrs.name == "sig_mirror") sig_copy = n;
    if (n->attrs.name == "relu_mirror") relu_copy = n;
  }
  ASSERT_TRUE(sig_copy && relu_copy);
  EXPECT_EQ(sig_copy->op(), m.sig->op());
  EXPECT_EQ(sig_copy->attrs.dict, m.sig->attrs.dict);
  EXPECT_EQ(sig_copy->inputs[0].node, relu_copy);
  EXPECT_EQ(relu_copy->inputs[0].node, m.fc1);
}

TEST(MirrorBackward, graph_outputs_are_kept_not_recomputed) {
  Mlp m;
  std::vector<NodeEntry> outputs{Out(m.loss), Out(m.sig)};  // sig is also an output
  std::vector<NodeEntry> grads = Gradient(outputs, {Out(m.w1), Out(m.w2)},
                                          {Out(CreateVariableNode("hg0")),
                                           Out(CreateVariableNode("hg1"))});
  EXPECT_EQ(MirrorBackward(outputs, &grads, true), 1u);
  std::unordered_set<std::string> names = NodeNames(grads);
  EXPECT_TRUE(names.count("relu_mirror"));
  EXPECT_FALSE(names.count("sig_mirror"));
}

TEST(MirrorBackward, forced_node_alone_is_mirrored_without_the_variable) {
  Mlp m;
  m.sig->attrs.dict["__force_mirroring__"] = "True";
  std::vector<NodeEntry> grads = m.Grads();
  EXPECT_EQ(MirrorBackward(m.outputs, &grads, false), 1u);
  std::unordered_set<std::string> names = NodeNames(grads);
  EXPECT_TRUE(names.count("sig_mirror"));
  EXPECT_FALSE(names.count("relu_mirror"));
  for (const ObjectPtr& n : TopoSort(grads)) {
    if (n->attrs.name == "sig_mirror") EXPECT_EQ(n->inputs[0].node, m.relu);  // kept relu
  }
}

TEST(MirrorBackward, dropout_output_is_kept_and_copies_read_it) {
  Mlp m;
  ObjectPtr drop = CreateNode("Dropout", "drop", {Out(m.relu)}, {{"p", "0.5"}});
  m.sig->inputs[0] = Out(drop);
  std::vector<NodeEntry> grads = m.Grads();
  MirrorBackward(m.outputs, &grads, true);
  std::unordered_set<std::string> names = NodeNames(grads);
  EXPECT_FALSE(names.count("drop_mirror"));
  for (const ObjectPtr& n : TopoSort(grads)) {
    if (n->attrs.name == "sig_mirror") EXPECT_EQ(n->inputs[0].node, drop);
  }
}

TEST(MirrorBackward, batch_norm_copy_writes_its_statistics_to_scratch_copies) {
  Mlp m;
  ObjectPtr bn = BatchNorm(Out(m.fc1));
  m.relu->inputs[0] = Out(bn);
  std::vector<NodeEntry> grads = m.Grads();
  MirrorBackward(m.outputs, &grads, true);
  ObjectPtr copy;
  for (const ObjectPtr& n : TopoSort(grads)) {
    if (n->attrs.name == "bn_mirror") copy = n;
  }
  ASSERT_TRUE(copy) << "relu_mirror should read a recomputed batch norm";
  EXPECT_EQ(copy->inputs[0].node, m.fc1);
  // gamma (written with fix_gamma), moving_mean and moving_var: through _copy nodes of the
  // variables; beta is read as it is.
  for (uint32_t i : {1u, 3u, 4u}) {
    const ObjectPtr& in = copy->inputs[i].node;
    ASSERT_FALSE(in->is_variable()) << i;
    EXPECT_EQ(in->op()->name, "_copy");
    EXPECT_EQ(in->inputs[0].node, bn->inputs[i].node);
  }
  EXPECT_EQ(copy->inputs[2].node, bn->inputs[2].node);
  EXPECT_EQ(bn->inputs[3].node->attrs.name, "moving_mean");  // forward still writes the real one
}

}  // namespace
}  // namespace nnvm
