// C API, subgraph backends: optimize_for (MXOptimizeForBackend, MXGenBackendSubgraph) and
// the partitioning entry points of MXNet's c_api_test.h that its subgraph tests call.
#include <map>
#include <string>
#include <unordered_set>

#include "c_api/c_api_common.h"
#include "mxnet/c_api.h"
#include "operator/subgraph/subgraph_property.h"

namespace {

std::unordered_set<std::string> NameSet(uint32_t n, const char** names) {
  std::unordered_set<std::string> set;
  for (uint32_t i = 0; i < n; ++i) set.emplace(names[i]);
  return set;
}

nnvm::Symbol* Sym(SymbolHandle h, const char* fn) {
  if (h == nullptr) mxnet::c_api::Fail(std::string(fn) + ": argument sym_handle is NULL");
  return static_cast<nnvm::Symbol*>(h);
}

}  // namespace

using mxnet::op::SubgraphBackendRegistry;

int MXBuildSubgraphByOpNames(SymbolHandle sym_handle, const char* prop_name, const uint32_t num_ops,
                             const char** op_names, SymbolHandle* ret_sym_handle) {
  API_BEGIN();
  API_NOT_NULL(prop_name);
  API_NOT_NULL(ret_sym_handle);
  nnvm::Symbol s = Sym(sym_handle, __func__)->Copy();
  const std::unordered_set<std::string> names = NameSet(num_ops, op_names);
  if (!names.empty()) {
    mxnet::op::PartitionOptions opts;
    opts.op_names = &names;
    s = mxnet::op::ApplySubgraphBackend(s, prop_name, opts);
  }
  *ret_sym_handle = new nnvm::Symbol(std::move(s));  // NOLINT: the caller frees it
  API_END();
}

int MXSetSubgraphPropertyOpNames(const char* prop_name, const uint32_t num_ops,
                                 const char** op_names) {
  API_BEGIN();
  API_NOT_NULL(prop_name);
  mxnet::op::SubgraphPropertyOpNameSet()[prop_name] = NameSet(num_ops, op_names);
  API_END();
}

int MXSetSubgraphPropertyOpNamesV2(const char* prop_name, const uint32_t num_ops,
                                   const char** op_names) {
  API_BEGIN();
  API_NOT_NULL(prop_name);
  for (auto& prop : SubgraphBackendRegistry::Get()->GetSubgraphBackend(prop_name).properties) {
    prop->SetOpNames(NameSet(num_ops, op_names));
  }
  API_END();
}

int MXRemoveSubgraphPropertyOpNames(const char* prop_name) {
  API_BEGIN();
  API_NOT_NULL(prop_name);
  mxnet::op::SubgraphPropertyOpNameSet().erase(prop_name);
  API_END();
}

int MXRemoveSubgraphPropertyOpNamesV2(const char* prop_name) {
  API_BEGIN();
  API_NOT_NULL(prop_name);
  for (auto& prop : SubgraphBackendRegistry::Get()->GetSubgraphBackend(prop_name).properties) {
    prop->RemoveOpNames();
  }
  API_END();
}

int MXGenBackendSubgraph(SymbolHandle sym_handle, const char* backend,
                         SymbolHandle* ret_sym_handle) {
  API_BEGIN();
  API_NOT_NULL(backend);
  API_NOT_NULL(ret_sym_handle);
  nnvm::Symbol s = mxnet::op::OptimizeForBackend(*Sym(sym_handle, __func__), backend, {});
  *ret_sym_handle = new nnvm::Symbol(std::move(s));  // NOLINT: the caller frees it
  API_END();
}

int MXOptimizeForBackend(SymbolHandle sym_handle, const char* backend_name, const int dev_type,
                         SymbolHandle* ret_sym_handle, const uint32_t args_len,
                         NDArrayHandle* in_args_handle, const uint32_t aux_len,
                         NDArrayHandle* in_aux_handle, const uint32_t num_options,
                         const char** keys, const char** vals, const uint32_t num_input_shapes,
                         const char** input_shape_names, const int64_t* input_shape_data,
                         const uint32_t* input_shape_idx, const uint32_t num_input_dtypes,
                         const char** input_dtype_names, const int* input_dtypes,
                         const uint32_t num_input_stypes, const char** input_stype_names,
                         const int* input_stypes, bool skip_infer, int* new_args_cnt,
                         NDArrayHandle** new_args_handle, char*** new_arg_names_handle,
                         int* new_aux_cnt, NDArrayHandle** new_aux_handle,
                         char*** new_aux_names_handle) {
  API_BEGIN();
  API_NOT_NULL(backend_name);
  API_NOT_NULL(ret_sym_handle);
  // The backends here fold parameters at run time inside their fused nodes, so they add no
  // arguments and need no shapes ahead: arrays, shapes and dtypes are accepted and unused.
  std::map<std::string, std::string> options;
  for (uint32_t i = 0; i < num_options; ++i) options[keys[i]] = vals[i];
  nnvm::Symbol s = mxnet::op::OptimizeForBackend(*Sym(sym_handle, __func__), backend_name, options);
  if (new_args_cnt != nullptr) *new_args_cnt = 0;
  if (new_aux_cnt != nullptr) *new_aux_cnt = 0;
  *ret_sym_handle = new nnvm::Symbol(std::move(s));  // NOLINT: the caller frees it
  API_END();
}
