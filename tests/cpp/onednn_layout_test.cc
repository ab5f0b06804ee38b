// Tests of the blocked-layout contract (onednn_layout.h) and the CachedOp pass marking it:
// the element copies agree with oneDNN's own reorder, marks round-trip through a node's dict,
// and the pass marks a value only where every writer and reader takes it blocked.
#include <gtest/gtest.h>

#include <memory>
#include <numeric>
#include <vector>

#include "imperative/blocked_layout_pass.h"
#include "nnvm/graph.h"
#include "nnvm/op.h"
#include "operator/nn/onednn/onednn_base.h"
#include "operator/nn/onednn/onednn_layout.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

#if MXNET_USE_ONEDNN
TEST(OneDNNLayoutTest, element_copies_match_onednn_reorder_both_ways) {
  ASSERT_GT(BlockSize(), 0) << "oneDNN picks a channel-blocked layout for its convolutions";
  const TShape shape{2, 2 * BlockSize(), 3, 5};
  const dnnl::memory::dims dims{2, 2 * BlockSize(), 3, 5};
  std::vector<float> plain(shape.Size()), ours(shape.Size()), theirs(shape.Size());
  std::iota(plain.begin(), plain.end(), 0.f);
  ToBlocked(shape, plain.data(), ours.data());
  dnnl::memory src = Wrap(PlainF32(dims), plain.data());
  dnnl::memory dst = Wrap(BlockedF32(dims), theirs.data());
  RunNow(dnnl::reorder(src, dst), {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}});
  EXPECT_EQ(ours, theirs);
  std::vector<float> back(shape.Size());
  ToPlain(shape, ours.data(), back.data());
  EXPECT_EQ(back, plain);
}

TEST(OneDNNLayoutTest, only_float32_nchw_with_whole_channel_blocks_is_held_blocked) {
  const int b = BlockSize();
  EXPECT_TRUE(BlockedShape(TShape{1, b, 4, 4}, kFloat32));
  EXPECT_FALSE(BlockedShape(TShape{1, b + 1, 4, 4}, kFloat32));
  EXPECT_FALSE(BlockedShape(TShape{1, b, 4, 4}, kFloat64));
  EXPECT_FALSE(BlockedShape(TShape{1, b, 4}, kFloat32));
}
#endif

TEST(OneDNNLayoutTest, marks_round_trip_through_the_dict) {
  nnvm::NodeAttrs attrs;
  attrs.dict["kernel"] = "(3, 3)";
  EXPECT_FALSE(MarksOf(attrs).any());
  LayoutMarks m;
  m.in = 0b101;
  m.out = 1;
  const nnvm::NodeAttrs marked = WithMarks(attrs, m);
  EXPECT_EQ(MarksOf(marked).in, 0b101u);
  EXPECT_EQ(MarksOf(marked).out, 1u);
  EXPECT_EQ(marked.dict.at("kernel"), "(3, 3)");
  EXPECT_FALSE(MarksOf(WithMarks(marked, LayoutMarks())).any());
}

}  // namespace
}  // namespace onednn
}  // namespace op

namespace imperative {
namespace {

#if MXNET_USE_ONEDNN
using nnvm::CreateNode;
using nnvm::CreateVariableNode;
using nnvm::ObjectPtr;

ObjectPtr Conv(const std::string& name, ObjectPtr in) {
  return CreateNode("Convolution", name,
                    {{in, 0, 0}, {CreateVariableNode(name + "_weight"), 0, 0}},
                    {{"kernel", "(3, 3)"}, {"pad", "(1, 1)"}, {"num_filter", "16"},
                     {"no_bias", "True"}});
}

struct Marked {
  std::unique_ptr<nnvm::IndexedGraph> idx;
  std::shared_ptr<const std::vector<std::shared_ptr<const nnvm::NodeAttrs>>> attrs;
  op::onednn::LayoutMarks Of(const ObjectPtr& n) const {
    return attrs ? op::onednn::MarksOf(*(*attrs)[idx->node_id(n.get())])
                 : op::onednn::LayoutMarks();
  }
};

Marked Mark(const std::vector<nnvm::NodeEntry>& heads) {
  Marked m;
  m.idx = std::make_unique<nnvm::IndexedGraph>(heads);
  std::vector<std::shared_ptr<const nnvm::NodeAttrs>> attrs(m.idx->num_nodes());
  for (uint32_t i = 0; i < m.idx->num_nodes(); ++i) {
    attrs[i] = std::make_shared<const nnvm::NodeAttrs>(m.idx->node_ptr(i)->attrs);
  }
  std::vector<bool> keep(m.idx->num_node_entries(), false);
  for (const auto& o : m.idx->outputs()) keep[m.idx->entry_id(o)] = true;
  m.attrs = MarkBlockedLayouts(*m.idx, 0, m.idx->num_nodes(), attrs, keep);
  return m;
}

TEST(BlockedLayoutPassTest, marks_values_between_convolutions_not_inputs_or_outputs) {
  ObjectPtr data = CreateVariableNode("data");
  ObjectPtr c1 = Conv("c1", data), c2 = Conv("c2", c1), c3 = Conv("c3", c2);
  Marked m = Mark({{c3, 0, 0}});
  ASSERT_TRUE(m.attrs);
  EXPECT_EQ(m.Of(c1).in, 0u) << "the graph input arrives NCHW";
  EXPECT_EQ(m.Of(c1).out, 1u);
  EXPECT_EQ(m.Of(c2).in, 1u);
  EXPECT_EQ(m.Of(c2).out, 1u);
  EXPECT_EQ(m.Of(c3).in, 1u);
  EXPECT_EQ(m.Of(c3).out, 0u) << "the graph output leaves NCHW";
}

TEST(BlockedLayoutPassTest, a_value_also_read_by_another_op_stays_plain) {
  ObjectPtr data = CreateVariableNode("data");
  ObjectPtr c1 = Conv("c1", data), c2 = Conv("c2", c1);
  ObjectPtr e = CreateNode("exp", "e", {{c1, 0, 0}}, {});
  ObjectPtr c3 = Conv("c3", c2);
  Marked m = Mark({{c3, 0, 0}, {e, 0, 0}});
  EXPECT_EQ(m.Of(c1).out, 0u) << "exp reads c1's output";
  EXPECT_EQ(m.Of(c2).in, 0u);
  EXPECT_EQ(m.Of(c2).out, 1u);
  EXPECT_EQ(m.Of(c3).in, 1u);
}

TEST(BlockedLayoutPassTest, a_graph_of_plain_ops_gets_no_marks) {
  ObjectPtr data = CreateVariableNode("data");
  ObjectPtr e = CreateNode("exp", "e", {{data, 0, 0}}, {});
  ObjectPtr l = CreateNode("log", "l", {{e, 0, 0}}, {});
  EXPECT_FALSE(Mark({{l, 0, 0}}).attrs);
}
#endif

}  // namespace
}  // namespace imperative
}  // namespace mxnet
