// The content version of an engine variable, for callers outside the engine.
#ifndef MXNET_ENGINE_VAR_VERSION_H_
#define MXNET_ENGINE_VAR_VERSION_H_

#include <cstdint>

#include "mxnet/engine.h"

namespace mxnet {
namespace engine {

/*! \brief Changes with every completed write of v; never repeats across variables. Exact
 *  while the caller holds a read of v (an op running with v among its inputs). */
uint64_t VarVersion(VarHandle v);

}  // namespace engine
}  // namespace mxnet

#endif  // MXNET_ENGINE_VAR_VERSION_H_
