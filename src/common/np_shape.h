// The numpy-shape switch (MXNet's is_np_shape), kept low so operators can read it too.
#ifndef MXNET_COMMON_NP_SHAPE_H_
#define MXNET_COMMON_NP_SHAPE_H_

namespace mxnet {
namespace common {

/*! \brief The NumpyShape value (mxnet/base.h) this thread sees: kNumpyShapeGlobalOn when it
 *  is on for every thread, else this thread's own state. Imperative::is_np_shape fronts it. */
int NumpyShapeState();
/*! \brief Set a NumpyShape value (see Imperative::set_is_np_shape); returns 1 when it was on. */
int SetNumpyShapeState(int flag);

/*! \brief Whether this thread is running a graph's shape inference, where an operator may
 *  leave an output partly unknown (a 0 dim of a legacy shape argument) for the graph to
 *  fill, instead of refusing it as an imperative call must. */
bool InGraphShapeInference();

/*! \brief Marks the current thread as inside a graph's shape inference while it lives. */
class GraphShapeInferenceScope {
 public:
  GraphShapeInferenceScope();
  ~GraphShapeInferenceScope();
  GraphShapeInferenceScope(const GraphShapeInferenceScope&) = delete;
  GraphShapeInferenceScope& operator=(const GraphShapeInferenceScope&) = delete;

 private:
  bool saved_;
};

}  // namespace common
}  // namespace mxnet

#endif  // MXNET_COMMON_NP_SHAPE_H_
