// Reduction trees over a link-weight matrix (tree_topology.h): Kernighan-Lin cuts, backtracking
// search and the link usage penalty, step for step as MXNet 1.9.1 plans them, so that one
// matrix gives 1.9.1's trees (same float arithmetic, same std::mt19937 draws, same ties).
#include "kvstore/tree_topology.h"

#include <dmlc/logging.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stack>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace mxnet {
namespace kvstore {
namespace {

constexpr int kMaxDepth = 16;
// Kernighan-Lin restarts (after a cut that cannot be joined into a tree) before backtracking.
constexpr int kMaxRestarts = 10;

void LogLines(const std::vector<std::string>& lines) {
  for (const std::string& l : lines) LOG(INFO) << l;
}

// ---- Kernighan-Lin cuts ----

// gain[i] = -side[i] * sum_j w[i][j] * side[j]: how much lighter the links across the cut get
// when device i changes side (0 for devices outside the part being cut).
void Gains(const std::vector<float>& w, const std::vector<int>& side, std::vector<float>* gain) {
  const size_t n = side.size();
  for (size_t i = 0; i < n; ++i) {
    float s = 0;
    for (size_t j = 0; j < n; ++j) s += w[i * n + j] * static_cast<float>(side[j]);
    (*gain)[i] = s;
  }
  for (size_t i = 0; i < n; ++i) (*gain)[i] *= -1.f * static_cast<float>(side[i]);
}

// The swap (a on one side, b on the other, a not moved yet) with the largest positive gain
// gain[a] + gain[b] - 2 w[a][b]; a = b = -1 and g = 0 when none is positive.
void BestSwap(const std::vector<float>& w, const std::vector<int>& side,
              const std::vector<float>& gain, const std::vector<char>& moved, int* a, int* b,
              float* g) {
  const int n = static_cast<int>(side.size());
  *g = 0;
  *a = -1;
  *b = -1;
  for (int r = 0; r < n; ++r) {
    if (side[r] == 0 || moved[r]) continue;
    for (int c = r + 1; c < n; ++c) {  // (the second device may have moved already, as 1.9.1)
      if (side[c] == 0 || side[r] == side[c]) continue;
      const float cost = gain[r] + gain[c] - 2 * w[r * n + c];
      if (cost > *g) {
        *g = cost;
        *a = r;
        *b = c;
      }
    }
  }
}

// Cuts every part of more than two devices into two balanced halves (part ids: the old one and
// a new one), recording (old, new) in pairs; a part of one or two devices is recorded as
// (part, -size). Returns true when no part was cut.
bool CutParts(const std::vector<float>& w, std::vector<int>* part, int* num_parts,
              std::vector<std::pair<int, int>>* pairs, std::mt19937* gen) {
  const size_t n = part->size();
  std::vector<int> sizes(*num_parts, 0);
  for (int p : *part) sizes[p]++;
  std::vector<int> side(n, 0);
  std::vector<float> gain(n, 0);
  bool none_cut = true;
  for (size_t color = 0; color < sizes.size(); ++color) {
    const int members = sizes[color];
    if (members <= 2) {
      pairs->emplace_back(static_cast<int>(color), -members);
      continue;
    }
    none_cut = false;
    // A random balanced start: the first half of a shuffled member list on side 1.
    std::vector<int> list;
    for (size_t i = 0; i < n; ++i) {
      if ((*part)[i] == static_cast<int>(color)) {
        list.push_back(static_cast<int>(i));
      } else {
        side[i] = 0;
      }
    }
    std::shuffle(list.begin(), list.end(), *gen);
    const int half = members / 2;
    for (size_t k = 0; k < list.size(); ++k) side[list[k]] = static_cast<int>(k) < half ? 1 : -1;

    // Passes of tentative swaps; the best prefix of a pass is kept while it gains. (The best
    // total and its length carry over between passes, as 1.9.1.)
    float best_total = 0;
    int best_len = -1;
    size_t passes = 0;
    std::vector<int> kept;
    do {
      ++passes;
      kept = side;
      Gains(w, side, &gain);
      std::vector<int> as, bs;
      std::vector<float> gs;
      std::vector<char> moved(n, 0);
      for (int it = 0; it < half; ++it) {
        int a, b;
        float g;
        BestSwap(w, side, gain, moved, &a, &b, &g);
        if (!(g > 0)) {
          best_total = 0;
          break;
        }
        as.push_back(a);
        bs.push_back(b);
        gs.push_back(g);
        side[a] *= -1;
        side[b] *= -1;
        moved[a] = moved[b] = 1;
        Gains(w, side, &gain);
        gain[a] = 0;
        gain[b] = 0;
      }
      for (size_t k = 0; k < gs.size(); ++k) {
        if (k > 0) gs[k] += gs[k - 1];
        if (gs[k] > best_total) {
          best_total = gs[k];
          best_len = static_cast<int>(k) + 1;
        }
      }
      if (best_total > 0) {
        for (int k = 0; k < best_len; ++k) std::swap(kept[as[k]], kept[bs[k]]);
      }
      side = kept;
    } while (best_total > 0 && passes <= n);

    for (size_t i = 0; i < n; ++i) {
      if (side[i] == -1) (*part)[i] = *num_parts;
    }
    pairs->emplace_back(static_cast<int>(color), *num_parts);
    ++*num_parts;
  }
  return none_cut;
}

// The root (a device of roots) in part color, or -1.
int RootOf(const std::vector<int>& part, int color, const std::unordered_set<int>& roots) {
  for (int r : roots) {
    if (part[r] == color) return r;
  }
  return -1;
}

// The first device of part color other than parent, or -1.
int OtherMember(const std::vector<int>& part, int color, int parent) {
  for (size_t i = 0; i < part.size(); ++i) {
    if (part[i] == color && static_cast<int>(i) != parent) return static_cast<int>(i);
  }
  return -1;
}

// The device of part dest linked to parent with the largest positive weight (ties drawn at
// random), or -1.
int HeaviestLink(const std::vector<float>& w, const std::vector<int>& part, int parent, int dest,
                 std::mt19937* gen) {
  const int n = static_cast<int>(part.size());
  std::vector<int> best{-1};  // (a first zero-weight candidate leaves -1 in front, as 1.9.1)
  float g = 0;
  for (int c = 0; c < n; ++c) {
    if (c == parent || part[c] != dest) continue;
    const float cost = w[parent * n + c];
    if (cost > g) best.clear();
    if (cost >= g) {
      best.push_back(c);
      g = cost;
    }
  }
  if (best[0] == -1) return -1;
  std::shuffle(best.begin(), best.end(), *gen);
  return best[0];
}

// Adds the next tree level from the cut just made: each pair of parts is joined by the root of
// one and its heaviest link into the other, which becomes the other part's root. Returns false
// (the caller restarts) when some part has no root or no link to join.
bool JoinParts(const std::vector<float>& w, const std::vector<int>& part,
               std::vector<std::pair<int, int>>* pairs, std::unordered_set<int>* roots,
               DeviceTree* tree, std::mt19937* gen) {
  std::unordered_set<int> new_roots;
  std::unordered_map<int, int> child_of;
  for (size_t i = 0; i < pairs->size(); ++i) {
    if (i == 0) tree->scan.push_back(tree->topo.size());
    const std::pair<int, int> pr = (*pairs)[i];
    int parent, child = -1;
    if (pr.second == -2) {
      parent = RootOf(part, pr.first, *roots);
      if (parent == -1) return false;
      child = OtherMember(part, pr.first, parent);
    } else if (pr.second == -1) {
      parent = RootOf(part, pr.first, *roots);
      if (parent == -1) return false;
      child = parent;
    } else {
      int from = pr.first;
      parent = RootOf(part, from, *roots);
      if (parent == -1) {
        from = pr.second;
        parent = RootOf(part, from, *roots);
      }
      if (parent == -1) return false;
      const int dest = from == pr.first ? pr.second : pr.first;
      child = HeaviestLink(w, part, parent, dest, gen);
      if (child == -1) return false;
      new_roots.insert(parent);
      new_roots.insert(child);
    }
    child_of[parent] = child;
  }
  const size_t levels = tree->scan.size();
  const size_t begin = tree->scan[levels - 2], end = tree->scan[levels - 1];
  for (size_t i = begin; i < end; ++i) {
    const int parent = static_cast<int>(tree->topo[i]);
    // A parent repeated from the level above keeps its place: nothing more to receive.
    const int child = (i != begin && tree->topo[i] == tree->topo[i - 1]) ? parent
                                                                          : child_of[parent];
    tree->topo.push_back(parent);
    tree->topo.push_back(child);
  }
  pairs->clear();
  *roots = std::move(new_roots);
  return true;
}

// ---- Backtracking search ----

// Whether the first `filled` leaves can still become a valid tree: every send follows a link,
// devices are in range, and there are neither too few distinct devices so far nor (when all
// leaves are placed) a device missing.
bool CanComplete(const std::vector<float>& w, const std::vector<int>& leaves, int n, int filled,
                 int depth) {
  for (int i = 0; i < depth; ++i) {
    const int stride = 1 << i;
    for (int j = 0; j + stride < filled; j += 2 * stride) {
      const int from = leaves[j], to = leaves[j + stride];
      if (w[from * n + to] == 0.f && from != to) return false;
    }
  }
  std::vector<char> found(n, 0);
  int num_found = 0;
  for (int v : leaves) {
    if (v == -1) continue;
    if (v >= n) return false;
    if (!found[v]) {
      found[v] = 1;
      ++num_found;
    }
  }
  const int repeats = (1 << depth) - n;  // how many leaves may repeat a device
  if (filled < n) {
    if (num_found > filled || num_found < filled - repeats) return false;
  } else if (filled == static_cast<int>(leaves.size())) {
    if (num_found != n) return false;
  }
  return true;
}

// Tries leaves 1..2^depth-1 in lexicographic order (leaf 0 is the root), keeping the
// heaviest tree; with !exhaustive it stops at the first one.
void SearchLeaves(const std::vector<float>& w, std::vector<int>* state, std::vector<int>* best,
                  float* best_weight, int n, int depth, bool exhaustive) {
  std::stack<int> chosen;
  int row = 1, pos = 0;
  chosen.push(pos);
  while (true) {
    while (!chosen.empty() && pos >= n) {  // row exhausted: back to the previous one
      pos = chosen.top() + 1;
      chosen.pop();
      (*state)[chosen.size() + 1] = -1;
      --row;
    }
    if (chosen.empty()) break;
    (*state)[row] = pos;
    if (CanComplete(w, *state, n, row + 1, depth)) {
      chosen.push(pos);
      pos = 0;
      ++row;
    } else {
      ++pos;
      (*state)[row] = -1;
    }
    if (row == static_cast<int>(state->size())) {
      std::vector<int> leaves = *state;
      tree_detail::DropRedundantSends(&leaves, n, depth);
      const float weight = tree_detail::LeavesWeight(w, leaves, n, depth, true);
      if (weight > *best_weight) {
        *best_weight = weight;
        *best = leaves;
      }
      if (!exhaustive) break;
      pos = chosen.top() + 1;
      chosen.pop();
      (*state)[chosen.size()] = -1;
      --row;
    }
  }
}

// The best tree from root by search: exhaustive up to 8 devices (depth 3), else the first
// found. False when there is none.
bool SearchTree(const std::vector<float>& w, int n, int root, DeviceTree* tree) {
  tree->topo.clear();
  tree->scan.clear();
  const int depth = TreeDepth(n);
  std::vector<int> state(size_t{1} << depth, -1), best(state.size(), -1);
  float best_weight = std::numeric_limits<float>::lowest();
  state[0] = root;
  SearchLeaves(w, &state, &best, &best_weight, n, depth, depth <= 3);
  return tree_detail::TreeFromLeaves(best, depth, tree);
}

// Scales the weight of each link the tree uses by alpha.
void PenalizeLinks(std::vector<float>* w, const DeviceTree& tree, int n, float alpha) {
  for (size_t i = 1; i + 1 < tree.topo.size(); i += 2) {
    const size_t parent = tree.topo[i], child = tree.topo[i + 1];
    if (parent != child) {
      (*w)[parent * n + child] *= alpha;
      (*w)[child * n + parent] *= alpha;
    }
  }
}

// The tree from root: Kernighan-Lin cuts, restarted (the random draws go on) up to
// kMaxRestarts times while a cut cannot be joined, then the search.
DeviceTree TreeFromRoot(std::vector<float>* w, int n, int root, const TreeOptions& opts) {
  DeviceTree tree;
  tree.topo.push_back(root);
  tree.scan.push_back(0);
  std::mt19937 gen(1);
  std::vector<std::pair<int, int>> pairs;
  std::vector<int> part;
  int num_parts = 0;
  std::unordered_set<int> roots;
  DeviceTree attempt;
  bool done = false, restart = true;
  int restarts = 0;
  while (!opts.backtrack && (!done || restart)) {
    if (restart) {
      pairs.clear();
      part.assign(n, 0);
      num_parts = 1;
      roots = {root};
      attempt = tree;
    }
    done = CutParts(*w, &part, &num_parts, &pairs, &gen);
    restart = !JoinParts(*w, part, &pairs, &roots, &attempt, &gen);
    if (restart) ++restarts;
    if (restarts > kMaxRestarts) break;
  }
  if (restart) {
    LOG(INFO) << "No valid binary tree found from root " << root << ", try backtracking";
    CHECK(SearchTree(*w, n, root, &tree))
        << "KVStore tree reduction (MXNET_KVSTORE_USETREE): no binary tree from device " << root
        << " reaches all " << n << " devices over the linked pairs (weight > 0) of the link "
        << "matrix; the devices are not connected";
  } else {
    tree = std::move(attempt);
    tree.scan.push_back(tree.topo.size());
  }
  PenalizeLinks(w, tree, n, opts.link_usage_penalty);
  return tree;
}

}  // namespace

namespace tree_detail {

void DropRedundantSends(std::vector<int>* leaves, int num_devices, int depth) {
  std::vector<int>& r = *leaves;
  const int size = static_cast<int>(r.size());
  for (int level = depth - 1; level >= 0; --level) {
    const int stride = 1 << level;
    std::vector<int> above(num_devices, 0), here(num_devices, 0);
    for (int i = 0; i < size; i += 2 * stride) above[r[i]]++;
    for (int i = 0; i < size; i += stride) here[r[i]]++;
    // A device that also appears elsewhere in this level or above keeps its value there.
    for (int i = size - stride; i - stride >= 0; i -= 2 * stride) {
      const int from = r[i], to = r[i - stride];
      if ((here[from] > 1 || above[from] >= 1) && from != to) {
        r[i] = to;
        here[from]--;
      }
    }
  }
}

float LeavesWeight(const std::vector<float>& w, const std::vector<int>& leaves, int num_devices,
                   int depth, bool penalty) {
  float weight = 0.f;
  std::unordered_set<int> links;
  for (int i = 0; i < depth; ++i) {
    const int stride = 1 << i;
    std::vector<char> used(num_devices, 0);
    for (size_t j = 0; j + stride < leaves.size(); j += 2 * stride) {
      const int from = leaves[j], to = leaves[j + stride];
      if (from != to) {
        weight += w[from * num_devices + to];
        if (penalty && links.count(from * num_devices + to)) weight -= 100;
        links.insert(from * num_devices + to);
        links.insert(to * num_devices + from);
      }
      used[from] = 1;
      if (i > 0 && used[to] && penalty) weight -= 10;
      used[to] = 1;
    }
  }
  return weight;
}

bool TreeFromLeaves(const std::vector<int>& leaves, int depth, DeviceTree* tree) {
  if (std::find(leaves.begin(), leaves.end(), -1) != leaves.end()) return false;
  tree->scan.push_back(tree->topo.size());
  for (int i = depth; i > 0; --i) {
    const size_t stride = size_t{1} << i;
    for (size_t j = 0; j < leaves.size(); j += stride) tree->topo.push_back(leaves[j]);
    tree->scan.push_back(tree->topo.size());
  }
  tree->topo.insert(tree->topo.end(), leaves.begin(), leaves.end());
  tree->scan.push_back(tree->topo.size());
  return true;
}

}  // namespace tree_detail

int TreeDepth(int num_devices) {
  for (int depth = 0; depth < kMaxDepth; ++depth) {
    if (num_devices <= (2 << depth)) return depth + 1;
  }
  return 0;
}

void CheckLinkMatrix(const std::vector<float>& w, int num_devices, const char* context) {
  CHECK_GE(num_devices, 1) << context << ": the link matrix needs at least one device, given "
                           << num_devices;
  CHECK_LE(num_devices, 1 << kMaxDepth)
      << context << ": at most " << (1 << kMaxDepth) << " devices, given " << num_devices;
  CHECK_EQ(w.size(), static_cast<size_t>(num_devices) * num_devices)
      << context << ": the link matrix must be square, " << num_devices << " x " << num_devices
      << " = " << num_devices * num_devices << " weights, given " << w.size();
  for (size_t i = 0; i < w.size(); ++i) {
    CHECK(std::isfinite(w[i]) && w[i] >= 0)
        << context << ": link weights must be finite and >= 0, given " << w[i] << " at row "
        << i / num_devices << ", column " << i % num_devices;
  }
}

std::vector<DeviceTree> ComputeTrees(const std::vector<float>& w, int num_devices,
                                     const TreeOptions& opts) {
  CheckLinkMatrix(w, num_devices, "KVStore tree reduction");
  const int n = num_devices;
  std::vector<float> penalized = w;
  std::vector<DeviceTree> trees;
  for (int root = 0; root < n; ++root) trees.push_back(TreeFromRoot(&penalized, n, root, opts));
  if (opts.log) {
    // How many trees use each link.
    std::vector<float> uses(w.size(), 0);
    for (const DeviceTree& t : trees) {
      for (size_t i = 1; i + 1 < t.topo.size(); i += 2) {
        const size_t a = t.topo[i], b = t.topo[i + 1];
        if (a != b) {
          uses[a * n + b] += 1;
          uses[b * n + a] += 1;
        }
      }
    }
    for (int root = 0; root < n; ++root) {
      LogLines(TreeText("Tree " + std::to_string(root), trees[root]));
    }
    LogLines(MatrixText("W", w, n, n));
    LogLines(MatrixText("Links", uses, n, n));
  }
  return trees;
}

namespace {

// The sends between sibling entries of every level: towards the first sibling (reduce,
// deepest level first) or from it (broadcast, root level first).
std::vector<TreeSend> SiblingSends(const DeviceTree& tree, bool reduce) {
  std::vector<TreeSend> sends;
  const int depth = tree.depth();
  for (int step = 1; step <= depth; ++step) {
    const int level = reduce ? depth + 1 - step : step;
    for (size_t k = 0; k < (size_t{1} << level); k += 2) {
      const int first = static_cast<int>(tree.at(level, k));
      const int second = static_cast<int>(tree.at(level, k + 1));
      if (first == second) continue;
      sends.push_back(reduce ? TreeSend{level, second, first} : TreeSend{level, first, second});
    }
  }
  return sends;
}

}  // namespace

std::vector<TreeSend> ReduceSends(const DeviceTree& tree) { return SiblingSends(tree, true); }

std::vector<TreeSend> BroadcastSends(const DeviceTree& tree) { return SiblingSends(tree, false); }

std::vector<std::string> TreeText(const std::string& name, const DeviceTree& tree) {
  std::vector<std::string> lines{name + ":"};
  const int rows = static_cast<int>(tree.scan.size()) - 1;
  for (int row = 0; row < rows; ++row) {
    // 1.9.1 indents by (2 << (rows - row - 2)) + 1, which is 1 on the leaf row.
    const int shift = rows - row - 2;
    const int indent = shift >= 0 ? (2 << shift) + 1 : 1;
    std::string line;
    for (size_t i = tree.scan[row]; i < tree.scan[row + 1]; ++i) {
      line += std::string(indent, ' ') + std::to_string(tree.topo[i]);
    }
    lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> MatrixText(const std::string& name, const std::vector<float>& m,
                                    int rows, int cols) {
  std::vector<std::string> lines{name + ":"};
  for (int r = 0; r < rows; ++r) {
    std::string line;
    for (int c = 0; c < cols; ++c) line += std::to_string(static_cast<int>(m[r * cols + c])) + " ";
    lines.push_back(line);
  }
  return lines;
}

std::vector<float> UniformLinkMatrix(int num_devices) {
  std::vector<float> w(static_cast<size_t>(num_devices) * num_devices, 1.f);
  for (int i = 0; i < num_devices; ++i) w[i * num_devices + i] = 0.f;
  return w;
}

}  // namespace kvstore
}  // namespace mxnet
