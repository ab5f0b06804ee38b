// Tests of the reduction-tree planner of the tree 'device' KVStore (kvstore/tree_topology.h):
// the trees span every device and count each value once, sends follow links, results match
// MXNet 1.9.1's planner, the backtrack and penalty options, the log text and bad matrices.
#include <gtest/gtest.h>

#include <dmlc/logging.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "kvstore/gpu_p2p.h"
#include "kvstore/tree_topology.h"

namespace {

using mxnet::kvstore::BroadcastSends;
using mxnet::kvstore::ComputeTrees;
using mxnet::kvstore::DeviceTree;
using mxnet::kvstore::LinkWeightsFromP2P;
using mxnet::kvstore::ReduceSends;
using mxnet::kvstore::TreeDepth;
using mxnet::kvstore::TreeOptions;
using mxnet::kvstore::TreeSend;
using mxnet::kvstore::UniformLinkMatrix;

// cudaDevP2PAttrPerformanceRank + 1 of a DGX-1 (8 V100s in a hybrid cube mesh): 3 = two
// NVLinks, 2 = one NVLink, 1 = PCI-E only.
const std::vector<float> kDgx1 = {
    0, 2, 2, 3, 3, 1, 1, 1,  //
    2, 0, 3, 2, 1, 3, 1, 1,  //
    2, 3, 0, 3, 1, 1, 2, 1,  //
    3, 2, 3, 0, 1, 1, 1, 2,  //
    3, 1, 1, 1, 0, 2, 2, 3,  //
    1, 3, 1, 1, 2, 0, 3, 2,  //
    1, 1, 2, 1, 2, 3, 0, 3,  //
    1, 1, 1, 2, 3, 2, 3, 0};

std::vector<size_t> Topo(const std::vector<DeviceTree>& trees, int root) {
  return trees.at(root).topo;
}

TreeOptions Options(float penalty, bool backtrack) {
  TreeOptions o;
  o.link_usage_penalty = penalty;
  o.backtrack = backtrack;
  return o;
}

// Runs the tree's reduction on sets of device ids and its broadcast on flags, failing the test
// when a value would be counted twice, a send reads a device that has no value yet, or some
// device is left out.
void ExpectSpansAll(const DeviceTree& tree, int n, int root) {
  const int depth = TreeDepth(n);
  ASSERT_EQ(tree.depth(), depth) << "root " << root;
  ASSERT_EQ(tree.topo.size(), (size_t{2} << depth) - 1) << "root " << root;
  ASSERT_EQ(tree.root(), static_cast<size_t>(root));
  for (size_t d : tree.topo) ASSERT_LT(d, static_cast<size_t>(n));
  std::vector<std::set<int>> sum(n);
  for (int i = 0; i < n; ++i) sum[i] = {i};
  for (const TreeSend& s : ReduceSends(tree)) {
    for (int v : sum[s.from]) {
      ASSERT_EQ(sum[s.to].count(v), 0u) << "root " << root << ": device " << v
                                        << "'s value reaches " << s.to << " twice";
    }
    sum[s.to].insert(sum[s.from].begin(), sum[s.from].end());
  }
  EXPECT_EQ(sum[root].size(), static_cast<size_t>(n)) << "root " << root;
  std::vector<char> has(n, 0);
  has[root] = 1;
  int last_level = 0;
  for (const TreeSend& s : BroadcastSends(tree)) {
    EXPECT_GE(s.level, last_level);
    last_level = s.level;
    ASSERT_TRUE(has[s.from]) << "root " << root << ": device " << s.from << " sends before "
                             << "it has the value";
    has[s.to] = 1;
  }
  EXPECT_EQ(std::count(has.begin(), has.end(), 1), n) << "root " << root;
}

void ExpectSendsLinked(const std::vector<DeviceTree>& trees, const std::vector<float>& w, int n) {
  for (const DeviceTree& t : trees) {
    for (const TreeSend& s : ReduceSends(t)) {
      EXPECT_GT(w[s.from * n + s.to], 0.f) << "tree " << t.root() << " sends " << s.from
                                           << " -> " << s.to << " over no link";
    }
  }
}

std::vector<float> RandomConnectedMatrix(int n, std::mt19937* gen) {
  std::uniform_int_distribution<int> weight(1, 3);
  std::vector<float> w(n * n, 0.f);
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) w[i * n + j] = w[j * n + i] = static_cast<float>(weight(*gen));
  }
  return w;
}

TEST(KVStoreTreeTopology, depth_is_the_balanced_binary_depth) {
  EXPECT_EQ(TreeDepth(1), 1);
  EXPECT_EQ(TreeDepth(2), 1);
  EXPECT_EQ(TreeDepth(3), 2);
  EXPECT_EQ(TreeDepth(4), 2);
  EXPECT_EQ(TreeDepth(5), 3);
  EXPECT_EQ(TreeDepth(8), 3);
  EXPECT_EQ(TreeDepth(9), 4);
  EXPECT_EQ(TreeDepth(16), 4);
}

TEST(KVStoreTreeTopology, every_tree_spans_all_devices_uniform) {
  for (int n = 1; n <= 10; ++n) {
    for (bool backtrack : {false, true}) {
      if (backtrack && n > 8) continue;
      const auto trees = ComputeTrees(UniformLinkMatrix(n), n, Options(0.7f, backtrack));
      ASSERT_EQ(trees.size(), static_cast<size_t>(n));
      for (int r = 0; r < n; ++r) ExpectSpansAll(trees[r], n, r);
    }
  }
}

TEST(KVStoreTreeTopology, every_tree_spans_all_devices_random_links) {
  std::mt19937 gen(42);
  for (int n : {2, 3, 4, 5, 6, 7, 8, 9, 11, 16}) {
    for (int rep = 0; rep < 2; ++rep) {
      const std::vector<float> w = RandomConnectedMatrix(n, &gen);
      const auto trees = ComputeTrees(w, n, Options(0.7f, false));
      for (int r = 0; r < n; ++r) ExpectSpansAll(trees[r], n, r);
      ExpectSendsLinked(trees, w, n);
    }
  }
}

TEST(KVStoreTreeTopology, dgx1_trees_use_only_nvlink) {
  // The GPU path: PCI-E pairs become 0 because NVLink alone connects the eight GPUs.
  std::vector<int> rank(64), access(64);
  for (int i = 0; i < 64; ++i) {
    rank[i] = i / 8 == i % 8 ? 0 : static_cast<int>(kDgx1[i]) - 1;
    access[i] = kDgx1[i] > 1 ? 1 : 0;
  }
  const std::vector<float> w = LinkWeightsFromP2P(rank, access, 8, false);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(w[i], kDgx1[i] == 1 ? 0.f : kDgx1[i]) << i;
  for (bool backtrack : {false, true}) {
    const auto trees = ComputeTrees(w, 8, Options(0.7f, backtrack));
    for (int r = 0; r < 8; ++r) ExpectSpansAll(trees[r], 8, r);
    ExpectSendsLinked(trees, w, 8);
  }
}

// Expected trees below were printed by MXNet 1.9.1's planner (gpu_topology.h's ComputeTrees)
// for the same matrices and options.
TEST(KVStoreTreeTopology, dgx1_kernighan_lin_trees_are_mxnet_191s) {
  const auto trees = ComputeTrees(kDgx1, 8, Options(0.7f, false));
  EXPECT_EQ(Topo(trees, 0), (std::vector<size_t>{0, 0, 4, 0, 2, 4, 6, 0, 3, 2, 1, 4, 7, 6, 5}));
  EXPECT_EQ(Topo(trees, 1), (std::vector<size_t>{1, 1, 5, 1, 2, 5, 6, 1, 0, 2, 3, 5, 4, 6, 7}));
  EXPECT_EQ(Topo(trees, 5), (std::vector<size_t>{5, 5, 1, 5, 2, 1, 0, 5, 7, 2, 6, 1, 3, 0, 4}));
  EXPECT_EQ(Topo(trees, 7), (std::vector<size_t>{7, 7, 4, 7, 2, 4, 0, 7, 3, 2, 1, 4, 6, 0, 5}));
  for (int r = 0; r < 8; ++r) {
    EXPECT_EQ(trees[r].scan, (std::vector<size_t>{0, 1, 3, 7, 15})) << r;
  }
}

TEST(KVStoreTreeTopology, dgx1_backtracking_trees_are_mxnet_191s) {
  const auto trees = ComputeTrees(kDgx1, 8, Options(0.7f, true));
  EXPECT_EQ(Topo(trees, 0), (std::vector<size_t>{0, 0, 1, 0, 4, 1, 5, 0, 3, 4, 7, 1, 2, 5, 6}));
  EXPECT_EQ(Topo(trees, 4), (std::vector<size_t>{4, 4, 0, 4, 5, 0, 2, 4, 7, 5, 1, 0, 3, 2, 6}));
  EXPECT_EQ(Topo(trees, 7), (std::vector<size_t>{7, 7, 0, 7, 4, 0, 3, 7, 1, 4, 6, 0, 5, 3, 2}));
  // The backtracking option changes the plan.
  EXPECT_NE(Topo(trees, 0), Topo(ComputeTrees(kDgx1, 8, Options(0.7f, false)), 0));
}

TEST(KVStoreTreeTopology, link_usage_penalty_changes_later_trees) {
  const auto penalized = ComputeTrees(kDgx1, 8, Options(0.7f, false));
  const auto free = ComputeTrees(kDgx1, 8, Options(1.0f, false));
  // Tree 0 is planned before any penalty applies; later ones avoid links already used.
  EXPECT_EQ(Topo(penalized, 0), Topo(free, 0));
  EXPECT_EQ(Topo(free, 1), (std::vector<size_t>{1, 1, 5, 1, 3, 5, 7, 1, 2, 3, 0, 5, 6, 7, 4}));
  EXPECT_EQ(Topo(free, 4), (std::vector<size_t>{4, 4, 0, 4, 6, 0, 2, 4, 7, 6, 5, 0, 3, 2, 1}));
  EXPECT_NE(Topo(penalized, 1), Topo(free, 1));
  // The penalty spreads the trees over more distinct links.
  auto links = [](const std::vector<DeviceTree>& trees) {
    std::set<std::pair<int, int>> used;
    for (const DeviceTree& t : trees) {
      for (const TreeSend& s : ReduceSends(t)) {
        used.insert({std::min(s.from, s.to), std::max(s.from, s.to)});
      }
    }
    return used.size();
  };
  EXPECT_GT(links(penalized), links(free));
}

TEST(KVStoreTreeTopology, uniform_trees_are_mxnet_191s_for_small_counts) {
  const TreeOptions o = Options(0.7f, false);
  EXPECT_EQ(Topo(ComputeTrees(UniformLinkMatrix(2), 2, o), 1), (std::vector<size_t>{1, 1, 0}));
  EXPECT_EQ(Topo(ComputeTrees(UniformLinkMatrix(3), 3, o), 2),
            (std::vector<size_t>{2, 2, 1, 2, 0, 1, 1}));
  EXPECT_EQ(Topo(ComputeTrees(UniformLinkMatrix(4), 4, o), 1),
            (std::vector<size_t>{1, 1, 3, 1, 2, 3, 0}));
  // Five devices: the cuts never join into a tree of depth 3, so 1.9.1 falls back to search.
  EXPECT_EQ(Topo(ComputeTrees(UniformLinkMatrix(5), 5, o), 4),
            (std::vector<size_t>{4, 4, 0, 4, 3, 0, 1, 4, 2, 3, 3, 0, 0, 1, 1}));
  EXPECT_EQ(Topo(ComputeTrees(UniformLinkMatrix(6), 6, o), 3),
            (std::vector<size_t>{3, 3, 0, 3, 5, 0, 2, 3, 4, 5, 5, 0, 1, 2, 2}));
}

TEST(KVStoreTreeTopology, planning_is_deterministic) {
  std::mt19937 gen(3);
  for (int n : {3, 5, 7}) {
    const std::vector<float> w = RandomConnectedMatrix(n, &gen);
    const auto a = ComputeTrees(w, n, Options(0.7f, false));
    const auto b = ComputeTrees(w, n, Options(0.7f, false));
    for (int r = 0; r < n; ++r) {
      EXPECT_EQ(a[r].topo, b[r].topo);
      EXPECT_EQ(a[r].scan, b[r].scan);
    }
  }
}

TEST(KVStoreTreeTopology, unlinked_pairs_are_avoided_when_possible) {
  // A ring 0-1-2-3-0: 0-2 and 1-3 are not linked, and every tree must avoid them.
  const std::vector<float> ring = {0, 1, 0, 1,  //
                                   1, 0, 1, 0,  //
                                   0, 1, 0, 1,  //
                                   1, 0, 1, 0};
  for (bool backtrack : {false, true}) {
    const auto trees = ComputeTrees(ring, 4, Options(0.7f, backtrack));
    for (int r = 0; r < 4; ++r) ExpectSpansAll(trees[r], 4, r);
    ExpectSendsLinked(trees, ring, 4);
  }
}

TEST(KVStoreTreeTopology, disconnected_devices_are_an_error) {
  const std::vector<float> split = {0, 1, 0, 0,  //
                                    1, 0, 0, 0,  //
                                    0, 0, 0, 1,  //
                                    0, 0, 1, 0};
  try {
    ComputeTrees(split, 4, Options(0.7f, false));
    FAIL() << "expected an error";
  } catch (const dmlc::Error& e) {
    EXPECT_NE(std::string(e.what()).find("not connected"), std::string::npos) << e.what();
  }
}

TEST(KVStoreTreeTopology, bad_matrices_are_errors_naming_the_problem) {
  auto message = [](const std::vector<float>& w, int n) {
    try {
      ComputeTrees(w, n, Options(0.7f, false));
    } catch (const dmlc::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string not_square = message(std::vector<float>(6, 1.f), 3);
  EXPECT_NE(not_square.find("square"), std::string::npos) << not_square;
  EXPECT_NE(not_square.find("given 6"), std::string::npos) << not_square;
  std::vector<float> negative = UniformLinkMatrix(3);
  negative[5] = -2.f;
  const std::string neg = message(negative, 3);
  EXPECT_NE(neg.find(">= 0"), std::string::npos) << neg;
  EXPECT_NE(neg.find("row 1, column 2"), std::string::npos) << neg;
  std::vector<float> nan = UniformLinkMatrix(2);
  nan[1] = std::nanf("");
  EXPECT_NE(message(nan, 2).find("finite"), std::string::npos);
  EXPECT_NE(message({}, 0).find("at least one device"), std::string::npos);
}

TEST(KVStoreTreeTopology, redundant_sends_become_no_sends) {
  // 1.9.1's own example: device 3 would send to 0 although 3 already holds the value above.
  std::vector<int> leaves = {3, 0, 0, 4, 1, 2, 5, 6};
  mxnet::kvstore::tree_detail::DropRedundantSends(&leaves, 7, 3);
  EXPECT_EQ(leaves, (std::vector<int>{3, 3, 0, 4, 1, 2, 5, 6}));
  DeviceTree tree;
  ASSERT_TRUE(mxnet::kvstore::tree_detail::TreeFromLeaves(leaves, 3, &tree));
  EXPECT_EQ(tree.topo, (std::vector<size_t>{3, 3, 1, 3, 0, 1, 5, 3, 3, 0, 4, 1, 2, 5, 6}));
  EXPECT_EQ(tree.scan, (std::vector<size_t>{0, 1, 3, 7, 15}));
  EXPECT_FALSE(mxnet::kvstore::tree_detail::TreeFromLeaves({0, -1}, 1, &tree));
}

TEST(KVStoreTreeTopology, tree_weight_sums_links_and_penalizes_reuse) {
  const std::vector<float> w = UniformLinkMatrix(4);
  // Leaves 0 1 2 3: sends 1->0, 3->2, 2->0: three links of weight 1.
  EXPECT_EQ(mxnet::kvstore::tree_detail::LeavesWeight(w, {0, 1, 2, 3}, 4, 2, true), 3.f);
  // Leaves 0 1 0 1: the link 0-1 twice (-100) and 0 again at level 1 (-10).
  EXPECT_EQ(mxnet::kvstore::tree_detail::LeavesWeight(w, {0, 1, 0, 1}, 4, 2, false), 2.f);
  EXPECT_EQ(mxnet::kvstore::tree_detail::LeavesWeight(w, {0, 1, 0, 1}, 4, 2, true), -108.f);
}

TEST(KVStoreTreeTopology, log_text_is_mxnet_191s_layout) {
  DeviceTree tree;
  tree.topo = {0, 0, 2, 0, 1, 2, 3};
  tree.scan = {0, 1, 3, 7};
  EXPECT_EQ(mxnet::kvstore::TreeText("Tree 0", tree),
            (std::vector<std::string>{"Tree 0:", "     0", "   0   2", " 0 1 2 3"}));
  EXPECT_EQ(mxnet::kvstore::MatrixText("W", {0, 1.5f, 2, 0}, 2, 2),
            (std::vector<std::string>{"W:", "0 1 ", "2 0 "}));
}

TEST(KVStoreTreeTopology, p2p_weights_fall_back_to_peer_access_and_weigh_pci_e) {
  // Ranks that miss the peer links (some CUDA versions): peer access decides, 2 or 1.
  const std::vector<int> rank(9, 0);
  const std::vector<int> access = {0, 1, 0,  //
                                   1, 0, 0,  //
                                   0, 0, 0};
  const std::vector<float> w = LinkWeightsFromP2P(rank, access, 3, false);
  // Peer links do not connect device 2, so PCI-E pairs (and the diagonal) weigh 1/3.
  const float third = static_cast<float>(1. / 3);
  EXPECT_EQ(w, (std::vector<float>{third, 2, third, 2, third, third, third, third, third}));
  // Connected by NVLink: PCI-E pairs get 0.
  const std::vector<int> nvlink_rank = {0, 1, 0,  //
                                        1, 0, 1,  //
                                        0, 1, 0};
  EXPECT_EQ(LinkWeightsFromP2P(nvlink_rank, std::vector<int>(9, 0), 3, false),
            (std::vector<float>{0, 2, 0, 2, 0, 2, 0, 2, 0}));
}

}  // namespace
