// Graph nodes: an operator application (or a variable) and the entries that connect them.
#ifndef NNVM_NODE_H_
#define NNVM_NODE_H_

#include <any>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace nnvm {

class Op;
class Node;
struct Symbol;
using ObjectPtr = std::shared_ptr<Node>;

/*! \brief The arguments of one operator application. */
struct NodeAttrs {
  const Op* op{nullptr};
  std::string name;
  /*! \brief kwargs as text, exactly as given (what symbol JSON stores). */
  std::unordered_map<std::string, std::string> dict;
  /*! \brief The parsed argument struct (a dmlc::Parameter), set by the op's attr_parser. */
  std::any parsed;
  /*! \brief Graphs the op runs (control flow: a loop body, branches), in the op's order;
   *  given as the Symbol inputs FInputGraph names, saved as the node's "subgraphs" in JSON. */
  std::vector<std::shared_ptr<Symbol>> subgraphs;
};

/*! \brief One output of one node. */
struct NodeEntry {
  ObjectPtr node;
  uint32_t index{0};
  uint32_t version{0};
  NodeEntry() = default;
  NodeEntry(ObjectPtr n, uint32_t i, uint32_t v) : node(std::move(n)), index(i), version(v) {}
  explicit operator bool() const { return node != nullptr; }
};

class Node {
 public:
  NodeAttrs attrs;
  std::vector<NodeEntry> inputs;
  /*! \brief Nodes that must run before this one without a data edge. */
  std::vector<ObjectPtr> control_deps;
  /*! \brief Per-node state owned by a front (autograd keeps the recorded arrays here). */
  std::any info;

  const Op* op() const { return attrs.op; }
  bool is_variable() const { return attrs.op == nullptr; }
  uint32_t num_outputs() const;
  uint32_t num_inputs() const;
  static ObjectPtr Create() { return std::make_shared<Node>(); }
};

/*! \brief A new node applying op_name to inputs with the given kwargs (parsed at once). */
ObjectPtr CreateNode(const std::string& op_name, std::string node_name,
                     std::vector<NodeEntry> inputs,
                     std::unordered_map<std::string, std::string> dict = {});
/*! \brief A new variable node. */
ObjectPtr CreateVariableNode(const std::string& name);

}  // namespace nnvm

#endif  // NNVM_NODE_H_
