// The executor's temp spaces (see temp_space.h).
#include "executor/temp_space.h"

#include <algorithm>
#include <map>

#include "imperative/op_resource.h"
#include "nnvm/op.h"

namespace mxnet {
namespace exec {

std::vector<Resource> AssignTempSpaces(const nnvm::IndexedGraph& idx,
                                       const std::vector<Context>& node_ctx, int num_temp) {
  static const auto& fresource = nnvm::Op::GetAttr<FResourceRequest>("FResourceRequest");
  struct Pool {
    std::vector<Resource> spaces;
    size_t next{0};
  };
  std::map<Context, Pool> pools;
  const size_t copies = static_cast<size_t>(std::max(num_temp, 1));
  std::vector<Resource> out(idx.num_nodes(), Resource{ResourceRequest::kTempSpace});
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    const nnvm::Node& n = *idx[nid].source;
    if (n.is_variable() || !fresource.contains(n.op())) continue;
    const std::vector<ResourceRequest> reqs = fresource[n.op()](n.attrs);
    const bool temp = std::any_of(reqs.begin(), reqs.end(), [](const ResourceRequest& r) {
      return r.type == ResourceRequest::kTempSpace;
    });
    if (!temp) continue;
    Pool& pool = pools[node_ctx[nid]];
    if (pool.spaces.empty()) {
      for (size_t i = 0; i < copies; ++i) {
        pool.spaces.push_back(RequestResource(node_ctx[nid], ResourceRequest(ResourceRequest::kTempSpace)));
      }
    }
    out[nid] = pool.spaces[pool.next++ % copies];
  }
  return out;
}

}  // namespace exec
}  // namespace mxnet
