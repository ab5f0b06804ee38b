// Reduction trees over a link-weight matrix: MXNet 1.9.1's plan for the tree 'device' KVStore
// (MXNET_KVSTORE_USETREE), as plain C++ on numbers so that it is testable without devices.
//
// Devices are numbered 0..n-1. w[i*n+j] > 0 says i and j are linked (the higher, the faster);
// 0 says they are not. For every root one balanced binary tree is built, by recursive
// Kernighan-Lin cuts of the devices into halves with the heaviest links across each cut
// (seeded std::mt19937, as 1.9.1), or by backtracking search when the cuts do not give a tree
// of the minimal depth (or when asked). After each tree the links it uses are multiplied by
// the link usage penalty, so later roots prefer other links.
#ifndef MXNET_KVSTORE_TREE_TOPOLOGY_H_
#define MXNET_KVSTORE_TREE_TOPOLOGY_H_

#include <cstddef>
#include <string>
#include <vector>

namespace mxnet {
namespace kvstore {

/*! \brief A full binary tree stored level by level: level l (0 = the root) holds 2^l device
 *  numbers in topo[scan[l], scan[l+1]). Entries 2k and 2k+1 of level l+1 are the children of
 *  entry k of level l; the first child is the parent itself (it keeps its value), and a second
 *  child equal to the first means nothing is sent (1.9.1's topology_/scan_ rows). */
struct DeviceTree {
  std::vector<size_t> topo;
  std::vector<size_t> scan;
  /*! \brief Levels below the root (the leaves are level depth()). */
  int depth() const { return static_cast<int>(scan.size()) - 2; }
  size_t root() const { return topo.at(0); }
  /*! \brief Entry k of level l. */
  size_t at(int level, size_t k) const { return topo.at(scan.at(level) + k); }
};

struct TreeOptions {
  float link_usage_penalty = 0.7f;  // MXNET_KVSTORE_TREE_LINK_USAGE_PENALTY
  bool backtrack = false;           // MXNET_KVSTORE_TREE_BACKTRACK
  bool log = false;                 // MXNET_KVSTORE_LOGTREE: LOG(INFO) the trees and matrices
};

/*! \brief One copy of a reduction or broadcast: level is the tree level of the receiving pair's
 *  children (1..depth). */
struct TreeSend {
  int level;
  int from;
  int to;
};

/*! \brief Levels of a balanced binary tree with n leaves (1.9.1's ComputeDepth: 1 for 1 or 2
 *  devices, 2 for 3-4, 3 for 5-8, ...). */
int TreeDepth(int num_devices);

/*! \brief Throws dmlc::Error unless w is a num_devices x num_devices matrix of finite,
 *  non-negative weights (context names the caller in the message). */
void CheckLinkMatrix(const std::vector<float>& w, int num_devices, const char* context);

/*! \brief One tree per root device (tree i is rooted at i), from link weights w (n x n,
 *  row-major). Throws dmlc::Error for a bad matrix or when some root has no tree whose
 *  sends all follow links (the devices are not connected). */
std::vector<DeviceTree> ComputeTrees(const std::vector<float>& w, int num_devices,
                                     const TreeOptions& opts);

/*! \brief The sends that sum every device's value into the root, deepest level first; in one
 *  level a device may receive more than once. Each device's value is counted exactly once. */
std::vector<TreeSend> ReduceSends(const DeviceTree& tree);
/*! \brief The copies that give every device the root's value, root level first. */
std::vector<TreeSend> BroadcastSends(const DeviceTree& tree);

/*! \brief 1.9.1's log text of a tree: "<name>:" then one line per level, root first, each
 *  entry indented as 1.9.1 prints it. */
std::vector<std::string> TreeText(const std::string& name, const DeviceTree& tree);
/*! \brief 1.9.1's log text of a matrix: "<name>:" then each row as integers. */
std::vector<std::string> MatrixText(const std::string& name, const std::vector<float>& m,
                                    int rows, int cols);

/*! \brief Every pair of distinct devices linked with weight 1 (devices that share memory, such
 *  as CPU contexts). */
std::vector<float> UniformLinkMatrix(int num_devices);

// Steps of the search, exposed for tests.
namespace tree_detail {
/*! \brief Leaves [2^depth] of a candidate tree -> the same tree with a repeated device's
 *  redundant sends turned into no-sends (1.9.1's Postprocess). */
void DropRedundantSends(std::vector<int>* leaves, int num_devices, int depth);
/*! \brief Sum of the link weights a tree given by its leaves uses; with penalty, -100 per
 *  link used twice and -10 per device repeated in a level above the leaves. */
float LeavesWeight(const std::vector<float>& w, const std::vector<int>& leaves, int num_devices,
                   int depth, bool penalty);
/*! \brief The tree whose leaves are given (1.9.1's FormTopology); false if a leaf is -1. */
bool TreeFromLeaves(const std::vector<int>& leaves, int depth, DeviceTree* tree);
}  // namespace tree_detail

}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_TREE_TOPOLOGY_H_
