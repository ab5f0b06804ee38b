// The one definition of the data-iterator registry.
#include "io/iter_registry.h"

namespace dmlc {
DMLC_REGISTRY_ENABLE(::mxnet::io::DataIteratorReg);
}  // namespace dmlc
