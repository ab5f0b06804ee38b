// Rounding rules of the pools and their configuration from MXNET_<DEV>_MEM_POOL_* variables.
#include "storage/pool_policy.h"

#include <dmlc/logging.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "common/env.h"

namespace mxnet {
namespace storage {
namespace {

constexpr size_t kMaxSize = std::numeric_limits<size_t>::max();
constexpr size_t kMinPageSize = 32;  // MXNet's lower bound for MXNET_*_MEM_POOL_PAGE_SIZE
constexpr int kMinCutoff = 20;       // 1 MiB
constexpr int kMaxCutoff = 34;       // 16 GiB

// x rounded up to a multiple of m; saturates so that absurd sizes fail as out-of-memory.
size_t RoundUp(size_t x, size_t m) {
  if (x > kMaxSize - (m - 1)) return kMaxSize;
  return (x + m - 1) / m * m;
}

size_t NextPowerOfTwo(size_t x) {
  if (x <= 1) return 1;
  const int bits = std::numeric_limits<size_t>::digits - __builtin_clzll(x - 1);
  if (bits >= std::numeric_limits<size_t>::digits) return kMaxSize;
  return size_t{1} << bits;
}

bool IsPowerOfTwo(size_t x) { return x != 0 && (x & (x - 1)) == 0; }

int Log2(size_t power_of_two) { return __builtin_ctzll(power_of_two); }

const char* EnvPrefix(Context::DeviceType dev_type) {
  switch (dev_type) {
    case Context::kGPU: return "MXNET_GPU_";
    case Context::kCPUPinned: return "MXNET_CPU_PINNED_";
    default: return "MXNET_CPU_";
  }
}

}  // namespace

size_t PoolPolicy::BlockSize(size_t size) const {
  switch (kind) {
    case PoolKind::kUnpooled:
      return size;
    case PoolKind::kNaive: {
      size_t block = RoundUp(size, page_size);
      return block > large_alloc_round_size ? RoundUp(block, large_alloc_round_size) : block;
    }
    case PoolKind::kRound: {
      const size_t cutoff = size_t{1} << round_linear_cutoff;
      if (size <= cutoff) return std::max(NextPowerOfTwo(size), page_size);
      return RoundUp(size, cutoff);
    }
  }
  return size;
}

const char* PoolPolicy::name() const {
  switch (kind) {
    case PoolKind::kNaive: return "Naive";
    case PoolKind::kRound: return "Round";
    case PoolKind::kUnpooled: return "Unpooled";
  }
  return "Unknown";
}

PoolPolicy PoolPolicy::ForDevice(Context::DeviceType dev_type) {
  PoolPolicy p;
  if (dev_type == Context::kCPUShared || env::GetBool("MXNET_USE_NAIVE_STORAGE_MANAGER")) {
    p.kind = PoolKind::kUnpooled;
    return p;
  }
  const std::string prefix = EnvPrefix(dev_type);
  auto var = [&prefix](const char* suffix) { return prefix + suffix; };

  const std::string type = env::GetString(var("MEM_POOL_TYPE").c_str());
  p.kind = type == "Round" ? PoolKind::kRound
         : type == "Unpooled" ? PoolKind::kUnpooled
         : PoolKind::kNaive;

  const std::string reserve_var = var("MEM_POOL_RESERVE");
  const int64_t reserve = env::GetInt(reserve_var.c_str());
  p.reserve_percent = static_cast<int>(std::min<int64_t>(std::max<int64_t>(reserve, 0), 100));
  if (reserve != p.reserve_percent) {
    LOG(WARNING) << reserve_var << "=" << reserve
                 << " is not a percentage between 0 and 100; using " << p.reserve_percent;
  }

  const std::string page_var = var("MEM_POOL_PAGE_SIZE");
  const int64_t page = env::GetInt(page_var.c_str());
  if (page < static_cast<int64_t>(kMinPageSize)) {
    LOG(WARNING) << page_var << "=" << page << " is smaller than " << kMinPageSize
                 << " bytes; using " << p.page_size;
  } else {
    p.page_size = static_cast<size_t>(page);
  }

  const std::string large_var = var("MEM_LARGE_ALLOC_ROUND_SIZE");
  const int64_t large = env::GetInt(large_var.c_str());
  if (large <= 0) {
    LOG(WARNING) << large_var << "=" << large << " must be positive (1 disables it); using "
                 << p.large_alloc_round_size;
  } else {
    p.large_alloc_round_size = static_cast<size_t>(large);
  }

  if (p.kind == PoolKind::kRound) {
    if (!IsPowerOfTwo(p.page_size)) {
      const size_t rounded = NextPowerOfTwo(p.page_size);
      LOG(WARNING) << page_var << "=" << p.page_size
                   << " must be a power of two for the Round pool; using " << rounded;
      p.page_size = rounded;
    }
    const std::string cutoff_var = var("MEM_POOL_ROUND_LINEAR_CUTOFF");
    const int64_t cutoff = env::GetInt(cutoff_var.c_str());
    const int lowest = std::max(kMinCutoff, Log2(p.page_size));
    if (cutoff < lowest || cutoff > kMaxCutoff) {
      const int used = std::min(std::max(p.round_linear_cutoff, lowest), kMaxCutoff);
      LOG(WARNING) << cutoff_var << "=" << cutoff << " must be between " << lowest << " and "
                   << kMaxCutoff << " (and at least log2 of " << page_var << "); using " << used;
      p.round_linear_cutoff = used;
    } else {
      p.round_linear_cutoff = static_cast<int>(cutoff);
    }
  }
  return p;
}

}  // namespace storage
}  // namespace mxnet
