// C API, operators: listing, handles and documentation from the registry, imperative invoke.
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "c_api/c_api_common.h"
#include "mxnet/imperative.h"
#include "mxnet/op_attr_types.h"
#include "nnvm/op.h"

namespace mxnet {
namespace c_api {
namespace {

/*! \brief The op behind a creator handle; fails unless it is a registered operator. */
const nnvm::Op* OpFromHandle(const void* creator, const char* fn) {
  if (creator == nullptr) Fail(std::string(fn) + ": argument creator is NULL (expected an "
                               "operator handle from NNGetOpHandle)");
  static std::mutex mu;
  static std::unordered_set<const void*> known;
  std::lock_guard<std::mutex> lock(mu);
  if (known.count(creator) == 0) {  // ops may be registered after the last scan
    for (const std::string& name : nnvm::Op::ListAllNames()) known.insert(nnvm::Op::Get(name));
  }
  if (known.count(creator) == 0) {
    Fail(std::string(fn) + ": argument creator is not an operator handle (use NNGetOpHandle)");
  }
  return static_cast<const nnvm::Op*>(creator);
}

uint32_t NumVisibleOutputs(const nnvm::NodeAttrs& attrs, uint32_t n_out) {
  static const auto& visible = nnvm::Op::GetAttr<FNumVisibleOutputs>("FNumVisibleOutputs");
  return visible.contains(attrs.op) ? visible[attrs.op](attrs) : n_out;
}

}  // namespace
}  // namespace c_api
}  // namespace mxnet

using namespace mxnet;  // NOLINT(build/namespaces)

int MXListAllOpNames(mx_uint* out_size, const char*** out_array) {
  thread_local std::vector<std::string> names;
  thread_local std::vector<const char*> ptrs;
  API_BEGIN();
  API_NOT_NULL(out_size);
  API_NOT_NULL(out_array);
  names = nnvm::Op::ListAllNames();
  ptrs.clear();
  for (const std::string& n : names) ptrs.push_back(n.c_str());
  *out_size = static_cast<mx_uint>(ptrs.size());
  *out_array = ptrs.data();
  API_END();
}

int NNGetOpHandle(const char* op_name, OpHandle* op_out) {
  API_BEGIN();
  API_NOT_NULL(op_name);
  API_NOT_NULL(op_out);
  const nnvm::Op* op = nnvm::Op::Get(op_name);
  API_CHECK(op != nullptr, "NNGetOpHandle: operator '" << op_name << "' is not registered");
  *op_out = const_cast<nnvm::Op*>(op);
  API_END();
}

int MXSymbolGetAtomicSymbolInfo(AtomicSymbolCreator creator, const char** name,
                                const char** description, mx_uint* num_args,
                                const char*** arg_names, const char*** arg_type_infos,
                                const char*** arg_descriptions, const char** key_var_num_args,
                                const char** return_type) {
  thread_local std::vector<const char*> names, types, descs;
  API_BEGIN();
  const nnvm::Op* op = c_api::OpFromHandle(creator, "MXSymbolGetAtomicSymbolInfo");
  names.clear();
  types.clear();
  descs.clear();
  for (const nnvm::ArgumentInfo& a : op->arguments) {  // registry strings live forever
    names.push_back(a.name.c_str());
    types.push_back(a.type.c_str());
    descs.push_back(a.description.c_str());
  }
  if (name != nullptr) *name = op->name.c_str();
  if (description != nullptr) *description = op->description.c_str();
  if (num_args != nullptr) *num_args = static_cast<mx_uint>(names.size());
  if (arg_names != nullptr) *arg_names = names.data();
  if (arg_type_infos != nullptr) *arg_type_infos = types.data();
  if (arg_descriptions != nullptr) *arg_descriptions = descs.data();
  if (key_var_num_args != nullptr) *key_var_num_args = op->key_var_num_args.c_str();
  if (return_type != nullptr) *return_type = nullptr;
  API_END();
}

int MXImperativeInvoke(AtomicSymbolCreator creator, int num_inputs, NDArrayHandle* inputs,
                       int* num_outputs, NDArrayHandle** outputs, int num_params,
                       const char** param_keys, const char** param_vals) {
  thread_local std::vector<NDArrayHandle> ret_handles;
  API_BEGIN();
  const nnvm::Op* op = c_api::OpFromHandle(creator, "MXImperativeInvoke");
  API_NOT_NULL(num_outputs);
  API_NOT_NULL(outputs);
  API_CHECK(num_inputs >= 0, "MXImperativeInvoke: operator " << op->name
                                 << ": argument num_inputs must be >= 0, given " << num_inputs);
  API_CHECK(num_inputs == 0 || inputs != nullptr,
            "MXImperativeInvoke: operator " << op->name << ": argument inputs is NULL but "
                                           "num_inputs is " << num_inputs);
  API_CHECK(num_params >= 0, "MXImperativeInvoke: operator " << op->name
                                 << ": argument num_params must be >= 0, given " << num_params);
  API_CHECK(num_params == 0 || (param_keys != nullptr && param_vals != nullptr),
            "MXImperativeInvoke: operator " << op->name << ": param_keys or param_vals is NULL "
                                           "but num_params is " << num_params);

  std::unordered_map<std::string, std::string> kwargs;
  for (int i = 0; i < num_params; ++i) {
    API_CHECK(param_keys[i] != nullptr && param_vals[i] != nullptr,
              "MXImperativeInvoke: operator " << op->name << ": parameter " << i
                                             << " has a NULL key or value");
    kwargs[param_keys[i]] = param_vals[i];
  }
  // As in MXNet, a variadic op's input count defaults to the number of inputs given.
  if (!op->key_var_num_args.empty()) kwargs.emplace(op->key_var_num_args, std::to_string(num_inputs));
  std::shared_ptr<const nnvm::NodeAttrs> attrs = Imperative::ParseAttrs(op, std::move(kwargs));

  uint32_t n_in = op->get_num_inputs ? op->get_num_inputs(*attrs) : op->num_inputs;
  API_CHECK(static_cast<uint32_t>(num_inputs) == n_in,
            "MXImperativeInvoke: operator " << op->name << " expects " << n_in
                                           << " input(s), given " << num_inputs);
  std::vector<NDArray*> in(num_inputs);
  for (int i = 0; i < num_inputs; ++i) {
    API_CHECK(inputs[i] != nullptr,
              "MXImperativeInvoke: operator " << op->name << ": inputs[" << i << "] is NULL");
    in[i] = static_cast<NDArray*>(inputs[i]);
  }
  uint32_t n_out = op->get_num_outputs ? op->get_num_outputs(*attrs) : op->num_outputs;
  uint32_t n_visible = c_api::NumVisibleOutputs(*attrs, n_out);

  if (*outputs == nullptr) {  // allocate: return the visible outputs as new handles
    std::vector<NDArray> outs;
    Imperative::Get()->Invoke(Context::CPU(), attrs, in, &outs);
    ret_handles.clear();
    for (uint32_t i = 0; i < n_visible; ++i) {
      ret_handles.push_back(std::make_unique<NDArray>(std::move(outs[i])).release());
    }
    *num_outputs = static_cast<int>(n_visible);
    *outputs = ret_handles.data();
  } else {  // write into the caller's arrays
    int given = *num_outputs;
    API_CHECK(given == static_cast<int>(n_out) || given == static_cast<int>(n_visible),
              "MXImperativeInvoke: operator " << op->name << " has " << n_out << " output(s) ("
                  << n_visible << " visible), given " << given << " output arrays");
    std::vector<NDArray*> dst(given);
    bool any_none = false;
    for (int i = 0; i < given; ++i) {
      API_CHECK((*outputs)[i] != nullptr,
                "MXImperativeInvoke: operator " << op->name << ": outputs[" << i << "] is NULL");
      dst[i] = static_cast<NDArray*>((*outputs)[i]);
      any_none = any_none || dst[i]->is_none();
    }
    if (!any_none && given == static_cast<int>(n_out)) {
      std::vector<NDArray> outs;
      for (NDArray* d : dst) outs.push_back(*d);
      Imperative::Get()->Invoke(Context::CPU(), attrs, in, &outs);
      for (int i = 0; i < given; ++i) dst[i]->set_entry(outs[i].entry());
    } else {
      // Hidden outputs or none arrays: compute into new arrays, then hand the results over
      // (none arrays take the result itself, others receive a copy).
      std::vector<NDArray> outs;
      Imperative::Get()->Invoke(Context::CPU(), attrs, in, &outs);
      for (int i = 0; i < given; ++i) {
        if (dst[i]->is_none()) {
          *dst[i] = outs[i];
        } else {
          CopyFromTo(outs[i], *dst[i]);
          dst[i]->set_entry(outs[i].entry());
        }
      }
    }
  }
  API_END();
}
