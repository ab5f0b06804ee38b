// Symbol: the output entries of a graph, which own the graph through them (MXNet's Symbol).
#ifndef NNVM_SYMBOL_H_
#define NNVM_SYMBOL_H_

#include <cstdint>
#include <iosfwd>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "nnvm/node.h"

namespace nnvm {

class Op;

/*! \brief The parsed attrs of a variable node: how many ops have written it so far (an op
 *  that mutates an input, e.g. BatchNorm's moving mean, bumps it; entries record it). */
struct VariableParam {
  uint32_t version{0};
};

/*! \brief A symbol is the list of entries it outputs; nodes are shared between symbols. */
struct Symbol {
  std::vector<NodeEntry> outputs;

  /*! \brief Which variables ListInputs / ListInputNames return. */
  enum ListInputOption { kAll = 0, kReadOnlyArgs = 1, kAuxiliaryStates = 2 };

  /*! \brief An op node with kwargs parsed by the op's parser, not yet given inputs; its
   *  visible outputs (FNumVisibleOutputs) are the symbol's outputs. */
  static Symbol CreateFunctor(const Op* op, std::unordered_map<std::string, std::string> kwargs);
  /*! \brief A variable node called name. */
  static Symbol CreateVariable(const std::string& name);
  /*! \brief The outputs of every symbol, in order. */
  static Symbol CreateGroup(const std::vector<Symbol>& symbols);

  /*!
   * \brief Give inputs to this symbol, in place (MXNet's Symbol._compose).
   * An atomic symbol (one op node with no inputs yet) takes its inputs positionally, then by
   * input name; an input given neither way becomes a variable "<name>_<input name>" carrying
   * the node's attrs, as MXNet 1.9 names fc1_weight. Any other symbol has its variables
   * replaced by name. name, when not empty, renames the head node.
   * Errors (a keyword naming no input, too many inputs) name the operator and the inputs.
   */
  void Compose(const std::vector<const Symbol*>& args,
               const std::unordered_map<std::string, const Symbol*>& kwargs,
               const std::string& name);

  /*! \brief A deep copy: new nodes, same attrs and structure. */
  Symbol Copy() const;
  /*! \brief Output index of this symbol (itself when it has one output). */
  Symbol operator[](size_t index) const;
  /*! \brief Every output of every node, variables included, in topological order. */
  Symbol GetInternals() const;
  /*! \brief The inputs of the head nodes. */
  Symbol GetChildren() const;

  /*! \brief Variable nodes of the graph, in topological order. */
  std::vector<ObjectPtr> ListInputs(ListInputOption option) const;
  std::vector<std::string> ListInputNames(ListInputOption option) const;
  /*! \brief "<node>_<output name>" per output (a variable: its name). */
  std::vector<std::string> ListOutputNames() const;

  /*!
   * \brief One attribute of the head node: "name", "op_name", "_value_index" or a key of
   * its attrs. False for a group of several nodes or a key not set.
   */
  bool GetAttr(const std::string& key, std::string* out) const;
  /*! \brief Set attrs of the single head node ("name" renames it) and re-parse its kwargs. */
  void SetAttrs(const std::vector<std::pair<std::string, std::string>>& attrs);
  /*! \brief attrs of the first head node. */
  std::unordered_map<std::string, std::string> ListAttrsShallow() const;
  /*! \brief (node name, key, value) of every node's attrs, in topological order. */
  std::vector<std::tuple<std::string, std::string, std::string>> ListAttrsRecursive() const;

  /*! \brief The text of MXNet's Symbol.debug_str(). */
  void Print(std::ostream& os) const;
};

/*!
 * \brief Attribute keys MXNet 1.9 stores hidden as "__key__" (ctx_group, lr_mult, wd_mult,
 * force_mirroring, mirror_stage): returns the stored key for key. A key that only ends in
 * one ("weight_lr_mult", the pre-0.9 way of setting an input's attribute) is an error that
 * says how to write it now.
 */
std::string HiddenAttrKey(const std::string& key, const std::string& value);
/*! \brief The unprefixed key of a stored hidden key ("__lr_mult__" -> "lr_mult"), else "". */
std::string UnhiddenAttrKey(const std::string& key);
/*! \brief The hidden keys, unprefixed. */
const std::vector<std::string>& HiddenAttrKeys();

/*! \brief MXSymbolCreateAtomicSymbol: CreateFunctor with hidden keys stored as "__key__". */
Symbol CreateAtomicSymbol(const Op* op,
                          const std::vector<std::pair<std::string, std::string>>& kwargs);
/*! \brief Symbol.attr(key): GetAttr, falling back to "__key__" for a hidden key. */
bool GetFrontAttr(const Symbol& s, const std::string& key, std::string* out);
/*! \brief Symbol._set_attr(key=value): SetAttrs with a hidden key stored as "__key__". */
void SetFrontAttr(Symbol* s, const std::string& key, const std::string& value);
/*!
 * \brief Symbol.list_attr (recursive = false: the first head's attrs) or attr_dict
 * (recursive: keys "<node>$<key>"); each stored hidden key is listed a second time unprefixed.
 */
std::vector<std::pair<std::string, std::string>> ListFrontAttrs(const Symbol& s, bool recursive);

/*! \brief MXGenAtomicSymbolFromSymbol: a fresh node of the single head's op and attrs, no
 *  inputs and no name. */
Symbol GenAtomicSymbol(const Symbol& s);

/*!
 * \brief Load a graph from -symbol.json text of any MXNet version 0.8 to 1.9: nodes' kwargs
 * under "attrs", "attr" or "param"; entries of 2 or 3 numbers; node_row_ptr optional; files
 * older than the running version are upgraded as MXNet 1.9 upgrades them (missing auxiliary
 * inputs added, hidden keys moved, input-variable init attributes set). An unknown operator
 * or a malformed file raises dmlc::Error naming the node.
 */
Symbol LoadJSON(const std::string& json);

}  // namespace nnvm

#endif  // NNVM_SYMBOL_H_
