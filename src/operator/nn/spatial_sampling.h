// Sampling grids and bilinear sampling shared by GridGenerator, BilinearSampler and
// SpatialTransformer (kernels in grid_generator_op.cc and bilinear_sampler_op.cc).
// A grid is (N, 2, H, W): channel 0 the source x, channel 1 the source y, both normalized so
// that -1 and 1 are the centres of the first and last input pixels.
#ifndef MXNET_OPERATOR_NN_SPATIAL_SAMPLING_H_
#define MXNET_OPERATOR_NN_SPATIAL_SAMPLING_H_

#include "operator/operator_common.h"

namespace mxnet {
namespace op {

/*! \brief grid (N, 2, H, W) (req) = theta (N, 6), a 2x3 matrix, times the target point
 *  (x_t, y_t, 1), x_t and y_t spanning [-1, 1] over W and H. */
void AffineGridForward(const TBlob& theta, const TBlob& grid, OpReqType req);
/*! \brief dtheta (N, 6) (req) from the grid's gradient (N, 2, H, W). */
void AffineGridBackward(const TBlob& dgrid, const TBlob& dtheta, OpReqType req);

/*! \brief out (N, C, H, W) (req) = data (N, C, h, w) sampled bilinearly at grid (N, 2, H, W);
 *  taps outside data read 0. */
void BilinearSampleForward(const TBlob& data, const TBlob& grid, const TBlob& out,
                           OpReqType req);
/*! \brief Gradients of BilinearSampleForward for data and grid (either skipped by kNullOp). */
void BilinearSampleBackward(const TBlob& ograd, const TBlob& data, const TBlob& grid,
                            const TBlob& ddata, OpReqType data_req, const TBlob& dgrid,
                            OpReqType grid_req);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_SPATIAL_SAMPLING_H_
