// NDArray::Chunk: the memory of an array (values, and a sparse array's aux arrays) plus the
// engine variable that orders every access to it. Private to src/ndarray.
#ifndef MXNET_NDARRAY_NDARRAY_CHUNK_H_
#define MXNET_NDARRAY_NDARRAY_CHUNK_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "mxnet/ndarray.h"

namespace mxnet {

struct NDArray::Chunk {
  Storage::Handle shandle;
  VarHandle var{nullptr};
  Context ctx;
  size_t bytes{0};
  // Outputs of queued ops take memory only when the op runs (on an engine worker), so memory
  // stays bounded however far the caller runs ahead. Two readers of a never-written chunk may
  // race to allocate it: the mutex makes exactly one win.
  std::atomic<bool> delay_alloc{false};
  std::mutex alloc_mu;
  bool external{false};  // memory owned elsewhere, never freed here
  std::shared_ptr<void> keeper;  // keeps external memory alive until the chunk is deleted

  // Sparse storage: the values' shape and the aux arrays. Their shapes change when a kernel
  // writes the array (inside the engine operation ordering it); handles only grow.
  int stype{kDefaultStorage};
  int dtype{kFloat32};
  TShape storage_shape;
  std::vector<Storage::Handle> aux_handles;
  std::vector<TShape> aux_shapes;
  std::vector<int> aux_types;

  Chunk(size_t nbytes, Context c, bool delay) : ctx(c), bytes(nbytes), delay_alloc(delay) {
    var = Engine::Get()->NewVariable();
    if (!delay) Alloc();
  }
  Chunk(void* dptr, size_t nbytes, Context c, std::shared_ptr<void> keep)
      : ctx(c), bytes(nbytes), external(true), keeper(std::move(keep)) {
    shandle.dptr = dptr;
    shandle.size = nbytes;
    shandle.ctx = c;
    var = Engine::Get()->NewVariable();
  }
  // A sparse chunk: sizes in storage_shape/aux_shapes, memory at once unless delay.
  Chunk(int st, int dt, Context c, bool delay, TShape sshape, std::vector<TShape> ashapes,
        std::vector<int> atypes)
      : ctx(c), delay_alloc(delay), stype(st), dtype(dt), storage_shape(std::move(sshape)),
        aux_shapes(std::move(ashapes)), aux_types(std::move(atypes)) {
    aux_handles.resize(aux_shapes.size());
    var = Engine::Get()->NewVariable();
    if (!delay) Alloc();
  }
  void Alloc() {
    if (stype == kDefaultStorage) {
      shandle = Storage::Get()->Alloc(bytes, ctx);
    } else {
      Grow(&shandle, storage_shape.Size() * DTypeSize(dtype));
      for (size_t i = 0; i < aux_shapes.size(); ++i) {
        Grow(&aux_handles[i], aux_shapes[i].Size() * DTypeSize(aux_types[i]));
      }
    }
    delay_alloc.store(false, std::memory_order_release);
  }
  void AllocIfDelayed() {
    if (!delay_alloc.load(std::memory_order_acquire)) return;
    std::lock_guard<std::mutex> lock(alloc_mu);
    if (delay_alloc.load(std::memory_order_relaxed)) Alloc();
  }
  /*! \brief Make h hold at least nbytes (contents are not kept when it moves). */
  void Grow(Storage::Handle* h, size_t nbytes) {
    if (h->dptr != nullptr && h->size >= nbytes) return;
    if (h->dptr != nullptr) Storage::Get()->Free(*h);
    *h = Storage::Handle();
    if (nbytes > 0) *h = Storage::Get()->Alloc(nbytes, ctx);
  }
  ~Chunk() {
    std::vector<Storage::Handle> handles;
    // No op can allocate the chunk any more: every op holds a reference to it.
    if (!external && !delay_alloc.load()) {
      if (shandle.dptr != nullptr) handles.push_back(shandle);
      for (const Storage::Handle& h : aux_handles) {
        if (h.dptr != nullptr) handles.push_back(h);
      }
    }
    if (Engine::Get()->DeleteVariableIfIdle(ctx, var)) {  // nothing pending: free here
      for (const Storage::Handle& h : handles) Storage::Get()->Free(h);
      return;  // keeper goes with the chunk
    }
    // Free only after every pending operation on the chunk has run.
    Engine::Get()->DeleteVariable(
        [handles = std::move(handles), keep = std::move(keeper)](RunContext) mutable {
          for (const Storage::Handle& h : handles) Storage::Get()->Free(h);
          keep.reset();
        },
        ctx, var);
  }
};

}  // namespace mxnet

#endif  // MXNET_NDARRAY_NDARRAY_CHUNK_H_
