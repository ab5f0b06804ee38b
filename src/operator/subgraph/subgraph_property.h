// Subgraph backends: selectors that pick groups of nodes, properties that replace each group
// with one node, and the registry of backends by name (MXNET_SUBGRAPH_BACKEND, optimize_for).
#ifndef MXNET_OPERATOR_SUBGRAPH_SUBGRAPH_PROPERTY_H_
#define MXNET_OPERATOR_SUBGRAPH_SUBGRAPH_PROPERTY_H_

#include <map>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "nnvm/symbol.h"

namespace mxnet {
namespace op {

/*!
 * \brief Grows one subgraph: Select starts it at a seed node, SelectInput / SelectOutput
 * admit a neighbour of a node already in it (each asked once per edge, breadth first), and
 * Filter may drop nodes from the grown set. A fresh selector grows each subgraph.
 */
class SubgraphSelector {
 public:
  virtual ~SubgraphSelector() = default;
  virtual bool Select(const nnvm::Node& seed) = 0;
  virtual bool SelectInput(const nnvm::Node& cur, const nnvm::Node& input) = 0;
  virtual bool SelectOutput(const nnvm::Node& cur, const nnvm::Node& output) = 0;
  /*! \brief The nodes to keep of the grown set (in topological order). */
  virtual std::vector<nnvm::Node*> Filter(const std::vector<nnvm::Node*>& candidates) {
    return candidates;
  }
};

/*!
 * \brief One rule of a backend: which nodes form a subgraph and which node replaces it.
 * The partitioner hands CreateSubgraphNode the subgraph as a symbol whose variables stand
 * for the subgraph's inputs (one per incoming edge, "<entry name><n>") and whose outputs are
 * the entries read outside it. The returned node either has no inputs (it then gets them in
 * the order of that symbol's ListInputs(kAll)) or lists the symbol's variables in the order it
 * wants; the partitioner replaces each by the entry it stands for. Its outputs are the
 * symbol's, in order. A property that returns nullptr leaves the nodes as they are.
 */
class SubgraphProperty {
 public:
  virtual ~SubgraphProperty() = default;
  /*! \brief op_names: the property's own, or the set given for this run. */
  virtual std::unique_ptr<SubgraphSelector> CreateSubgraphSelector(
      const std::unordered_set<std::string>& op_names) const = 0;
  virtual nnvm::ObjectPtr CreateSubgraphNode(const nnvm::Symbol& sym, int subgraph_id) const = 0;
  /*! \brief Whether its nodes only compute forward (no gradient): skipped at a bind that
   *  wants gradients, as MXNet 1.9.1 skips them. */
  virtual bool inference_only() const { return false; }

  /*! \brief Op names for the test properties ("default", "default_v2"): none set, none picked. */
  void SetOpNames(std::unordered_set<std::string> names) { op_names_ = std::move(names); }
  void RemoveOpNames() { op_names_.clear(); }
  const std::unordered_set<std::string>& op_names() const { return op_names_; }

 private:
  std::unordered_set<std::string> op_names_;
};

/*! \brief A named list of properties, applied in order (what MXNET_SUBGRAPH_BACKEND names). */
struct SubgraphBackend {
  std::string name;
  std::vector<std::shared_ptr<SubgraphProperty>> properties;
};

/*! \brief Backends by name. Unknown names raise dmlc::Error naming them and the known ones. */
class SubgraphBackendRegistry {
 public:
  static SubgraphBackendRegistry* Get();
  /*! \brief The backend called name (created empty on first use); alias: another name for it. */
  SubgraphBackend& Register(const std::string& name, const std::string& alias = "");
  SubgraphBackend& GetSubgraphBackend(const std::string& name);
  bool Has(const std::string& name) const { return backends_.count(name) != 0; }
  std::vector<std::string> ListNames() const;

 private:
  std::map<std::string, std::shared_ptr<SubgraphBackend>> backends_;
};

/*! \brief Options of a partitioning run (optimize_for's keyword arguments). */
struct PartitionOptions {
  bool dedup_subgraph{false};
  /*! \brief When set, replaces each property's op names for this run (MXSetSubgraphPropertyOpNames). */
  const std::unordered_set<std::string>* op_names{nullptr};
  /*! \brief Gradients are wanted: inference-only properties are not applied. */
  bool need_grad{false};
};

/*! \brief The graph with every subgraph that prop selects replaced by prop's node; the
 *  result keeps the inputs (names, order, argument / auxiliary split) and outputs of sym. */
nnvm::Symbol PartitionGraph(const nnvm::Symbol& sym, const SubgraphProperty& prop,
                            const PartitionOptions& opts);

/*! \brief Every property of the backend called name, in order ("Subgraph backend X is
 *  activated" is logged unless MXNET_SUBGRAPH_VERBOSE=0). */
nnvm::Symbol ApplySubgraphBackend(const nnvm::Symbol& sym, const std::string& name,
                                  const PartitionOptions& opts);

/*! \brief Symbol.optimize_for: the backend called name applied with optimize_for's options
 *  ("dedup_subgraph": true/false; other keys are left to backends that read them). */
nnvm::Symbol OptimizeForBackend(const nnvm::Symbol& sym, const std::string& name,
                                const std::map<std::string, std::string>& options);

/*! \brief Op names set for a backend through MXSetSubgraphPropertyOpNames (the executor's
 *  MXNET_SUBGRAPH_BACKEND path reads them). */
std::map<std::string, std::unordered_set<std::string>>& SubgraphPropertyOpNameSet();

/*! \brief attr_parser of _CachedOp: kwarg "subgraph" (the symbol's JSON, as
 *  mx.sym._internal._CachedOp(*args, subgraph=json) and saved partitioned graphs give it),
 *  the other kwargs its flags. Without "subgraph" the node is left for its creator to set. */
void ParseCachedOpSubgraph(nnvm::NodeAttrs* attrs);

/*! \brief bind / simple_bind: sym partitioned by the backend MXNET_SUBGRAPH_BACKEND names
 *  (read at each call; unset, empty or NONE: sym unchanged); need_grad: some argument wants
 *  a gradient. */
nnvm::Symbol PartitionForEnvBackend(const nnvm::Symbol& sym, bool need_grad);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_SUBGRAPH_SUBGRAPH_PROPERTY_H_
