// DecodeJpegWindow (see jpeg_window.h) over the libjpeg API of libjpeg-turbo (Debian
// libjpeg62-turbo-dev). libjpeg reports errors by longjmp, so the decoding runs in a function
// whose frame holds only plain data; the OpenCV image is allocated by the caller's frame.
#if MXNET_USE_OPENCV
#include "io/jpeg_window.h"

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <vector>

#include <jpeglib.h>
#include <opencv2/core.hpp>

namespace mxnet {
namespace io {
namespace {

struct ErrorManager {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
};

void OnError(j_common_ptr cinfo) {
  std::longjmp(reinterpret_cast<ErrorManager*>(cinfo->err)->jump, 1);
}
void OnMessage(j_common_ptr, int) {}  // warnings (corrupt data recovered) stay silent

/*! \brief Plain-data state of one decode, shared between the setjmp frame and its caller. */
struct Job {
  const uint8_t* data;
  size_t size;
  bool gray;
  const std::function<PixelWindow(int, int)>* pick;
  cv::Mat* out;
  std::vector<uint8_t>* row;  // one decoded (cropped) scanline
};

bool Decode(Job* job, jpeg_decompress_struct* cinfo) {
  ErrorManager err;
  cinfo->err = jpeg_std_error(&err.pub);
  err.pub.error_exit = OnError;
  err.pub.emit_message = OnMessage;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(cinfo);
    return false;
  }
  jpeg_create_decompress(cinfo);
  jpeg_mem_src(cinfo, job->data, static_cast<unsigned long>(job->size));  // NOLINT(runtime/int)
  if (jpeg_read_header(cinfo, TRUE) != JPEG_HEADER_OK) {
    jpeg_destroy_decompress(cinfo);
    return false;
  }
  const int channels = job->gray ? 1 : 3;
  cinfo->out_color_space = job->gray ? JCS_GRAYSCALE : JCS_EXT_BGR;
  const int width = static_cast<int>(cinfo->image_width);
  const int height = static_cast<int>(cinfo->image_height);
  PixelWindow win = (*job->pick)(width, height);
  if (win.x < 0 || win.y < 0 || win.w <= 0 || win.h <= 0 || win.x + win.w > width ||
      win.y + win.h > height) {
    jpeg_destroy_decompress(cinfo);
    return false;
  }
  jpeg_start_decompress(cinfo);
  // Chroma upsampling treats the decoded columns' edges as the image's edges, so decode one
  // iMCU (at most 32 pixels) more on each side than the window; crop_scanline then widens
  // that to iMCU boundaries.
  const int margin = 32;
  const int x0 = std::max(0, win.x - margin), x1 = std::min(width, win.x + win.w + margin);
  JDIMENSION xoff = static_cast<JDIMENSION>(x0), cw = static_cast<JDIMENSION>(x1 - x0);
  if (x1 - x0 < width) jpeg_crop_scanline(cinfo, &xoff, &cw);
  if (win.y > 0) jpeg_skip_scanlines(cinfo, static_cast<JDIMENSION>(win.y));
  job->out->create(win.h, win.w, job->gray ? CV_8UC1 : CV_8UC3);
  job->row->resize(static_cast<size_t>(cw) * channels);
  const size_t skip = static_cast<size_t>(win.x - static_cast<int>(xoff)) * channels;
  for (int r = 0; r < win.h; ++r) {
    JSAMPROW row = job->row->data();
    if (jpeg_read_scanlines(cinfo, &row, 1) != 1) {
      jpeg_destroy_decompress(cinfo);
      return false;
    }
    std::memcpy(job->out->ptr(r), job->row->data() + skip, static_cast<size_t>(win.w) * channels);
  }
  jpeg_abort_decompress(cinfo);  // the rows below the window are not needed
  jpeg_destroy_decompress(cinfo);
  return true;
}

}  // namespace

bool DecodeJpegWindow(const uint8_t* data, size_t size, bool gray,
                      const std::function<PixelWindow(int, int)>& pick, cv::Mat* out) {
  if (size < 4 || data[0] != 0xFF || data[1] != 0xD8) return false;
  thread_local std::vector<uint8_t> row;
  cv::Mat result;
  Job job{data, size, gray, &pick, &result, &row};
  jpeg_decompress_struct cinfo;
  if (!Decode(&job, &cinfo)) return false;
  *out = result;
  return true;
}

}  // namespace io
}  // namespace mxnet
#endif  // MXNET_USE_OPENCV
