// Free-list pools for the engine's small per-operation objects, with a short per-thread cache.
#ifndef MXNET_ENGINE_OBJECT_POOL_H_
#define MXNET_ENGINE_OBJECT_POOL_H_

#include <memory>
#include <mutex>
#include <vector>

namespace mxnet {
namespace engine {

/*!
 * \brief Recycles objects of type T, which must have a `T* pool_next` member.
 *
 * Objects are default-constructed once, in chunks, and never destroyed: callers reset the
 * fields they use before Delete. Each thread keeps up to kCacheMax free objects in a
 * trivially destructible thread_local list, so New/Delete usually take no lock; the shared
 * list behind it is never destroyed, so threads that run during static destruction are safe.
 */
template <typename T>
class ObjectPool {
 public:
  static T* New() {
    Cache& c = cache_;
    if (c.head == nullptr) Refill(&c);
    T* p = c.head;
    c.head = p->pool_next;
    --c.size;
    p->pool_next = nullptr;
    return p;
  }

  static void Delete(T* p) {
    Cache& c = cache_;
    p->pool_next = c.head;
    c.head = p;
    if (++c.size > kCacheMax) Spill(&c, kBatch);
  }

  /*! \brief Give this thread's cached objects back to the shared list (at thread exit). */
  static void FlushThreadCache() { Spill(&cache_, cache_.size); }

  /*! \brief Hold the shared list across fork() so the child never inherits it locked. */
  static void LockForFork() { Shared().mu.lock(); }
  static void UnlockAfterFork() { Shared().mu.unlock(); }

 private:
  static constexpr int kCacheMax = 256;
  static constexpr int kBatch = 64;
  static constexpr int kChunk = 256;

  struct Cache {
    T* head;
    int size;
  };
  struct SharedList {
    std::mutex mu;
    T* head{nullptr};
    std::vector<std::unique_ptr<T[]>> chunks;
  };

  static SharedList& Shared() {
    static SharedList* shared = new SharedList();  // never destroyed, see class comment
    return *shared;
  }

  static void Refill(Cache* c) {
    SharedList& s = Shared();
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.head == nullptr) {
      s.chunks.push_back(std::make_unique<T[]>(kChunk));
      T* chunk = s.chunks.back().get();
      for (int i = 0; i < kChunk; ++i) {
        chunk[i].pool_next = s.head;
        s.head = &chunk[i];
      }
    }
    for (int i = 0; i < kBatch && s.head != nullptr; ++i) {
      T* p = s.head;
      s.head = p->pool_next;
      p->pool_next = c->head;
      c->head = p;
      ++c->size;
    }
  }

  static void Spill(Cache* c, int n) {
    if (n <= 0) return;
    SharedList& s = Shared();
    std::lock_guard<std::mutex> lock(s.mu);
    for (int i = 0; i < n && c->head != nullptr; ++i) {
      T* p = c->head;
      c->head = p->pool_next;
      --c->size;
      p->pool_next = s.head;
      s.head = p;
    }
  }

  static thread_local Cache cache_;
};

template <typename T>
thread_local typename ObjectPool<T>::Cache ObjectPool<T>::cache_ = {nullptr, 0};

}  // namespace engine
}  // namespace mxnet

#endif  // MXNET_ENGINE_OBJECT_POOL_H_
