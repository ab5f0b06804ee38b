// The graph storage-type pass (see infer_storage_type.h).
#include "imperative/infer_storage_type.h"

#include <dmlc/logging.h>

#include <sstream>

#include "common/env.h"
#include "imperative/storage_dispatch.h"

namespace mxnet {
namespace imperative {
namespace {

const char* ModeName(DispatchMode m) {
  switch (m) {
    case DispatchMode::kFCompute: return "fcompute";
    case DispatchMode::kFComputeEx: return "fcompute_ex";
    case DispatchMode::kFComputeFallback: return "fcompute_fallback";
    case DispatchMode::kVariable: return "variable";
    default: return "undefined";
  }
}

void LogGraph(const nnvm::IndexedGraph& idx, const std::vector<int>& stypes,
              const std::vector<DispatchMode>& modes) {
  std::ostringstream os;
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    const nnvm::Node& n = *idx[nid].source;
    os << "node " << nid << " " << (n.is_variable() ? "var" : n.op()->name) << " "
       << n.attrs.name << ": " << ModeName(modes[nid]) << "\n";
    for (size_t i = 0; i < idx[nid].inputs.size(); ++i) {
      os << "    input " << i << ": "
         << imperative::StorageTypeName(stypes[idx.entry_id(idx[nid].inputs[i])]) << "\n";
    }
    const uint32_t n_out = n.is_variable() ? 1 : n.num_outputs();
    for (uint32_t i = 0; i < n_out; ++i) {
      os << "    output " << i << ": " << imperative::StorageTypeName(stypes[idx.entry_id(nid, i)])
         << "\n";
    }
  }
  LOG(INFO) << "storage types of the graph:\n" << os.str();
}

}  // namespace

int VariableStorageType(const nnvm::Node& var) {
  auto it = var.attrs.dict.find("__storage_type__");
  if (it == var.attrs.dict.end()) return kUndefinedStorage;
  int s = kUndefinedStorage;
  std::istringstream is(it->second);
  CHECK(is >> s && s >= kDefaultStorage && s <= kCSRStorage)
      << "variable " << var.attrs.name << ": attribute __storage_type__ expected 0 (default), "
      << "1 (row_sparse) or 2 (csr), given '" << it->second << "'";
  return s;
}

std::vector<DispatchMode> InferStorageTypes(const nnvm::IndexedGraph& idx, int dev_mask,
                                            std::vector<int>* stypes) {
  CHECK_EQ(stypes->size(), idx.num_node_entries()) << "InferStorageTypes: one storage type per "
                                                    << "entry expected";
  std::vector<DispatchMode> modes(idx.num_nodes(), DispatchMode::kUndefined);
  std::vector<int> in, out;
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    const nnvm::Node& n = *idx[nid].source;
    if (n.is_variable()) {
      int& s = (*stypes)[idx.entry_id(nid, 0)];
      if (s == kUndefinedStorage) s = VariableStorageType(n);
      if (s == kUndefinedStorage) s = kDefaultStorage;
      modes[nid] = DispatchMode::kVariable;
      continue;
    }
    in.clear();
    for (const auto& e : idx[nid].inputs) in.push_back((*stypes)[idx.entry_id(e)]);
    out.assign(n.num_outputs(), kUndefinedStorage);
    for (uint32_t i = 0; i < out.size(); ++i) out[i] = (*stypes)[idx.entry_id(nid, i)];
    try {
      modes[nid] = imperative::ChooseDispatchMode(n.attrs, dev_mask, &in, &out);
    } catch (const std::exception& e) {
      throw dmlc::Error("Error in operator " + n.attrs.name + " (" + n.op()->name +
                        "), inferring storage types: " + e.what());
    }
    for (uint32_t i = 0; i < out.size(); ++i) {
      CHECK_NE(out[i], kUndefinedStorage)
          << "storage type inference: operator " << n.op()->name << " (node " << n.attrs.name
          << ") left the storage type of output " << i << " undecided";
      (*stypes)[idx.entry_id(nid, i)] = out[i];
    }
  }
  static const bool verbose = env::GetBool("MXNET_INFER_STORAGE_TYPE_VERBOSE_LOGGING");
  if (verbose) LogGraph(idx, *stypes, modes);
  return modes;
}

}  // namespace imperative
}  // namespace mxnet
