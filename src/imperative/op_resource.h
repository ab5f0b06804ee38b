// Per-call resources of operators: worker-local temp space and counter-based random streams.
#ifndef MXNET_IMPERATIVE_OP_RESOURCE_H_
#define MXNET_IMPERATIVE_OP_RESOURCE_H_

#include <cstdint>

#include "mxnet/base.h"

namespace mxnet {

/*! \brief Seed of ctx and a fresh stream id for one random operator call. */
void NextRandomStream(const Context& ctx, uint64_t* seed, uint64_t* stream);
/*! \brief Reseed one device (ctx non-null) or all devices; streams restart at 0. */
void SeedRandomStreams(uint64_t seed, const Context* ctx);

}  // namespace mxnet

#endif  // MXNET_IMPERATIVE_OP_RESOURCE_H_
