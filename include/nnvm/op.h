// The operator registry: each op is declared once with typed attributes that every front reads.
#ifndef NNVM_OP_H_
#define NNVM_OP_H_

#include <any>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <vector>

#include <dmlc/logging.h>

#include "nnvm/node.h"

namespace nnvm {

template <typename ValueType>
class OpMap;

/*! \brief Documentation of one argument, as MXNet lists it. */
struct ArgumentInfo {
  std::string name;
  std::string type;  // e.g. "NDArray-or-Symbol", "float, required", "Shape(tuple), optional, default=None"
  std::string description;
};

class Op {
 public:
  std::string name;
  std::string description;
  std::vector<ArgumentInfo> arguments;
  uint32_t num_inputs{1};
  uint32_t num_outputs{1};
  /*! \brief Name of the kwarg that gives the number of variadic inputs ("num_args"), if any. */
  std::string key_var_num_args;
  std::function<uint32_t(const NodeAttrs&)> get_num_inputs;
  std::function<uint32_t(const NodeAttrs&)> get_num_outputs;
  /*! \brief Parses attrs->dict into attrs->parsed; throws dmlc::Error on bad kwargs. */
  std::function<void(NodeAttrs*)> attr_parser;
  /*! \brief Dense index of this op, used by OpMap. */
  uint32_t index() const { return index_; }

  Op& describe(const std::string& doc) { description = doc; return *this; }
  Op& set_num_inputs(uint32_t n) { num_inputs = n; return *this; }
  Op& set_num_inputs(std::function<uint32_t(const NodeAttrs&)> fn) { get_num_inputs = std::move(fn); return *this; }
  Op& set_num_outputs(uint32_t n) { num_outputs = n; return *this; }
  Op& set_num_outputs(std::function<uint32_t(const NodeAttrs&)> fn) { get_num_outputs = std::move(fn); return *this; }
  Op& set_key_var_num_args(const std::string& key) { key_var_num_args = key; return *this; }
  Op& set_attr_parser(std::function<void(NodeAttrs*)> fn) { attr_parser = std::move(fn); return *this; }
  Op& add_argument(const std::string& arg, const std::string& type, const std::string& doc) {
    arguments.push_back({arg, type, doc});
    return *this;
  }
  template <typename FieldInfoList>
  Op& add_arguments(const FieldInfoList& fields) {
    for (const auto& f : fields) arguments.push_back({f.name, f.type_info_str, f.description});
    return *this;
  }
  /*! \brief Also register this op under another name. */
  Op& add_alias(const std::string& alias);
  /*! \brief Attach a typed attribute (e.g. "FCompute<cpu>", "FInferShape"). */
  template <typename ValueType>
  Op& set_attr(const std::string& attr_name, const ValueType& value, int plevel = 10);

  /*! \brief The op registered as name (or alias); nullptr when unknown. */
  static const Op* Get(const std::string& name);
  /*! \brief Like Get, but throws dmlc::Error naming the op when unknown. */
  static const Op* GetOrThrow(const std::string& name);
  /*! \brief The attribute map for attr_name over all ops (empty map if none set it). */
  template <typename ValueType>
  static const OpMap<ValueType>& GetAttr(const std::string& attr_name);
  /*! \brief Names of every registered op (aliases included), sorted. */
  static std::vector<std::string> ListAllNames();
  /*! \brief Registration entry point used by NNVM_REGISTER_OP. */
  static Op& Register(const std::string& name);

 private:
  template <typename ValueType>
  friend class OpMap;
  uint32_t index_{0};
  static std::any* AttrSlot(const std::string& attr_name,
                            const std::function<void(std::any*)>& init);
  static std::recursive_mutex& AttrMutex();
};

/*! \brief An attribute of every op, indexed by op index. */
template <typename ValueType>
class OpMap {
 public:
  bool contains(const Op* op) const {
    return op != nullptr && op->index_ < data_.size() && data_[op->index_].second != 0;
  }
  const ValueType& operator[](const Op* op) const {
    CHECK(contains(op)) << "attribute " << attr_name_ << " has not been registered for operator "
                        << (op ? op->name : "null");
    return data_[op->index_].first;
  }
  const ValueType& get(const Op* op, const ValueType& def) const {
    return contains(op) ? data_[op->index_].first : def;
  }

 private:
  friend class Op;
  std::string attr_name_;
  std::vector<std::pair<ValueType, int>> data_;  // value, plevel (0 = unset)
};

template <typename ValueType>
Op& Op::set_attr(const std::string& attr_name, const ValueType& value, int plevel) {
  CHECK_GT(plevel, 0) << "plevel of an attribute must be positive";
  std::lock_guard<std::recursive_mutex> lock(AttrMutex());
  std::any* slot = AttrSlot(attr_name, [&](std::any* a) {
    OpMap<ValueType> m;
    m.attr_name_ = attr_name;
    *a = std::move(m);
  });
  auto* map = std::any_cast<OpMap<ValueType>>(slot);
  CHECK(map != nullptr) << "attribute " << attr_name << " registered with two different types";
  if (map->data_.size() <= index_) map->data_.resize(index_ + 1, std::make_pair(ValueType(), 0));
  auto& entry = map->data_[index_];
  if (entry.second < plevel) entry = std::make_pair(value, plevel);
  return *this;
}

template <typename ValueType>
const OpMap<ValueType>& Op::GetAttr(const std::string& attr_name) {
  std::lock_guard<std::recursive_mutex> lock(AttrMutex());
  std::any* slot = AttrSlot(attr_name, [&](std::any* a) {
    OpMap<ValueType> m;
    m.attr_name_ = attr_name;
    *a = std::move(m);
  });
  auto* map = std::any_cast<OpMap<ValueType>>(slot);
  CHECK(map != nullptr) << "attribute " << attr_name << " requested with the wrong type";
  return *map;
}

#define NNVM_STR_CONCAT_(a, b) a##b
#define NNVM_STR_CONCAT(a, b) NNVM_STR_CONCAT_(a, b)
/*! \brief Declare an operator: NNVM_REGISTER_OP(exp).describe(...).set_attr<...>(...); */
#define NNVM_REGISTER_OP(OpName)                                                  \
  static ::nnvm::Op& NNVM_STR_CONCAT(__make_nnvm_op_, __COUNTER__) [[maybe_unused]] = \
      ::nnvm::Op::Register(#OpName)

}  // namespace nnvm

#endif  // NNVM_OP_H_
