// The registry of subgraph backends, applying one to a graph (optimize_for,
// MXNET_SUBGRAPH_BACKEND), and the test backends "default" / "default_v2" that fold the
// ops named at run time into _CachedOp nodes.
#include <dmlc/logging.h>

#include <cstdlib>
#include <sstream>

#include "common/env.h"
#include "imperative/cached_op.h"
#include "nnvm/graph_json.h"
#include "nnvm/op.h"
#include "operator/subgraph/subgraph_property.h"

namespace mxnet {
namespace op {

SubgraphBackendRegistry* SubgraphBackendRegistry::Get() {
  static SubgraphBackendRegistry registry;
  return &registry;
}

SubgraphBackend& SubgraphBackendRegistry::Register(const std::string& name,
                                                   const std::string& alias) {
  auto& slot = backends_[name];
  if (!slot) {
    slot = std::make_shared<SubgraphBackend>();
    slot->name = name;
  }
  if (!alias.empty()) backends_[alias] = slot;
  return *slot;
}

std::vector<std::string> SubgraphBackendRegistry::ListNames() const {
  std::vector<std::string> names;
  for (const auto& kv : backends_) names.push_back(kv.first);
  return names;
}

SubgraphBackend& SubgraphBackendRegistry::GetSubgraphBackend(const std::string& name) {
  auto it = backends_.find(name);
  if (it == backends_.end()) {
    std::ostringstream os;
    os << "subgraph backend '" << name << "' is not registered; registered backends:";
    for (const std::string& n : ListNames()) os << " " << n;
    throw dmlc::Error(os.str());
  }
  return *it->second;
}

std::map<std::string, std::unordered_set<std::string>>& SubgraphPropertyOpNameSet() {
  static std::map<std::string, std::unordered_set<std::string>> names;
  return names;
}

nnvm::Symbol ApplySubgraphBackend(const nnvm::Symbol& sym, const std::string& name,
                                  const PartitionOptions& opts) {
  SubgraphBackend& backend = SubgraphBackendRegistry::Get()->GetSubgraphBackend(name);
  const int64_t verbose = env::GetInt("MXNET_SUBGRAPH_VERBOSE");
  if (verbose > 0) LOG(INFO) << "Subgraph backend " << backend.name << " is activated.";
  nnvm::Symbol out = sym;
  for (size_t i = 0; i < backend.properties.size(); ++i) {
    if (opts.need_grad && backend.properties[i]->inference_only()) {
      if (verbose > 0) {
        LOG(INFO) << "subgraph backend " << backend.name << ": property " << i + 1
                  << " is for inference only and is skipped: gradients are wanted";
      }
      continue;
    }
    if (verbose > 1) {
      LOG(INFO) << "subgraph backend " << backend.name << ": applying property " << i + 1
                << " of " << backend.properties.size();
    }
    out = PartitionGraph(out, *backend.properties[i], opts);
  }
  return out;
}

nnvm::Symbol OptimizeForBackend(const nnvm::Symbol& sym, const std::string& name,
                                const std::map<std::string, std::string>& options) {
  PartitionOptions opts;
  auto it = options.find("dedup_subgraph");
  if (it != options.end()) {
    const std::string& v = it->second;
    if (v == "True" || v == "true" || v == "1") {
      opts.dedup_subgraph = true;
    } else if (v != "False" && v != "false" && v != "0") {
      throw dmlc::Error("optimize_for: option dedup_subgraph expected True or False, given '" +
                        v + "'");
    }
  }
  return ApplySubgraphBackend(sym, name, opts);
}

nnvm::Symbol PartitionForEnvBackend(const nnvm::Symbol& sym, bool need_grad) {
  // Read at each bind (not cached): scripts and tests switch it between binds.
  const char* name = env::IsSet("MXNET_SUBGRAPH_BACKEND") ? std::getenv("MXNET_SUBGRAPH_BACKEND")
                                                          : nullptr;
  if (name == nullptr || *name == '\0' || std::string(name) == "NONE") return sym;
  PartitionOptions opts;
  opts.need_grad = need_grad;
  auto& sets = SubgraphPropertyOpNameSet();
  auto it = sets.find(name);
  if (it != sets.end()) opts.op_names = &it->second;
  return ApplySubgraphBackend(sym, name, opts);
}

void ParseCachedOpSubgraph(nnvm::NodeAttrs* attrs) {
  auto it = attrs->dict.find("subgraph");
  if (it == attrs->dict.end()) return;
  nnvm::Symbol sym = nnvm::LoadJSON(it->second);
  std::vector<std::pair<std::string, std::string>> flags;
  for (const auto& kv : attrs->dict) {
    if (kv.first != "subgraph" && kv.first.rfind("__", 0) != 0) flags.push_back(kv);
  }
  attrs->parsed = std::make_shared<CachedOp>(sym, std::move(flags));
}

namespace {

// Picks every op node whose operator is named in the set, growing through such neighbours.
class ContainOpSelector : public SubgraphSelector {
 public:
  explicit ContainOpSelector(const std::unordered_set<std::string>& names) : names_(names) {}
  bool Select(const nnvm::Node& seed) override { return Named(seed); }
  bool SelectInput(const nnvm::Node&, const nnvm::Node& input) override { return Named(input); }
  bool SelectOutput(const nnvm::Node&, const nnvm::Node& output) override { return Named(output); }

 private:
  bool Named(const nnvm::Node& n) const { return !n.is_variable() && names_.count(n.op()->name); }
  std::unordered_set<std::string> names_;
};

// Each subgraph becomes a "_CachedOp<id>" node running it (the symbol is also kept as the
// node's "subgraph" attribute, so the partitioned graph saves and loads as JSON).
class DefaultSubgraphProperty : public SubgraphProperty {
 public:
  std::unique_ptr<SubgraphSelector> CreateSubgraphSelector(
      const std::unordered_set<std::string>& op_names) const override {
    return std::make_unique<ContainOpSelector>(op_names);
  }
  nnvm::ObjectPtr CreateSubgraphNode(const nnvm::Symbol& sym, int subgraph_id) const override {
    static const nnvm::Op* op = nnvm::Op::GetOrThrow("_CachedOp");
    nnvm::ObjectPtr n = nnvm::Node::Create();
    n->attrs.op = op;
    n->attrs.name = "_CachedOp" + std::to_string(subgraph_id);
    n->attrs.dict["subgraph"] = nnvm::SaveJSON(sym.outputs);
    n->attrs.parsed = std::make_shared<CachedOp>(
        sym, std::vector<std::pair<std::string, std::string>>{{"static_alloc", "true"}});
    return n;
  }
};

struct RegisterDefaultBackends {
  RegisterDefaultBackends() {
    // default_v2 is MXNet's second selector interface over the same rule; here both share one.
    for (const char* name : {"default", "default_v2"}) {
      SubgraphBackendRegistry::Get()->Register(name).properties.push_back(
          std::make_shared<DefaultSubgraphProperty>());
    }
  }
};
const RegisterDefaultBackends register_default_backends;

}  // namespace
}  // namespace op
}  // namespace mxnet
