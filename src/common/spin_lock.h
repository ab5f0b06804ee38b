// A spin lock for critical sections of a few instructions that are rarely contended.
#ifndef MXNET_COMMON_SPIN_LOCK_H_
#define MXNET_COMMON_SPIN_LOCK_H_

#include <atomic>
#include <thread>

namespace mxnet {
namespace common {

/*!
 * \brief Uncontended, lock() is one atomic exchange and unlock() one store, where a mutex
 *  costs two calls into libc. A waiter yields its CPU while the lock is held, so a holder
 *  that was preempted gets to run. Use it only where the holder does a few loads and stores
 *  and never blocks (no allocation of unbounded time, no I/O, no other lock of unbounded wait).
 *  Meets BasicLockable, for std::lock_guard.
 */
class SpinLock {
 public:
  void lock() {
    while (locked_.exchange(true, std::memory_order_acquire)) {
      while (locked_.load(std::memory_order_relaxed)) std::this_thread::yield();
    }
  }
  void unlock() { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};

}  // namespace common
}  // namespace mxnet

#endif  // MXNET_COMMON_SPIN_LOCK_H_
