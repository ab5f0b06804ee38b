// The mean_img argument of the image record iterators: load the mean image from its file, or,
// when the file does not exist yet, compute it over the data and save it there (MXNet 1.9.1's
// behaviour and file: an NDArray file holding one float32 (C, H, W) array named "mean_img").
#ifndef MXNET_IO_MEAN_IMAGE_H_
#define MXNET_IO_MEAN_IMAGE_H_

#include <functional>
#include <string>
#include <vector>

#include "mxnet/base.h"

namespace mxnet {
namespace io {

/*! \brief Adds the float32 (C, H, W) images of the data, as the iterator outputs them without a
 *  mean image, to sum; returns how many it added. */
using MeanImageSum = std::function<size_t(std::vector<double>* sum)>;

/*! \brief The mean image at path, of shape `shape`: loaded when the file exists (wrong contents
 *  fail naming iter and the file), else computed with `sum` and written to path. */
std::vector<float> LoadOrCreateMeanImage(const std::string& path, const TShape& shape,
                                         const char* iter, bool verbose,
                                         const MeanImageSum& sum);

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_IO_MEAN_IMAGE_H_
