/*
 * Classify inputs with an exported model through the C predict API (mxnet/c_predict_api.h).
 *
 *   image_classification_predict PREFIX EPOCH INPUT [options]
 *
 * PREFIX-symbol.json and PREFIX-NNNN.params (NNNN = EPOCH) are what HybridBlock.export or
 * Module.save_checkpoint write. INPUT is either
 *   - an MXNet .nd/.params file (mx.nd.save): its first array is the whole input batch, e.g.
 *     (N, C, H, W), read with MXNDListCreate; or
 *   - a binary PGM (P5, gray) or PPM (P6, RGB) image, resized (nearest pixel) to --shape.
 * Options:
 *   --top-k K        classes printed per sample (default 5)
 *   --synset FILE    one label per line, printed beside the class index
 *   --shape C,H,W    the model's input shape for an image input (default 3,224,224)
 *   --mean M         value (or "R,G,B" values) subtracted from each pixel (default 0)
 *   --scale S        factor applied after the mean (default 1)
 *   --input-name N   the model's input (default "data")
 * Prints the input and output shapes, then per sample "sample I top R: class C score S".
 * Plain C99; exits 1 with MXGetLastError()'s message when a call fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mxnet/c_predict_api.h>

#define CHECK_MX(call)                                                        \
  do {                                                                        \
    if ((call) != 0) {                                                        \
      fprintf(stderr, "error: %s failed: %s\n", #call, MXGetLastError());     \
      exit(1);                                                                \
    }                                                                         \
  } while (0)

static void die(const char* what, const char* detail) {
  fprintf(stderr, "error: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  exit(1);
}

static void* xmalloc(size_t n) {
  void* p = malloc(n ? n : 1);
  if (!p) die("out of memory", NULL);
  return p;
}

/* The whole file in a buffer (NUL-terminated); *size gets its length. */
static char* read_file(const char* path, long* size) {
  FILE* f = fopen(path, "rb");
  char* buf;
  long n;
  if (!f) die("cannot open", path);
  if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
    die("cannot read", path);
  }
  buf = (char*)xmalloc((size_t)n + 1);
  if (fread(buf, 1, (size_t)n, f) != (size_t)n) die("cannot read", path);
  buf[n] = '\0';
  fclose(f);
  *size = n;
  return buf;
}

static int ends_with(const char* s, const char* suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Up to max comma-separated numbers; returns how many were read. */
static int parse_list(const char* text, double* out, int max) {
  int n = 0;
  char* end;
  while (n < max) {
    out[n] = strtod(text, &end);
    if (end == text) break;
    ++n;
    if (*end != ',') break;
    text = end + 1;
  }
  return n;
}

/* The next header number of a PGM/PPM file, skipping blanks and # comments. */
static long pnm_number(const unsigned char* buf, long size, long* pos) {
  long v = 0;
  int digits = 0;
  while (*pos < size) {
    if (buf[*pos] == '#') {
      while (*pos < size && buf[*pos] != '\n') ++*pos;
    } else if (buf[*pos] == ' ' || buf[*pos] == '\t' || buf[*pos] == '\r' || buf[*pos] == '\n') {
      ++*pos;
    } else {
      break;
    }
  }
  while (*pos < size && buf[*pos] >= '0' && buf[*pos] <= '9') {
    v = v * 10 + (buf[*pos] - '0');
    ++*pos;
    ++digits;
  }
  if (!digits) die("malformed PGM/PPM header", NULL);
  return v;
}

/*
 * A binary PGM/PPM image as one (1, C, H, W) float input: nearest-pixel resize to H x W,
 * gray replicated or RGB averaged when the channel counts differ, then (pixel - mean) * scale.
 */
static float* load_image(const char* path, const int* chw, const double* mean, int n_mean,
                         double scale) {
  long size, pos = 2, width, height, maxval;
  unsigned char* buf = (unsigned char*)read_file(path, &size);
  int img_c, c, y, x;
  float* data;
  if (size < 2 || buf[0] != 'P' || (buf[1] != '5' && buf[1] != '6')) {
    die("not a binary PGM (P5) or PPM (P6) image", path);
  }
  img_c = buf[1] == '5' ? 1 : 3;
  width = pnm_number(buf, size, &pos);
  height = pnm_number(buf, size, &pos);
  maxval = pnm_number(buf, size, &pos);
  ++pos; /* the single blank after maxval */
  if (maxval <= 0 || maxval > 255) die("only 8-bit PGM/PPM images are supported", path);
  if (width <= 0 || height <= 0 || pos + width * height * img_c > size) {
    die("truncated PGM/PPM image", path);
  }
  data = (float*)xmalloc(sizeof(float) * (size_t)chw[0] * chw[1] * chw[2]);
  for (c = 0; c < chw[0]; ++c) {
    double m = n_mean == 0 ? 0.0 : mean[n_mean == 1 ? 0 : c % n_mean];
    for (y = 0; y < chw[1]; ++y) {
      long sy = (long)y * height / chw[1];
      for (x = 0; x < chw[2]; ++x) {
        long sx = (long)x * width / chw[2];
        const unsigned char* px = buf + pos + (sy * width + sx) * img_c;
        double v;
        if (img_c == chw[0]) {
          v = px[c];
        } else if (img_c == 1) {
          v = px[0];
        } else {
          v = (px[0] + px[1] + px[2]) / 3.0;
        }
        data[((size_t)c * chw[1] + y) * chw[2] + x] = (float)((v - m) * scale);
      }
    }
  }
  free(buf);
  return data;
}

/* Labels, one per line (NULL when no file is given); *count gets how many. */
static char** load_synset(const char* path, int* count) {
  long size, i;
  char* text;
  char** labels;
  int n = 0;
  *count = 0;
  if (!path) return NULL;
  text = read_file(path, &size);
  labels = (char**)xmalloc(sizeof(char*) * ((size_t)size + 1));
  labels[n++] = text;
  for (i = 0; i < size; ++i) {
    if (text[i] == '\n') {
      text[i] = '\0';
      if (i + 1 < size) labels[n++] = text + i + 1;
    }
  }
  for (i = 0; i < n; ++i) {
    size_t len = strlen(labels[i]);
    if (len && labels[i][len - 1] == '\r') labels[i][len - 1] = '\0';
  }
  *count = n;
  return labels;
}

static void print_shape(const char* what, const uint32_t* shape, uint32_t ndim) {
  uint32_t i;
  printf("%s shape (", what);
  for (i = 0; i < ndim; ++i) printf("%s%u", i ? "," : "", (unsigned)shape[i]);
  printf(")\n");
}

int main(int argc, char** argv) {
  const char *prefix, *input, *synset_path = NULL, *input_name = "data";
  int epoch, top_k = 5, chw[3] = {3, 224, 224}, n_mean = 0, i, n_labels;
  double mean[3] = {0, 0, 0}, scale = 1.0;
  char path[4096];
  char *json, *params, **labels;
  long json_size, params_size;
  float *in_data, *out_data;
  uint32_t in_shape[8], in_ndim, *out_shape, out_ndim, in_size = 1, out_size = 1, k, indptr[2];
  PredictorHandle pred = NULL;
  NDListHandle nd_list = NULL;

  if (argc < 4) {
    fprintf(stderr,
            "usage: %s PREFIX EPOCH INPUT(.nd|.params|.pgm|.ppm) [--top-k K] [--synset FILE]\n"
            "       [--shape C,H,W] [--mean M|R,G,B] [--scale S] [--input-name NAME]\n",
            argv[0]);
    return 2;
  }
  prefix = argv[1];
  epoch = atoi(argv[2]);
  input = argv[3];
  for (i = 4; i + 1 < argc; i += 2) {
    double v[3];
    if (strcmp(argv[i], "--top-k") == 0) {
      top_k = atoi(argv[i + 1]);
    } else if (strcmp(argv[i], "--synset") == 0) {
      synset_path = argv[i + 1];
    } else if (strcmp(argv[i], "--shape") == 0) {
      if (parse_list(argv[i + 1], v, 3) != 3) die("--shape expects C,H,W", argv[i + 1]);
      chw[0] = (int)v[0], chw[1] = (int)v[1], chw[2] = (int)v[2];
      if (chw[0] <= 0 || chw[1] <= 0 || chw[2] <= 0) die("--shape must be positive", argv[i + 1]);
    } else if (strcmp(argv[i], "--mean") == 0) {
      n_mean = parse_list(argv[i + 1], mean, 3);
      if (n_mean != 1 && n_mean != 3) die("--mean expects M or R,G,B", argv[i + 1]);
    } else if (strcmp(argv[i], "--scale") == 0) {
      scale = atof(argv[i + 1]);
    } else if (strcmp(argv[i], "--input-name") == 0) {
      input_name = argv[i + 1];
    } else {
      die("unknown option", argv[i]);
    }
  }
  if (i < argc) die("option without a value", argv[i]);
  if (top_k <= 0) die("--top-k must be positive", NULL);

  /* The input batch and its shape. */
  if (ends_with(input, ".nd") || ends_with(input, ".params")) {
    long size;
    char* bytes = read_file(input, &size);
    uint32_t n_arrays;
    const char* key;
    const float* data;
    const uint32_t* shape;
    CHECK_MX(MXNDListCreate(bytes, (int)size, &nd_list, &n_arrays));
    free(bytes);
    if (n_arrays == 0) die("the input file holds no array", input);
    CHECK_MX(MXNDListGet(nd_list, 0, &key, &data, &shape, &in_ndim));
    if (in_ndim == 0 || in_ndim > 8) die("the input array must have 1 to 8 dimensions", input);
    memcpy(in_shape, shape, sizeof(uint32_t) * in_ndim);
    for (k = 0; k < in_ndim; ++k) in_size *= in_shape[k];
    in_data = (float*)xmalloc(sizeof(float) * in_size);
    memcpy(in_data, data, sizeof(float) * in_size);
    CHECK_MX(MXNDListFree(nd_list));
  } else {
    in_ndim = 4;
    in_shape[0] = 1;
    for (k = 0; k < 3; ++k) in_shape[k + 1] = (uint32_t)chw[k];
    in_size = (uint32_t)chw[0] * chw[1] * chw[2];
    in_data = load_image(input, chw, mean, n_mean, scale);
  }
  print_shape("input", in_shape, in_ndim);

  /* The model. */
  snprintf(path, sizeof(path), "%s-symbol.json", prefix);
  json = read_file(path, &json_size);
  snprintf(path, sizeof(path), "%s-%04d.params", prefix, epoch);
  params = read_file(path, &params_size);
  indptr[0] = 0;
  indptr[1] = in_ndim;
  CHECK_MX(MXPredCreate(json, params, (int)params_size, 1 /* cpu */, 0, 1, &input_name, indptr,
                        in_shape, &pred));
  free(json);
  free(params);

  /* Predict. */
  CHECK_MX(MXPredSetInput(pred, input_name, in_data, in_size));
  CHECK_MX(MXPredForward(pred));
  CHECK_MX(MXPredGetOutputShape(pred, 0, &out_shape, &out_ndim));
  print_shape("output", out_shape, out_ndim);
  for (k = 0; k < out_ndim; ++k) out_size *= out_shape[k];
  out_data = (float*)xmalloc(sizeof(float) * out_size);
  CHECK_MX(MXPredGetOutput(pred, 0, out_data, out_size));

  /* Top-k per sample (axis 0 is the batch; the rest are the classes). */
  labels = load_synset(synset_path, &n_labels);
  {
    uint32_t batch = out_ndim > 1 ? out_shape[0] : 1, classes = out_size / batch, s;
    char* taken = (char*)xmalloc(classes);
    for (s = 0; s < batch; ++s) {
      const float* row = out_data + (size_t)s * classes;
      int r;
      memset(taken, 0, classes);
      for (r = 0; r < top_k && (uint32_t)r < classes; ++r) {
        uint32_t best = classes, c;
        for (c = 0; c < classes; ++c) {
          if (!taken[c] && (best == classes || row[c] > row[best])) best = c;
        }
        taken[best] = 1;
        printf("sample %u top %d: class %u score %.6f", (unsigned)s, r + 1, (unsigned)best,
               row[best]);
        if (labels && (int)best < n_labels) printf(" label %s", labels[best]);
        printf("\n");
      }
    }
    free(taken);
  }

  CHECK_MX(MXPredFree(pred));
  if (labels) {
    free(labels[0]);
    free(labels);
  }
  free(in_data);
  free(out_data);
  return 0;
}
