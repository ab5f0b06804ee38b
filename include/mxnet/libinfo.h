// What this build of the library contains (features, devices) and process-wide knobs.
#ifndef MXNET_LIBINFO_H_
#define MXNET_LIBINFO_H_

#include <vector>

namespace mxnet {

/*! \brief One compile-time feature, named as MXNet 1.9's runtime.Features() names it. */
struct LibFeatureInfo {
  const char* name;
  bool enabled;
};

const std::vector<LibFeatureInfo>& LibFeatures();
/*! \brief Number of visible GPUs (0 in a build without CUDA). */
int GetGPUCount();
/*! \brief OpenMP threads used by operator kernels in this process. */
void SetNumOMPThreads(int n);

}  // namespace mxnet

#endif  // MXNET_LIBINFO_H_
