// NaiveEngine: runs every operation synchronously in the thread that pushes it.
#include "engine/threaded_engine.h"

namespace mxnet {
namespace engine {
namespace {

/*!
 * \brief Shares the dependency core so ordering and errors behave exactly as in the threaded
 * engines, but runs each ready op at once in the calling thread and, for an asynchronous
 * function, waits for its on_complete before returning. An op pushed from inside another
 * op's function runs when its inputs are ready (at the latest when that outer op completes).
 * WaitForVar/WaitForAll called from inside an op do not wait (nothing could be pending that
 * the caller does not itself hold up); they only rethrow.
 */
class NaiveEngine final : public ThreadedEngine {
 public:
  ~NaiveEngine() override { NotifyShutdown(); }
  const char* Type() const override { return "NaiveEngine"; }

  void WaitForVar(VarHandle var) override {
    if (InsideOp()) {
      Throw(var);
    } else {
      ThreadedEngine::WaitForVar(var);
    }
  }

  void WaitForAll() override {
    if (!InsideOp()) WaitForAllInternal();
    RethrowFirstRaised();
  }

 protected:
  bool CanBulk() const override { return false; }  // every op runs at its push anyway
  void PushToExecute(OprBlock* b, bool /*pusher_thread*/) override {
    std::atomic<bool> done{false};
    b->done = &done;
    ExecuteOprBlock(b);
    WaitUntilDone(&done);
  }
};

}  // namespace

std::unique_ptr<Engine> CreateNaiveEngine() { return std::make_unique<NaiveEngine>(); }

}  // namespace engine
}  // namespace mxnet
