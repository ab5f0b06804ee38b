// LoadOrCreateMeanImage (see mean_image.h).
#include "io/mean_image.h"

#include <dmlc/logging.h>

#include <fstream>

#include "mxnet/ndarray.h"

namespace mxnet {
namespace io {

std::vector<float> LoadOrCreateMeanImage(const std::string& path, const TShape& shape,
                                         const char* iter, bool verbose,
                                         const MeanImageSum& sum) {
  std::vector<float> mean(shape.Size());
  if (std::ifstream(path).good()) {
    if (verbose) LOG(INFO) << iter << ": load mean image from " << path;
    std::vector<NDArray> arrays;
    std::vector<std::string> names;
    LoadNDArrayFile(path, &arrays, &names, 0);
    CHECK_EQ(arrays.size(), 1U) << iter << ": mean_img '" << path << "' must hold one array, "
                                << "it holds " << arrays.size();
    CHECK(arrays[0].shape() == shape) << iter << ": mean_img '" << path << "' has shape "
                                      << arrays[0].shape() << ", data_shape is " << shape;
    CHECK_EQ(arrays[0].dtype(), kFloat32) << iter << ": mean_img '" << path
                                          << "' must be float32";
    arrays[0].SyncCopyToCPU(mean.data(), mean.size());
    return mean;
  }
  if (verbose) {
    LOG(INFO) << iter << ": cannot find " << path
              << ": create mean image, this will take some time...";
  }
  std::vector<double> total(mean.size(), 0.0);
  const size_t count = sum(&total);
  CHECK_GT(count, 0U) << iter << ": no image to compute mean_img '" << path << "' from";
  for (size_t i = 0; i < mean.size(); ++i) mean[i] = static_cast<float>(total[i] / count);
  NDArray out(shape, Context::CPU(), false, kFloat32);
  out.SyncCopyFromCPU(mean.data(), mean.size());
  SaveNDArrayFile(path, {out}, {"mean_img"}, 0);
  if (verbose) LOG(INFO) << iter << ": saved mean image of " << count << " images to " << path;
  return mean;
}

}  // namespace io
}  // namespace mxnet
