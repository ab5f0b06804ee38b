// ImageRecordIter (and _v1, ImageRecordUInt8Iter, ImageRecordInt8Iter): batches of images
// from a RecordIO file. A producer thread walks the epoch's record order; each batch's records
// are read, decoded (OpenCV), augmented and normalized by preprocess_threads threads straight
// into the batch's NDArrays, which wait in a bounded queue of prefetch_buffer batches.
#if MXNET_USE_OPENCV
#include <dmlc/omp.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <fstream>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "io/image_augment.h"
#include "io/iter_registry.h"
#include "io/jpeg_window.h"
#include "io/mean_image.h"
#include "io/parallel_slots.h"
#include "io/prefetch_iter.h"
#include "io/recordio_index.h"
#include "mxnet/half.h"
#include "operator/tuple_args.h"

namespace mxnet {
namespace io {
namespace {

struct ImageRecParserParam : public dmlc::Parameter<ImageRecParserParam> {
  std::string path_imglist, path_imgrec, path_imgidx, aug_seq;
  int label_width;
  op::ShapeArg data_shape;
  int preprocess_threads;
  bool verbose;
  int num_parts, part_index, device_id;
  size_t shuffle_chunk_size;
  int shuffle_chunk_seed;
  dmlc::optional<int> seed_aug;
  DMLC_DECLARE_PARAMETER(ImageRecParserParam) {
    DMLC_DECLARE_FIELD(path_imglist).set_default("").describe(
        "Path to the image list (.lst) file. Generally created with tools/im2rec.py. Format "
        "(Tab separated): <index of record>\t<one or more labels>\t<relative path from root "
        "folder>.");
    DMLC_DECLARE_FIELD(path_imgrec).set_default("").describe(
        "Path to the image RecordIO (.rec) file or a directory path. Created with "
        "tools/im2rec.py.");
    DMLC_DECLARE_FIELD(path_imgidx).set_default("").describe(
        "Path to the image RecordIO index (.idx) file. Created with tools/im2rec.py.");
    DMLC_DECLARE_FIELD(aug_seq).set_default("aug_default").describe(
        "The augmenter names to represent sequence of augmenters to be applied, seperated by "
        "comma. Additional keyword parameters will be seen by these augmenters.");
    DMLC_DECLARE_FIELD(label_width).set_default(1).describe(
        "The number of labels per image.");
    DMLC_DECLARE_FIELD(data_shape).describe(
        "The shape of one output image in (channels, height, width) format.");
    DMLC_DECLARE_FIELD(preprocess_threads).set_default(4).describe(
        "The number of threads to do preprocessing.");
    DMLC_DECLARE_FIELD(verbose).set_default(true).describe(
        "If or not output verbose information.");
    DMLC_DECLARE_FIELD(num_parts).set_default(1).describe(
        "Virtually partition the data into these many parts.");
    DMLC_DECLARE_FIELD(part_index).set_default(0).describe(
        "The *i*-th virtual partition to be read.");
    DMLC_DECLARE_FIELD(device_id).set_default(0).describe(
        "The device id used to create context for internal NDArray. Setting device_id to -1 "
        "will create Context::CPU(0). Setting device_id to valid positive device id will "
        "create Context::CPUPinned(device_id). Default is 0.");
    DMLC_DECLARE_FIELD(shuffle_chunk_size).set_default(0).describe(
        "The data shuffle buffer size in MB. Only valid if shuffle is true.");
    DMLC_DECLARE_FIELD(shuffle_chunk_seed).set_default(0).describe(
        "The random seed for shuffling");
    DMLC_DECLARE_FIELD(seed_aug).set_default(dmlc::optional<int>()).describe(
        "Random seed for augmentations.");
  }
};
DMLC_REGISTER_PARAMETER(ImageRecParserParam);

struct ImageRecordParam : public dmlc::Parameter<ImageRecordParam> {
  bool shuffle;
  int seed;
  size_t batch_size;
  bool round_batch;
  DMLC_DECLARE_PARAMETER(ImageRecordParam) {
    DMLC_DECLARE_FIELD(shuffle).set_default(false).describe(
        "Whether to shuffle data randomly or not.");
    DMLC_DECLARE_FIELD(seed).set_default(0).describe("The random seed.");
    DMLC_DECLARE_FIELD(batch_size).describe("Batch size.");
    DMLC_DECLARE_FIELD(round_batch).set_default(true).describe(
        "Whether to use round robin to handle overflow batch or not.");
  }
};
DMLC_REGISTER_PARAMETER(ImageRecordParam);

struct ImageNormalizeParam : public dmlc::Parameter<ImageNormalizeParam> {
  bool mirror, rand_mirror;
  std::string mean_img;
  float mean_r, mean_g, mean_b, mean_a, std_r, std_g, std_b, std_a, scale;
  float max_random_contrast, max_random_illumination;
  DMLC_DECLARE_PARAMETER(ImageNormalizeParam) {
    DMLC_DECLARE_FIELD(mirror).set_default(false).describe(
        "Whether to mirror the image or not. If true, images are flipped along the horizontal "
        "axis.");
    DMLC_DECLARE_FIELD(rand_mirror).set_default(false).describe(
        "Whether to randomly mirror images or not. If true, 50% of the images will be "
        "randomly mirrored (flipped along the horizontal axis)");
    DMLC_DECLARE_FIELD(mean_img).set_default("").describe(
        "Filename of the mean image.");
    DMLC_DECLARE_FIELD(mean_r).set_default(0.0f).describe("The mean value to be subtracted on "
                                                          "the R channel");
    DMLC_DECLARE_FIELD(mean_g).set_default(0.0f).describe("The mean value to be subtracted on "
                                                          "the G channel");
    DMLC_DECLARE_FIELD(mean_b).set_default(0.0f).describe("The mean value to be subtracted on "
                                                          "the B channel");
    DMLC_DECLARE_FIELD(mean_a).set_default(0.0f).describe("The mean value to be subtracted on "
                                                          "the alpha channel");
    DMLC_DECLARE_FIELD(std_r).set_default(1.0f).describe("Augmentation Param: Standard "
                                                         "deviation on R channel.");
    DMLC_DECLARE_FIELD(std_g).set_default(1.0f).describe("Augmentation Param: Standard "
                                                         "deviation on G channel.");
    DMLC_DECLARE_FIELD(std_b).set_default(1.0f).describe("Augmentation Param: Standard "
                                                         "deviation on B channel.");
    DMLC_DECLARE_FIELD(std_a).set_default(1.0f).describe("Augmentation Param: Standard "
                                                         "deviation on Alpha channel.");
    DMLC_DECLARE_FIELD(scale).set_default(1.0f).describe(
        "Multiply the image with a scale value.");
    DMLC_DECLARE_FIELD(max_random_contrast).set_default(0.0f).describe(
        "Change the contrast with a value randomly chosen from ``[-max_random_contrast, "
        "max_random_contrast]``");
    DMLC_DECLARE_FIELD(max_random_illumination).set_default(0.0f).describe(
        "Change the illumination with a value randomly chosen from "
        "``[-max_random_illumination, max_random_illumination]``");
  }
};
DMLC_REGISTER_PARAMETER(ImageNormalizeParam);

/*! \brief The augmentation "epoch" of the pass that computes a missing mean_img. */
constexpr uint64_t kMeanImageEpoch = ~uint64_t(0) - 1;

/*! \brief How output pixels are produced: normalized floats, or raw uint8 / int8. */
enum class PixelMode { kNormalized, kUint8, kInt8 };

struct Batch {
  NDArray data, label;
  std::vector<uint64_t> index;
  int pad = 0;
};

class ImageRecordIter : public DataIter {
 public:
  ImageRecordIter(const IterKwargs& kwargs, PixelMode mode, const char* name)
      : mode_(mode), name_(name) {
    ParseIterArgs(kwargs, &parser_, &record_, &aug_param_, &prefetch_, &norm_);
    Check();
    aug_param_.data_shape = parser_.data_shape;
    augmenter_ = std::make_unique<DefaultImageAugmenter>(aug_param_);
    file_ = std::make_unique<RecordFile>(parser_.path_imgrec);
    std::vector<uint64_t> all = file_->Offsets(parser_.path_imgidx);
    const size_t n = all.size(), k = parser_.part_index, parts = parser_.num_parts;
    offsets_ = PartOfRecords(all, file_->size(), !parser_.path_imgidx.empty(), k, parts);
    CHECK(!offsets_.empty()) << name_ << ": part " << k << " of " << parts << " of '"
                             << parser_.path_imgrec << "' holds no record (" << n << " in all)";
    if (!parser_.path_imglist.empty()) LoadImageList();
    if (dtype_ != kUint8 && !norm_.mean_img.empty()) LoadMeanImage();
    if (parser_.verbose) {
      LOG(INFO) << name_ << ": " << offsets_.size() << " images in part " << k << " of "
                << parts << " of " << parser_.path_imgrec << ", " << Threads()
                << " decode threads";
    }
    producer_ = std::thread([this] { ProducerLoop(); });
  }

  ~ImageRecordIter() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (producer_.joinable()) producer_.join();
  }

  void BeforeFirst() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++epoch_;
      queue_.clear();
      error_ = nullptr;
    }
    cv_.notify_all();
  }

  bool Next() override {
    Batch batch;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] {
        return produced_epoch_ == epoch_ && (!queue_.empty() || epoch_done_ || error_);
      });
      if (queue_.empty()) {
        if (error_) {
          std::exception_ptr err = error_;
          error_ = nullptr;
          epoch_done_ = true;
          std::rethrow_exception(err);
        }
        return false;
      }
      batch = std::move(queue_.front());
      queue_.pop_front();
    }
    cv_.notify_all();
    data_ = std::move(batch.data);
    label_ = std::move(batch.label);
    index_ = std::move(batch.index);
    pad_ = batch.pad;
    return true;
  }

  const NDArray& Data() const override { return data_; }
  const NDArray& Label() const override { return label_; }
  const std::vector<uint64_t>& Index() const override { return index_; }
  int Pad() const override { return pad_; }

 private:
  void Check() {
    const TShape& s = parser_.data_shape;
    CHECK(s.ndim() == 3 && s[1] > 0 && s[2] > 0 && (s[0] == 1 || s[0] == 3 || s[0] == 4))
        << name_ << ": data_shape must be (channels, height, width) with 1, 3 or 4 channels, "
        << "given " << s;
    CHECK_GT(record_.batch_size, 0) << name_ << ": batch_size must be > 0";
    CHECK(!parser_.path_imgrec.empty()) << name_ << ": path_imgrec is required";
    CHECK_GE(parser_.label_width, 1) << name_ << ": label_width must be >= 1, given "
                                     << parser_.label_width;
    CHECK(parser_.num_parts >= 1 && parser_.part_index >= 0 &&
          parser_.part_index < parser_.num_parts)
        << name_ << ": part_index must be in [0, num_parts), given part_index="
        << parser_.part_index << " num_parts=" << parser_.num_parts;
    aug_passes_ = AugmenterPasses(parser_.aug_seq, "aug_default", name_);
    dtype_ = mode_ == PixelMode::kUint8 ? kUint8 : mode_ == PixelMode::kInt8 ? kInt8 : kFloat32;
    if (prefetch_.dtype.has_value()) {
      dtype_ = prefetch_.dtype.value();
      CHECK(dtype_ == kFloat32 || dtype_ == kFloat64 || dtype_ == kFloat16 || dtype_ == kUint8 ||
            dtype_ == kInt8)
          << name_ << ": dtype must be float32, float64, float16, uint8 or int8, given "
          << DTypeArgName(dtype_);
    }
  }

  int Threads() const { return std::max(1, parser_.preprocess_threads); }

  void LoadImageList() {
    std::ifstream in(parser_.path_imglist);
    CHECK(in.is_open()) << name_ << ": cannot open path_imglist '" << parser_.path_imglist << "'";
    std::string line;
    for (size_t lineno = 1; std::getline(in, line); ++lineno) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      std::istringstream fields(line);
      std::vector<std::string> cols;
      for (std::string c; std::getline(fields, c, '\t');) cols.push_back(c);
      CHECK(cols.size() >= 2 + static_cast<size_t>(parser_.label_width))
          << name_ << ": path_imglist '" << parser_.path_imglist << "' line " << lineno
          << " has " << (cols.size() < 2 ? 0 : cols.size() - 2) << " labels, label_width is "
          << parser_.label_width;
      std::vector<float> labels;
      for (int i = 0; i < parser_.label_width; ++i) labels.push_back(std::stof(cols[1 + i]));
      list_labels_[std::stoull(cols[0])] = std::move(labels);
    }
  }

  /*! \brief mean_img: loaded, or (missing file) the mean of this part's images as the
   *  iterator outputs them in float32 without a mean image, saved there. */
  void LoadMeanImage() {
    auto add_images = [this](std::vector<double>* sum) {
      const int saved_dtype = dtype_;
      dtype_ = kFloat32;
      std::vector<size_t> order(offsets_.size());
      std::iota(order.begin(), order.end(), 0);
      const size_t per_image = sum->size();
      for (size_t start = 0; start < order.size(); start += record_.batch_size) {
        Batch batch;
        MakeBatch(order, start, kMeanImageEpoch, &batch);
        const float* px = static_cast<const float*>(batch.data.data().dptr_);
        const size_t real = record_.batch_size - batch.pad;
        for (size_t i = 0; i < real * per_image; ++i) (*sum)[i % per_image] += px[i];
      }
      dtype_ = saved_dtype;
      return order.size();
    };
    mean_img_ = LoadOrCreateMeanImage(norm_.mean_img, parser_.data_shape, name_,
                                      parser_.verbose, add_images);
  }

  // ---------------------------------------------------------------- producer
  void ProducerLoop() {
    std::unique_lock<std::mutex> lock(mu_);
    uint64_t my_epoch = ~uint64_t(0);
    size_t cursor = 0;
    std::vector<size_t> order;
    while (true) {
      cv_.wait(lock, [&] {
        return stop_ || my_epoch != epoch_ ||
               (!epoch_done_ && !error_ && queue_.size() < std::max<size_t>(1, prefetch_.prefetch_buffer));
      });
      if (stop_) return;
      if (my_epoch != epoch_) {
        my_epoch = epoch_;
        produced_epoch_ = epoch_;
        epoch_done_ = false;
        cursor = 0;
        order = EpochOrder(offsets_.size(), record_.shuffle, record_.seed, my_epoch,
                           parser_.shuffle_chunk_size, parser_.shuffle_chunk_seed);
        continue;
      }
      if (cursor >= order.size()) {
        epoch_done_ = true;
        cv_.notify_all();
        continue;
      }
      lock.unlock();
      Batch batch;
      std::exception_ptr err;
      try {
        MakeBatch(order, cursor, my_epoch, &batch);
      } catch (...) {
        err = std::current_exception();
      }
      lock.lock();
      if (my_epoch != epoch_) continue;  // reset while producing: drop the stale batch
      cursor += record_.batch_size;
      if (err) {
        error_ = err;
      } else {
        queue_.push_back(std::move(batch));
      }
      cv_.notify_all();
    }
  }

  void MakeBatch(const std::vector<size_t>& order, size_t start, uint64_t epoch, Batch* out) {
    const size_t bs = record_.batch_size, n = order.size();
    const size_t real = std::min(bs, n - start);
    const TShape& s = parser_.data_shape;
    out->pad = static_cast<int>(bs - real);
    out->data = NDArray(TShape({static_cast<index_t>(bs), s[0], s[1], s[2]}), Context::CPU(),
                        false, dtype_);
    TShape lshape = parser_.label_width == 1 ? TShape({static_cast<index_t>(bs)})
                    : TShape({static_cast<index_t>(bs), parser_.label_width});
    out->label = NDArray(lshape, Context::CPU(), false, kFloat32);
    out->index.assign(bs, 0);
    std::vector<float> labels(bs * parser_.label_width, 0.f);
    void* data = out->data.data().dptr_;
    const int threads = static_cast<int>(std::min<size_t>(Threads(), bs));
    // slot i holds record order[(start + i) % n]: the last batch wraps to the epoch's start
    // (its `pad` says how many), with round_batch or not
    ForEachSlot(static_cast<int64_t>(bs), threads, [&](int64_t i) {
      const size_t rec = order[(start + i) % n];
      ProcessRecord(rec, epoch, i, data, &labels[i * parser_.label_width], &out->index[i]);
    });
    out->label.SyncCopyFromCPU(labels.data(), labels.size());
  }

  /*! \brief Read, decode, augment and write record rec into slot i of the batch. */
  void ProcessRecord(size_t rec, uint64_t epoch, int64_t slot, void* data, float* label,
                     uint64_t* index) const {
    thread_local std::string raw;
    const uint64_t offset = offsets_[rec];
    file_->Read(offset, &raw);
    const char* img = nullptr;
    size_t img_size = 0;
    auto where = [&] {
      std::ostringstream os;
      os << name_ << ": '" << parser_.path_imgrec << "' record at byte " << offset;
      return os.str();
    };
    ImageRecordHeader h = ParseImageRecord(raw, &img, &img_size, where());
    *index = h.id;
    auto listed = list_labels_.find(h.id);
    if (!list_labels_.empty()) {
      CHECK(listed != list_labels_.end()) << where() << ": image index " << h.id
                                          << " is not in path_imglist '"
                                          << parser_.path_imglist << "'";
      std::copy(listed->second.begin(), listed->second.end(), label);
    } else if (h.flag == 0) {
      CHECK_EQ(parser_.label_width, 1) << where() << ": the record has 1 label, label_width is "
                                       << parser_.label_width;
      label[0] = h.label;
    } else {
      CHECK_EQ(static_cast<int>(h.flag), parser_.label_width)
          << where() << ": the record has " << h.flag << " labels, label_width is "
          << parser_.label_width;
      std::copy(h.labels, h.labels + h.flag, label);
    }
    const int channels = static_cast<int>(parser_.data_shape[0]);
    CHECK(img_size > 0) << where() << ": the record holds no image";
    const uint32_t seed = static_cast<uint32_t>(
        parser_.seed_aug.has_value() ? parser_.seed_aug.value() : record_.seed);
    std::seed_seq seq{seed, static_cast<uint32_t>(epoch), static_cast<uint32_t>(rec),
                      static_cast<uint32_t>(rec >> 32)};
    AugRandom rng(seq);
    cv::Mat res;
    if (channels != 4 && aug_passes_ == 1 && augmenter_->PlainCrop()) {
      // decode only the crop window; an image smaller than data_shape is decoded whole
      bool cropped = false;
      auto pick = [&](int w, int h) {
        PixelWindow win{0, 0, w, h};
        cropped = augmenter_->PickCrop(w, h, &rng, &win.x, &win.y);
        if (cropped) {
          win.w = static_cast<int>(parser_.data_shape[2]);
          win.h = static_cast<int>(parser_.data_shape[1]);
        }
        return win;
      };
      cv::Mat window;
      if (DecodeJpegWindow(reinterpret_cast<const uint8_t*>(img), img_size, channels == 1, pick,
                           &window)) {
        res = cropped ? augmenter_->Photometric(window, &rng)
                      : augmenter_->Process(window, &rng, where());
      } else {
        rng.seed(seq);  // the fallback below draws from the start again
      }
    }
    if (res.empty()) {
      cv::Mat decoded = DecodeRecordImage(img, img_size, channels, where);
      res = augmenter_->Process(decoded, &rng, where());
      for (int pass = 1; pass < aug_passes_; ++pass) res = augmenter_->Process(res, &rng, where());
    }
    bool flip = norm_.mirror;
    float contrast = 1, illumination = 0;
    if (norm_.rand_mirror) flip = std::bernoulli_distribution(0.5)(rng);
    if (norm_.max_random_contrast > 0) {
      contrast += std::uniform_real_distribution<float>(-norm_.max_random_contrast,
                                                        norm_.max_random_contrast)(rng);
    }
    if (norm_.max_random_illumination > 0) {
      illumination = std::uniform_real_distribution<float>(-norm_.max_random_illumination,
                                                           norm_.max_random_illumination)(rng);
    }
    WritePixels(res, slot, flip, contrast, illumination, data);
  }

  /*! \brief Write an (H, W, C) BGR(A) 8-bit image as (C, H, W) RGB(A) into slot of the batch. */
  void WritePixels(const cv::Mat& img, int64_t slot, bool flip, float contrast,
                   float illumination, void* data) const {
    const int c = static_cast<int>(parser_.data_shape[0]);
    const int h = static_cast<int>(parser_.data_shape[1]), w = static_cast<int>(parser_.data_shape[2]);
    const size_t plane = size_t(h) * w, per_image = plane * c;
    static const int kBGRtoRGB[4] = {2, 1, 0, 3};
    const float mean[4] = {norm_.mean_r, norm_.mean_g, norm_.mean_b, norm_.mean_a};
    const float stdv[4] = {norm_.std_r, norm_.std_g, norm_.std_b, norm_.std_a};
    const bool use_mean_img = !mean_img_.empty();
    if (dtype_ == kFloat32 && !use_mean_img) {  // the common case, without per-pixel branches
      for (int k = 0; k < c; ++k) {
        const int src_k = c == 1 ? 0 : kBGRtoRGB[k];
        const float mul = norm_.scale / stdv[k] * contrast;
        const float add = (illumination - mean[k] * contrast) * norm_.scale / stdv[k];
        float* out = static_cast<float*>(data) + size_t(slot) * per_image + k * plane;
        for (int y = 0; y < h; ++y, out += w) {
          const uint8_t* row = img.ptr<uint8_t>(y) + src_k;
          if (flip) {
            for (int x = 0; x < w; ++x) out[x] = row[(w - 1 - x) * c] * mul + add;
          } else {
            for (int x = 0; x < w; ++x) out[x] = row[x * c] * mul + add;
          }
        }
      }
      return;
    }
    for (int k = 0; k < c; ++k) {
      const int src_k = c == 1 ? 0 : kBGRtoRGB[k];
      const float mul = norm_.scale / stdv[k];
      for (int y = 0; y < h; ++y) {
        const uint8_t* row = img.ptr<uint8_t>(y);
        const size_t base = size_t(slot) * per_image + k * plane + size_t(y) * w;
        for (int x = 0; x < w; ++x) {
          const uint8_t px = row[(flip ? w - 1 - x : x) * c + src_k];
          const size_t at = base + x;
          if (dtype_ == kUint8) {  // raw pixels, as MXNet 1.9.1
            static_cast<uint8_t*>(data)[at] = px;
            continue;
          }
          const float m = use_mean_img
                              ? mean_img_[k * plane + size_t(y) * w + (flip ? w - 1 - x : x)]
                              : mean[k];
          if (dtype_ == kInt8) {  // pixel minus the rounded mean, saturated, as MXNet 1.9.1
            const int v = px - static_cast<int>(std::round(m));
            static_cast<int8_t*>(data)[at] = static_cast<int8_t>(std::min(std::max(v, -128), 127));
            continue;
          }
          const float v = ((px - m) * contrast + illumination) * mul;
          switch (dtype_) {
            case kFloat32: static_cast<float*>(data)[at] = v; break;
            case kFloat64: static_cast<double*>(data)[at] = v; break;
            case kFloat16: static_cast<half_t*>(data)[at] = half_t(v); break;
            default: break;
          }
        }
      }
    }
  }

  PixelMode mode_;
  const char* name_;
  ImageRecParserParam parser_;
  ImageRecordParam record_;
  DefaultImageAugmentParam aug_param_;
  ImageNormalizeParam norm_;
  PrefetchParam prefetch_;
  int dtype_ = kFloat32;
  int aug_passes_ = 1;  // aug_seq "aug_default,aug_default" applies it twice
  std::unique_ptr<DefaultImageAugmenter> augmenter_;
  std::unique_ptr<RecordFile> file_;
  std::vector<uint64_t> offsets_;
  std::unordered_map<uint64_t, std::vector<float>> list_labels_;
  std::vector<float> mean_img_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Batch> queue_;
  uint64_t epoch_ = 0, produced_epoch_ = ~uint64_t(0);
  bool epoch_done_ = false, stop_ = false;
  std::exception_ptr error_;
  std::thread producer_;

  NDArray data_, label_;
  std::vector<uint64_t> index_;
  int pad_ = 0;
};

const char* kDoc =
    "Iterates on image RecordIO files (made with tools/im2rec.py).\n\n"
    "Reads batches of images from a .rec file, decodes them with OpenCV and applies the "
    "default augmentations (resize, rand_crop, random_resized_crop, rand_mirror, rotation, "
    "color jitter, ...) on ``preprocess_threads`` threads, then normalizes them as "
    "``((x - mean) * contrast + illumination) * scale / std`` per channel (RGB order). "
    "``num_parts``/``part_index`` split the records into contiguous parts; ``shuffle`` "
    "permutes this part's records every epoch (seeded by ``seed``); the last batch of an "
    "epoch is completed with records from the epoch's start and ``pad`` counts them.\n\n"
    "Example::\n\n"
    "  data_iter = mx.io.ImageRecordIter(path_imgrec='./sample.rec', data_shape=(3, 227, 227),\n"
    "                                    batch_size=4, resize=256)\n";

template <PixelMode mode>
DataIter* Create(const IterKwargs& kwargs, const char* name) {
  return new ImageRecordIter(kwargs, mode, name);
}

}  // namespace

namespace {

// Registers an image RecordIO iterator: the arguments they all take, and its factory.
template <PixelMode kMode>
DataIteratorReg& RegisterImageRecordIter(const char* name, const std::string& doc) {
  return ::dmlc::Registry<DataIteratorReg>::Get()
      ->__REGISTER__(name)
      .describe(doc)
      .add_arguments(ImageRecParserParam::__FIELDS__())
      .add_arguments(ImageRecordParam::__FIELDS__())
      .add_arguments(PrefetchParam::__FIELDS__())
      .add_arguments(DefaultImageAugmentParam::__FIELDS__())
      .add_arguments(ImageNormalizeParam::__FIELDS__())
      .set_body([name](const IterKwargs& kw) { return Create<kMode>(kw, name); });
}

[[maybe_unused]] DataIteratorReg& image_record_iter =
    RegisterImageRecordIter<PixelMode::kNormalized>("ImageRecordIter", kDoc);
[[maybe_unused]] DataIteratorReg& image_record_iter_v1 =
    RegisterImageRecordIter<PixelMode::kNormalized>(
        "ImageRecordIter_v1", std::string("(The same iterator as ImageRecordIter.) ") + kDoc);
[[maybe_unused]] DataIteratorReg& image_record_uint8_iter =
    RegisterImageRecordIter<PixelMode::kUint8>(
        "ImageRecordUInt8Iter",
        "Iterates on image RecordIO files like ImageRecordIter, giving the augmented pixels as "
        "uint8 without normalization.");
[[maybe_unused]] DataIteratorReg& image_record_uint8_iter_v1 =
    RegisterImageRecordIter<PixelMode::kUint8>("ImageRecordUInt8Iter_v1",
                                               "(The same iterator as ImageRecordUInt8Iter.)");
[[maybe_unused]] DataIteratorReg& image_record_int8_iter =
    RegisterImageRecordIter<PixelMode::kInt8>(
        "ImageRecordInt8Iter",
        "Iterates on image RecordIO files like ImageRecordIter, giving the augmented pixels "
        "minus the rounded mean (mean_r/g/b/a or mean_img) as saturated int8.");

}  // namespace

}  // namespace io
}  // namespace mxnet
#endif  // MXNET_USE_OPENCV
