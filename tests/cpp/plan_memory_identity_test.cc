// The memory plan's FInplaceIdentity sharing and per-device blocks (src/executor/plan_memory.cc).
#include <gtest/gtest.h>

#include <vector>

#include "executor/plan_memory.h"
#include "mxnet/base.h"
#include "nnvm/graph.h"
#include "nnvm/node.h"

namespace mxnet {
namespace exec {
namespace {

using nnvm::CreateNode;
using nnvm::CreateVariableNode;
using nnvm::IndexedGraph;
using nnvm::NodeEntry;
using nnvm::ObjectPtr;

// x -> y = exp(x) -> v = view(y); s = sin(y) after it; out = v + s
struct Diamond {
  explicit Diamond(const char* view, std::unordered_map<std::string, std::string> kw = {}) {
    v = CreateNode(view, "v", {{y, 0, 0}}, std::move(kw));
    s = CreateNode("sin", "s", {{y, 0, 0}});
    add = CreateNode("elemwise_mul", "add", {{v, 0, 0}, {s, 0, 0}});
    idx = std::make_unique<IndexedGraph>(std::vector<NodeEntry>{{add, 0, 0}});
  }
  uint32_t id(const ObjectPtr& n) const { return idx->entry_id(idx->node_id(n.get()), 0); }
  StoragePlan Plan(int view_dtype = kFloat32, bool inplace = true) const {
    const size_t n = idx->num_node_entries();
    std::vector<bool> given(n, false), pinned(n, false);
    given[id(x)] = true;
    pinned[id(add)] = true;
    std::vector<int> dtypes(n, kFloat32);
    dtypes[id(v)] = view_dtype;
    StoragePlanOptions o;
    o.inplace = inplace;
    return PlanStorage(*idx, std::vector<size_t>(n, 256), given, pinned, o, dtypes);
  }
  ObjectPtr x = CreateVariableNode("x");
  ObjectPtr y = CreateNode("exp", "y", {{x, 0, 0}});
  ObjectPtr v, s, add;
  std::unique_ptr<IndexedGraph> idx;
};

TEST(PlanStorageIdentity, a_view_shares_its_input_while_the_input_is_still_read) {
  for (const char* view : {"Flatten", "_copy", "BlockGrad", "expand_dims"}) {
    Diamond d(view, std::string(view) == "expand_dims"
                        ? std::unordered_map<std::string, std::string>{{"axis", "0"}}
                        : std::unordered_map<std::string, std::string>{});
    StoragePlan p = d.Plan();
    EXPECT_EQ(p.block[d.id(d.v)], p.block[d.id(d.y)]) << view;
    // sin may not write over the shared block: v still needs it
    EXPECT_NE(p.block[d.id(d.s)], p.block[d.id(d.y)]) << view;
  }
}

TEST(PlanStorageIdentity, an_op_that_is_not_an_identity_gets_a_block_of_its_own) {
  Diamond d("relu");  // in-place capable, but y is still read by sin
  StoragePlan p = d.Plan();
  EXPECT_NE(p.block[d.id(d.v)], p.block[d.id(d.y)]);
}

TEST(PlanStorageIdentity, needs_same_dtype_and_inplace_enabled) {
  Diamond d("Flatten");
  StoragePlan other_dtype = d.Plan(kInt32);
  EXPECT_NE(other_dtype.block[d.id(d.v)], other_dtype.block[d.id(d.y)]);
  StoragePlan off = d.Plan(kFloat32, false);
  EXPECT_NE(off.block[d.id(d.v)], off.block[d.id(d.y)]);
}

TEST(PlanStorageIdentity, blocks_are_not_shared_across_devices) {
  // x -> a (device 0) -> b (device 1) -> c (device 1): b's block is freed after c reads it but
  // a's block, on device 0, is never handed to a device 1 entry.
  ObjectPtr x = CreateVariableNode("x");
  ObjectPtr a = CreateNode("exp", "a", {{x, 0, 0}});
  ObjectPtr b = CreateNode("_CrossDeviceCopy", "b", {{a, 0, 0}});
  ObjectPtr c = CreateNode("sin", "c", {{b, 0, 0}});
  ObjectPtr e = CreateNode("cos", "e", {{c, 0, 0}});
  IndexedGraph idx(std::vector<NodeEntry>{{e, 0, 0}});
  const size_t n = idx.num_node_entries();
  std::vector<bool> given(n, false), pinned(n, false);
  auto id = [&](const ObjectPtr& node) { return idx.entry_id(idx.node_id(node.get()), 0); };
  given[id(x)] = true;
  pinned[id(e)] = true;
  std::vector<int> dev(idx.num_nodes(), 1);
  dev[idx.node_id(a.get())] = 0;
  StoragePlanOptions o;
  o.inplace = false;
  StoragePlan p = PlanStorage(idx, std::vector<size_t>(n, 64), given, pinned, o,
                              std::vector<int>(n, kFloat32), dev);
  EXPECT_EQ(p.device[p.block[id(a)]], 0);
  EXPECT_EQ(p.device[p.block[id(b)]], 1);
  EXPECT_NE(p.block[id(c)], p.block[id(a)]);  // a is free by then, but on the other device
  EXPECT_EQ(p.block[id(e)], p.block[id(b)]);  // b's block, same device, is reused
}

}  // namespace
}  // namespace exec
}  // namespace mxnet
