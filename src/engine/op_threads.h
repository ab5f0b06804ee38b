// How many OpenMP threads an operation run by an engine worker may use.
//
// An operation that forks an OpenMP thread per core while other threads need those cores
// waits for its slowest thread, which waits for a core: on two cores a Python training loop
// that keeps one core busy pushing made a small MLP's steps slower with two OpenMP threads
// than with one. So (MXNET_OMP_ADAPTIVE_THREADS) workers use one thread fewer while a frontend
// thread keeps pushing, and leave out the cores other processes kept busy recently.
#ifndef MXNET_ENGINE_OP_THREADS_H_
#define MXNET_ENGINE_OP_THREADS_H_

#include <cstdint>

namespace mxnet {
namespace engine {

/*! \brief Marks the calling thread as an engine worker (its pushes are not the frontend's). */
void MarkWorkerThread();
/*! \brief A push; from a frontend thread it means that thread is busy. */
void NoteFrontendPush();
/*! \brief A frontend thread blocks until operations finish: it needs no core meanwhile. */
void NoteFrontendWait();
/*! \brief In a worker, before it runs an operation: sets the OpenMP thread count for it. */
void UseOpThreads();
/*! \brief The thread count operations use at most (SetNumOMPThreads). */
void SetOpThreadsBase(int n);
int OpThreadsBase();

/*! \brief When a frontend thread last pushed (steady clock, ns); 0 while it waits. */
int64_t LastFrontendPushNs();
/*! \brief The rule: base threads, no more than the free cores, one fewer for a busy frontend,
 *  at least one. */
int OpThreadCount(int base, int free_cores, bool frontend_busy);

}  // namespace engine
}  // namespace mxnet

#endif  // MXNET_ENGINE_OP_THREADS_H_
