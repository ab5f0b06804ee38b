// The custom profiling objects of MXNet's Python API: Domain, Task, Frame, Event, Counter.
#ifndef MXNET_PROFILER_PROFILE_OBJECTS_H_
#define MXNET_PROFILER_PROFILE_OBJECTS_H_

#include <atomic>
#include <cstdint>
#include <string>

namespace mxnet {
namespace profiler {

/*! \brief Base of every object behind a ProfileHandle. */
struct ProfileObject {
  virtual ~ProfileObject() = default;
};

/*! \brief A named domain; its name is the category of what is created in it. */
struct ProfileDomain final : ProfileObject {
  explicit ProfileDomain(const std::string& name);
  const std::string* name;  // interned
};

/*! \brief Task, Frame or Event: a duration started and stopped by the user. */
struct ProfileDuration final : ProfileObject {
  ProfileDuration(const std::string* category, const std::string& name);
  void Start();
  void Stop();  // records one complete event (when recording); no-op unless started
  const std::string* category;
  const std::string* name;
  std::atomic<int64_t> start_ns{-1};
};

/*! \brief A counter; every change records its new value (when recording). */
struct ProfileCounter final : ProfileObject {
  ProfileCounter(const std::string* category, const std::string& name);
  void Set(uint64_t v);
  void Adjust(int64_t delta);
  const std::string* category;
  const std::string* name;
  std::atomic<int64_t> value{0};

 private:
  void Record(int64_t v);
};

/*!
 * \brief Record an instant marker. scope: "global", "process", "thread", "task" or "marker"
 *  (the last two as thread); anything else throws dmlc::Error.
 */
void SetMarker(const std::string* category, const std::string& name, const std::string& scope);

/*! \brief The category of Event objects (they have no domain). */
const std::string* EventCategory();

}  // namespace profiler
}  // namespace mxnet

#endif  // MXNET_PROFILER_PROFILE_OBJECTS_H_
