/*
 * Linear regression trained through MXNet's C API alone (C99): arrays, operators invoked by
 * name, autograd and a few steps of gradient descent.
 *
 * Model: pred = sum(X * w, axis=1) + b, loss = mean((pred - y)^2), fitted to data made from
 * w = (2, -3), b = 0.5. Build: see README.md in this folder.
 */
#include <mxnet/c_api.h>

#include <stdio.h>
#include <stdlib.h>

/* Every C API call returns 0 or -1; on -1 print the library's message and stop. */
#define CHECK_CALL(call)                                                              \
  do {                                                                                \
    if ((call) != 0) {                                                                \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,            \
              MXGetLastError());                                                      \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

enum { kCPU = 1, kFloat32 = 0, kGradWrite = 1 };
enum { N = 8, D = 2, STEPS = 60 };

/* A float32 CPU array of the given shape filled from data (NULL leaves it uninitialized). */
static NDArrayHandle make_array(const mx_uint* shape, mx_uint ndim, const float* data) {
  NDArrayHandle h = NULL;
  size_t size = 1;
  mx_uint i;
  CHECK_CALL(MXNDArrayCreateEx(shape, ndim, kCPU, 0, 0, kFloat32, &h));
  for (i = 0; i < ndim; ++i) size *= shape[i];
  if (data != NULL) CHECK_CALL(MXNDArraySyncCopyFromCPU(h, data, size));
  return h;
}

static OpHandle op(const char* name) {
  OpHandle h = NULL;
  CHECK_CALL(NNGetOpHandle(name, &h));
  return h;
}

/* Run a one-output operator; the returned handle belongs to the caller. */
static NDArrayHandle invoke(const char* name, int num_inputs, NDArrayHandle* inputs,
                            int num_params, const char** keys, const char** vals) {
  int num_outputs = 0;
  NDArrayHandle* outputs = NULL; /* NULL: let the library allocate the outputs */
  CHECK_CALL(MXImperativeInvoke(op(name), num_inputs, inputs, &num_outputs, &outputs,
                                num_params, keys, vals));
  if (num_outputs != 1) {
    fprintf(stderr, "%s: expected 1 output, got %d\n", name, num_outputs);
    exit(1);
  }
  return outputs[0]; /* copy the handle out before the next invoke reuses the array */
}

/* Run a one-output operator writing into an existing array. */
static void invoke_into(const char* name, int num_inputs, NDArrayHandle* inputs,
                        NDArrayHandle out) {
  int num_outputs = 1;
  NDArrayHandle* outputs = &out;
  CHECK_CALL(MXImperativeInvoke(op(name), num_inputs, inputs, &num_outputs, &outputs, 0, NULL,
                                NULL));
}

/* loss = mean((sum(X * w, axis=1) + b - y)^2); frees its intermediates. */
static NDArrayHandle forward(NDArrayHandle x, NDArrayHandle y, NDArrayHandle w,
                             NDArrayHandle b) {
  const char* axis_key[] = {"axis"};
  const char* axis_val[] = {"1"};
  const char* scale_key[] = {"scalar"};
  const char* scale_val[] = {"0.125"}; /* 1 / N */
  NDArrayHandle in[2], xw, rows, pred, diff, sq, total, loss;

  in[0] = x; in[1] = w;
  xw = invoke("broadcast_mul", 2, in, 0, NULL, NULL);       /* (N, D) */
  in[0] = xw;
  rows = invoke("sum", 1, in, 1, axis_key, axis_val);        /* (N,) */
  in[0] = rows; in[1] = b;
  pred = invoke("broadcast_add", 2, in, 0, NULL, NULL);     /* (N,) */
  in[0] = pred; in[1] = y;
  diff = invoke("broadcast_sub", 2, in, 0, NULL, NULL);
  in[0] = diff; in[1] = diff;
  sq = invoke("broadcast_mul", 2, in, 0, NULL, NULL);
  in[0] = sq;
  total = invoke("sum", 1, in, 0, NULL, NULL);              /* (1,) */
  in[0] = total;
  loss = invoke("_mul_scalar", 1, in, 1, scale_key, scale_val);

  /* The recorded graph keeps what backward needs; our handles can go. */
  CHECK_CALL(MXNDArrayFree(xw));
  CHECK_CALL(MXNDArrayFree(rows));
  CHECK_CALL(MXNDArrayFree(pred));
  CHECK_CALL(MXNDArrayFree(diff));
  CHECK_CALL(MXNDArrayFree(sq));
  CHECK_CALL(MXNDArrayFree(total));
  return loss;
}

/* param -= lr * grad, in place, outside of autograd recording. */
static void sgd_step(NDArrayHandle param, NDArrayHandle grad, const char* lr) {
  const char* key[] = {"scalar"};
  const char* val[1];
  NDArrayHandle in[2], step;
  val[0] = lr;
  in[0] = grad;
  step = invoke("_mul_scalar", 1, in, 1, key, val);
  in[0] = param; in[1] = step;
  invoke_into("broadcast_sub", 2, in, param);
  CHECK_CALL(MXNDArrayFree(step));
}

static float absf(float v) { return v < 0.f ? -v : v; }

static float read_scalar(NDArrayHandle h) {
  float v = 0.f;
  CHECK_CALL(MXNDArraySyncCopyToCPU(h, &v, 1));
  return v;
}

int main(void) {
  static const float x_data[N * D] = {1, 1, 1, -1, -1, 1, -1, -1, 2, 0, 0, 2, -2, 0, 0, -2};
  const float w_true[D] = {2.f, -3.f};
  const float b_true = 0.5f;
  float y_data[N], zeros[D] = {0.f, 0.f}, gw[D], gb, wv[D], bv;
  const mx_uint x_shape[] = {N, D}, y_shape[] = {N}, w_shape[] = {1, D}, b_shape[] = {1};
  NDArrayHandle x, y, w, b, grad_w, grad_b, loss, vars[2], grads[2], got_grad;
  mx_uint reqs[2] = {kGradWrite, kGradWrite};
  int version = 0, ndim = 0, step, prev = 0, i;
  const int* dims = NULL;
  void* data = NULL;
  bool recording = false;
  OpHandle bad = NULL;

  CHECK_CALL(MXGetVersion(&version));
  printf("version %d\n", version);
  CHECK_CALL(MXRandomSeed(42));

  for (i = 0; i < N; ++i) {
    y_data[i] = x_data[i * D] * w_true[0] + x_data[i * D + 1] * w_true[1] + b_true;
  }
  x = make_array(x_shape, 2, x_data);
  y = make_array(y_shape, 1, y_data);
  w = make_array(w_shape, 2, zeros);
  b = make_array(b_shape, 1, zeros);
  grad_w = make_array(w_shape, 2, NULL);
  grad_b = make_array(b_shape, 1, NULL);

  CHECK_CALL(MXNDArrayGetShapeEx(x, &ndim, &dims));
  printf("x shape (%d,%d) ndim %d\n", dims[0], dims[1], ndim);

  vars[0] = w; vars[1] = b;
  grads[0] = grad_w; grads[1] = grad_b;
  CHECK_CALL(MXAutogradMarkVariables(2, vars, reqs, grads));

  for (step = 0; step < STEPS; ++step) {
    CHECK_CALL(MXAutogradSetIsRecording(1, &prev));
    CHECK_CALL(MXAutogradSetIsTraining(1, NULL));
    CHECK_CALL(MXAutogradIsRecording(&recording));
    if (!recording) {
      fprintf(stderr, "autograd is not recording\n");
      return 1;
    }
    loss = forward(x, y, w, b);
    CHECK_CALL(MXAutogradSetIsRecording(prev, NULL));
    CHECK_CALL(MXAutogradSetIsTraining(0, NULL));
    /* Head gradient NULL means ones; gradients land in grad_w / grad_b. */
    CHECK_CALL(MXAutogradBackwardEx(1, &loss, NULL, 0, NULL, 0, 0, 1, NULL, NULL));

    if (step == 0) {
      /* The gradient buffer is also reachable from the variable itself. */
      CHECK_CALL(MXNDArrayGetGrad(w, &got_grad));
      if (got_grad == NULL) {
        fprintf(stderr, "w has no gradient buffer\n");
        return 1;
      }
      CHECK_CALL(MXNDArraySyncCopyToCPU(got_grad, gw, D));
      CHECK_CALL(MXNDArrayFree(got_grad));
      CHECK_CALL(MXNDArraySyncCopyToCPU(grad_b, &gb, 1));
      printf("initial loss %.6f\n", read_scalar(loss));
      printf("initial grad w0=%.6f w1=%.6f b=%.6f\n", gw[0], gw[1], gb);
    }
    if (step % 20 == 0 || step == STEPS - 1) {
      printf("step %d loss %.3e\n", step, read_scalar(loss));
    }
    CHECK_CALL(MXNDArrayFree(loss));
    sgd_step(w, grad_w, "0.2");
    sgd_step(b, grad_b, "0.2");
  }

  /* Raw data access does not wait for queued work: wait first. */
  CHECK_CALL(MXNDArrayWaitToRead(w));
  CHECK_CALL(MXNDArrayGetData(w, &data));
  wv[0] = ((const float*)data)[0];
  wv[1] = ((const float*)data)[1];
  bv = read_scalar(b);
  printf("final w0=%.6f w1=%.6f b=%.6f\n", wv[0], wv[1], bv);
  if (absf(wv[0] - w_true[0]) > 1e-3f || absf(wv[1] - w_true[1]) > 1e-3f ||
      absf(bv - b_true) > 1e-3f) {
    fprintf(stderr, "did not converge\n");
    return 1;
  }

  /* An error path: an unknown operator name gives -1 and a message, not a crash. */
  if (NNGetOpHandle("no_such_op", &bad) != -1) {
    fprintf(stderr, "NNGetOpHandle accepted an unknown operator\n");
    return 1;
  }
  printf("expected error: %s\n", MXGetLastError());

  CHECK_CALL(MXNDArrayFree(x));
  CHECK_CALL(MXNDArrayFree(y));
  CHECK_CALL(MXNDArrayFree(w));
  CHECK_CALL(MXNDArrayFree(b));
  CHECK_CALL(MXNDArrayFree(grad_w));
  CHECK_CALL(MXNDArrayFree(grad_b));
  CHECK_CALL(MXNDArrayWaitAll());
  CHECK_CALL(MXNotifyShutdown());
  printf("done\n");
  return 0;
}
