// group2ctx placement (src/executor/place_device.cc): contexts per node and the copy nodes.
#include <gtest/gtest.h>

#include <dmlc/logging.h>

#include "executor/place_device.h"
#include "nnvm/graph.h"
#include "nnvm/node.h"
#include "nnvm/op.h"

namespace mxnet {
namespace exec {
namespace {

using nnvm::CreateNode;
using nnvm::CreateVariableNode;
using nnvm::NodeEntry;
using nnvm::ObjectPtr;

ObjectPtr InGroup(ObjectPtr n, const char* group) {
  n->attrs.dict["__ctx_group__"] = group;
  return n;
}

TEST(PlaceDevices, nodes_run_on_their_group_and_copies_join_the_contexts) {
  ObjectPtr x = CreateVariableNode("x"), w = CreateVariableNode("w");
  ObjectPtr a = InGroup(CreateNode("exp", "a", {{x, 0, 0}}), "g1");
  ObjectPtr b = InGroup(CreateNode("elemwise_add", "b", {{a, 0, 0}, {w, 0, 0}}), "g2");
  ObjectPtr c = CreateNode("sin", "c", {{b, 0, 0}});  // no group: where its input is
  ObjectPtr d = InGroup(CreateNode("elemwise_mul", "d", {{c, 0, 0}, {a, 0, 0}}), "g2");
  std::map<std::string, Context> g2c{{"g1", Context::CPU(1)}, {"g2", Context::CPU(2)}};
  PlacedGraph p = PlaceDevices({{d, 0, 0}}, g2c, Context::CPU(0),
                               {{x.get(), Context::CPU(1)}, {w.get(), Context::CPU(2)}});
  nnvm::IndexedGraph idx(p.heads);
  int copies = 0;
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    const nnvm::Node& n = *idx[nid].source;
    const Context& ctx = p.node_ctx.at(&n);
    if (n.attrs.name == "a") EXPECT_EQ(ctx, Context::CPU(1));
    if (n.attrs.name == "b" || n.attrs.name == "c" || n.attrs.name == "d") {
      EXPECT_EQ(ctx, Context::CPU(2)) << n.attrs.name;
    }
    if (!n.is_variable() && n.op()->name == "_CrossDeviceCopy") {
      ++copies;
      EXPECT_EQ(n.attrs.name, "a_0_copy");
      EXPECT_EQ(ctx, Context::CPU(2));
    }
    // every op node reads only values of its own context
    for (const auto& in : idx[nid].inputs) {
      if (n.is_variable() || n.op()->name == "_CrossDeviceCopy") continue;
      EXPECT_EQ(p.node_ctx.at(idx[in.node_id].source), ctx) << n.attrs.name;
    }
  }
  EXPECT_EQ(copies, 1);  // b and d read a on g2 through one copy
  EXPECT_EQ(d->inputs[1].node.get(), a.get());  // the given graph is left as it was
}

TEST(PlaceDevices, backward_nodes_follow_their_forward_node) {
  ObjectPtr x = CreateVariableNode("x");
  ObjectPtr a = InGroup(CreateNode("exp", "a", {{x, 0, 0}}), "g1");
  ObjectPtr g = CreateNode("sin", "a_backward", {{x, 0, 0}});
  g->control_deps.push_back(a);
  std::map<std::string, Context> g2c{{"g1", Context::CPU(1)}};
  PlacedGraph p = PlaceDevices({{a, 0, 0}, {g, 0, 0}}, g2c, Context::CPU(0),
                               {{x.get(), Context::CPU(0)}});
  EXPECT_EQ(p.node_ctx.at(p.heads[1].node.get()), Context::CPU(1));
}

TEST(PlaceDevices, an_unmapped_group_is_an_error) {
  ObjectPtr x = CreateVariableNode("x");
  ObjectPtr a = InGroup(CreateNode("exp", "a", {{x, 0, 0}}), "nowhere");
  std::map<std::string, Context> g2c{{"g1", Context::CPU(1)}};
  EXPECT_THROW(PlaceDevices({{a, 0, 0}}, g2c, Context::CPU(0), {}), dmlc::Error);
}

}  // namespace
}  // namespace exec
}  // namespace mxnet
