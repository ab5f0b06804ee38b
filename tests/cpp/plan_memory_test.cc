// The executor's memory plan: in-place reuse, last-reader release, match range, pinned values.
#include <gtest/gtest.h>

#include <vector>

#include "executor/plan_memory.h"
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

// x -> relu1 -> relu2 -> softmax -> out (each op reads the one before it once)
struct Chain {
  ObjectPtr x = CreateVariableNode("x");
  ObjectPtr r1 = CreateNode("Activation", "r1", {{x, 0, 0}}, {{"act_type", "relu"}});
  ObjectPtr r2 = CreateNode("Activation", "r2", {{r1, 0, 0}}, {{"act_type", "relu"}});
  ObjectPtr e = CreateNode("softmax", "e", {{r2, 0, 0}}, {});
  IndexedGraph idx{std::vector<NodeEntry>{{e, 0, 0}}};
  uint32_t id(const ObjectPtr& n) { return idx.entry_id(idx.node_id(n.get()), 0); }

  StoragePlan Plan(const std::vector<size_t>& bytes, const StoragePlanOptions& o) {
    const size_t n = idx.num_node_entries();
    std::vector<bool> given(n, false), pinned(n, false);
    given[id(x)] = true;
    pinned[id(e)] = true;
    return PlanStorage(idx, bytes, given, pinned, o);
  }
};

TEST(PlanStorage, inplace_op_takes_the_block_of_an_input_it_reads_last) {
  Chain c;
  StoragePlan p = c.Plan(std::vector<size_t>(4, 400), StoragePlanOptions());
  EXPECT_EQ(p.block[c.id(c.x)], -1);  // bound: not planned
  EXPECT_EQ(p.block[c.id(c.r1)], p.block[c.id(c.r2)]);
  // softmax declares no in-place option: r2's block is free only after softmax ran, so its
  // output needs a second block.
  EXPECT_NE(p.block[c.id(c.e)], p.block[c.id(c.r2)]);
  EXPECT_EQ(p.bytes.size(), 2u);
}

TEST(PlanStorage, without_inplace_each_live_value_has_its_own_block) {
  Chain c;
  StoragePlanOptions o;
  o.inplace = false;
  StoragePlan p = c.Plan(std::vector<size_t>(4, 400), o);
  EXPECT_NE(p.block[c.id(c.r1)], p.block[c.id(c.r2)]);
  // r1 dies when r2 has run, so softmax's output reuses r1's block
  EXPECT_EQ(p.block[c.id(c.e)], p.block[c.id(c.r1)]);
  EXPECT_EQ(p.bytes.size(), 2u);
}

TEST(PlanStorage, inplace_needs_the_op_to_be_the_last_reader) {
  // r1 is read by r2 (in-place capable) and by the add after it: r2 must not overwrite it.
  ObjectPtr x = CreateVariableNode("x");
  ObjectPtr r1 = CreateNode("Activation", "r1", {{x, 0, 0}}, {{"act_type", "relu"}});
  ObjectPtr r2 = CreateNode("Activation", "r2", {{r1, 0, 0}}, {{"act_type", "relu"}});
  ObjectPtr add = CreateNode("elemwise_add", "add", {{r1, 0, 0}, {r2, 0, 0}}, {});
  IndexedGraph idx(std::vector<NodeEntry>{{add, 0, 0}});
  const size_t n = idx.num_node_entries();
  std::vector<bool> given(n, false), pinned(n, false);
  given[idx.entry_id(idx.node_id(x.get()), 0)] = true;
  pinned[idx.entry_id(idx.node_id(add.get()), 0)] = true;
  StoragePlan p = PlanStorage(idx, std::vector<size_t>(n, 64), given, pinned, StoragePlanOptions());
  auto block = [&](const ObjectPtr& node) { return p.block[idx.entry_id(idx.node_id(node.get()), 0)]; };
  EXPECT_NE(block(r1), block(r2));
  // the add is the last reader of both and may write over its first input
  EXPECT_EQ(block(add), block(r1));
}

TEST(PlanStorage, match_range_bounds_the_sizes_a_block_serves) {
  Chain c;
  StoragePlanOptions o;
  o.inplace = false;
  // r1 400 bytes dies after r2; softmax wants 100: within range 16 it takes r1's block.
  StoragePlan wide = c.Plan({0, 400, 400, 100}, o);
  EXPECT_EQ(wide.block[c.id(c.e)], wide.block[c.id(c.r1)]);
  o.match_range = 2;  // 400 is more than twice 100: a new block
  StoragePlan narrow = c.Plan({0, 400, 400, 100}, o);
  EXPECT_NE(narrow.block[c.id(c.e)], narrow.block[c.id(c.r1)]);
  EXPECT_EQ(narrow.bytes[narrow.block[c.id(c.e)]], 100u);
  // a smaller free block within range is grown to fit
  StoragePlan grow = c.Plan({0, 300, 400, 500}, StoragePlanOptions{false, 2});
  EXPECT_EQ(grow.block[c.id(c.e)], grow.block[c.id(c.r1)]);
  EXPECT_EQ(grow.bytes[grow.block[c.id(c.e)]], 500u);
}

TEST(PlanStorage, pinned_values_keep_their_blocks) {
  Chain c;
  const size_t n = c.idx.num_node_entries();
  std::vector<bool> given(n, false), pinned(n, false);
  given[c.id(c.x)] = true;
  pinned[c.id(c.r1)] = true;  // read after the run (a saved forward value, say)
  pinned[c.id(c.e)] = true;
  StoragePlanOptions o;
  StoragePlan p = PlanStorage(c.idx, std::vector<size_t>(n, 400), given, pinned, o);
  EXPECT_NE(p.block[c.id(c.r2)], p.block[c.id(c.r1)]);
  EXPECT_NE(p.block[c.id(c.e)], p.block[c.id(c.r1)]);
}

}  // namespace
}  // namespace exec
}  // namespace mxnet
