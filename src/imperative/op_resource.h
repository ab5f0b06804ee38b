// The resource manager: temp space over Storage and counter-based random streams, handed to
// an operator call as its FResourceRequest declares.
#ifndef MXNET_IMPERATIVE_OP_RESOURCE_H_
#define MXNET_IMPERATIVE_OP_RESOURCE_H_

#include <cstdint>
#include <vector>

#include "mxnet/base.h"
#include "mxnet/op_attr_types.h"

namespace mxnet {

/*! \brief The resource for req on ctx. Temp space is one of MXNET_CPU_TEMP_COPY (or
 *  MXNET_GPU_TEMP_COPY) copies per device, handed out in turn; the caller adds its var to the
 *  call's written variables so two users of one copy never overlap. Random resources carry no
 *  state here (see NextRandomStream). */
Resource RequestResource(const Context& ctx, const ResourceRequest& req);
/*! \brief While alive, this thread's kTempSpace requests on space's context get space (an
 *  executor's own temp space for the node it runs: MXNET_EXEC_NUM_TEMP) instead of the next
 *  shared copy. space null: no change. Scopes nest. */
class TempSpaceScope {
 public:
  explicit TempSpaceScope(const Resource* space);
  ~TempSpaceScope();
  TempSpaceScope(const TempSpaceScope&) = delete;
  TempSpaceScope& operator=(const TempSpaceScope&) = delete;

 private:
  const Resource* prev_;
  Context prev_ctx_;
};

/*! \brief After a kernel call returned: large host temp blocks go back to the storage pool
 *  (the copy's var still orders its users; the next call takes a block again). */
void ReleaseTempSpaces(const std::vector<Resource>& requested);
/*! \brief Seed of ctx and a fresh stream id for one random operator call. */
void NextRandomStream(const Context& ctx, uint64_t* seed, uint64_t* stream);
/*! \brief Reseed one device (ctx non-null) or all devices; streams restart at 0. */
void SeedRandomStreams(uint64_t seed, const Context* ctx);

}  // namespace mxnet

#endif  // MXNET_IMPERATIVE_OP_RESOURCE_H_
