// PoolPolicy: which pool a device uses and how it rounds request sizes into reusable blocks.
#ifndef MXNET_STORAGE_POOL_POLICY_H_
#define MXNET_STORAGE_POOL_POLICY_H_

#include <cstddef>

#include "mxnet/base.h"

namespace mxnet {
namespace storage {

enum class PoolKind { kNaive, kRound, kUnpooled };

/*!
 * \brief The rounding rule of a pool; the one thing that tells Naive, Round and Unpooled apart.
 *
 *  Naive:    block = request rounded up to a multiple of page_size; when that exceeds
 *            large_alloc_round_size, rounded up again to a multiple of large_alloc_round_size.
 *  Round:    request <= 2^round_linear_cutoff: next power of two, at least page_size;
 *            larger: next multiple of 2^round_linear_cutoff.
 *  Unpooled: block = request, and freed blocks go straight back to the device.
 *
 *  A freed block is reused by any later request that rounds to the same block size.
 */
struct PoolPolicy {
  PoolKind kind{PoolKind::kNaive};
  size_t page_size{4096};
  size_t large_alloc_round_size{2097152};
  int round_linear_cutoff{24};
  int reserve_percent{5};

  /*! \brief Bytes actually taken from the device for a request of size bytes (size > 0). */
  size_t BlockSize(size_t size) const;
  bool pooled() const { return kind != PoolKind::kUnpooled; }
  /*! \brief "Naive", "Round" or "Unpooled". */
  const char* name() const;

  /*!
   * \brief The policy the storage singleton uses for a device type: MXNET_<DEV>_MEM_POOL_*
   *  (DEV is CPU, CPU_PINNED or GPU; cpu_shared memory is never pooled), overridden to
   *  Unpooled by MXNET_USE_NAIVE_STORAGE_MANAGER=1. Out-of-range values log a warning naming
   *  the variable and fall back to a valid value.
   */
  static PoolPolicy ForDevice(Context::DeviceType dev_type);
};

}  // namespace storage
}  // namespace mxnet

#endif  // MXNET_STORAGE_POOL_POLICY_H_
