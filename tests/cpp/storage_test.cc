// Tests of src/storage: pool rounding, reuse, counters, reserve, out-of-memory, the singleton.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/env.h"
#include "mxnet/storage.h"
#include "storage/cpu_device_storage.h"
#include "storage/gpu_device_storage.h"
#include "storage/pool_policy.h"
#include "storage/pooled_storage_manager.h"

namespace mxnet {
namespace storage {
namespace {

constexpr size_t kKiB = 1024;
constexpr size_t kMiB = 1024 * 1024;

// Host memory that reports a chosen total size, counts calls and can fail on demand.
class FakeDevice final : public DeviceStorage {
 public:
  explicit FakeDevice(size_t total = 0) : total_(total) {}
  void* Alloc(size_t size) override {
    ++allocs;
    if (fail_next > 0) {
      --fail_next;
      return nullptr;
    }
    return AlignedHostAlloc(size);
  }
  void Free(void* ptr) noexcept override {
    ++frees;
    AlignedHostFree(ptr);
  }
  size_t TotalMemory() override { return total_; }

  int allocs = 0;
  int frees = 0;
  int fail_next = 0;  // how many coming Alloc calls report out-of-memory

 private:
  size_t total_;
};

PoolPolicy Policy(PoolKind kind) {
  PoolPolicy p;
  p.kind = kind;
  return p;
}

// A manager over a FakeDevice; device() stays valid while the fixture lives.
struct Pool {
  explicit Pool(PoolPolicy policy, size_t total = 0) {
    auto dev = std::make_unique<FakeDevice>(total);
    device = dev.get();
    manager = std::make_unique<PooledStorageManager>(Context::CPU(), policy, std::move(dev));
  }
  Storage::Handle Alloc(size_t size) {
    Storage::Handle h;
    h.size = size;
    h.ctx = Context::CPU();
    manager->Alloc(&h);
    return h;
  }
  FakeDevice* device;
  std::unique_ptr<PooledStorageManager> manager;
};

bool Aligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % kStorageAlign == 0; }

// Sets environment variables for one test and restores a clean registry afterwards.
class ScopedEnv {
 public:
  void Set(const char* name, const char* value) {
    setenv(name, value, 1);
    names_.push_back(name);
    env::ResetCache();
  }
  ~ScopedEnv() {
    for (const std::string& n : names_) unsetenv(n.c_str());
    env::ResetCache();
  }

 private:
  std::vector<std::string> names_;
};

TEST(StorageTest, naive_pool_reuses_block_of_same_size) {
  Pool pool(Policy(PoolKind::kNaive));
  Storage::Handle a = pool.Alloc(1000);
  void* first = a.dptr;
  pool.manager->Free(a);
  Storage::Handle b = pool.Alloc(1000);
  EXPECT_EQ(b.dptr, first);
  EXPECT_EQ(pool.device->allocs, 1);
  EXPECT_EQ(pool.manager->BytesPooled(), 0u);
  pool.manager->Free(b);
}

TEST(StorageTest, naive_pool_rounds_to_page_multiple) {
  PoolPolicy p = Policy(PoolKind::kNaive);
  EXPECT_EQ(p.BlockSize(1), 4096u);
  EXPECT_EQ(p.BlockSize(4096), 4096u);
  EXPECT_EQ(p.BlockSize(4097), 8192u);
  p.page_size = 64;
  EXPECT_EQ(p.BlockSize(65), 128u);

  // Requests that round to the same block share it.
  Pool pool(Policy(PoolKind::kNaive));
  Storage::Handle a = pool.Alloc(1000);
  void* first = a.dptr;
  pool.manager->Free(a);
  Storage::Handle b = pool.Alloc(3000);
  EXPECT_EQ(b.dptr, first);
  EXPECT_EQ(pool.device->allocs, 1);
  pool.manager->Free(b);
}

TEST(StorageTest, naive_pool_rounds_large_to_multiple_of_large_alloc_round_size) {
  PoolPolicy p = Policy(PoolKind::kNaive);
  EXPECT_EQ(p.BlockSize(2 * kMiB), 2 * kMiB);
  EXPECT_EQ(p.BlockSize(2 * kMiB + 1), 4 * kMiB);
  EXPECT_EQ(p.BlockSize(5 * kMiB), 6 * kMiB);
  p.large_alloc_round_size = 1;  // documented way to disable it
  EXPECT_EQ(p.BlockSize(2 * kMiB + 1), 2 * kMiB + 4096);
}

TEST(StorageTest, round_pool_rounds_small_to_power_of_two) {
  PoolPolicy p = Policy(PoolKind::kRound);
  EXPECT_EQ(p.BlockSize(1), 4096u);  // never below the page size
  EXPECT_EQ(p.BlockSize(4097), 8192u);
  EXPECT_EQ(p.BlockSize(5000), 8192u);
  EXPECT_EQ(p.BlockSize(kMiB + 1), 2 * kMiB);
  EXPECT_EQ(p.BlockSize(16 * kMiB), 16 * kMiB);  // 2^24, the default cutoff
  p.page_size = 256;
  EXPECT_EQ(p.BlockSize(100), 256u);
  EXPECT_EQ(p.BlockSize(300), 512u);
}

TEST(StorageTest, round_pool_rounds_large_to_multiple_of_cutoff) {
  PoolPolicy p = Policy(PoolKind::kRound);
  EXPECT_EQ(p.BlockSize(16 * kMiB + 1), 32 * kMiB);
  EXPECT_EQ(p.BlockSize(33 * kMiB), 48 * kMiB);  // linear, not 64 MiB
  p.round_linear_cutoff = 20;
  EXPECT_EQ(p.BlockSize(kMiB), kMiB);
  EXPECT_EQ(p.BlockSize(kMiB + 1), 2 * kMiB);
  EXPECT_EQ(p.BlockSize(3 * kMiB + 5), 4 * kMiB);
  EXPECT_EQ(p.BlockSize(5 * kMiB - 1), 5 * kMiB);
}

TEST(StorageTest, round_pool_reuses_block_within_bucket) {
  Pool pool(Policy(PoolKind::kRound));
  Storage::Handle a = pool.Alloc(5000);
  void* first = a.dptr;
  pool.manager->Free(a);
  EXPECT_EQ(pool.manager->BytesPooled(), 8192u);
  Storage::Handle b = pool.Alloc(7000);
  EXPECT_EQ(b.dptr, first);
  EXPECT_EQ(pool.device->allocs, 1);
  pool.manager->Free(b);
}

TEST(StorageTest, unpooled_frees_immediately) {
  Pool pool(Policy(PoolKind::kUnpooled));
  EXPECT_EQ(pool.manager->policy().BlockSize(1000), 1000u);
  Storage::Handle a = pool.Alloc(1000);
  pool.manager->Free(a);
  EXPECT_EQ(pool.device->frees, 1);
  EXPECT_EQ(pool.manager->BytesPooled(), 0u);
  EXPECT_EQ(pool.manager->BytesInUse(), 0u);
  Storage::Handle b = pool.Alloc(1000);
  EXPECT_EQ(pool.device->allocs, 2);
  pool.manager->Free(b);
}

TEST(StorageTest, counters_track_in_use_and_pooled) {
  Pool pool(Policy(PoolKind::kNaive));
  Storage::Handle a = pool.Alloc(100);
  Storage::Handle b = pool.Alloc(200);
  EXPECT_EQ(pool.manager->BytesInUse(), 300u);  // requested sizes, not blocks
  EXPECT_EQ(pool.manager->BytesPooled(), 0u);
  EXPECT_EQ(pool.manager->PeakBytesInUse(), 300u);

  pool.manager->Free(a);
  EXPECT_EQ(pool.manager->BytesInUse(), 200u);
  EXPECT_EQ(pool.manager->BytesPooled(), 4096u);  // whole blocks
  EXPECT_EQ(pool.manager->PeakBytesInUse(), 300u);

  pool.manager->ResetPeak();
  EXPECT_EQ(pool.manager->PeakBytesInUse(), 200u);
  Storage::Handle c = pool.Alloc(50);  // reuses a's block
  EXPECT_EQ(pool.manager->BytesInUse(), 250u);
  EXPECT_EQ(pool.manager->BytesPooled(), 0u);
  EXPECT_EQ(pool.manager->PeakBytesInUse(), 250u);

  pool.manager->Free(b);
  pool.manager->Free(c);
  EXPECT_EQ(pool.manager->BytesInUse(), 0u);
  EXPECT_EQ(pool.manager->BytesPooled(), 8192u);
  EXPECT_EQ(pool.manager->PeakBytesInUse(), 250u);
}

TEST(StorageTest, release_all_empties_pool) {
  Pool pool(Policy(PoolKind::kNaive));
  Storage::Handle a = pool.Alloc(100);
  Storage::Handle b = pool.Alloc(10000);
  Storage::Handle c = pool.Alloc(100);
  pool.manager->Free(a);
  pool.manager->Free(b);
  EXPECT_EQ(pool.manager->BytesPooled(), 4096u + 12288u);
  pool.manager->ReleaseAll();
  EXPECT_EQ(pool.manager->BytesPooled(), 0u);
  EXPECT_EQ(pool.device->frees, 2);
  EXPECT_EQ(pool.manager->BytesInUse(), 100u);  // c is untouched
  Storage::Handle d = pool.Alloc(100);  // nothing cached any more: a fresh block
  EXPECT_EQ(pool.device->allocs, 4);
  pool.manager->Free(c);
  pool.manager->Free(d);
}

TEST(StorageTest, direct_free_bypasses_pool) {
  Pool pool(Policy(PoolKind::kNaive));
  Storage::Handle a = pool.Alloc(100);
  pool.manager->DirectFree(a);
  EXPECT_EQ(pool.device->frees, 1);
  EXPECT_EQ(pool.manager->BytesPooled(), 0u);
  EXPECT_EQ(pool.manager->BytesInUse(), 0u);
}

TEST(StorageTest, alignment_is_64_bytes) {
  for (PoolKind kind : {PoolKind::kNaive, PoolKind::kRound, PoolKind::kUnpooled}) {
    Pool pool(Policy(kind));
    std::vector<Storage::Handle> handles;
    for (size_t size : {1, 3, 63, 64, 65, 100, 1000, 4097, 100000}) {
      handles.push_back(pool.Alloc(size));
      EXPECT_TRUE(Aligned(handles.back().dptr)) << PoolPolicy{kind}.name() << " size " << size;
      std::memset(handles.back().dptr, 0xab, size);  // the whole request is writable
    }
    for (const Storage::Handle& h : handles) pool.manager->Free(h);
  }
  for (Context ctx : {Context::CPU(), Context::CPUPinned(0)}) {
    Storage::Handle h = Storage::Get()->Alloc(77, ctx);
    EXPECT_TRUE(Aligned(h.dptr)) << ctx;
    Storage::Get()->Free(h);
  }
}

TEST(StorageTest, zero_size_alloc) {
  Pool pool(Policy(PoolKind::kNaive));
  Storage::Handle h = pool.Alloc(0);
  EXPECT_EQ(h.dptr, nullptr);
  pool.manager->Free(h);
  EXPECT_EQ(pool.device->allocs, 0);
  EXPECT_EQ(pool.device->frees, 0);
  EXPECT_EQ(pool.manager->BytesInUse(), 0u);
  EXPECT_EQ(pool.manager->BytesPooled(), 0u);

  Storage* s = Storage::Get();
  const size_t before = s->BytesInUse(Context::CPU());
  Storage::Handle z = s->Alloc(0, Context::CPU());
  EXPECT_EQ(z.dptr, nullptr);
  s->Free(z);
  s->DirectFree(z);
  EXPECT_EQ(s->BytesInUse(Context::CPU()), before);
  // No device is touched for an empty request, not even a GPU in a build without CUDA.
  EXPECT_EQ(s->Alloc(0, Context::GPU(0)).dptr, nullptr);
}

TEST(StorageTest, gpu_without_cuda_raises) {
  if (BuiltWithCuda()) GTEST_SKIP() << "built with CUDA";
  try {
    Storage::Get()->Alloc(16, Context::GPU(0));
    FAIL() << "allocating on gpu(0) without CUDA did not raise";
  } catch (const dmlc::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("gpu(0)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("no CUDA support"), std::string::npos) << msg;
  }
  EXPECT_EQ(Storage::Get()->BytesInUse(Context::GPU(0)), 0u);
}

TEST(StorageTest, gpu_alloc_without_a_device_raises) {
  if (CudaDeviceCount() > 0) GTEST_SKIP() << "a GPU is present";
  try {
    Storage::Get()->Alloc(16, Context::GPU(0));
    FAIL() << "allocating on gpu(0) without a GPU did not raise";
  } catch (const dmlc::Error& e) {
    EXPECT_NE(std::string(e.what()).find("gpu(0)"), std::string::npos) << e.what();
  }
}

TEST(StorageTest, gpu_alloc_round_trip) {
  if (CudaDeviceCount() == 0) GTEST_SKIP() << "no GPU";
  Storage* s = Storage::Get();
  const Context gpu = Context::GPU(0);
  const size_t in_use = s->BytesInUse(gpu);
  Storage::Handle h = s->Alloc(kMiB + 1, gpu);
  ASSERT_NE(h.dptr, nullptr);
  EXPECT_TRUE(Aligned(h.dptr));
  EXPECT_EQ(s->BytesInUse(gpu), in_use + kMiB + 1);
  s->Free(h);
  EXPECT_EQ(s->BytesInUse(gpu), in_use);
  s->ReleaseAll(gpu);
  EXPECT_EQ(s->BytesPooled(gpu), 0u);
  const int n = CudaDeviceCount();
  EXPECT_THROW(s->Alloc(16, Context::GPU(n)), dmlc::Error);  // one past the last device
}

TEST(StorageTest, reserve_releases_cache) {
  PoolPolicy p = Policy(PoolKind::kNaive);
  p.reserve_percent = 50;
  Pool pool(p, /*total=*/kMiB);  // at most 512 KiB held before the cache goes
  Storage::Handle a = pool.Alloc(300 * kKiB);
  pool.manager->Free(a);
  EXPECT_EQ(pool.manager->BytesPooled(), 300 * kKiB);

  Storage::Handle b = pool.Alloc(100 * kKiB);  // 400 KiB held: within the limit, cache kept
  EXPECT_EQ(pool.manager->BytesPooled(), 300 * kKiB);
  EXPECT_EQ(pool.device->frees, 0);

  Storage::Handle c = pool.Alloc(200 * kKiB);  // would hold 600 KiB: cache released first
  EXPECT_EQ(pool.manager->BytesPooled(), 0u);
  EXPECT_EQ(pool.device->frees, 1);
  EXPECT_EQ(pool.manager->BytesInUse(), 300 * kKiB);
  pool.manager->Free(b);
  pool.manager->Free(c);
}

TEST(StorageTest, cache_of_unused_sizes_stays_within_twice_the_high_water_mark) {
  Pool pool(Policy(PoolKind::kNaive));
  // One block at a time, each of a new size: at most 10 MiB is ever in use at once.
  for (size_t mib = 1; mib <= 10; ++mib) pool.manager->Free(pool.Alloc(mib * kMiB));
  EXPECT_EQ(pool.manager->BytesInUse(), 0u);
  EXPECT_LE(pool.manager->BytesPooled(), 20 * kMiB);  // not the 55 MiB of every size
  EXPECT_GE(pool.manager->BytesPooled(), 10 * kMiB);  // the newest blocks stay
  EXPECT_GT(pool.device->frees, 0);
  // The oldest went first: the 10 MiB block is still cached and reused.
  const int allocs = pool.device->allocs;
  pool.manager->Free(pool.Alloc(10 * kMiB));
  EXPECT_EQ(pool.device->allocs, allocs);
}

TEST(StorageTest, repeating_sizes_are_served_from_the_cache) {
  Pool pool(Policy(PoolKind::kNaive));
  for (int round = 0; round < 3; ++round) {
    Storage::Handle a = pool.Alloc(3 * kMiB);
    pool.manager->Free(a);
    Storage::Handle b = pool.Alloc(2 * kMiB);
    Storage::Handle c = pool.Alloc(kMiB);
    pool.manager->Free(b);
    pool.manager->Free(c);
  }
  EXPECT_EQ(pool.device->allocs, 3);  // the first round's blocks serve the later rounds
  EXPECT_EQ(pool.device->frees, 0);
}

TEST(StorageTest, failed_alloc_releases_and_retries) {
  Pool pool(Policy(PoolKind::kNaive));
  Storage::Handle a = pool.Alloc(100);
  Storage::Handle b = pool.Alloc(10000);
  pool.manager->Free(a);
  pool.manager->Free(b);
  pool.device->fail_next = 1;
  Storage::Handle c = pool.Alloc(50000);
  ASSERT_NE(c.dptr, nullptr);
  EXPECT_EQ(pool.device->allocs, 4);  // a, b, the failed try, the retry
  EXPECT_EQ(pool.device->frees, 2);   // the cache went back before the retry
  EXPECT_EQ(pool.manager->BytesPooled(), 0u);
  EXPECT_EQ(pool.manager->BytesInUse(), 50000u);
  pool.manager->Free(c);
}

TEST(StorageTest, failed_retry_raises_out_of_memory_naming_device_and_size) {
  Pool pool(Policy(PoolKind::kNaive));
  Storage::Handle a = pool.Alloc(100);
  pool.manager->Free(a);
  pool.device->fail_next = 2;
  try {
    pool.Alloc(123456);
    FAIL() << "no error when the device stays out of memory";
  } catch (const dmlc::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("out of memory"), std::string::npos) << msg;
    EXPECT_NE(msg.find("cpu(0)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("123456"), std::string::npos) << msg;
  }
  EXPECT_EQ(pool.device->allocs, 3);
  EXPECT_EQ(pool.manager->BytesPooled(), 0u);
  EXPECT_EQ(pool.manager->BytesInUse(), 0u);
  Storage::Handle ok = pool.Alloc(100);  // the pool still works afterwards
  EXPECT_NE(ok.dptr, nullptr);
  pool.manager->Free(ok);
}

TEST(StorageTest, huge_request_raises_instead_of_wrapping) {
  for (PoolKind kind : {PoolKind::kNaive, PoolKind::kRound, PoolKind::kUnpooled}) {
    Pool pool(Policy(kind));
    EXPECT_THROW(pool.Alloc(SIZE_MAX - 10), dmlc::Error) << PoolPolicy{kind}.name();
  }
}

TEST(StorageTest, free_after_shutdown_goes_to_device) {
  Pool pool(Policy(PoolKind::kNaive));
  Storage::Handle a = pool.Alloc(100);
  Storage::Handle b = pool.Alloc(100);
  pool.manager->Free(a);
  pool.manager->Shutdown();
  EXPECT_EQ(pool.device->frees, 1);  // the cache is released
  pool.manager->Free(b);
  EXPECT_EQ(pool.device->frees, 2);  // and nothing is cached any more
  EXPECT_EQ(pool.manager->BytesPooled(), 0u);
  EXPECT_EQ(pool.manager->BytesInUse(), 0u);
}

TEST(StorageTest, concurrent_alloc_free_keeps_counters_exact) {
  for (PoolKind kind : {PoolKind::kNaive, PoolKind::kRound, PoolKind::kUnpooled}) {
    Pool pool(Policy(kind));
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&pool, t] {
        std::vector<Storage::Handle> live;
        for (int i = 0; i < 2000; ++i) {
          live.push_back(pool.Alloc(1 + (i * 37 + t * 11) % 9000));
          if (live.size() > 8) {
            pool.manager->Free(live.front());
            live.erase(live.begin());
          }
        }
        for (const Storage::Handle& h : live) pool.manager->Free(h);
      });
    }
    for (std::thread& th : threads) th.join();
    EXPECT_EQ(pool.manager->BytesInUse(), 0u) << PoolPolicy{kind}.name();
    pool.manager->ReleaseAll();
    EXPECT_EQ(pool.device->allocs, pool.device->frees) << PoolPolicy{kind}.name();
  }
}

TEST(StorageTest, pool_policy_reads_device_variables) {
  ScopedEnv env;
  env.Set("MXNET_CPU_MEM_POOL_TYPE", "Round");
  env.Set("MXNET_CPU_MEM_POOL_PAGE_SIZE", "8192");
  env.Set("MXNET_CPU_MEM_POOL_ROUND_LINEAR_CUTOFF", "21");
  env.Set("MXNET_CPU_MEM_POOL_RESERVE", "10");
  env.Set("MXNET_GPU_MEM_POOL_TYPE", "Unpooled");
  PoolPolicy cpu = PoolPolicy::ForDevice(Context::kCPU);
  EXPECT_STREQ(cpu.name(), "Round");
  EXPECT_EQ(cpu.page_size, 8192u);
  EXPECT_EQ(cpu.round_linear_cutoff, 21);
  EXPECT_EQ(cpu.reserve_percent, 10);
  EXPECT_STREQ(PoolPolicy::ForDevice(Context::kGPU).name(), "Unpooled");
  PoolPolicy pinned = PoolPolicy::ForDevice(Context::kCPUPinned);  // its own variables
  EXPECT_STREQ(pinned.name(), "Naive");
  EXPECT_EQ(pinned.page_size, 4096u);
  EXPECT_EQ(pinned.large_alloc_round_size, 2097152u);
  EXPECT_EQ(pinned.reserve_percent, 5);
  EXPECT_STREQ(PoolPolicy::ForDevice(Context::kCPUShared).name(), "Unpooled");
}

TEST(StorageTest, pool_policy_replaces_out_of_range_values) {
  ScopedEnv env;
  env.Set("MXNET_CPU_MEM_POOL_TYPE", "Round");
  env.Set("MXNET_CPU_MEM_POOL_PAGE_SIZE", "5000");  // not a power of two
  env.Set("MXNET_CPU_MEM_POOL_ROUND_LINEAR_CUTOFF", "40");
  env.Set("MXNET_CPU_MEM_POOL_RESERVE", "150");
  PoolPolicy p = PoolPolicy::ForDevice(Context::kCPU);
  EXPECT_EQ(p.page_size, 8192u);
  EXPECT_EQ(p.round_linear_cutoff, 24);
  EXPECT_EQ(p.reserve_percent, 100);
  env.Set("MXNET_CPU_MEM_POOL_PAGE_SIZE", "8");
  env.Set("MXNET_CPU_MEM_LARGE_ALLOC_ROUND_SIZE", "0");
  p = PoolPolicy::ForDevice(Context::kCPU);
  EXPECT_EQ(p.page_size, 4096u);
  EXPECT_EQ(p.large_alloc_round_size, 2097152u);
}

TEST(StorageTest, naive_storage_manager_variable_disables_pooling) {
  ScopedEnv env;
  env.Set("MXNET_CPU_MEM_POOL_TYPE", "Round");
  env.Set("MXNET_USE_NAIVE_STORAGE_MANAGER", "1");
  for (auto dev : {Context::kCPU, Context::kCPUPinned, Context::kGPU}) {
    EXPECT_STREQ(PoolPolicy::ForDevice(dev).name(), "Unpooled");
  }
}

TEST(StorageTest, singleton_counts_per_device) {
  Storage* s = Storage::Get();
  EXPECT_EQ(s, Storage::_GetSharedRef().get());
  const Context cpu = Context::CPU();
  const size_t in_use = s->BytesInUse(cpu);
  s->ResetPeak(cpu);
  Storage::Handle a = s->Alloc(1000, cpu);
  Storage::Handle b = s->Alloc(24, Context::CPU(3));  // every cpu id shares the cpu pool
  EXPECT_EQ(s->BytesInUse(cpu), in_use + 1024);
  EXPECT_EQ(s->PeakBytesInUse(cpu), in_use + 1024);
  const size_t pinned_in_use = s->BytesInUse(Context::CPUPinned(0));
  Storage::Handle p = s->Alloc(10, Context::CPUPinned(0));
  EXPECT_EQ(s->BytesInUse(Context::CPUPinned(0)), pinned_in_use + 10);
  EXPECT_EQ(s->BytesInUse(cpu), in_use + 1024);
  s->Free(a);
  s->Free(b);
  s->Free(p);
  EXPECT_EQ(s->BytesInUse(cpu), in_use);
  s->ReleaseAll(cpu);
  EXPECT_EQ(s->BytesPooled(cpu), 0u);
  const std::string type = s->PoolType(cpu);
  EXPECT_TRUE(type == "Naive" || type == "Round" || type == "Unpooled") << type;
  EXPECT_STREQ(s->PoolType(Context(Context::kCPUShared, 0)), "Unpooled");
}

TEST(StorageTest, singleton_rejects_bad_contexts) {
  Storage* s = Storage::Get();
  EXPECT_THROW(s->Alloc(8, Context(static_cast<Context::DeviceType>(4), 0)), dmlc::Error);
  EXPECT_THROW(s->Alloc(8, Context::CPUPinned(1000)), dmlc::Error);
  Storage::Handle stray;
  stray.dptr = &stray;
  stray.size = 8;
  stray.ctx = Context::CPUPinned(63);  // nothing was ever allocated there
  EXPECT_THROW(s->Free(stray), dmlc::Error);
}

// Frees a block from a static destructor, after the storage's own statics have shut it down
// (this object is constructed before the first Storage::Get(), so it is destroyed after).
// A crash here fails the test binary at exit.
struct FreedAtExit {
  Storage::Handle handle;
  ~FreedAtExit() {
    if (handle.dptr) Storage::Get()->Free(handle);
  }
} freed_at_exit;

TEST(StorageTest, free_after_storage_shutdown_is_safe) {
  freed_at_exit.handle = Storage::Get()->Alloc(4096, Context::CPU());
  ASSERT_NE(freed_at_exit.handle.dptr, nullptr);
}

}  // namespace
}  // namespace storage
}  // namespace mxnet

TEST(StorageTest, cpu_device_reports_system_available_memory) {
  mxnet::storage::CPUDeviceStorage cpu;
  size_t available = 0;
  ASSERT_TRUE(cpu.FreeMemory(&available));  // Linux: /proc/meminfo
  EXPECT_GT(available, 0u);
  EXPECT_LE(available, cpu.TotalMemory());
}
